//! The first thing every request meets: the token, before any byte of
//! the body is read.
//!
//! A request for a path behind the token (`/metrics`, `/v1` and all under
//! it: [`needs_token`]; with [`Gate::everything`], every path) is answered
//! at once, from its headers alone, when
//!
//! - its peer is refused for now ([`AuthFailures`]): `429` with
//!   `Retry-After`, without looking at the token;
//! - it has no valid `Authorization: Bearer` token: `401`, counted against
//!   its peer.
//!
//! Both answers say `Connection: close`: hyper closes the connection
//! after them instead of reading (draining) the body the client may be
//! sending. Only a request that presented the token has its body read,
//! up to [`MAX_BODY_BYTES`] (413 past it; within it the body is buffered,
//! so handlers get it whole). Open paths (`/healthz`, the dashboard, and
//! 404s outside `/v1`) serve only `GET`: their bodies are never read.

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};

use crate::auth_failures::AuthFailures;
use crate::error::ApiError;
use crate::token::Token;

/// The largest request body accepted, on every route.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The token and the failures counted per peer.
#[derive(Debug)]
pub(crate) struct Gate {
    token: Token,
    failures: AuthFailures,
    /// Every path needs the token (a listener that serves nothing open).
    everything: bool,
}

impl Gate {
    /// The gate of `serve`'s router: `/metrics` and `/v1` need `token`.
    pub(crate) fn new(token: Token) -> Gate {
        Gate {
            token,
            failures: AuthFailures::default(),
            everything: false,
        }
    }

    /// A gate where every path needs `token`.
    pub(crate) fn everything(token: Token) -> Gate {
        Gate {
            everything: true,
            ..Gate::new(token)
        }
    }
}

/// Whether `path` is behind the token in `serve`'s router.
pub(crate) fn needs_token(path: &str) -> bool {
    path == "/metrics" || path == "/v1" || path.starts_with("/v1/")
}

/// The gate as a middleware (see the module notes).
pub(crate) async fn gate(State(gate): State<Arc<Gate>>, request: Request, next: Next) -> Response {
    if !gate.everything && !needs_token(request.uri().path()) {
        return next.run(request).await;
    }
    let peer = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map_or(IpAddr::V4(Ipv4Addr::UNSPECIFIED), |c| c.0.ip());
    let now = Instant::now();
    if let Some(wait) = gate.failures.refused_for(peer, now) {
        let secs = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
        let mut response = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_requests",
            format!(
                "too many requests without a valid token from this address; try again in {secs} s"
            ),
        )
        .into_response();
        response
            .headers_mut()
            .insert(header::RETRY_AFTER, HeaderValue::from(secs.max(1)));
        return closing(response);
    }
    if let Err(e) = check_bearer(&gate.token, request.headers()) {
        tracing::info!(
            method = %request.method(),
            path = request.uri().path(),
            %peer,
            "refused a request without a valid bearer token"
        );
        if gate.failures.failed(peer, now) {
            tracing::warn!(
                %peer,
                "refusing this address for {} s: {} requests without a valid token",
                crate::auth_failures::WINDOW.as_secs(),
                crate::auth_failures::FAILURES_MAX
            );
        }
        return closing(e.into_response());
    }
    limit_body(request, next).await
}

/// `response`, with the connection closed after it (its request's body
/// is not read).
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// Ok when `headers` carry `Authorization: Bearer <token>`. The presented
/// value is compared in constant time and never logged.
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
        return closing(ApiError::too_large(MAX_BODY_BYTES).into_response());
    }
    let (parts, body) = request.into_parts();
    let bytes = match Limited::new(body, MAX_BODY_BYTES).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return closing(ApiError::too_large(MAX_BODY_BYTES).into_response());
        }
        Err(e) => {
            return ApiError::new(
                StatusCode::BAD_REQUEST,
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

    fn headers(value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
        h
    }

    #[test]
    fn bearer_scheme_is_case_insensitive_and_the_token_exact() {
        let token = crate::token::Token::for_tests("s3cret");
        assert!(check_bearer(&token, &headers("Bearer s3cret")).is_ok());
        assert!(check_bearer(&token, &headers("bearer s3cret")).is_ok());
        assert!(check_bearer(&token, &headers("Bearer s3cre")).is_err());
        assert!(check_bearer(&token, &headers("Basic s3cret")).is_err());
        assert!(check_bearer(&token, &headers("s3cret")).is_err());
        assert!(check_bearer(&token, &HeaderMap::new()).is_err());
    }

    #[test]
    fn the_api_and_metrics_need_the_token_and_nothing_else() {
        for path in ["/v1", "/v1/", "/v1/runs", "/v1/nope/deeper", "/metrics"] {
            assert!(needs_token(path), "{path}");
        }
        for path in [
            "/",
            "/healthz",
            "/v1x",
            "/v10/runs",
            "/metrics/",
            "/nope",
            "/app.js",
        ] {
            assert!(!needs_token(path), "{path}");
        }
    }
}
