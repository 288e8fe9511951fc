//! One request from the CLI, start to answer: the secret checked, the key
//! swapped, the body read within its bound, the run's limits checked, the
//! request sent upstream (waiting at most `response_timeout` for its
//! headers), and the response handed back through the tap. Every failure
//! is answered in the API's own error shape.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Instant;

use agentgate_protocol::WireApi;
use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Request, Response, StatusCode, header};
use http_body_util::{BodyExt, Either, Full, LengthLimitError, Limited};
use hyper::body::Incoming;

use super::Shared;
use super::call::{CallTrack, ResponseFacts};
use super::keys::{self, KeyRefusal};
use super::notice::GatewayNotice;
use super::record::{RecordedCall, RecordedResponse, recordable_headers};
use super::tapped_body::{TappedBody, TappedCall};
use crate::wire;

/// What the gateway answers with: its own answer whole, or the upstream's
/// body as it streams.
pub(crate) type GatewayBody = Either<Full<Bytes>, TappedBody>;

/// Headers that belong to one connection, never forwarded.
const HOP_BY_HOP: [&str; 10] = [
    "connection",
    "keep-alive",
    "proxy-connection",
    "proxy-authenticate",
    "proxy-authorization",
    "te",
    "trailer",
    "transfer-encoding",
    "upgrade",
    "expect",
];

/// Answer one request of the CLI.
pub(crate) async fn handle(
    shared: Arc<Shared>,
    request: Request<Incoming>,
) -> Result<Response<GatewayBody>, Infallible> {
    let arrived = Instant::now();
    Ok(forward(shared, request, arrived).await)
}

/// The part of a request the call's answer and record need.
struct Asked {
    rest: String,
    query: Option<String>,
    api: Option<WireApi>,
    /// The error shape of the gateway's own answers.
    shape: WireApi,
    method: String,
}

async fn forward(
    shared: Arc<Shared>,
    request: Request<Incoming>,
    arrived: Instant,
) -> Response<GatewayBody> {
    let (mut parts, body) = request.into_parts();
    let Some(rest) = strip_secret(&shared.prefix, parts.uri.path()) else {
        return plain(StatusCode::NOT_FOUND, "not found\n");
    };
    let api = wire::api_of(rest);
    let asked = Asked {
        rest: rest.to_owned(),
        query: parts.uri.query().map(str::to_owned),
        api,
        shape: api.unwrap_or_else(|| guess_api(&parts.headers)),
        method: parts.method.as_str().to_owned(),
    };
    drop_hop_by_hop(&mut parts.headers);
    // Copied only when there is a recording to keep them.
    let recorded_headers = match shared.recorder {
        Some(_) => recordable_headers(&parts.headers),
        None => Vec::new(),
    };
    let declared_len = content_length(&parts.headers);

    let upstream_query = match keys::swap_key(
        &shared.key,
        &mut parts.headers,
        asked.query.as_deref(),
    ) {
        Ok(query) => query,
        Err(refusal) => {
            let (status, message) = match refusal {
                KeyRefusal::WrongKey => (
                    StatusCode::UNAUTHORIZED,
                    "agentgate: wrong key for this run's gateway (use the key the run gave the CLI)",
                ),
                KeyRefusal::BadRealKey => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    "agentgate: the gateway's API key cannot be sent in a header",
                ),
            };
            let track = asked.api.map(|api| {
                let number = shared.ledger.refuse_call();
                new_track(
                    &shared,
                    &asked,
                    api,
                    number,
                    None,
                    declared_len.unwrap_or(0),
                    arrived,
                    &recorded_headers,
                    Bytes::new(),
                )
            });
            return answer(track, asked.shape, status, message, None);
        }
    };

    let too_large = || {
        format!(
            "agentgate: the request body is over the gateway's bound (max_request_bytes {})",
            shared.max_request_bytes
        )
    };
    let numbered = |shared: &Shared| asked.api.map(|_| shared.ledger.number_call());
    if declared_len.is_some_and(|len| len > shared.max_request_bytes) {
        let track = numbered(&shared).zip(asked.api).map(|(number, api)| {
            new_track(
                &shared,
                &asked,
                api,
                number,
                None,
                declared_len.unwrap_or(0),
                arrived,
                &recorded_headers,
                Bytes::new(),
            )
        });
        return answer(
            track,
            asked.shape,
            StatusCode::PAYLOAD_TOO_LARGE,
            &too_large(),
            None,
        );
    }
    let limit = usize::try_from(shared.max_request_bytes).unwrap_or(usize::MAX);
    let body = match Limited::new(body, limit).collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(error) => {
            let over = error.downcast_ref::<LengthLimitError>().is_some();
            let (status, message) = if over {
                (StatusCode::PAYLOAD_TOO_LARGE, too_large())
            } else {
                (
                    StatusCode::BAD_REQUEST,
                    format!("agentgate: the request body could not be read: {error}"),
                )
            };
            let track = numbered(&shared).zip(asked.api).map(|(number, api)| {
                new_track(
                    &shared,
                    &asked,
                    api,
                    number,
                    None,
                    0,
                    arrived,
                    &recorded_headers,
                    Bytes::new(),
                )
            });
            return answer(track, asked.shape, status, &message, None);
        }
    };

    let track = match asked.api {
        None => None,
        Some(api) => {
            let facts = wire::request_facts(api, &asked.rest, &body);
            let start = shared.ledger.begin_call(&shared.limits);
            let track = new_track(
                &shared,
                &asked,
                api,
                start.number,
                facts.model,
                body.len() as u64,
                arrived,
                &recorded_headers,
                body.clone(),
            );
            if let Some(refusal) = start.refusal {
                if refusal.first {
                    let _ = shared.notices.send(GatewayNotice::LimitCrossed {
                        limit: refusal.limit,
                        detail: refusal.detail.clone(),
                    });
                }
                return answer(
                    Some(track),
                    api,
                    StatusCode::BAD_REQUEST,
                    &refusal.message,
                    Some(refusal.limit),
                );
            }
            Some(track)
        }
    };

    let upstream = &shared.upstream;
    let uri = match upstream.uri_for(&asked.rest, upstream_query.as_deref()) {
        Ok(uri) => uri,
        Err(error) => {
            let message = format!("agentgate: the request's path cannot go upstream: {error}");
            return answer_unanswered(track, asked.shape, StatusCode::BAD_REQUEST, &message);
        }
    };
    let mut headers = parts.headers;
    headers.remove(header::CONTENT_LENGTH);
    if let Ok(host) = HeaderValue::from_str(upstream.authority()) {
        headers.insert(header::HOST, host);
    }
    headers.insert(
        header::ACCEPT_ENCODING,
        HeaderValue::from_static("identity"),
    );
    if let Some(authorization) = upstream.proxy_authorization() {
        headers.insert(header::PROXY_AUTHORIZATION, authorization.clone());
    }
    let mut outgoing = Request::new(Full::new(body));
    *outgoing.method_mut() = parts.method;
    *outgoing.uri_mut() = uri;
    *outgoing.headers_mut() = headers;

    let sent =
        tokio::time::timeout(shared.response_timeout, upstream.client().request(outgoing)).await;
    let response = match sent {
        Ok(Ok(response)) => response,
        Ok(Err(error)) => {
            let message = format!(
                "agentgate: the upstream {} could not be reached: {}",
                upstream.origin(),
                error_chain(&error)
            );
            tracing::warn!("{message}");
            return answer_unanswered(track, asked.shape, StatusCode::BAD_GATEWAY, &message);
        }
        Err(_) => {
            let message = format!(
                "agentgate: the upstream {} sent no response within {} s",
                upstream.origin(),
                shared.response_timeout.as_secs_f64()
            );
            tracing::warn!("{message}");
            return answer_unanswered(track, asked.shape, StatusCode::GATEWAY_TIMEOUT, &message);
        }
    };

    let (mut head, upstream_body) = response.into_parts();
    drop_hop_by_hop(&mut head.headers);
    let event_stream = head
        .headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim_start()
                .to_ascii_lowercase()
                .starts_with("text/event-stream")
        });
    let call = track.map(|track| {
        let status = head.status.as_u16();
        let recorded = track.record.as_ref().map(|_| RecordedResponse {
            status,
            headers: recordable_headers(&head.headers),
            body: Vec::new(),
            body_truncated: false,
            error: None,
        });
        TappedCall {
            tap: wire::ResponseTap::new(track.api, event_stream),
            facts: ResponseFacts {
                status,
                event_stream,
                rate: wire::rate_limits(&head.headers, jiff::Timestamp::now()),
                ..ResponseFacts::default()
            },
            recorded,
            track,
        }
    });
    let body = TappedBody::new(upstream_body, shared.max_response_bytes, arrived, call);
    Response::from_parts(head, Either::Right(body))
}

/// The call's track, with its request recorded when the run records.
#[expect(
    clippy::too_many_arguments,
    reason = "one call site per way a call starts"
)]
fn new_track(
    shared: &Arc<Shared>,
    asked: &Asked,
    api: WireApi,
    number: u32,
    model: Option<String>,
    request_bytes: u64,
    arrived: Instant,
    recorded_headers: &[(String, String)],
    body: Bytes,
) -> CallTrack {
    let record = shared.recorder.as_ref().map(|_| RecordedCall {
        call: number,
        api: api.as_str(),
        method: asked.method.clone(),
        path: asked.rest.clone(),
        query: asked.query.as_deref().and_then(keys::query_without_key),
        request_headers: recorded_headers.to_vec(),
        request_body: body,
        response: None,
    });
    CallTrack {
        shared: shared.clone(),
        number,
        api,
        path: asked.rest.clone(),
        model,
        request_bytes,
        arrived,
        record,
        ended: false,
    }
}

/// The gateway's own answer to a call it did not forward.
fn answer(
    track: Option<CallTrack>,
    shape: WireApi,
    status: StatusCode,
    message: &str,
    refused_by: Option<&'static str>,
) -> Response<GatewayBody> {
    let (content_type, body) = wire::error_response(shape, status, message);
    let body = Bytes::from(body);
    if let Some(track) = track {
        track.end_answered(
            status.as_u16(),
            content_type,
            &body,
            message.to_owned(),
            refused_by,
        );
    }
    whole(status, content_type, body)
}

/// The gateway's answer when the upstream gave none.
fn answer_unanswered(
    track: Option<CallTrack>,
    shape: WireApi,
    status: StatusCode,
    message: &str,
) -> Response<GatewayBody> {
    if let Some(track) = track {
        track.end_unanswered(message.to_owned());
    }
    let (content_type, body) = wire::error_response(shape, status, message);
    whole(status, content_type, Bytes::from(body))
}

fn whole(status: StatusCode, content_type: &'static str, body: Bytes) -> Response<GatewayBody> {
    let mut response = Response::new(Either::Left(Full::new(body)));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    response
}

fn plain(status: StatusCode, text: &'static str) -> Response<GatewayBody> {
    whole(
        status,
        "text/plain; charset=utf-8",
        Bytes::from_static(text.as_bytes()),
    )
}

/// The path after `/<secret>` (empty or from one `/`: a base URL joined
/// with a doubled slash loses it); `None` when the path is not the run's.
fn strip_secret<'a>(prefix: &str, path: &'a str) -> Option<&'a str> {
    let rest = path.strip_prefix(prefix)?;
    if rest.is_empty() {
        return Some(rest);
    }
    let bare = rest.trim_start_matches('/');
    let slashes = rest.len() - bare.len();
    (slashes > 0).then(|| &rest[slashes - 1..])
}

/// The API whose error shape answers a request that is not a model call.
fn guess_api(headers: &HeaderMap) -> WireApi {
    if headers.contains_key("x-goog-api-key") {
        WireApi::Gemini
    } else if headers.contains_key("x-api-key") || headers.contains_key("anthropic-version") {
        WireApi::AnthropicMessages
    } else {
        WireApi::OpenaiResponses
    }
}

fn content_length(headers: &HeaderMap) -> Option<u64> {
    headers
        .get(header::CONTENT_LENGTH)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Remove the hop-by-hop headers, those `connection` names included.
fn drop_hop_by_hop(headers: &mut HeaderMap) {
    let named: Vec<HeaderName> = headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|name| HeaderName::from_bytes(name.trim().as_bytes()).ok())
        .collect();
    for name in named {
        headers.remove(name);
    }
    for name in HOP_BY_HOP {
        headers.remove(name);
    }
}

/// An error and its causes, `a: b: c`.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_under_the_secret_are_the_runs() {
        assert_eq!(
            strip_secret("/abc", "/abc/v1/messages"),
            Some("/v1/messages")
        );
        assert_eq!(strip_secret("/abc", "/abc"), Some(""));
        assert_eq!(
            strip_secret("/abc", "/abc//v1/messages"),
            Some("/v1/messages")
        );
        assert_eq!(strip_secret("/abc", "/abcd/v1"), None);
        assert_eq!(strip_secret("/abc", "/v1/messages"), None);
    }

    #[test]
    fn hop_by_hop_headers_and_those_connection_names_are_dropped() {
        let mut headers = HeaderMap::new();
        headers.insert(
            "connection",
            HeaderValue::from_static("keep-alive, x-private"),
        );
        headers.insert("x-private", HeaderValue::from_static("1"));
        headers.insert("transfer-encoding", HeaderValue::from_static("chunked"));
        headers.insert("x-kept", HeaderValue::from_static("1"));
        drop_hop_by_hop(&mut headers);
        assert_eq!(headers.len(), 1);
        assert!(headers.contains_key("x-kept"));
    }
}
