//! [`JobQueue`] on [`SqliteStore`]: each call one transaction, every write a
//! `BEGIN IMMEDIATE` one (see [`SqliteStore`]), the statements in `jobs.rs`.

use std::time::Duration;

use agentgate_protocol::Envelope;
use jiff::{SignedDuration, Timestamp};

use super::{SqliteStore, jobs};
use crate::error::StoreError;
use crate::job_queue::JobQueue;
use crate::jobs::{
    CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, Heartbeat, JobCounts, JobCursor,
    JobFilter, JobOutcome, JobPage, JobRecord, LeaseToken, NewJob,
};

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
        self.read("list jobs", |tx| jobs::list(tx, filter, limit, cursor))
    }

    fn count_jobs(&self) -> Result<JobCounts, StoreError> {
        self.read("count jobs", |tx| jobs::count(tx))
    }
}

/// `now + lease`; a zero lease or one past the calendar is refused.
fn lease_end(now: Timestamp, lease: Duration) -> Result<Timestamp, StoreError> {
    let invalid = || StoreError::InvalidLease { duration: lease };
    if lease.is_zero() {
        return Err(invalid());
    }
    let lease = SignedDuration::try_from(lease).map_err(|_| invalid())?;
    now.checked_add(lease).map_err(|_| invalid())
}

/// 128 bits from the operating system's random source, in hex.
fn new_lease_token() -> Result<LeaseToken, StoreError> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| StoreError::Random {
        source: std::io::Error::from(e),
    })?;
    Ok(LeaseToken(
        bytes.iter().map(|b| format!("{b:02x}")).collect(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_ends_its_duration_after_now_and_a_useless_one_is_refused() {
        let now: Timestamp = "2026-05-01T12:00:00Z".parse().unwrap();
        let end = lease_end(now, Duration::from_millis(1500)).unwrap();
        assert_eq!(end, "2026-05-01T12:00:01.5Z".parse().unwrap());
        for useless in [Duration::ZERO, Duration::from_secs(u64::MAX)] {
            let err = lease_end(now, useless).unwrap_err();
            assert!(matches!(err, StoreError::InvalidLease { .. }), "{err}");
        }
    }

    #[test]
    fn lease_tokens_are_128_random_bits_in_hex() {
        let a = new_lease_token().unwrap();
        let b = new_lease_token().unwrap();
        assert_ne!(a, b);
        assert_eq!(a.expose().len(), 32);
        assert!(a.expose().bytes().all(|c| c.is_ascii_hexdigit()));
    }
}
