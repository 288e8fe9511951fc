//! The routes and the layer every request passes through first.
//!
//! The [`gate`](crate::gate) wraps the whole router once: `/metrics` and
//! everything under `/v1`, unknown paths too (401 before 404), need the
//! bearer token, checked from the headers before any byte of the body is
//! read; then the body limit ([`MAX_BODY_BYTES`](crate::MAX_BODY_BYTES): 413, whether the body
//! says its length or is chunked; within it the body is buffered, so
//! handlers get it whole). `/healthz` and the dashboard are open. Unknown
//! paths are 404 and a known path with another method is 405, both as
//! JSON [`ApiError`]s.

use std::sync::Arc;

use axum::Router;
use axum::extract::Request;
use axum::middleware;
use axum::routing::{delete, get, post};

use crate::error::ApiError;
use crate::gate::Gate;
use crate::metrics::endpoint as metrics;
use crate::state::AppState;
use crate::{
    approval_routes, events, info, label_cancel, models_route, openapi, routes, run_routes, runs,
    skills_route, token_routes, usage_route, workers_route, workflow_routes,
};

/// The whole application: `/healthz`, the `/v1` API behind the token, the
/// JSON 404 and 405, and the body limit of [`crate::MAX_BODY_BYTES`].
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .route("/health", get(routes::v1_health))
        .route("/runs", get(runs::list_runs).post(run_routes::submit))
        .route("/runs/cancel", post(label_cancel::cancel_by_label))
        .route("/runs/{id}/cancel", post(run_routes::cancel))
        .route("/runs/{id}/approvals", get(approval_routes::pending))
        .route(
            "/runs/{id}/approvals/{request_id}",
            post(approval_routes::answer),
        )
        .route("/runs/{id}", get(runs::get_run))
        .route("/runs/{id}/events", get(events::run_events))
        .route("/workflows", post(workflow_routes::submit_workflow))
        .route("/queue", get(info::queue))
        .route("/sessions", get(info::list_sessions))
        .route("/sessions/{name}", delete(info::delete_session))
        .route("/quota", get(info::quota))
        .route("/providers", get(info::providers))
        .route("/skills", get(skills_route::list))
        .route("/models", get(models_route::list))
        .route("/workers", get(workers_route::list_workers))
        .route("/usage", get(usage_route::usage))
        .route(
            "/webhooks/deliveries",
            get(crate::webhooks::v1_webhook_deliveries),
        )
        .route("/openapi.json", get(openapi::openapi_json))
        .route("/whoami", get(token_routes::whoami))
        .route(
            "/tokens",
            get(token_routes::list_tokens).post(token_routes::create_token),
        )
        .route("/tokens/{name}", delete(token_routes::revoke_token))
        .fallback(v1_not_found)
        .method_not_allowed_fallback(v1_method_not_allowed);
    let gate = Arc::new(
        Gate::new(state.token.clone()).with_store(state.store.clone(), state.clock.clone()),
    );
    let routes = Router::new()
        .route("/healthz", get(routes::healthz))
        // Prometheus sends the token too (`authorization` or
        // `bearer_token_file` in its scrape config).
        .route("/metrics", get(metrics::scrape))
        .merge(crate::dashboard::routes())
        .nest("/v1", v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    // A layer on a Router wraps each route; as the only service of an outer
    // Router it runs once, before routing (an unknown /v1 path needs the
    // token too: 401 before 404, so the API is not probed without it).
    Router::new()
        .fallback_service(routes)
        .layer(middleware::from_fn_with_state(gate, crate::gate::gate))
}

async fn not_found(request: Request) -> ApiError {
    ApiError::not_found(request.method().as_str(), request.uri().path())
}

async fn method_not_allowed(request: Request) -> ApiError {
    ApiError::method_not_allowed(request.method().as_str(), request.uri().path())
}

// A nested router sees its paths without the `/v1` prefix.
async fn v1_not_found(request: Request) -> ApiError {
    let path = format!("/v1{}", request.uri().path());
    ApiError::not_found(request.method().as_str(), &path)
}

async fn v1_method_not_allowed(request: Request) -> ApiError {
    let path = format!("/v1{}", request.uri().path());
    ApiError::method_not_allowed(request.method().as_str(), &path)
}
