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
//! Then the token names a [`Caller`](crate::access::Caller): the server's
//! own token, or a store token (`agt_...`, looked up by its SHA-256 on
//! every request, so a revoked or expired token is refused at the next
//! request: 401); and the route's scope is checked from the method and
//! path alone ([`crate::access::required_scope`]): `403` when the caller
//! lacks it, still before the body is read. The caller goes into the
//! request's extensions for the handlers.
//!
//! These answers say `Connection: close`: hyper closes the connection
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

use agentgate_executor::Clock;
use agentgate_store::StoreBackend;

use crate::access::{Caller, Need, required_scope};
use crate::auth_failures::AuthFailures;
use crate::error::ApiError;
use crate::token::Token;

/// The largest request body accepted, on every route.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// How long a token's `last_used_at` may lag: it is written at most once
/// per this many seconds per token.
const TOUCH_EVERY_SECS: i64 = 60;

/// The token and the failures counted per peer.
pub(crate) struct Gate {
    token: Token,
    failures: AuthFailures,
    /// Every path needs the token (a listener that serves nothing open).
    everything: bool,
    /// The store whose API tokens are accepted too, and the clock their
    /// expiry is read against.
    store: Option<(Arc<dyn StoreBackend>, Arc<dyn Clock>)>,
}

impl std::fmt::Debug for Gate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gate")
            .field("token", &self.token)
            .field("everything", &self.everything)
            .field("store_tokens", &self.store.is_some())
            .finish_non_exhaustive()
    }
}

impl Gate {
    /// The gate of `serve`'s router: `/metrics` and `/v1` need `token`.
    pub(crate) fn new(token: Token) -> Gate {
        Gate {
            token,
            failures: AuthFailures::default(),
            everything: false,
            store: None,
        }
    }

    /// This gate, accepting the API tokens of `store` too (expiry read on
    /// `clock`).
    pub(crate) fn with_store(self, store: Arc<dyn StoreBackend>, clock: Arc<dyn Clock>) -> Gate {
        Gate {
            store: Some((store, clock)),
            ..self
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
    let caller = match presented_token(request.headers()) {
        Ok(presented) => resolve(&gate, presented).await,
        Err(e) => Err(Refusal::Unauthorized(e)),
    };
    let caller = match caller {
        Ok(caller) => caller,
        Err(Refusal::Failed(e)) => return e.into_response(),
        Err(Refusal::Unauthorized(e)) => return refuse(&gate, &request, peer, now, e),
    };
    let need = required_scope(request.method().as_str(), request.uri().path());
    if !caller.allows(need) {
        let needed = match need {
            Need::Scope(scope) => scope.name(),
            Need::AnyToken => "a valid token",
        };
        let held: Vec<&str> = caller.scopes.iter().map(|s| s.name()).collect();
        return closing(
            ApiError::new(
                StatusCode::FORBIDDEN,
                "forbidden",
                format!(
                    "{} {} needs the `{needed}` scope; token `{}` has {}",
                    request.method(),
                    request.uri().path(),
                    caller.name,
                    if held.is_empty() {
                        "none".to_owned()
                    } else {
                        held.join(", ")
                    }
                ),
            )
            .into_response(),
        );
    }
    let mut request = request;
    request.extensions_mut().insert(caller);
    limit_body(request, next).await
}

/// Why a request has no caller.
enum Refusal {
    /// No valid token: 401, counted against the peer.
    Unauthorized(ApiError),
    /// The store could not be asked: its answer as it is, not counted.
    Failed(ApiError),
}

/// The caller `presented` names: the server's own token, else a live store
/// token.
async fn resolve(gate: &Gate, presented: &[u8]) -> Result<Caller, Refusal> {
    if gate.token.matches(presented) {
        return Ok(Caller::server());
    }
    let invalid = || Refusal::Unauthorized(ApiError::unauthorized("the bearer token is not valid"));
    let Some((store, clock)) = gate.store.clone() else {
        return Err(invalid());
    };
    let Ok(presented) = std::str::from_utf8(presented) else {
        return Err(invalid());
    };
    if !presented.starts_with(agentgate_store::TOKEN_PREFIX) {
        return Err(invalid());
    }
    let hash = agentgate_store::hash_token(presented);
    let now = clock.now();
    let found = tokio::task::spawn_blocking(move || {
        let Some(tokens) = store.token_store() else {
            return Ok(None);
        };
        let Some(record) = tokens.find_token(&hash)? else {
            return Ok(None);
        };
        if !agentgate_store::hashes_equal(&record.hash, &hash) {
            return Ok(None);
        }
        let stale = record
            .last_used_at
            .is_none_or(|at| now.as_second() - at.as_second() >= TOUCH_EVERY_SECS);
        if stale && !record.refused_at(now) {
            tokens.touch_token(&record.name, now)?;
        }
        Ok::<_, agentgate_store::StoreError>(Some(record))
    })
    .await
    .map_err(|e| {
        Refusal::Failed(ApiError::internal(format!(
            "checking the token failed: {e}"
        )))
    })?
    .map_err(|e| Refusal::Failed(ApiError::store(&e)))?;
    match found {
        Some(record) if record.revoked_at.is_some() => Err(Refusal::Unauthorized(
            ApiError::unauthorized(format!("token `{}` was revoked", record.name)),
        )),
        Some(record) if record.refused_at(now) => Err(Refusal::Unauthorized(
            ApiError::unauthorized(format!("token `{}` has expired", record.name)),
        )),
        Some(record) => Ok(Caller::of(&record)),
        None => Err(invalid()),
    }
}

/// A 401, counted against `peer` (closing the connection).
fn refuse(gate: &Gate, request: &Request, peer: IpAddr, now: Instant, e: ApiError) -> Response {
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
    closing(e.into_response())
}

/// `response`, with the connection closed after it (its request's body
/// is not read).
fn closing(mut response: Response) -> Response {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The token of `Authorization: Bearer <token>` in `headers`. The
/// presented value is compared in constant time (the server's token; a
/// store token by its hash) and never logged.
fn presented_token(headers: &HeaderMap) -> Result<&[u8], ApiError> {
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
        Some(c) => Ok(c.trim_ascii()),
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

    #[tokio::test]
    async fn bearer_scheme_is_case_insensitive_and_the_token_exact() {
        let gate = Gate::new(crate::token::Token::for_tests("s3cret"));
        let check = async |value: &str| match presented_token(&headers(value)) {
            Ok(p) => resolve(&gate, p).await.is_ok(),
            Err(_) => false,
        };
        assert!(check("Bearer s3cret").await);
        assert!(check("bearer s3cret").await);
        assert!(!check("Bearer s3cre").await);
        assert!(!check("Basic s3cret").await);
        assert!(!check("s3cret").await);
        assert!(presented_token(&HeaderMap::new()).is_err());
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
