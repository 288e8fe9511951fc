//! How a job's run becomes the job's end, and how that end is written.
//!
//! ## The rules (the first that applies)
//!
//! 1. the lease was lost while the run went on (another executor took the
//!    job back): the run was stopped at once; only its record is written;
//!    a lease that ran out by this executor's clock, the store out of
//!    reach (`heartbeat.rs`): the run was stopped before the lease ended,
//!    and nothing is written (the record is the next holder's to write,
//!    from the `result.json` the run left, when it can read it);
//! 2. the run was cancelled: by this executor's stop (the grace is over)
//!    and no client asked it: released (queued again, the attempt given
//!    back); otherwise `cancelled`;
//! 3. it succeeded: `succeeded`;
//! 4. it failed, and a client asked to cancel it: `failed`: the run ended
//!    on its own before the cancel reached it, and the request stops any
//!    further try;
//! 5. every provider of the job is now known exhausted until a reset time
//!    (and the request does not `ignore_quota`): released until the
//!    earliest reset, `waiting_for: quota`, the attempt given back;
//! 6. it ended with `budget` before any CLI ran, a day's or a month's
//!    budget window spent, and the config says `budgets.when_over: wait`:
//!    released until the window's next start (the error's `reset_at`),
//!    `waiting_for: budget`, the attempt given back;
//! 7. it failed with exit 75 (every failure recoverable) and fewer than
//!    `queue.max_attempts` tries were charged: retried after the backoff;
//! 8. otherwise `failed`.
//!
//! The job's state is always its run's: `JobQueue::settle` derives it from
//! the envelope in the transaction that writes the run's record, so a
//! cancel asked in the store that this executor never heard of turns a
//! retry or a release into the run's own end, never into `cancelled`.
//!
//! ## The final write
//!
//! The run's record and the job's end are one store call
//! (`JobQueue::settle`), tried until it lands: a store that refuses it (a
//! full disk, a read-only file, a database gone) is tried again after a
//! wait that doubles from [`FIRST_WAIT`] to [`MAX_WAIT`], each try bounded
//! by the store's own timeouts, for as long as the executor lives. The
//! result stays in memory meanwhile, and beside the run in its folder
//! (`result.json`, written by the engine before anything went to the
//! store). The lease is renewed between tries, and the claim thread renews
//! it too before it takes back any lease (`take_back.rs`), so this
//! executor never takes back a job whose end it holds.
//!
//! It stops at a drain once the grace is over, writing nothing: the job
//! stays `running` under its lease, which expires; whoever claims the job
//! then finishes it from `result.json` without running it again
//! (`Job::saved_result`). A lease lost while the end is pending (another
//! executor took the job back) is taken again if the job waits in the
//! queue, and the end written under the new lease (the claim's attempt
//! given back); otherwise only the run's record is written.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use agentgate_core::exhausted_quota;
use agentgate_protocol::EXIT_ALL_RECOVERABLE;
use agentgate_store::{
    AfterRun, JobState, LeaseToken, RunStatus, Settlement, StoreBackend, StoreError,
};
use jiff::{SignedDuration, Timestamp};

use super::TICK;
use super::job::{Job, LeaseEnd, RunEnded};
use super::limits::{backoff, jitter};
use super::observer::RunEnd;

/// The first wait between two tries of a job's final write.
pub const FIRST_WAIT: Duration = Duration::from_millis(250);

/// The longest wait between two tries of a job's final write.
pub const MAX_WAIT: Duration = Duration::from_secs(5);

/// How often a final write that keeps failing is logged again.
const LOG_EVERY: Duration = Duration::from_secs(60);

/// How a write tried until it lands ended.
enum Written {
    Landed,
    LeaseLost,
    /// The executor is stopping (a drain past its grace).
    Stopped,
}

impl Job {
    /// The job's end after its run (see the module notes), counted in the
    /// metrics under the provider that ran last.
    pub(super) async fn end(&self, run: RunEnded<'_>) {
        let inner = &self.inner;
        let envelope = &run.outcome.envelope;
        let duration = Duration::from_millis(envelope.duration_ms);
        let tokens = envelope.tokens_used.clone();
        let provider = envelope
            .provider
            .clone()
            .or_else(|| run.providers.first().cloned())
            .unwrap_or_else(|| super::workflow_job::WORKFLOW_KIND.to_owned());
        let end = if run.lease == LeaseEnd::Lost {
            tracing::warn!(job = self.id(), "lost the job's lease: its run was stopped");
            inner.observer.lease_lost();
            if let Some(run_id) = &run.run_id {
                self.record_run_only(run_id, envelope).await;
            }
            RunEnd::LeaseLost
        } else if run.lease == LeaseEnd::RanOut {
            tracing::warn!(
                job = self.id(),
                "the job's lease ran out with the store out of reach: its run was stopped; \
                 whoever claims the job next records the run from the result it left"
            );
            inner.observer.lease_lost();
            RunEnd::LeaseLost
        } else {
            let (after, end) = self.conclude(&run);
            let result_file = run.outcome.result_file.clone();
            let settlement = Settlement {
                run_id: run.run_id,
                envelope: run.outcome.envelope,
                after,
                recovered: run.recovered,
            };
            self.settle(settlement, end, result_file.as_deref()).await
        };
        inner
            .observer
            .run_finished(&provider, end, duration, &tokens);
    }

    /// What becomes of the job after `run` (see the module notes).
    fn conclude(&self, run: &RunEnded<'_>) -> (AfterRun, RunEnd) {
        let inner = &self.inner;
        let job = &self.claimed.job;
        let now = inner.clock.now();
        let asked = self.cancelled.load(Ordering::SeqCst);
        match RunStatus::of_envelope(&run.outcome.envelope) {
            RunStatus::Succeeded => return (AfterRun::End, RunEnd::Succeeded),
            RunStatus::Cancelled if inner.stopping_runs.load(Ordering::SeqCst) && !asked => {
                let release = AfterRun::Release {
                    not_before: now,
                    waiting_for: None,
                };
                return (release, RunEnd::HandedBack);
            }
            RunStatus::Cancelled => return (AfterRun::End, RunEnd::Cancelled),
            _ if asked => return (AfterRun::End, RunEnd::Failed),
            _ => {}
        }
        let resets: Option<Vec<Timestamp>> = run
            .providers
            .iter()
            .map(|p| {
                exhausted_quota(inner.store.as_ref(), &inner.config.quota_key(p), now)
                    .and_then(|q| q.reset_at)
            })
            .collect();
        if !run.ignore_quota
            && let Some(until) = resets.and_then(|r| r.into_iter().min())
        {
            tracing::info!(job = job.job_id, %until, "every provider's quota is exhausted: waiting");
            let release = AfterRun::Release {
                not_before: until,
                waiting_for: Some("quota".to_owned()),
            };
            return (release, RunEnd::QuotaWait);
        }
        if let Some(until) = budget_wait(&run.outcome.envelope, &inner.config) {
            tracing::info!(job = job.job_id, %until, "a budget window is spent: waiting");
            let release = AfterRun::Release {
                not_before: until,
                waiting_for: Some("budget".to_owned()),
            };
            return (release, RunEnd::BudgetWait);
        }
        // A recovered result's run was charged by the earlier claim.
        let charged = job.attempts.saturating_sub(u32::from(run.recovered));
        if run.outcome.exit_code == EXIT_ALL_RECOVERABLE
            && charged < inner.config.queue.max_attempts
        {
            let wait = backoff(&inner.config.queue, charged, jitter());
            let wait = SignedDuration::try_from(wait).unwrap_or(SignedDuration::MAX);
            let at = now.checked_add(wait).unwrap_or(Timestamp::MAX);
            tracing::info!(job = job.job_id, %at, "a recoverable failure: retrying");
            return (AfterRun::Retry { not_before: at }, RunEnd::Retried);
        }
        (AfterRun::End, RunEnd::Failed)
    }

    /// Write the run's end and the job's (see the module notes); what the
    /// metrics count.
    async fn settle(
        &self,
        mut settlement: Settlement,
        end: RunEnd,
        result_file: Option<&Path>,
    ) -> RunEnd {
        let mut token = self.claimed.token.clone();
        loop {
            let written = self
                .write_until_landed(&token, true, |store, token, now| {
                    store.settle(self.id(), token, &settlement, now).map(drop)
                })
                .await;
            match written {
                Written::Landed => {
                    if end == RunEnd::HandedBack {
                        self.inner.observer.handed_back();
                    }
                    return end;
                }
                Written::Stopped => {
                    self.left_unwritten(result_file);
                    return end;
                }
                Written::LeaseLost => {
                    self.inner.observer.lease_lost();
                    match self.take_again() {
                        Some(again) => {
                            token = again;
                            settlement.recovered = true;
                        }
                        None => {
                            tracing::warn!(
                                job = self.id(),
                                "the job was taken back before its end was written; its run's record is written alone"
                            );
                            if let Some(run_id) = &settlement.run_id {
                                self.record_run_only(run_id, &settlement.envelope).await;
                            }
                            return RunEnd::LeaseLost;
                        }
                    }
                }
            }
        }
    }

    /// The job was taken back (its lease expired while its end could not
    /// be written): claim it again if it waits in the queue. The new
    /// lease's token.
    fn take_again(&self) -> Option<LeaseToken> {
        let inner = &self.inner;
        match inner.store.get_job(self.id()) {
            Ok(Some(job)) if job.state == JobState::Queued => {}
            _ => return None,
        }
        let now = inner.clock.now();
        match inner
            .store
            .claim_job(self.id(), &inner.owner, inner.config.queue.lease, now)
        {
            Ok(Some(claimed)) => {
                tracing::info!(
                    job = self.id(),
                    "claimed the job again to write the end its run already has"
                );
                Some(claimed.token)
            }
            _ => None,
        }
    }

    /// Write the run's record alone (its job is no longer this
    /// executor's), until it lands or the executor stops.
    async fn record_run_only(&self, run_id: &str, envelope: &agentgate_protocol::Envelope) {
        let token = self.claimed.token.clone();
        let written = self
            .write_until_landed(&token, false, |store, _, _| {
                store.finish_run(run_id, envelope)
            })
            .await;
        if let Written::Stopped = written {
            tracing::warn!(
                job = self.id(),
                run = run_id,
                "stopping with the run's record not written"
            );
        }
    }

    /// The executor stops with the job's end not written (see the module
    /// notes).
    fn left_unwritten(&self, result_file: Option<&Path>) {
        match result_file {
            Some(path) => tracing::warn!(
                job = self.id(),
                "stopping with the job's end not written; its result is kept in {}: whoever \
                 claims the job when its lease expires finishes it from there, without \
                 running it again",
                path.display()
            ),
            None => tracing::error!(
                job = self.id(),
                "stopping with the job's end not written, and its result could not be kept \
                 beside the run either: the job runs again when its lease expires"
            ),
        }
    }

    /// Try `op` until it lands (see the module notes), renewing the lease
    /// between tries when `renew` (the job is still this executor's).
    async fn write_until_landed(
        &self,
        token: &LeaseToken,
        renew: bool,
        mut op: impl FnMut(&dyn StoreBackend, &LeaseToken, Timestamp) -> Result<(), StoreError>,
    ) -> Written {
        let inner = &self.inner;
        let lease = inner.config.queue.lease;
        let mut wait = FIRST_WAIT;
        let mut tries: u64 = 0;
        let mut logged: Option<Instant> = None;
        let mut renewed = Instant::now();
        let written = loop {
            tries += 1;
            match op(inner.store.as_ref(), token, inner.clock.now()) {
                Ok(()) => break Written::Landed,
                Err(StoreError::LeaseLost { .. }) => break Written::LeaseLost,
                Err(e) => {
                    if logged.is_none_or(|at| at.elapsed() >= LOG_EVERY) {
                        logged = Some(Instant::now());
                        tracing::warn!(
                            job = self.id(),
                            tries,
                            "failed to write the job's end (its result is kept; trying again until it lands): {e}"
                        );
                    }
                }
            }
            self.settling.store(renew, Ordering::SeqCst);
            // Wait, renewing the lease and watching for a stop meanwhile.
            let until = Instant::now() + wait;
            let waited = loop {
                if inner.stopping_runs.load(Ordering::SeqCst) {
                    break Some(Written::Stopped);
                }
                if renew && renewed.elapsed() >= lease / 3 {
                    renewed = Instant::now();
                    match inner
                        .store
                        .heartbeat(self.id(), token, lease, inner.clock.now())
                    {
                        Ok(_) => {}
                        Err(StoreError::LeaseLost { .. }) => break Some(Written::LeaseLost),
                        Err(e) => tracing::debug!(
                            job = self.id(),
                            "failed to renew the lease while the end is pending: {e}"
                        ),
                    }
                }
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break None;
                }
                tokio::time::sleep(left.min(TICK)).await;
            };
            if let Some(written) = waited {
                break written;
            }
            wait = (wait * 2).min(MAX_WAIT);
        };
        self.settling.store(false, Ordering::SeqCst);
        if tries > 1 && matches!(written, Written::Landed) {
            tracing::info!(job = self.id(), tries, "wrote the job's end");
        }
        written
    }
}

/// When a job whose run ended over a budget window waits until (rule 6):
/// `budget` with a `reset_at` (a day's or a month's window; a session's
/// and a run's own limits have none) under `budgets.when_over: wait`.
fn budget_wait(
    envelope: &agentgate_protocol::Envelope,
    config: &agentgate_core::Config,
) -> Option<Timestamp> {
    if config.budgets.when_over != agentgate_core::budget::WhenOver::Wait
        || envelope.error_type != Some(agentgate_protocol::ErrorKind::Budget)
    {
        return None;
    }
    envelope.reset_at.as_deref()?.parse().ok()
}
