//! agentgate's job queue executor, without HTTP: what `agentgate worker`
//! runs, and what `agentgate serve` (the `agentgate-server` crate, routes
//! over this one) runs inside itself.
//!
//! The modules are private; this face re-exports what the server and the
//! binary use:
//!
//! - [`Executor`] (with [`ExecutorOptions`]): claims queued jobs within the
//!   config's `queue:` limits and runs each with the engine of `agentgate
//!   run`; leases, take-backs, the drain at a stop (`executor/`, read its
//!   module notes first). It tells a [`JobObserver`] what happens to its
//!   jobs ([`RunEnd`]); [`Metrics`] is the observer that counts.
//! - [`JobRequest`] and [`plan_request`] / [`claim_facts`]: what a job
//!   stores (a run's request or a workflow's) and the facts planned from it
//!   at submit; [`seal_job`] seals its secrets.
//! - [`Automation`]: the config's `schedules:` and `watch:`, jobs made at
//!   each cron fire and for each new file of a watched folder.
//! - [`Presence`]: this process's row in the store's list of executors.
//! - [`render_metrics`]: the Prometheus page a scrape answers (served over
//!   HTTP by the server).
//! - [`Clock`] ([`clock_from_env`]): the executor's "now" (a file clock for
//!   tests).
//! - [`StopSignals`] and [`raise_open_files_limit`]: what the long-running
//!   processes share.
//! - [`Worker`]: `agentgate worker`, the executor and its presence in one
//!   process, with an optional metrics listener handed in by the caller
//!   ([`MetricsExport`]): this crate links no HTTP server.
//!
//! - [`webhook_outbox`]: the webhook messages written to the store when a
//!   job ends or waits, or a run asks a person (`serve` delivers them).
//!
//! Its errors at start are [`StartError`].

#![warn(missing_docs)]

mod automation;
mod clock;
mod error;
mod executor;
mod job_request;
mod metrics;
mod planning;
mod presence;
mod signals;
pub mod webhook_outbox;
mod worker;

pub use automation::{Automation, AutomationError};
pub use clock::{
    CLOCK_FILE_ENV, Clock, ClockFileError, FileClock, SystemClock, from_env as clock_from_env,
};
pub use error::StartError;
pub use executor::limits::RunningJob;
pub use executor::sealing::{seal_job, without_sealed};
pub use executor::{
    CANCEL_WAIT, Executor, ExecutorOptions, JobObserver, POLL_ENV, ProviderFilter, RunEnd, SWEEP,
    TICK, Unobserved, error_envelope,
};
pub use job_request::{
    JobKind, JobRequest, WorkflowJobRequest, keep_trace_context, trace_context_of,
};
pub use metrics::text::CONTENT_TYPE as METRICS_CONTENT_TYPE;
pub use metrics::{Metrics, render as render_metrics};
pub use planning::{claim_facts, plan_providers, plan_request};
pub use presence::{Presence, PresenceError, PresenceInfo};
pub use signals::{StopSignals, raise_open_files_limit, shutdown_signal};
pub use worker::{
    MetricsExport, MetricsSource, NoMetrics, WORKER_POOL_SIZE, Worker, WorkerOptions, WorkerStopped,
};
