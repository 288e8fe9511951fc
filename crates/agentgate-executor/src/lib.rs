//! agentgate's job queue executor, without HTTP: what `agentgate worker`
//! runs, and what `agentgate serve` (the `agentgate-server` crate, routes
//! over this one) runs inside itself.
//!
//! - [`executor`]: claims queued jobs within the config's `queue:` limits
//!   and runs each with the engine of `agentgate run`; leases, take-backs,
//!   the drain at a stop;
//! - [`job_request`] and [`planning`]: what a job stores (a run's request
//!   or a workflow's) and the facts planned from it at submit;
//! - [`automation`]: the config's `schedules:` and `watch:`, jobs made at
//!   each cron fire and for each new file of a watched folder;
//! - [`presence`]: this process's row in the store's list of executors;
//! - [`metrics`]: the process's counters, fed by the executor, and the
//!   Prometheus page a scrape answers (served over HTTP by the server);
//! - [`clock`]: the executor's "now" (a file clock for tests);
//! - [`signals`]: the stop signals and the open-files limit the
//!   long-running processes share;
//! - [`worker`]: `agentgate worker`, the executor and its presence in one
//!   process, with an optional metrics listener handed in by the caller
//!   ([`worker::MetricsExport`]): this crate links no HTTP server.

pub mod automation;
pub mod clock;
mod error;
pub mod executor;
pub mod job_request;
pub mod metrics;
pub mod planning;
pub mod presence;
pub mod signals;
pub mod worker;

pub use error::StartError;
