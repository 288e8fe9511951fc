//! The routes and the layers every request passes through.
//!
//! Outermost first: the body limit (every route: a body over
//! [`MAX_BODY_BYTES`] is 413, whether it says its length or is chunked;
//! within the limit it is buffered, so handlers get it whole), then the
//! routes. `/healthz` is open; `/metrics` and everything under `/v1`,
//! unknown paths too, are behind the bearer token ([`require_token`]). Unknown paths are 404 and a known path with
//! another method is 405, both as JSON [`ApiError`]s.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::error::ApiError;
use crate::metrics::endpoint as metrics;
use crate::state::AppState;
use crate::token::Token;
use crate::{
    approval_routes, events, info, openapi, routes, run_routes, runs, workers_route,
    workflow_routes,
};

/// The largest request body accepted, on every route.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The whole application: `/healthz`, the `/v1` API behind the token, the
/// JSON 404 and 405, and the body limit.
pub fn router(state: Arc<AppState>) -> Router {
    let v1 = Router::new()
        .route("/health", get(routes::v1_health))
        .route("/runs", get(runs::list_runs).post(run_routes::submit))
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
        .route("/workers", get(workers_route::list_workers))
        .route("/openapi.json", get(openapi::openapi_json))
        .fallback(v1_not_found)
        .method_not_allowed_fallback(v1_method_not_allowed)
        // `layer`, not `route_layer`: an unknown /v1 path needs the token too
        // (401 before 404), so the API's routes are not probed without it.
        .layer(middleware::from_fn_with_state(
            state.token.clone(),
            require_token,
        ));
    // Prometheus sends the token too (`authorization` or
    // `bearer_token_file` in its scrape config).
    let metrics = Router::new()
        .route("/metrics", get(metrics::scrape))
        .route_layer(middleware::from_fn_with_state(
            state.token.clone(),
            require_token,
        ));
    let routes = Router::new()
        .route("/healthz", get(routes::healthz))
        .merge(metrics)
        .merge(crate::dashboard::routes())
        .nest("/v1", v1)
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state);
    // A layer on a Router wraps each route; as the only service of an outer
    // Router it runs once, before routing.
    Router::new()
        .fallback_service(routes)
        .layer(middleware::from_fn(limit_body))
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

/// 401 unless the request carries `Authorization: Bearer <token>`. The
/// presented value is compared in constant time and never logged.
pub(crate) async fn require_token(
    State(token): State<Token>,
    request: Request,
    next: Next,
) -> Response {
    match check_bearer(&token, request.headers()) {
        Ok(()) => next.run(request).await,
        Err(e) => {
            tracing::info!(
                method = %request.method(),
                path = request.uri().path(),
                "refused a request without a valid bearer token"
            );
            e.into_response()
        }
    }
}

fn check_bearer(token: &Token, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(value) = headers.get(header::AUTHORIZATION) else {
        return Err(ApiError::unauthorized(
            "this route needs an `Authorization: Bearer TOKEN` header (the token is in \
             AGENTGATE_TOKEN or the token file `agentgate serve` printed the path of)",
        ));
    };
    let presented = value.as_bytes();
    let scheme = b"bearer ";
    let credentials = presented
        .get(..scheme.len())
        .filter(|s| s.eq_ignore_ascii_case(scheme))
        .and_then(|_| presented.get(scheme.len()..));
    match credentials {
        Some(c) if token.matches(c.trim_ascii()) => Ok(()),
        Some(_) => Err(ApiError::unauthorized("the bearer token is not valid")),
        None => Err(ApiError::unauthorized(
            "the Authorization header must use the Bearer scheme: `Authorization: Bearer TOKEN`",
        )),
    }
}

/// 413 for a body over [`MAX_BODY_BYTES`]; otherwise the body, buffered.
async fn limit_body(request: Request, next: Next) -> Response {
    let declared = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > MAX_BODY_BYTES as u64) {
        return ApiError::too_large(MAX_BODY_BYTES).into_response();
    }
    let (parts, body) = request.into_parts();
    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return ApiError::too_large(MAX_BODY_BYTES).into_response();
        }
        Err(e) => {
            return ApiError::new(
                axum::http::StatusCode::BAD_REQUEST,
                "bad_request",
                format!("failed to read the request body: {e}"),
            )
            .into_response();
        }
    };
    next.run(Request::from_parts(parts, Body::from(bytes)))
        .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn bearer_scheme_is_case_insensitive_and_the_token_exact() {
        let token = crate::token::from_env(Some("s3cret".to_owned())).unwrap();
        assert!(check_bearer(&token, &headers("Bearer s3cret")).is_ok());
        assert!(check_bearer(&token, &headers("bearer s3cret")).is_ok());
        assert!(check_bearer(&token, &headers("Bearer s3cre")).is_err());
        assert!(check_bearer(&token, &headers("Basic s3cret")).is_err());
        assert!(check_bearer(&token, &headers("s3cret")).is_err());
        assert!(check_bearer(&token, &HeaderMap::new()).is_err());
    }
}
