//! The claim thread's pass: claim the next job within the limits, start
//! it, again, until this executor has no room or no job may start. The
//! store decides (`JobQueue::claim_next`, see `agentgate_store`'s
//! `claim_next` notes): from the jobs' columns, planned at submit, and the
//! running jobs of every executor of the store, in one bounded step per
//! claim, whatever the number queued. No pass reads the queue or plans a
//! queued job; a job is planned again only when it runs (`job.rs`), since
//! the config may have changed since it was queued.
//!
//! Per pass, the executor reads the quota of each provider it knows (the
//! built-in ones and the config's): bounded by the number of providers,
//! not of jobs. A job whose every provider is exhausted is turned by the
//! store into a wait for the earliest reset, charged nothing.
//!
//! Jobs queued without their claim facts (by an older version, or by a
//! schedule or watched folder whose request did not plan then) are planned
//! by the pass before it claims ([`Inner::plan_unplanned`]: an indexed read
//! of those jobs only); the store's claims pass over them until then.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use agentgate_core::exhausted_quota;
use agentgate_store::{ClaimLimits, JobRecord, NextClaim, PlannedFacts, StoreError};
use jiff::Timestamp;

use super::facts::{claim_facts, plan_job};
use super::idle::PassEnd;
use super::{Inner, job, lock, sealing};
use crate::job_request::JobKind;

/// How many unplanned jobs [`Inner::plan_unplanned`] reads at once.
const UNPLANNED_BATCH: usize = 200;

impl Inner {
    /// One pass: claim and start jobs while this executor has room and the
    /// store finds one that may start; how it ended.
    pub(super) fn schedule(self: &Arc<Self>) -> Result<PassEnd, StoreError> {
        self.plan_unplanned()?;
        let mut limits = self.claim_limits(self.clock.now());
        loop {
            if self.stopping.load(Ordering::SeqCst) {
                return Ok(PassEnd::Stopping);
            }
            if let Some(most) = self.concurrency
                && lock(&self.shared).running.len() >= most
            {
                return Ok(PassEnd::Full);
            }
            limits.skip = lock(&self.shared).unopenable.iter().cloned().collect();
            let now = self.clock.now();
            // A reset that came while this pass went on is no longer
            // exhausted (else its jobs would wait for a past time again).
            limits.exhausted.retain(|(_, until)| *until > now);
            let lease = self.config.queue.lease;
            // The lease is counted from here by this executor's own clock.
            let claim_sent = std::time::Instant::now();
            match self.store.claim_next(&self.owner, lease, now, &limits)? {
                NextClaim::Nothing => return Ok(PassEnd::NothingToClaim),
                NextClaim::WaitingForQuota { job_id, until } => {
                    tracing::info!(job = job_id, %until, "every provider's quota is exhausted: waiting");
                    crate::webhook_outbox::job_written(
                        self.store.as_ref(),
                        &self.config,
                        now,
                        &job_id,
                    );
                }
                NextClaim::Claimed(claimed) => job::start(self, *claimed, claim_sent, now)?,
            }
        }
    }

    /// The limits this executor claims within: the config's, the quota of
    /// each provider this host knows, the providers it takes.
    fn claim_limits(&self, now: Timestamp) -> ClaimLimits {
        let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let queue = &self.config.queue;
        let mut names: Vec<String> = agentgate_providers::builtins()
            .iter()
            .map(|p| p.name().to_owned())
            .collect();
        names.extend(self.config.providers.iter().map(|p| p.name.clone()));
        names.extend(queue.providers.iter().map(|(p, _)| p.clone()));
        names.sort();
        names.dedup();
        // Quota is kept per account: the key of this host's account.
        let exhausted = names
            .into_iter()
            .filter_map(|p| {
                let until = exhausted_quota(self.store.as_ref(), &self.config.quota_key(&p), now)
                    .and_then(|q| q.reset_at)?;
                Some((p, until))
            })
            .collect();
        ClaimLimits {
            max_running: as_u32(queue.max_running),
            provider_limits: queue
                .providers
                .iter()
                .map(|(p, limit)| (p.clone(), as_u32(*limit)))
                .collect(),
            exhausted,
            only_providers: self.providers.as_ref().map(|only| only.0.clone()),
            skip: Vec::new(),
        }
    }

    /// Plan, once, the queued jobs whose claim facts were never stored (an
    /// older version queued them) and store their facts. A job that does
    /// not plan (or whose secrets do not open here) keeps the providers it
    /// was queued with and no folder: it fails when claimed if it still
    /// does not plan. Reads only those jobs (an index of them), in batches.
    pub(super) fn plan_unplanned(&self) -> Result<(), StoreError> {
        let mut planned = 0usize;
        loop {
            let jobs = self.store.unplanned_jobs(UNPLANNED_BATCH)?;
            if jobs.is_empty() {
                break;
            }
            for job in jobs {
                let facts = self.facts_of_stored(job);
                if self.store.set_job_facts(&facts.0, &facts.1)? {
                    planned += 1;
                }
            }
        }
        if planned > 0 {
            tracing::info!(jobs = planned, "planned the claim facts of queued jobs");
        }
        Ok(())
    }

    /// The claim facts of a stored job, planned now.
    fn facts_of_stored(&self, mut job: JobRecord) -> (String, PlannedFacts) {
        // A request that does not plan fails when claimed: it waits for
        // no quota (it would not run), so it counts against its first
        // provider whatever that provider's quota.
        let fallback = PlannedFacts {
            providers: job.providers.clone(),
            writes_in: None,
            ignore_quota: true,
        };
        if JobKind::of(&job.request) == Ok(JobKind::Workflow) {
            // A workflow names no provider: one slot of `max_running`.
            let facts = PlannedFacts {
                providers: Vec::new(),
                writes_in: None,
                ignore_quota: true,
            };
            return (job.job_id, facts);
        }
        if sealing::open_job(&mut job, &self.keys).is_err() {
            // Plan what is not secret: the folder and providers do not
            // depend on the sealed environment.
            job.request = sealing::without_sealed(job.request);
        }
        let facts = match plan_job(&self.config, &job, self.clock.now()) {
            Ok((plan, request)) => claim_facts(&plan, &request),
            Err(_) => fallback,
        };
        (job.job_id, facts)
    }
}
