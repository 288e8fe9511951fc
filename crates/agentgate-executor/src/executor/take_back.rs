//! Taking back leases: expired ones, and those of dead owners on this host.
//! Never one of this executor's own jobs whose end is being written: their
//! leases are renewed first (`Inner::renew_settling`).
//!
//! A lease whose owner process (on this host) is gone is not taken back the
//! moment the owner is seen dead: the owner's keepers may still be ending
//! its CLIs. A keeper whose parent died sends its group SIGTERM and, after
//! [`ORPHAN_GRACE`], SIGKILL; a CLI that ignores SIGTERM lives that long.
//! Taking the lease back at once would let another executor run the job
//! while the old CLI still works on it: one job on two workers, and a
//! provider's limit passed. So a dead owner's leases are taken back only
//! once this executor has seen the owner dead for [`DEAD_OWNER_WAIT`]
//! (the grace, the keeper's poll, and a margin). Leases of owners on other
//! hosts are left to expire (their keepers end their CLIs the same way,
//! long before a lease of 1 s or more ends).

use std::time::{Duration, Instant};

use agentgate_store::{JobState, OwnerState, RunOwner};
use agentgate_supervise::{
    KEEPER_ORPHAN_GRACE as ORPHAN_GRACE, KEEPER_POLL_INTERVAL as POLL_INTERVAL,
};

use super::{Inner, lock};

/// How long an owner must have been seen dead before its leases are taken
/// back: its keepers have SIGKILLed their CLIs by then.
pub const DEAD_OWNER_WAIT: Duration = ORPHAN_GRACE
    .saturating_add(POLL_INTERVAL)
    .saturating_add(Duration::from_secs(1));

impl Inner {
    /// Take back expired leases, and the leases of owners of this host
    /// seen dead for [`DEAD_OWNER_WAIT`].
    pub(super) fn take_back_leases(&self) -> Result<(), agentgate_store::StoreError> {
        let now = self.clock.now();
        if !self.renew_settling(now) {
            return Ok(());
        }
        for job in self.store.expire_leases(now, self.policy())? {
            tracing::info!(job = job.job_id, state = %job.state, "took back an expired lease");
            self.taken_back(&job, now);
        }
        let seen = Instant::now();
        let mut dead_now: Vec<String> = Vec::new();
        for job in all_jobs(self.store.as_ref(), JobState::Running)? {
            let Some(owner) = job.lease_owner.as_deref().filter(|o| *o != self.owner) else {
                continue;
            };
            let dead = serde_json::from_str::<RunOwner>(owner)
                .is_ok_and(|o| o.state() == OwnerState::Gone);
            if !dead {
                continue;
            }
            dead_now.push(owner.to_owned());
            let first_seen = *lock(&self.shared)
                .dead_owners
                .entry(owner.to_owned())
                .or_insert(seen);
            if seen.duration_since(first_seen) < DEAD_OWNER_WAIT {
                continue;
            }
            if let Some(taken) = self
                .store
                .expire_owner(&job.job_id, owner, now, self.policy())?
            {
                tracing::info!(
                    job = taken.job_id,
                    state = %taken.state,
                    "took back the lease of a dead server"
                );
                self.taken_back(&taken, now);
            }
        }
        lock(&self.shared)
            .dead_owners
            .retain(|owner, _| dead_now.contains(owner));
        Ok(())
    }

    /// A job taken back: ended there (past its attempts, or a cancel was
    /// asked), its `run.ended` goes to the outbox (every executor that
    /// sees it writes the same message id: one message).
    fn taken_back(&self, job: &agentgate_store::ExpiredJob, now: jiff::Timestamp) {
        if job.state.is_final() {
            crate::webhook_outbox::job_written(self.store.as_ref(), &self.config, now, &job.job_id);
        }
    }

    /// Renew the leases of this executor's jobs whose end is being written
    /// (see `job_end.rs`): their holder is alive, and the store may have
    /// refused their renewals for longer than a lease. Whether leases may
    /// be taken back now: not while the store refuses such a renewal, so a
    /// job whose result this executor holds is never taken back by it.
    fn renew_settling(&self, now: jiff::Timestamp) -> bool {
        let settling: Vec<(String, agentgate_store::LeaseToken)> = lock(&self.shared)
            .running
            .iter()
            .filter(|(_, slot)| slot.settling.load(std::sync::atomic::Ordering::SeqCst))
            .map(|(id, slot)| (id.clone(), slot.token.clone()))
            .collect();
        for (job_id, token) in settling {
            match self
                .store
                .heartbeat(&job_id, &token, self.config.queue.lease, now)
            {
                Ok(_) | Err(agentgate_store::StoreError::LeaseLost { .. }) => {}
                Err(e) => {
                    tracing::debug!(
                        job = job_id,
                        "not taking back leases while the store refuses to renew one whose end is pending: {e}"
                    );
                    return false;
                }
            }
        }
        true
    }
}

/// Every job in `state` (used for the running ones: bounded by the
/// executors' concurrency).
fn all_jobs(
    store: &dyn agentgate_store::StoreBackend,
    state: JobState,
) -> Result<Vec<agentgate_store::JobRecord>, agentgate_store::StoreError> {
    let filter = agentgate_store::JobFilter {
        state: Some(state),
        ..agentgate_store::JobFilter::default()
    };
    let mut jobs = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.list_jobs(&filter, 500, cursor.as_ref())?;
        for bad in &page.unreadable {
            tracing::warn!(job = %bad.id, error = %bad.error, "a job of the store cannot be read; it is left aside");
        }
        jobs.extend(page.jobs);
        match page.next {
            Some(next) => cursor = Some(next),
            None => return Ok(jobs),
        }
    }
}
