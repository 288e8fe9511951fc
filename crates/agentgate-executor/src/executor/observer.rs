//! What the executor tells about its jobs as it happens: a claim, a lease
//! found lost, a job handed back at a stop, a run's end. The executor owns
//! this trait and calls it; who listens (the process's counters,
//! the `metrics` module's `Metrics`) sits above the executor and never calls back
//! into it.

use std::time::Duration;

use agentgate_protocol::TokensUsed;

/// How a run this process finished ended for its job: the label `outcome`
/// of `agentgate_runs_finished_total`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RunEnd {
    /// The job succeeded.
    Succeeded,
    /// The job failed.
    Failed,
    /// A client cancelled the job.
    Cancelled,
    /// A recoverable failure: the job waits for its backoff.
    Retried,
    /// Every provider's quota is exhausted: the job waits for the reset.
    QuotaWait,
    /// A budget window is spent (`budgets.when_over: wait`): the job waits
    /// for the window's next start.
    BudgetWait,
    /// The process was stopping: the job went back to the queue.
    HandedBack,
    /// The lease was lost: the run was stopped, the job is another's.
    LeaseLost,
}

impl RunEnd {
    /// The label value.
    pub const fn as_str(self) -> &'static str {
        match self {
            RunEnd::Succeeded => "succeeded",
            RunEnd::Failed => "failed",
            RunEnd::Cancelled => "cancelled",
            RunEnd::Retried => "retried",
            RunEnd::QuotaWait => "quota_wait",
            RunEnd::BudgetWait => "budget_wait",
            RunEnd::HandedBack => "handed_back",
            RunEnd::LeaseLost => "lease_lost",
        }
    }
}

/// Told by the executor what happens to its jobs, where it happens (see
/// the module notes). Calls are short and never block: they come from the
/// claim thread and the jobs' threads.
pub trait JobObserver: Send + Sync + std::fmt::Debug {
    /// The executor claimed a job to run it.
    fn claimed(&self);
    /// A job's lease was found lost (at a renewal or at the final write).
    fn lease_lost(&self);
    /// A running job was handed back to the queue at a stop.
    fn handed_back(&self);
    /// A run ended: told under `provider` (the envelope's, the one that ran
    /// last) with `end`, its duration and its tokens and cost.
    fn run_finished(&self, provider: &str, end: RunEnd, duration: Duration, tokens: &TokensUsed);
}

/// An observer that hears nothing: an executor started without one.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl JobObserver for Unobserved {
    fn claimed(&self) {}
    fn lease_lost(&self) {}
    fn handed_back(&self) {}
    fn run_finished(&self, _: &str, _: RunEnd, _: Duration, _: &TokensUsed) {}
}
