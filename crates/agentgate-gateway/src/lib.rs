//! The model gateway: an HTTP endpoint private to one run, between the
//! agent CLI and its model API.
//!
//! # Architecture
//!
//! - [`wire`]: what a model call means, read off the bytes: which API a
//!   path belongs to, the request's model and stream flag, a response tap
//!   per API that sums the usage as the body streams by (SSE or JSON), the
//!   rate-limit headers, and each API's own error shape (what the gateway
//!   answers when it refuses a call). Pure functions, no I/O.
//! - [`proxy`]: the endpoint and the forwarding: a loopback listener whose
//!   paths start with the run's secret, the stub key swapped for the real
//!   one, the upstream over HTTPS (rustls, the system's roots plus an
//!   optional CA file, HTTP proxies honoured), the response streamed back
//!   frame by frame through a tap, the run's limits, the recording, and a
//!   [`ModelCallEvent`] per call sent to the run.
//!
//! Imports go one way: `proxy` → `wire`; [`config`] is a leaf both use.
//!
//! [`ModelCallEvent`]: agentgate_protocol::ModelCallEvent

pub mod config;
mod egress;
pub mod proxy;
mod unix_socket;
pub mod wire;

pub use config::{CallLimits, GatewayConfig, KeyMode};
pub use egress::{EgressNotice, EgressProxy, EgressRefusal, EgressSummary, MAX_NOTICES};
pub use proxy::{Gateway, GatewayError, GatewayNotice, GatewaySummary};
