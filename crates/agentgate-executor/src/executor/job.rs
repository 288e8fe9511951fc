//! One claimed job: its run on a thread of its own, the heartbeat that
//! renews its lease, and its end (`job_end.rs`: the rules, and the final
//! write tried until it lands).
//!
//! Each run of a job is a run record of its own: the first has the job's
//! id, later ones `<job id>.<n>` (n = 2, 3, ...): a retry, a run after a
//! quota wait, or a run after a restart are all visible in `agentgate
//! runs`; the job's envelope is the last run's.
//!
//! A job claimed again after its holder died or stopped with the job's end
//! unwritten is finished from the result its last run left beside it
//! (`result.json`, kept by the engine before any write to the store): its
//! CLI is not run again (`Job::saved_result`), unless that run was
//! cancelled (by a stop or a lost lease: it did not finish).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use std::path::PathBuf;

use agentgate_core::RequestError;
use agentgate_core::sealed::SealError;
use agentgate_core::{CancelRequest, RunOptions, RunOutcome};
use agentgate_protocol::{Envelope, ErrorInfo, ErrorKind, ErrorSource, exit_code_for};
use agentgate_store::{
    ClaimedJob, FinalState, JobOutcome, LeaseToken, RunStatus, RunStore, SavedResult, StoreError,
};
use jiff::{SignedDuration, Timestamp};

use super::facts::{plan_providers, plan_request};
use super::limits::RunningJob;
use super::workflow_job::{self, WorkflowTurn};
use super::{Inner, Slot, lock};
use crate::job_request::JobRequest;

/// How a run's lease fared while it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseEnd {
    /// Held to the end.
    Held,
    /// A renewal found it taken back by another executor.
    Lost,
    /// No renewal landed before it ran out by this executor's clock (see
    /// `heartbeat.rs`): the store was out of reach.
    RanOut,
}

/// Start the job `claimed` (by `claim_next`, within the limits) on a thread
/// of its own, once its sealed secrets open here: one sealed with a key
/// this executor lacks is handed back, charged nothing, and passed over
/// by this executor's next claims (left for one that has the key); one
/// whose secrets do not open under their key fails, saying why.
///
/// `claim_sent` is when the claim was sent: the lease is counted from
/// then by this executor's own clock (see `heartbeat.rs`).
pub(super) fn start(
    inner: &Arc<Inner>,
    mut claimed: ClaimedJob,
    claim_sent: std::time::Instant,
    now: Timestamp,
) -> Result<(), StoreError> {
    let job_id = claimed.job.job_id.clone();
    match crate::executor::sealing::open_job(&mut claimed.job, &inner.keys) {
        Ok(()) => {}
        Err(e @ SealError::MissingKey { .. }) => {
            let first = lock(&inner.shared).unopenable.insert(job_id.clone());
            // Handed back before it is named: whoever reads the log then
            // finds it queued, charged nothing.
            inner
                .store
                .release(&job_id, &claimed.token, now, None, now)?;
            if first {
                tracing::warn!(job = %job_id, "not claimed: {e}");
            }
            return Ok(());
        }
        Err(e) => {
            let refusal = RequestError::new("env", e.to_string());
            return refuse(inner, &claimed, &refusal, now);
        }
    }
    inner.observer.claimed();
    let (cancel_tx, cancel_rx) = tokio::sync::mpsc::channel(4);
    let cancelled = Arc::new(AtomicBool::new(false));
    let settling = Arc::new(AtomicBool::new(false));
    lock(&inner.shared).running.insert(
        job_id.clone(),
        Slot {
            limits: RunningJob {
                provider: claimed.job.charged_provider.clone(),
                session: claimed.job.session.clone(),
                writes_in: claimed.job.writes_in.as_ref().map(PathBuf::from),
            },
            cancel: cancel_tx.clone(),
            cancelled: cancelled.clone(),
            settling: settling.clone(),
            token: claimed.token.clone(),
        },
    );
    let running = Job {
        inner: inner.clone(),
        claimed,
        claim_sent,
        fenced: Arc::new(AtomicBool::new(false)),
        cancel_tx,
        cancelled,
        settling,
    };
    let spawned = std::thread::Builder::new()
        .name(format!("agentgate-job-{job_id}"))
        .spawn(move || running.run(cancel_rx));
    if let Err(e) = spawned {
        // The job stays claimed; its lease expires and it is taken back.
        lock(&inner.shared).running.remove(&job_id);
        tracing::error!("failed to start a thread for job {job_id}: {e}");
    }
    Ok(())
}

/// A claimed job that cannot run as stored: it fails, with the refusal.
fn refuse(
    inner: &Inner,
    claimed: &ClaimedJob,
    refusal: &RequestError,
    now: Timestamp,
) -> Result<(), StoreError> {
    let job_id = &claimed.job.job_id;
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
    Ok(())
}

/// The envelope of a job that ended without a run (cancelled while queued,
/// or refused by the planner): the job's id, the error, the exit code
/// `agentgate run` would give, no provider, no attempts.
pub fn error_envelope(job_id: &str, error: &ErrorInfo) -> Envelope {
    Envelope::new(job_id).with_error(error, exit_code_for(Some(error.kind), false))
}

pub(super) struct Job {
    pub(super) inner: Arc<Inner>,
    pub(super) claimed: ClaimedJob,
    /// When its claim was sent: the lease holds until a lease after that,
    /// by this executor's clock (see `heartbeat.rs`).
    pub(super) claim_sent: std::time::Instant,
    /// Set when its lease ran out by this executor's clock: its run's
    /// writes are refused from then on (`fence.rs`).
    pub(super) fenced: Arc<AtomicBool>,
    pub(super) cancel_tx: tokio::sync::mpsc::Sender<CancelRequest>,
    /// A client asked to cancel it (heard from a heartbeat, a notice or
    /// this process's API).
    pub(super) cancelled: Arc<AtomicBool>,
    /// Its end is being written and has failed at least once (the claim
    /// thread renews its lease before taking back any: see `take_back.rs`).
    pub(super) settling: Arc<AtomicBool>,
}

impl Job {
    pub(super) fn id(&self) -> &str {
        &self.claimed.job.job_id
    }

    fn run(self, cancel_rx: tokio::sync::mpsc::Receiver<CancelRequest>) {
        // The request, read typed once (see `job_request.rs`); it was opened
        // when the job was claimed.
        let request = JobRequest::of(&self.claimed.job);
        // A warm session's turn runs on the warm runtime, where its process
        // lives on after the turn (see `warm_hold.rs`).
        let warm = matches!(&request, Ok(JobRequest::Run(run)) if run.warm);
        match (warm, self.inner.warm.handle()) {
            (true, Some(handle)) => handle.block_on(self.execute(request, cancel_rx)),
            _ => match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt.block_on(self.execute(request, cancel_rx)),
                Err(e) => tracing::error!("failed to start a runtime for job {}: {e}", self.id()),
            },
        }
        // Whatever happened, the slot is free now.
        let inner = &self.inner;
        lock(&inner.shared).running.remove(&self.claimed.job.job_id);
        crate::webhook_outbox::job_written(
            inner.store.as_ref(),
            &inner.config,
            inner.clock.now(),
            self.id(),
        );
        // Its state is written (ended, or queued again): the followers of
        // its events look now.
        agentgate_store::bells::ring_job(&self.claimed.job.job_id);
        inner.ended.notify_all();
        inner.wake();
    }

    async fn execute(
        &self,
        request: Result<JobRequest, RequestError>,
        cancel_rx: tokio::sync::mpsc::Receiver<CancelRequest>,
    ) {
        let inner = &self.inner;
        let job = &self.claimed.job;
        let request = match request {
            Ok(JobRequest::Workflow(stored)) => {
                let workflow = workflow_job::load_workflow(*stored);
                return self.execute_workflow(workflow, cancel_rx).await;
            }
            Ok(JobRequest::Run(run)) => Ok(*run),
            Err(refusal) => Err(refusal),
        };
        if let Some((run_id, saved)) = self.saved_result() {
            if RunStatus::of_envelope(&saved.envelope) != RunStatus::Cancelled {
                let ignore_quota = request.as_ref().is_ok_and(|r| r.ignore_quota);
                return self.finish_saved(run_id, saved, ignore_quota).await;
            }
            // Stopped (a drain, a lost lease) before its end was written:
            // its CLI did not finish. Its record says so; the job runs again.
            if let Err(e) = inner.store.finish_run(&run_id, &saved.envelope) {
                tracing::warn!(
                    job = job.job_id,
                    run = run_id,
                    "failed to record the cancelled run: {e}"
                );
            }
        }
        let planned = request.and_then(|request| {
            plan_request(&inner.config, &request, inner.clock.now()).map(|plan| (plan, request))
        });
        let (mut plan, request) = match planned {
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
        if let Some(submitter) = super::submitter::submitter_of(inner.store.as_ref(), &job.job_id) {
            plan.submitted_by(submitter);
        }
        let run_id = runs_of(inner.store.as_ref(), &job.job_id).next;
        let options = RunOptions {
            keeper: inner.keeper.clone(),
            tool_server: inner.tool_server.clone(),
            run_id: Some(run_id.clone()),
            approval_desk: Some(inner.approvals.clone()),
            warm: request.warm.then(|| inner.warm.sessions.clone()),
            hidden: inner.hidden.clone(),
            // The run's record is written with the job's end, in one
            // transaction, until it lands (`job_end.rs`).
            caller_records_end: true,
            ..RunOptions::default()
        };
        // Its writes stop when its lease runs out (`fence.rs`).
        let store = super::fence::Fenced {
            store: inner.store.as_ref(),
            closed: self.fenced.clone(),
            job_id: job.job_id.clone(),
        };
        let store: &dyn RunStore = &store;
        // Its `budget_warning` events become webhooks.
        let mut sink = crate::webhook_outbox::BudgetWarnings {
            store: inner.store.as_ref(),
            config: &inner.config,
            clock: inner.clock.as_ref(),
            job_id: &job.job_id,
        };
        // Its spans, when traces are exported: the job's under the caller's
        // `traceparent`, its run's under it (the CLIs given the run's).
        let job_trace = agentgate_telemetry::JobTrace::begin(
            &job.job_id,
            "run",
            crate::job_request::trace_context_of(&job.request).as_ref(),
        );
        let run_trace = job_trace.as_ref().map(|t| t.run_for(&mut plan));
        let mut sink = agentgate_telemetry::TracedSink::new(&mut sink, run_trace);
        let run = agentgate_core::run(&plan, &options, Some(store), &mut sink, cancel_rx);
        let (outcome, lease) = self.with_heartbeat(run).await;
        sink.finish();
        let traced_end = job_trace.map(|t| (t, outcome.envelope.clone()));
        let providers = plan_providers(&plan);
        self.end(RunEnded {
            run_id: Some(run_id),
            outcome,
            lease,
            providers: &providers,
            ignore_quota: request.ignore_quota,
            recovered: false,
        })
        .await;
        if let Some((trace, envelope)) = traced_end {
            trace.finish(&envelope);
        }
    }

    /// The last run of the job, if it ended (its result is kept beside it,
    /// `result.json`) but its record never did: its holder died or stopped
    /// before the end was written. A cancelled one (stopped by a drain or a
    /// lost lease) is recorded as such and the job runs again; any other
    /// is the job's end.
    fn saved_result(&self) -> Option<(String, SavedResult)> {
        let store = self.inner.store.as_ref();
        let last = runs_of(store, self.id()).last?;
        let run = store.get_run(&last).ok()??;
        if !matches!(
            run.summary.status,
            RunStatus::Running | RunStatus::Abandoned
        ) {
            return None;
        }
        match store.read_saved_result(&last) {
            Ok(saved) => saved.map(|s| (last, s)),
            Err(e) => {
                tracing::warn!(
                    job = self.id(),
                    run = last,
                    "failed to read the result its run left: {e}"
                );
                None
            }
        }
    }

    /// Finish the job from the result its last run left (see
    /// [`Job::saved_result`]), by the same rules as a run that just ended.
    async fn finish_saved(&self, run_id: String, saved: SavedResult, ignore_quota: bool) {
        let job = &self.claimed.job;
        tracing::info!(
            job = job.job_id,
            run = run_id,
            "finishing the job from the result its run left (result.json): its CLI is not run again"
        );
        let outcome = RunOutcome {
            envelope: saved.envelope,
            exit_code: saved.exit_code,
            ..RunOutcome::default()
        };
        self.end(RunEnded {
            run_id: Some(run_id),
            outcome,
            lease: LeaseEnd::Held,
            providers: &job.providers,
            ignore_quota,
            recovered: true,
        })
        .await;
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
        let job_trace = agentgate_telemetry::JobTrace::begin(
            &job.job_id,
            "workflow",
            crate::job_request::trace_context_of(&job.request).as_ref(),
        );
        let turn = workflow_job::run_job(
            &job.job_id,
            workflow,
            &inner.config,
            &inner.workflow_tools,
            super::submitter::submitter_of(inner.store.as_ref(), &job.job_id),
            inner.store.as_ref(),
            (cancel_rx, job_trace.as_ref().map(|t| t.workflow())),
        );
        let (turn, lease) = self.with_heartbeat(turn).await;
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
        let traced_end = job_trace.map(|t| (t, outcome.envelope.clone()));
        // The workflow keeps its run's record itself.
        self.end(RunEnded {
            run_id: None,
            outcome,
            lease,
            providers: &[],
            ignore_quota: true,
            recovered: false,
        })
        .await;
        if let Some((trace, envelope)) = traced_end {
            trace.finish(&envelope);
        }
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

    /// A write under the lease of a job that ran nothing (a release, a
    /// refusal), tried once: a failure is logged (a lost lease means the
    /// job is another executor's now, and counts as a lease loss); the job
    /// stays claimed until its lease expires and is taken back.
    fn write(
        &self,
        what: &str,
        op: impl FnOnce(
            &dyn agentgate_store::StoreBackend,
            &LeaseToken,
            Timestamp,
        ) -> Result<(), StoreError>,
    ) {
        let inner = &self.inner;
        if let Err(e) = op(inner.store.as_ref(), &self.claimed.token, inner.clock.now()) {
            if matches!(e, StoreError::LeaseLost { .. }) {
                inner.observer.lease_lost();
            }
            tracing::warn!(job = self.id(), "failed to {what} the job: {e}");
        }
    }
}

/// A run that ended, for [`Job::end`].
pub(super) struct RunEnded<'a> {
    /// The run's id; `None` for a run that keeps its own record (a
    /// workflow's).
    pub run_id: Option<String>,
    pub outcome: RunOutcome,
    /// Whether the lease was held to the run's end.
    pub lease: LeaseEnd,
    /// The job's providers, in failover order (for the quota rule).
    pub providers: &'a [String],
    pub ignore_quota: bool,
    /// Finished from the result an earlier claim's run left: this claim
    /// ran nothing.
    pub recovered: bool,
}

/// A job's runs so far: the last one recorded, and the id of the next.
pub(super) struct JobRuns {
    /// The last run recorded, if any.
    pub last: Option<String>,
    /// The id the next run takes: the job's own id for its first run, then
    /// `<job id>.2`, `.3`, ... (the first not recorded yet).
    pub next: String,
}

/// The runs of `job_id` recorded so far (see [`JobRuns`]).
pub(super) fn runs_of(store: &dyn RunStore, job_id: &str) -> JobRuns {
    let taken = |id: &str| matches!(store.get_run(id), Ok(Some(_)));
    if !taken(job_id) {
        return JobRuns {
            last: None,
            next: job_id.to_owned(),
        };
    }
    let mut last = job_id.to_owned();
    for n in 2u32.. {
        let id = format!("{job_id}.{n}");
        if !taken(&id) {
            return JobRuns {
                last: Some(last),
                next: id,
            };
        }
        last = id;
    }
    JobRuns {
        last: Some(last),
        next: job_id.to_owned(),
    }
}
