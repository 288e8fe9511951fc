//! This process's metrics, without HTTP: the counters ([`Metrics`], fed by
//! the executor as its `executor::JobObserver`, told where it claims a job,
//! loses a lease, hands a job back and finishes a run: this module sits
//! above the executor, which never calls into it), the Prometheus text format ([`text`])
//! and the page a scrape answers ([`render`]: the store's cluster gauges,
//! then this process's executor and counters). `agentgate_server`'s `metrics`
//! serves the page at `GET /metrics`, for `serve` and for
//! `agentgate worker --metrics-listen`; its notes list the series.

pub mod page;
pub mod registry;
pub mod text;

pub use page::render;
pub use registry::Metrics;
