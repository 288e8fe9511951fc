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
//! - bearer-token auth on every `/v1` route ([`token`] says where the token
//!   comes from), a [`MAX_BODY_BYTES`] limit on every request body (413),
//!   JSON errors `{"error": {"type", "message"}}` for 401, 404, 405, 413;
//! - `POST /v1/runs` and `POST /v1/runs/{id}/cancel` (`run_routes.rs`):
//!   the job queue, run by the [`executor`] within the config's `queue:`
//!   limits;
//! - graceful shutdown on SIGTERM and SIGINT ([`Server::run`]): the HTTP
//!   drain and the executor's (running jobs get the grace, then are
//!   cancelled and requeued).
//!
//! Listening on a non-loopback address needs an explicit token
//! (`AGENTGATE_TOKEN`, or an existing `--token-file`).

pub mod client;
pub mod clock;
mod dashboard;
mod error;
pub mod executor;
mod router;
mod routes;
mod run_routes;
mod server;
mod state;
pub mod token;

pub use error::{ApiError, ServeError};
pub use router::{MAX_BODY_BYTES, router};
pub use routes::Healthz;
pub use run_routes::RunAccepted;
pub use server::{
    DEFAULT_GRACE, DEFAULT_LISTEN, ServeOptions, Server, Stopped, is_loopback, parse_listen,
    shutdown_signal,
};
pub use state::{AppState, HEALTH_TTL};
