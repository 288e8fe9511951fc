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
//!   /v1/runs/{id}/events` (Server-Sent Events, see `events/`), `GET
//!   /v1/queue`, `GET /v1/sessions`, `DELETE /v1/sessions/{name}`, `GET
//!   /v1/quota`, `GET /v1/providers`; their bodies are the view types
//!   ([`RunView`], [`RunPage`], [`QueueView`], ...; `views.rs`);
//! - `GET /v1/openapi.json`, the OpenAPI 3.1 document ([`openapi_document`];
//!   a new route joins it with one line in [`ApiDoc`]'s `paths(...)`);
//! - bearer-token auth on every `/v1` route ([`TokenSource`] says where the token
//!   came from; `token.rs`), checked before any byte of a body is read, with `429`
//!   for a peer after too many failures; a [`MAX_BODY_BYTES`] limit on
//!   every request body (413); JSON errors `{"error": {"type", "message",
//!   "field"}}` ([`ErrorBody`]) for 400, 401, 404, 405, 409, 413, 422, 429;
//! - its own accept loop (`conn/`): a header-read timeout, an idle
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
//!   API's own client ([`ApiClient`]) that `agentgate submit`, `cancel`, `tail` and
//!   `runs --server` use;
//! - graceful shutdown on SIGTERM and SIGINT ([`Server::run`]): the HTTP
//!   drain and the executor's (running jobs get the grace, then are
//!   cancelled and requeued).
//!
//! - `GET /v1/workers` (`workers_route.rs`): the executors sharing the
//!   store (the executor crate's `presence`), `serve`'s own among them
//!   unless it runs with `--no-executor` (a pure API: it claims nothing);
//! - the queue's depth over the last hour (`queue_history.rs`), sampled by
//!   a task of the server, in `GET /v1/queue`'s `history`;
//! - `GET /v1/usage` (`usage_route.rs`): the store's usage report
//!   (`agentgate usage`'s), with its flags as query parameters;
//! - `GET /metrics` (`metrics/`): the Prometheus text format, behind the
//!   token: the store's queue and workers, this process's counters; and
//!   [`MetricsListener`], the listener of `agentgate worker
//!   --metrics-listen` (the worker itself is the executor crate's).
//!
//! - many API tokens (`access.rs`, `token_routes.rs`; stored hashed by
//!   the store's [`agentgate_store::TokenStore`]): each with scopes and an
//!   optional team; the gate resolves the bearer to a [`Caller`] and
//!   checks the route's scope ([`required_scope`]) before the body is
//!   read (403); `GET /v1/whoami`, `GET/POST /v1/tokens`, `DELETE
//!   /v1/tokens/{name}`; a team's reader sees only its team's runs.
//! - webhooks (`webhooks/`): the delivery worker of the outbox's signed
//!   messages (run ended, job waiting, approval requested) and `GET
//!   /v1/webhooks/deliveries`.
//!
//! Listening on a non-loopback address needs an explicit token
//! (`AGENTGATE_TOKEN`, or an existing `--token-file`).
//!
//! The modules are private; this face re-exports the API (documented,
//! `missing_docs` warned). They form layers without an import cycle:
//! `error`, `listen`, `token`, `views` at the bottom, the gate and the
//! route modules over `state`, `openapi` over the routes, `router` over
//! them, `server` on top; the executor crate below all of them.

#![warn(missing_docs)]

mod access;
mod answer_origin;
mod approval_routes;
mod auth_failures;
mod client;
mod conn;
mod dashboard;
mod error;
mod events;
mod gate;
mod info;
mod label_cancel;
mod listen;
mod metrics;
mod models_route;
mod openapi;
mod openapi_links;
mod openapi_rules;
mod queue_history;
mod router;
mod routes;
mod run_routes;
mod runs;
mod server;
mod skills_route;
mod state;
mod submitters;
mod token;
mod token_routes;
mod trace_header;
mod usage_route;
mod views;
mod webhooks;
mod workers_route;
mod workflow_routes;

pub use access::{Caller, Need, ROUTE_SCOPES, SERVER_TOKEN_NAME, required_scope};
pub use agentgate_executor::{StopSignals, shutdown_signal};
pub use approval_routes::{ApprovalAnswer, ApprovalAnswered, PendingApprovals};
pub use client::{
    ApiClient, BadServerUrl, ClientError, DEFAULT_SERVER, RECONNECTS_MAX, RunEvents, SERVER_ENV,
    SSE_LINE_MAX, ServerUrl, SseError, SseMessage, SseParser, StreamItem,
};
pub use conn::{
    ConnLimits, DEFAULT_HEADER_READ_TIMEOUT, DEFAULT_IDLE_TIMEOUT, DEFAULT_MAX_CONNECTIONS,
    MAX_HEAD_BYTES,
};
pub use error::{ApiError, ErrorBody, ErrorDetail, ServeError};
pub use gate::MAX_BODY_BYTES;
pub use listen::{is_loopback, parse_listen};
pub use metrics::MetricsListener;
pub use openapi::{ApiDoc, document as openapi_document, document_json as openapi_json};
pub use queue_history::{QueueHistory, QueueSample, SAMPLE_ENV as QUEUE_SAMPLE_ENV};
pub use router::router;
pub use routes::Healthz;
pub use run_routes::RunAccepted;
pub use runs::{DEFAULT_PAGE, ListParams, MAX_PAGE};
pub use server::{DEFAULT_GRACE, DEFAULT_LISTEN, ServeOptions, Server, Stopped};
pub use state::{AppState, DEFAULT_KEEP_ALIVE, EVENT_POLL_ENV, EventStreamOptions, HEALTH_TTL};
pub use token::{MIN_TOKEN_CHARS, TOKEN_ENV, TOKEN_FILE_NAME, Token, TokenFileChoice, TokenSource};
pub use token_routes::{TokenCreated, TokenList, TokenRequest, TokenView};
pub use views::{
    LimitView, ProviderCounts, QueueView, QuotaList, RotationView, RunPage, RunState, RunView,
    SessionDeleted, SessionList, SessionView, StateCounts, StreamEnd, SubmittedBy, UnreadableRun,
};
pub use webhooks::{
    DeliveryList, DeliveryView, SCHEDULE as WEBHOOK_SCHEDULE, SecretError, WebhookSecret,
    WebhookStartError, Webhooks, refused_because as webhook_address_refused,
    start as start_webhooks,
};
pub use workers_route::{WorkerList, WorkerView};
pub use workflow_routes::WorkflowSubmission;
