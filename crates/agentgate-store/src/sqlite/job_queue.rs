//! [`JobQueue`] on [`SqliteStore`]: each call one transaction, every write a
//! `BEGIN IMMEDIATE` one (see [`SqliteStore`]), the statements in `jobs.rs`.

use std::time::Duration;

use agentgate_protocol::Envelope;
use jiff::Timestamp;

use super::{SqliteStore, job_list, jobs, settle};
use crate::claim_next::{ClaimLimits, NextClaim};
use crate::error::StoreError;
use crate::job_queue::JobQueue;
use crate::jobs::{
    ActiveJobCount, CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, Heartbeat,
    JobCounts, JobCursor, JobFilter, JobOutcome, JobPage, JobRecord, LeaseToken, NewJob,
    PlannedFacts,
};
use crate::lease::{lease_end, new_lease_token};
use crate::queue_watch::QueueWatcher;
use crate::settle::Settlement;

impl JobQueue for SqliteStore {
    fn enqueue(&self, job: &NewJob, now: Timestamp) -> Result<Enqueued, StoreError> {
        crate::run_id::validate_run_id(&job.job_id)?;
        let (job, created) = self.write("enqueue job", |tx| jobs::enqueue(tx, job, now))?;
        Ok(Enqueued { job, created })
    }

    fn claim(
        &self,
        owner: &str,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let expires = lease_end(now, lease)?;
        let token = new_lease_token()?;
        let claimed = self.write("claim job", |tx| {
            jobs::claim(tx, owner, &token, expires, now)
        })?;
        Ok(claimed.map(|job| ClaimedJob { job, token }))
    }

    fn heartbeat(
        &self,
        job_id: &str,
        token: &LeaseToken,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Heartbeat, StoreError> {
        let expires = lease_end(now, lease)?;
        let cancel_requested = self.write("renew job lease", |tx| {
            jobs::heartbeat(tx, job_id, token, expires)
        })?;
        Ok(Heartbeat {
            lease_expires_at: expires,
            cancel_requested,
        })
    }

    fn finish(
        &self,
        job_id: &str,
        token: &LeaseToken,
        outcome: &JobOutcome,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.write("finish job", |tx| {
            jobs::finish(tx, job_id, token, outcome, now)
        })
    }

    fn settle(
        &self,
        job_id: &str,
        token: &LeaseToken,
        settlement: &Settlement,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.write("settle job", |tx| {
            settle::settle(tx, job_id, token, settlement, now)
        })
    }

    fn release(
        &self,
        job_id: &str,
        token: &LeaseToken,
        not_before: Timestamp,
        waiting_for: Option<&str>,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        let how = jobs::Requeue {
            not_before,
            waiting_for,
            refund: true,
            error: None,
        };
        self.write("release job", |tx| {
            jobs::requeue(tx, job_id, token, &how, now)
        })
    }

    fn retry(
        &self,
        job_id: &str,
        token: &LeaseToken,
        not_before: Timestamp,
        error: &str,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        let how = jobs::Requeue {
            not_before,
            waiting_for: None,
            refund: false,
            error: Some(error),
        };
        self.write("retry job", |tx| {
            jobs::requeue(tx, job_id, token, &how, now)
        })
    }

    fn claim_job(
        &self,
        job_id: &str,
        owner: &str,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        let expires = lease_end(now, lease)?;
        let token = new_lease_token()?;
        let claimed = self.write("claim job", |tx| {
            jobs::claim_one(tx, job_id, owner, &token, expires, now)
        })?;
        Ok(claimed.map(|job| ClaimedJob { job, token }))
    }

    fn claim_next(
        &self,
        owner: &str,
        lease: Duration,
        now: Timestamp,
        limits: &ClaimLimits,
    ) -> Result<NextClaim, StoreError> {
        let expires = lease_end(now, lease)?;
        let token = new_lease_token()?;
        let claimed = self.write("claim the next job", |tx| {
            super::claim_next::claim_next(tx, owner, &token, (expires, now), limits)
        })?;
        Ok(match claimed {
            super::claim_next::Claimed::Job(job) => {
                NextClaim::Claimed(Box::new(ClaimedJob { job: *job, token }))
            }
            super::claim_next::Claimed::WaitingForQuota { job_id, until } => {
                NextClaim::WaitingForQuota { job_id, until }
            }
            super::claim_next::Claimed::Nothing => NextClaim::Nothing,
        })
    }

    fn unplanned_jobs(&self, limit: usize) -> Result<Vec<JobRecord>, StoreError> {
        self.read("read unplanned jobs", |tx| {
            super::claim_next::unplanned(tx, limit)
        })
    }

    fn set_job_facts(&self, job_id: &str, facts: &PlannedFacts) -> Result<bool, StoreError> {
        self.write("store a job's planned facts", |tx| {
            super::claim_next::set_facts(tx, job_id, facts)
        })
    }

    fn cancel(
        &self,
        job_id: &str,
        envelope_if_queued: Option<&Envelope>,
        now: Timestamp,
    ) -> Result<CancelOutcome, StoreError> {
        self.write("cancel job", |tx| {
            jobs::cancel(tx, job_id, envelope_if_queued, now)
        })
    }

    fn expire_leases(
        &self,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Vec<ExpiredJob>, StoreError> {
        self.write("expire job leases", |tx| {
            jobs::expire_leases(tx, now, policy)
        })
    }

    fn expire_owner(
        &self,
        job_id: &str,
        owner: &str,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Option<ExpiredJob>, StoreError> {
        self.write("take back a job lease", |tx| {
            jobs::expire_owner(tx, job_id, owner, now, policy)
        })
    }

    fn get_job(&self, job_id: &str) -> Result<Option<JobRecord>, StoreError> {
        self.read("read job", |tx| jobs::get(tx, job_id))
    }

    fn list_jobs(
        &self,
        filter: &JobFilter,
        limit: usize,
        cursor: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError> {
        self.read("list jobs", |tx| job_list::list(tx, filter, limit, cursor))
    }

    fn count_jobs(&self) -> Result<JobCounts, StoreError> {
        self.read("count jobs", |tx| jobs::count(tx))
    }

    fn watch_queue(&self) -> Result<Option<QueueWatcher>, StoreError> {
        // One host: the process that changes the queue wakes its own
        // executor; other processes on the file poll.
        Ok(None)
    }

    fn count_active_jobs(&self) -> Result<Vec<ActiveJobCount>, StoreError> {
        self.read("count active jobs", |tx| jobs::count_active(tx))
    }
}
