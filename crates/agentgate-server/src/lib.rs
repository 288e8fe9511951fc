//! `agentgate serve`: agentgate as an HTTP service on one machine.
//!
//! The library builds the axum [`router`] and runs the [`Server`]; the
//! `agentgate` binary only parses `serve`'s flags, prints the bound URL and
//! the token file's path, and calls it. Today the server has:
//!
//! - `GET /healthz`, open: `{"ok": true, "version": "..."}`;
//! - `GET /v1/health`, what `agentgate health --json` prints (the same
//!   library call, [`agentgate_core::health::check_all`]), cached for
//!   [`HEALTH_TTL`];
//! - the read API over the store: `GET /v1/runs` (the queue's jobs, with
//!   filters and keyset pages), `GET /v1/runs/{id}`, `GET
//!   /v1/runs/{id}/events` (Server-Sent Events, see [`events`]), `GET
//!   /v1/queue`, `GET /v1/sessions`, `DELETE /v1/sessions/{name}`, `GET
//!   /v1/quota`, `GET /v1/providers`; their bodies are the types of
//!   [`views`];
//! - `GET /v1/openapi.json`, the OpenAPI 3.1 document ([`openapi`]; a new
//!   route joins it with one line in [`openapi::ApiDoc`]'s `paths(...)`);
//! - bearer-token auth on every `/v1` route ([`token`] says where the token
//!   comes from), checked before any byte of a body is read, with `429`
//!   for a peer after too many failures; a [`MAX_BODY_BYTES`] limit on
//!   every request body (413); JSON errors `{"error": {"type", "message",
//!   "field"}}` ([`ErrorBody`]) for 400, 401, 404, 405, 409, 413, 422, 429;
//! - its own accept loop ([`conn`]): a header-read timeout, an idle
//!   timeout and a connection limit ([`ConnLimits`]);
//! - `POST /v1/runs` and `POST /v1/runs/{id}/cancel` (`run_routes.rs`):
//!   the job queue, run by the executor (the `agentgate-executor` crate,
//!   below this one: the server is routes over it) within the config's
//!   `queue:` limits;
//! - `POST /v1/workflows` (`workflow_routes.rs`): a workflow queued as a
//!   job whose run is the workflow run, started or resumed by the executor;
//! - the config's `schedules:` and `watch:` (the executor crate's
//!   `automation`), started and stopped by [`Server`];
//! - the dashboard at `/` (open; the page asks for the token), and the
//!   API's own [`client`] that `agentgate submit`, `cancel`, `tail` and
//!   `runs --server` use;
//! - graceful shutdown on SIGTERM and SIGINT ([`Server::run`]): the HTTP
//!   drain and the executor's (running jobs get the grace, then are
//!   cancelled and requeued).
//!
//! - `GET /v1/workers` (`workers_route.rs`): the executors sharing the
//!   store (the executor crate's `presence`), `serve`'s own among them
//!   unless it runs with `--no-executor` (a pure API: it claims nothing);
//! - `GET /metrics` ([`metrics`]): the Prometheus text format, behind the
//!   token: the store's queue and workers, this process's counters; and
//!   [`metrics::MetricsListener`], the listener of `agentgate worker
//!   --metrics-listen` (the worker itself is the executor crate's).
//!
//! Listening on a non-loopback address needs an explicit token
//! (`AGENTGATE_TOKEN`, or an existing `--token-file`).

mod answer_origin;
mod approval_routes;
mod auth_failures;
pub mod client;
pub mod conn;
mod dashboard;
mod error;
pub mod events;
mod gate;
mod info;
mod listen;
pub mod metrics;
pub mod openapi;
mod router;
mod routes;
mod run_routes;
mod runs;
mod server;
mod state;
pub mod token;
pub mod views;
mod workers_route;
mod workflow_routes;

pub use agentgate_executor::{StopSignals, shutdown_signal};
pub use conn::ConnLimits;
pub use error::{ApiError, ErrorBody, ErrorDetail, ServeError};
pub use gate::MAX_BODY_BYTES;
pub use listen::{is_loopback, parse_listen};
pub use router::router;
pub use routes::Healthz;
pub use run_routes::RunAccepted;
pub use runs::{DEFAULT_PAGE, MAX_PAGE};
pub use server::{DEFAULT_GRACE, DEFAULT_LISTEN, ServeOptions, Server, Stopped};
pub use state::{AppState, DEFAULT_KEEP_ALIVE, EVENT_POLL_ENV, EventStreamOptions, HEALTH_TTL};
pub use workflow_routes::WorkflowSubmission;
