//! `GET /metrics`: what a Prometheus server scrapes from `agentgate serve`
//! and from `agentgate worker --metrics-listen` (the text format of
//! [`text`]), behind the API's bearer token.
//!
//! Two kinds of series:
//!
//! - **Cluster gauges**, read from the store at each scrape, the same on
//!   every process sharing the store: queued and running jobs per provider
//!   (`JobQueue::count_active_jobs`: one aggregate over the two live states,
//!   its cost follows the queue's depth, not the history; a running job
//!   counts under the provider its claim charged, a queued one under the
//!   first provider it names), the running jobs in all, and the executors
//!   of the store per kind and presence (`WorkerRegistry::list_workers`: one
//!   row per live process). `agentgate_store_up` is 0 when the store could
//!   not be read; those gauges are then left out of the page.
//! - **Process counters** since this process started ([`Metrics`](agentgate_executor::Metrics), made
//!   by the process and fed by its executor as its observer, told where it
//!   claims a job, loses a lease, hands a job back and finishes a run): claims, lease losses, hand-backs,
//!   runs by provider and outcome, the run duration histogram, tokens and
//!   cost per provider. A `serve --no-executor` reports them all at zero.
//!   Sum them over the processes (`sum by (provider)`) for the cluster.
//!
//! A scrape's store calls block: they run on `spawn_blocking`.
//!
//! The counters, the text format and the page are the executor's
//! (the `agentgate-executor` crate, no HTTP); this module serves them:
//! [`endpoint`] the route of `serve`'s router, [`listener`] the worker's
//! listener of its own.

pub mod endpoint;
pub mod listener;

pub use listener::MetricsListener;
