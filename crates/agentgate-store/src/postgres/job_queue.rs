//! [`JobQueue`] on [`PgStore`]: every call but the cancel, the claim within
//! rules and the settle is one statement on a pooled connection (atomic on
//! its own, see `jobs.rs`); those are one transaction each.

use std::time::Duration;

use agentgate_protocol::Envelope;
use jiff::Timestamp;
use tokio_postgres::Client;

use super::{PgStore, idle, job_list, jobs, listen, settle};
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

impl JobQueue for PgStore {
    fn enqueue(&self, job: &NewJob, now: Timestamp) -> Result<Enqueued, StoreError> {
        crate::run_id::validate_run_id(&job.job_id)?;
        let job = job.clone();
        let (job, created) = self.call("enqueue job", move |client| {
            Box::pin(async move { jobs::enqueue(as_client(&client), &job, now).await })
        })?;
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
        let (owner, held) = (owner.to_owned(), token.clone());
        let claimed = self.call("claim job", move |client| {
            Box::pin(
                async move { jobs::claim(as_client(&client), &owner, &held, expires, now).await },
            )
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
        let (job_id, token) = (job_id.to_owned(), token.clone());
        let cancel_requested = self.call("renew job lease", move |client| {
            Box::pin(
                async move { jobs::heartbeat(as_client(&client), &job_id, &token, expires).await },
            )
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
        let (job_id, token, outcome) = (job_id.to_owned(), token.clone(), outcome.clone());
        self.call("finish job", move |client| {
            Box::pin(async move {
                jobs::finish(as_client(&client), &job_id, &token, &outcome, now).await
            })
        })
    }

    fn settle(
        &self,
        job_id: &str,
        token: &LeaseToken,
        settlement: &Settlement,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        let (job_id, token) = (job_id.to_owned(), token.clone());
        let settlement = settlement.clone();
        self.transaction("settle job", move |tx| {
            Box::pin(async move { settle::settle(tx, &job_id, &token, &settlement, now).await })
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
        let (job_id, token) = (job_id.to_owned(), token.clone());
        let waiting_for = waiting_for.map(str::to_owned);
        self.call("release job", move |client| {
            Box::pin(async move {
                let how = jobs::Requeue {
                    not_before,
                    waiting_for: waiting_for.as_deref(),
                    refund: true,
                    error: None,
                };
                jobs::requeue(as_client(&client), &job_id, &token, &how, now).await
            })
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
        let (job_id, token, error) = (job_id.to_owned(), token.clone(), error.to_owned());
        self.call("retry job", move |client| {
            Box::pin(async move {
                let how = jobs::Requeue {
                    not_before,
                    waiting_for: None,
                    refund: false,
                    error: Some(&error),
                };
                jobs::requeue(as_client(&client), &job_id, &token, &how, now).await
            })
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
        let (job_id, owner, held) = (job_id.to_owned(), owner.to_owned(), token.clone());
        let claimed = self.call("claim job", move |client| {
            Box::pin(async move {
                jobs::claim_one(as_client(&client), &job_id, &owner, &held, expires, now).await
            })
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
        use super::claim_next::{TRIES, Try, make_slots, try_claim};
        let expires = lease_end(now, lease)?;
        let token = new_lease_token()?;
        let mut passed_over: Vec<String> = Vec::new();
        for _ in 0..TRIES {
            let (owner, held, limits) = (owner.to_owned(), token.clone(), limits.clone());
            let skip = passed_over.clone();
            let tried = self.transaction("claim the next job", move |tx| {
                Box::pin(async move {
                    try_claim(tx, &owner, &held, (expires, now), &limits, &skip).await
                })
            })?;
            match tried {
                Try::Claimed(job) => {
                    return Ok(NextClaim::Claimed(Box::new(ClaimedJob {
                        job: *job,
                        token: token.clone(),
                    })));
                }
                Try::WaitingForQuota { job_id, until } => {
                    return Ok(NextClaim::WaitingForQuota { job_id, until });
                }
                Try::Nothing => return Ok(NextClaim::Nothing),
                Try::PassOver(job_id) => passed_over.push(job_id),
                Try::MakeSlots { scope, count } => {
                    self.call("make claim slots", move |client| {
                        Box::pin(async move { make_slots(as_client(&client), &scope, count).await })
                    })?;
                }
            }
        }
        Ok(NextClaim::Nothing)
    }

    fn unplanned_jobs(&self, limit: usize) -> Result<Vec<JobRecord>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.call("read unplanned jobs", move |client| {
            Box::pin(async move { super::claim_next::unplanned(as_client(&client), limit).await })
        })
    }

    fn set_job_facts(&self, job_id: &str, facts: &PlannedFacts) -> Result<bool, StoreError> {
        let (job_id, facts) = (job_id.to_owned(), facts.clone());
        self.call("store a job's planned facts", move |client| {
            Box::pin(async move {
                super::claim_next::set_facts(as_client(&client), &job_id, &facts).await
            })
        })
    }

    fn cancel(
        &self,
        job_id: &str,
        envelope_if_queued: Option<&Envelope>,
        now: Timestamp,
    ) -> Result<CancelOutcome, StoreError> {
        let (job_id, envelope) = (job_id.to_owned(), envelope_if_queued.cloned());
        self.transaction("cancel job", move |tx| {
            Box::pin(async move { jobs::cancel(tx, &job_id, envelope.as_ref(), now).await })
        })
    }

    fn expire_leases(
        &self,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Vec<ExpiredJob>, StoreError> {
        self.call("expire job leases", move |client| {
            Box::pin(async move { jobs::expire_leases(as_client(&client), now, policy).await })
        })
    }

    fn expire_owner(
        &self,
        job_id: &str,
        owner: &str,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Option<ExpiredJob>, StoreError> {
        let (job_id, owner) = (job_id.to_owned(), owner.to_owned());
        self.call("take back a job lease", move |client| {
            Box::pin(async move {
                jobs::expire_owner(as_client(&client), &job_id, &owner, now, policy).await
            })
        })
    }

    fn get_job(&self, job_id: &str) -> Result<Option<JobRecord>, StoreError> {
        let job_id = job_id.to_owned();
        self.call("read job", move |client| {
            Box::pin(async move { jobs::get(as_client(&client), &job_id).await })
        })
    }

    fn list_jobs(
        &self,
        filter: &JobFilter,
        limit: usize,
        cursor: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError> {
        let (filter, cursor) = (filter.clone(), cursor.cloned());
        self.call("list jobs", move |client| {
            Box::pin(async move {
                job_list::list(as_client(&client), &filter, limit, cursor.as_ref()).await
            })
        })
    }

    fn count_jobs(&self) -> Result<JobCounts, StoreError> {
        self.call("count jobs", |client| {
            Box::pin(async move { jobs::count(as_client(&client)).await })
        })
    }

    fn watch_queue(&self) -> Result<Option<QueueWatcher>, StoreError> {
        listen::watch(self).map(Some)
    }

    fn watch_queue_for_executor(&self) -> Result<Option<QueueWatcher>, StoreError> {
        listen::watch_for_executor(self).map(Some)
    }

    fn register_idle(
        &self,
        channel: &str,
        owner: &str,
        providers: Option<&[String]>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let (channel, owner) = (channel.to_owned(), owner.to_owned());
        let providers = providers.map(<[String]>::to_vec);
        self.call("register an idle executor", move |client| {
            Box::pin(async move {
                let providers = providers.as_deref();
                idle::register(as_client(&client), &channel, &owner, providers, now).await
            })
        })
    }

    fn unregister_idle(&self, channel: &str) -> Result<(), StoreError> {
        let channel = channel.to_owned();
        self.call("unregister an idle executor", move |client| {
            Box::pin(async move { idle::unregister(as_client(&client), &channel).await })
        })
    }

    fn count_active_jobs(&self) -> Result<Vec<ActiveJobCount>, StoreError> {
        self.call("count active jobs", |client| {
            Box::pin(async move { jobs::count_active(as_client(&client)).await })
        })
    }
}

/// The driver's client inside a pooled connection.
fn as_client(client: &deadpool_postgres::Object) -> &Client {
    client
}
