//! One claimed job: its run on a thread of its own, the heartbeat that
//! renews its lease, and how it ends.
//!
//! How a run's end becomes the job's (the first rule that applies):
//! 1. the lease was lost: nothing (the job is someone else's now);
//! 2. a client cancelled it, and the run did not succeed before the cancel
//!    reached it: `cancelled` (a run that succeeded first stands, rule 4);
//! 3. the server is stopping and cancelled it: released (queued again, the
//!    attempt given back);
//! 4. it succeeded: `succeeded`;
//! 5. every provider of the job is now known exhausted until a reset time
//!    (and the request does not `ignore_quota`): released until the
//!    earliest reset, `waiting_for: quota`, the attempt given back;
//! 6. it failed with exit 75 (every failure recoverable) and fewer than
//!    `queue.max_attempts` tries were charged: retried after the backoff;
//! 7. otherwise `failed`.
//!
//! Each run of a job is a run record of its own: the first has the job's
//! id, later ones `<job id>.<n>` (n = 2, 3, ...): a retry, a run after a
//! quota wait, or a run after a restart are all visible in `agentgate
//! runs`; the job's envelope is the last run's.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentgate_core::config::QueueSpec;
use agentgate_core::quota::exhausted_quota;
use agentgate_core::request::RequestError;
use agentgate_core::run::{CancelRequest, NullSink, RunOptions, RunOutcome};
use agentgate_protocol::{
    EXIT_ALL_RECOVERABLE, Envelope, ErrorInfo, ErrorKind, ErrorSource, exit_code_for,
};
use agentgate_store::{
    ClaimRules, ClaimedJob, FinalState, JobOutcome, LeaseToken, RunStore, StoreError,
};
use jiff::{SignedDuration, Timestamp};

use super::facts::{JobFacts, plan_job, plan_providers};
use super::limits::{RunningJob, backoff, jitter};
use super::workflow_job::{self, WorkflowTurn};
use super::{Inner, Slot, lock};
use crate::metrics::registry::RunEnd;

/// Claim `job_id` within the limits, checked again by the store against
/// every running job of every executor on it, and start its thread. A job
/// the store's check refuses (another executor took the room first) stays
/// queued for the next pass.
pub(super) fn start(
    inner: &Arc<Inner>,
    job_id: &str,
    provider: Option<String>,
    facts: &JobFacts,
    now: Timestamp,
) -> Result<(), StoreError> {
    let rules = claim_rules(&inner.config.queue, provider.as_deref(), facts);
    let lease = inner.config.queue.lease;
    let Some(mut claimed) =
        inner
            .store
            .claim_job_within(job_id, &inner.owner, lease, now, &rules)?
    else {
        tracing::debug!(
            job = job_id,
            "not claimed: taken, or no room left on the store"
        );
        return Ok(());
    };
    // Read again by the claim: its secrets opened as the pass opened them.
    if let Err(e) = crate::executor::sealing::open_job(&mut claimed.job, &inner.keys) {
        tracing::warn!(job = job_id, "handed back: {e}");
        inner
            .store
            .release(job_id, &claimed.token, now, None, now)?;
        return Ok(());
    }
    inner.metrics.claimed();
    let (cancel_tx, cancel_rx) = tokio::sync::mpsc::channel(4);
    let cancelled = Arc::new(AtomicBool::new(false));
    lock(&inner.shared).running.insert(
        job_id.to_owned(),
        Slot {
            limits: RunningJob {
                provider,
                session: facts.session.clone(),
                writes_in: facts.writes_in.clone(),
            },
            cancel: cancel_tx.clone(),
            cancelled: cancelled.clone(),
        },
    );
    let running = Job {
        inner: inner.clone(),
        claimed,
        cancel_tx,
        cancelled,
    };
    let spawned = std::thread::Builder::new()
        .name(format!("agentgate-job-{job_id}"))
        .spawn(move || running.run(cancel_rx));
    if let Err(e) = spawned {
        // The job stays claimed; its lease expires and it is taken back.
        lock(&inner.shared).running.remove(job_id);
        tracing::error!("failed to start a thread for job {job_id}: {e}");
    }
    Ok(())
}

/// The limits the store checks when it claims a job counted against
/// `provider`.
fn claim_rules(limits: &QueueSpec, provider: Option<&str>, facts: &JobFacts) -> ClaimRules {
    let as_u32 = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    ClaimRules {
        provider: provider.map(str::to_owned),
        provider_limit: provider.and_then(|p| limits.provider_limit(p)).map(as_u32),
        max_running: Some(as_u32(limits.max_running)),
        writes_in: facts
            .writes_in
            .as_ref()
            .map(|dir| dir.to_string_lossy().into_owned()),
    }
}

/// Every provider of `job_id` is exhausted: claim it and give it back until
/// `until`, charged nothing.
pub(super) fn wait_for_quota(
    inner: &Inner,
    job_id: &str,
    until: Timestamp,
    now: Timestamp,
) -> Result<(), StoreError> {
    let lease = inner.config.queue.lease;
    if let Some(claimed) = inner.store.claim_job(job_id, &inner.owner, lease, now)? {
        inner
            .store
            .release(job_id, &claimed.token, until, Some("quota"), now)?;
        tracing::info!(job = job_id, %until, "every provider's quota is exhausted: waiting");
    }
    Ok(())
}

/// A queued job whose request no longer plans: it fails, with the refusal.
pub(super) fn refuse(
    inner: &Inner,
    job_id: &str,
    refusal: &RequestError,
    now: Timestamp,
) -> Result<(), StoreError> {
    let lease = inner.config.queue.lease;
    if let Some(claimed) = inner.store.claim_job(job_id, &inner.owner, lease, now)? {
        let error = ErrorInfo::new(
            ErrorKind::InvalidInput,
            ErrorSource::Internal,
            refusal.to_string(),
        );
        let outcome = JobOutcome {
            state: FinalState::Failed,
            envelope: Some(error_envelope(job_id, &error)),
            error: Some(refusal.to_string()),
        };
        inner.store.finish(job_id, &claimed.token, &outcome, now)?;
    }
    Ok(())
}

/// The envelope of a job that ended without a run (cancelled while queued,
/// or refused by the planner): the job's id, the error, the exit code
/// `agentgate run` would give, no provider, no attempts.
pub fn error_envelope(job_id: &str, error: &ErrorInfo) -> Envelope {
    Envelope::new(job_id).with_error(error, exit_code_for(Some(error.kind), false))
}

struct Job {
    inner: Arc<Inner>,
    claimed: ClaimedJob,
    cancel_tx: tokio::sync::mpsc::Sender<CancelRequest>,
    cancelled: Arc<AtomicBool>,
}

impl Job {
    fn id(&self) -> &str {
        &self.claimed.job.job_id
    }

    fn run(self, cancel_rx: tokio::sync::mpsc::Receiver<CancelRequest>) {
        // A warm session's turn runs on the warm runtime, where its process
        // lives on after the turn (see `warm_hold.rs`).
        let warm = self.claimed.job.request.get("warm") == Some(&serde_json::Value::Bool(true));
        match (warm, self.inner.warm.handle()) {
            (true, Some(handle)) => handle.block_on(self.execute(cancel_rx)),
            _ => match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(self.execute(cancel_rx)),
                Err(e) => tracing::error!("failed to start a runtime for job {}: {e}", self.id()),
            },
        }
        // Whatever happened, the slot is free now.
        let inner = &self.inner;
        lock(&inner.shared).running.remove(&self.claimed.job.job_id);
        inner.ended.notify_all();
        inner.wake();
    }

    async fn execute(&self, cancel_rx: tokio::sync::mpsc::Receiver<CancelRequest>) {
        let inner = &self.inner;
        let job = &self.claimed.job;
        if let Some(workflow) = workflow_job::workflow_of(job) {
            return self.execute_workflow(workflow, cancel_rx).await;
        }
        let (mut plan, request) = match plan_job(&inner.config, job, inner.clock.now()) {
            Ok((plan, request)) => match &inner.providers {
                None => (plan, request),
                Some(only) => match only.restrict(plan) {
                    Some(plan) => (plan, request),
                    None => {
                        // None of its providers is this host's any more
                        // (the config changed): someone else's job.
                        self.write("release", |s, t, now| {
                            s.release(&job.job_id, t, now, None, now).map(drop)
                        });
                        return;
                    }
                },
            },
            Err(refusal) => {
                self.refused(&refusal);
                return;
            }
        };
        // Checked when it was submitted.
        plan.warm_idle = request.warm_idle().ok().flatten();
        let options = RunOptions {
            keeper: inner.keeper.clone(),
            tool_server: inner.tool_server.clone(),
            run_id: Some(next_run_id(inner.store.as_ref(), &job.job_id)),
            approval_desk: Some(inner.approvals.clone()),
            warm: request.warm.then(|| inner.warm.sessions.clone()),
            ..RunOptions::default()
        };
        let store: &dyn RunStore = inner.store.as_ref();
        let mut sink = NullSink;
        let run = agentgate_core::run::run(&plan, &options, Some(store), &mut sink, cancel_rx);
        let (outcome, lost) = self.with_heartbeat(run).await;
        let providers = plan_providers(&plan);
        let provider = outcome
            .envelope
            .provider
            .clone()
            .or_else(|| providers.first().cloned())
            .unwrap_or_default();
        self.end(outcome, lost, &provider, &providers, request.ignore_quota);
    }

    /// The job's end after its run (see the module notes), counted under
    /// `provider`; a lost lease writes nothing.
    fn end(
        &self,
        outcome: RunOutcome,
        lost: bool,
        provider: &str,
        providers: &[String],
        ignore_quota: bool,
    ) {
        let inner = &self.inner;
        let duration = Duration::from_millis(outcome.envelope.duration_ms);
        let tokens = outcome.envelope.tokens_used.clone();
        let end = if lost {
            tracing::warn!(job = self.id(), "lost the job's lease: its run was stopped");
            inner.metrics.lease_lost();
            RunEnd::LeaseLost
        } else {
            self.conclude(outcome, providers, ignore_quota)
        };
        inner.metrics.run_finished(provider, end, duration, &tokens);
    }

    /// A workflow job's turn: its workflow run started or resumed (see
    /// `workflow_job.rs`), ended as a run's would be.
    async fn execute_workflow(
        &self,
        workflow: Result<(agentgate_tools::workflow::Workflow, serde_json::Value), RequestError>,
        cancel_rx: tokio::sync::mpsc::Receiver<CancelRequest>,
    ) {
        let inner = &self.inner;
        let job = &self.claimed.job;
        let workflow = match workflow {
            Ok(w) => w,
            Err(refusal) => {
                self.refused(&refusal);
                return;
            }
        };
        let turn = workflow_job::run_job(
            &job.job_id,
            workflow,
            &inner.config,
            &inner.workflow_tools,
            inner.store.as_ref(),
            cancel_rx,
        );
        let (turn, lost) = self.with_heartbeat(turn).await;
        let outcome = match turn {
            WorkflowTurn::Busy(why) => {
                // Its earlier holder stops at its next renewal (the lease
                // is this executor's now) and ends the run: try then.
                let lease = SignedDuration::try_from(inner.config.queue.lease)
                    .unwrap_or(SignedDuration::MAX);
                let now = inner.clock.now();
                let at = now.checked_add(lease).unwrap_or(Timestamp::MAX);
                tracing::info!(job = job.job_id, %at, "the workflow run is still held: {why}");
                self.write("release", |s, t, now| {
                    s.release(&job.job_id, t, at, Some("workflow run held"), now)
                        .map(drop)
                });
                return;
            }
            WorkflowTurn::Ran(outcome) => *outcome,
        };
        self.end(outcome, lost, workflow_job::WORKFLOW_KIND, &[], true);
    }

    /// The job's request no longer plans (or loads): it fails, with the
    /// refusal.
    fn refused(&self, refusal: &RequestError) {
        let job = &self.claimed.job;
        let error = ErrorInfo::new(
            ErrorKind::InvalidInput,
            ErrorSource::Internal,
            refusal.to_string(),
        );
        let outcome = JobOutcome {
            state: FinalState::Failed,
            envelope: Some(error_envelope(&job.job_id, &error)),
            error: Some(refusal.to_string()),
        };
        self.write("finish", |s, t, now| {
            s.finish(&job.job_id, t, &outcome, now).map(drop)
        });
    }

    /// Drive `run`, renewing the lease; the run's outcome, and whether the
    /// lease was lost meanwhile (the run was then stopped at once).
    async fn with_heartbeat<T>(&self, run: impl std::future::Future<Output = T>) -> (T, bool) {
        let inner = &self.inner;
        let lease = inner.config.queue.lease;
        let mut beat = tokio::time::interval(lease / 3);
        beat.tick().await;
        tokio::pin!(run);
        let mut lost = false;
        loop {
            tokio::select! {
                outcome = &mut run => return (outcome, lost),
                _ = beat.tick(), if !lost => {
                    let now = inner.clock.now();
                    match inner.store.heartbeat(self.id(), &self.claimed.token, lease, now) {
                        Ok(hb) if hb.cancel_requested && !self.cancelled.swap(true, Ordering::SeqCst) => {
                            let _ = self.cancel_tx.try_send(CancelRequest { immediate: false });
                        }
                        Ok(_) => {}
                        Err(StoreError::LeaseLost { .. }) => {
                            lost = true;
                            let _ = self.cancel_tx.try_send(CancelRequest { immediate: true });
                        }
                        Err(e) => tracing::warn!(job = self.id(), "failed to renew the lease: {e}"),
                    }
                }
            }
        }
    }

    /// The job's end from the run's (see the module notes), for the
    /// metrics.
    fn conclude(&self, outcome: RunOutcome, providers: &[String], ignore_quota: bool) -> RunEnd {
        let inner = &self.inner;
        let job = &self.claimed.job;
        let envelope = outcome.envelope;
        let cancelled_run = envelope.error_type == Some(ErrorKind::Cancelled);
        let finish = |state: FinalState, envelope: Envelope| {
            let outcome = JobOutcome {
                state,
                error: envelope.error.clone(),
                envelope: Some(envelope),
            };
            self.write("finish", |s, t, now| {
                s.finish(&job.job_id, t, &outcome, now).map(drop)
            });
        };
        // A run that answered before the cancel reached it stands: the
        // job's state must say what its run did.
        if self.cancelled.load(Ordering::SeqCst) && envelope.error_type.is_some() {
            finish(FinalState::Cancelled, envelope);
            return RunEnd::Cancelled;
        }
        if cancelled_run && inner.stopping_runs.load(Ordering::SeqCst) {
            let released = self.write("release", |s, t, now| {
                s.release(&job.job_id, t, now, None, now).map(drop)
            });
            if released {
                inner.metrics.handed_back();
            }
            return RunEnd::HandedBack;
        }
        if envelope.error_type.is_none() {
            finish(FinalState::Succeeded, envelope);
            return RunEnd::Succeeded;
        }
        let now = inner.clock.now();
        let resets: Option<Vec<Timestamp>> = providers
            .iter()
            .map(|p| {
                exhausted_quota(inner.store.as_ref(), &inner.config.quota_key(p), now)
                    .and_then(|q| q.reset_at)
            })
            .collect();
        if !ignore_quota && let Some(until) = resets.and_then(|r| r.into_iter().min()) {
            tracing::info!(job = job.job_id, %until, "every provider's quota is exhausted: waiting");
            self.write("release", |s, t, now| {
                s.release(&job.job_id, t, until, Some("quota"), now)
                    .map(drop)
            });
            return RunEnd::QuotaWait;
        }
        if outcome.exit_code == EXIT_ALL_RECOVERABLE
            && job.attempts < inner.config.queue.max_attempts
        {
            let wait = backoff(&inner.config.queue, job.attempts, jitter());
            let wait = SignedDuration::try_from(wait).unwrap_or(SignedDuration::MAX);
            let at = now.checked_add(wait).unwrap_or(Timestamp::MAX);
            let error = envelope.error.clone().unwrap_or_default();
            tracing::info!(job = job.job_id, %at, "a recoverable failure: retrying");
            self.write("retry", |s, t, now| {
                s.retry(&job.job_id, t, at, &error, now).map(drop)
            });
            return RunEnd::Retried;
        }
        finish(FinalState::Failed, envelope);
        RunEnd::Failed
    }

    /// A write under the lease; whether it was made. A failure is logged
    /// (a lost lease means the job is another executor's now, and counts
    /// as a lease loss).
    fn write(
        &self,
        what: &str,
        op: impl FnOnce(
            &dyn agentgate_store::StoreBackend,
            &LeaseToken,
            Timestamp,
        ) -> Result<(), StoreError>,
    ) -> bool {
        let inner = &self.inner;
        match op(inner.store.as_ref(), &self.claimed.token, inner.clock.now()) {
            Ok(()) => true,
            Err(e) => {
                if matches!(e, StoreError::LeaseLost { .. }) {
                    inner.metrics.lease_lost();
                }
                tracing::warn!(job = self.id(), "failed to {what} the job: {e}");
                false
            }
        }
    }
}

/// The id of the job's next run: the job's own id for its first run, then
/// `<job id>.2`, `.3`, ... (the first not recorded yet).
fn next_run_id(store: &dyn RunStore, job_id: &str) -> String {
    let taken = |id: &str| matches!(store.get_run(id), Ok(Some(_)));
    if !taken(job_id) {
        return job_id.to_owned();
    }
    (2u32..)
        .map(|n| format!("{job_id}.{n}"))
        .find(|id| !taken(id))
        .unwrap_or_else(|| job_id.to_owned())
}
