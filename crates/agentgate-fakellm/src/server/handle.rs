//! One request answered: the route, the body parsed into a
//! [`ChatRequest`] and logged, then the answer from the script (a side
//! request's canned one, the matching turn's, the default) or, when the
//! server replays a recording, the recorded response.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde_json::{Value, json};

use super::respond::{
    error_body, json_response, shutting_down, stream_body, stream_frames, with_headers,
};
use super::route::{Route, route};
use super::shared::Shared;
use crate::api::{self, PathInfo, Rendered};
use crate::engine::SideRequest;
use crate::fault::{self, Ending};
use crate::log::LogEntry;
use crate::models::models_listing;
use crate::replay::{self, Next};
use crate::reply::{Cut, ErrorKind, ErrorReply, Outcome, Reply};
use crate::request::{Api, ChatRequest};

fn now_rfc3339() -> String {
    jiff::Timestamp::now().to_string()
}

/// Answer one request.
pub(super) async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResponse {
    let n = shared.next_request();
    let path_q = uri
        .path_and_query()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_else(|| uri.path().to_owned());
    let mut entry = LogEntry {
        n,
        ts: now_rfc3339(),
        method: method.to_string(),
        path: path_q,
        api: None,
        model: None,
        stream: None,
        tools: None,
        messages: None,
        response_format: None,
        reasoning: None,
        side: None,
        turn: None,
        replayed_call: None,
        outcome: "info",
        status: None,
        error: None,
    };
    let route = route(&method, uri.path(), uri.query(), &headers);
    match route {
        Route::Root => {
            entry.status = Some(200);
            shared.log.record(entry);
            (StatusCode::OK, "agentgate fake-llm\n").into_response()
        }
        Route::Models(flavor) => {
            entry.status = Some(200);
            shared.log.record(entry);
            json_response(
                StatusCode::OK,
                models_listing(flavor, shared.engine.models()),
                None,
            )
        }
        Route::NotFound => {
            entry.outcome = "not_found";
            entry.status = Some(404);
            entry.error = Some(format!("no route for {} {}", method, uri.path()));
            shared.log.record(entry);
            json_response(
                StatusCode::NOT_FOUND,
                json!({"error": {"message": format!("fake-llm: no route for {} {}", method, uri.path()), "type": "not_found_error"}}),
                None,
            )
        }
        Route::AnthropicCount | Route::GeminiCount(_) => {
            let api = if route == Route::AnthropicCount {
                Api::Anthropic
            } else {
                Api::Gemini
            };
            let path = match &route {
                Route::GeminiCount(m) => PathInfo {
                    model: Some(m.clone()),
                    stream: Some(false),
                },
                _ => PathInfo::default(),
            };
            let parsed = parse_body(&body).and_then(|v| parse(api, &v, &path));
            match parsed {
                Ok(req) => {
                    let tokens = req.estimated_input_tokens();
                    entry.api = Some(api);
                    entry.model = Some(req.model.clone());
                    entry.status = Some(200);
                    shared.log.record(entry);
                    let body = if api == Api::Anthropic {
                        json!({"input_tokens": tokens})
                    } else {
                        json!({"totalTokens": tokens})
                    };
                    json_response(StatusCode::OK, body, None)
                }
                Err(e) => bad_request(&shared, entry, e),
            }
        }
        Route::Model(api, path) => {
            if let Some(wrong) = key_refused(&shared, &headers, uri.query()) {
                entry.api = Some(api);
                entry.outcome = "unauthorized";
                entry.status = Some(401);
                entry.error = Some(wrong.to_owned());
                shared.log.record(entry);
                let err = ErrorReply {
                    kind: ErrorKind::Auth,
                    status: 401,
                    message: Some(format!("fake-llm: {wrong}")),
                    retry_after: None,
                    model: String::new(),
                };
                return json_response(StatusCode::UNAUTHORIZED, error_body(api, &err), None);
            }
            let value = match parse_body(&body) {
                Ok(v) => v,
                Err(e) => return bad_request(&shared, entry, e),
            };
            let req = match parse(api, &value, &path) {
                Ok(r) => r,
                Err(e) => return bad_request(&shared, entry, e),
            };
            entry.api = Some(api);
            entry.model = Some(req.model.clone());
            entry.stream = Some(req.stream);
            entry.tools = Some(req.tool_names());
            entry.messages = Some(req.messages.clone());
            entry.response_format = req.response_format.clone();
            entry.reasoning = crate::log::reasoning_of(api, &value);
            if shared.replay.is_some() {
                return replayed(&shared, entry, &req);
            }
            let reply = match SideRequest::detect(&req) {
                Some(kind) => {
                    entry.side = Some(kind);
                    let schema = value.get("generationConfig").and_then(|g| {
                        g.get("responseJsonSchema")
                            .or_else(|| g.get("responseSchema"))
                    });
                    shared.engine.side_reply(kind, &req, schema)
                }
                None => shared.engine.reply(&req),
            };
            entry.turn = reply.turn.clone();
            answer(shared, entry, req, reply).await
        }
    }
}

/// Why a model request is refused for its key (`--require-key`): `None`
/// when it carries the required key, or when none is required.
fn key_refused(shared: &Shared, headers: &HeaderMap, query: Option<&str>) -> Option<&'static str> {
    let required = shared.require_key.as_deref()?;
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let bearer = header("authorization").and_then(|v| v.strip_prefix("Bearer "));
    let in_query = query.and_then(|q| q.split('&').find_map(|kv| kv.strip_prefix("key=")));
    let given: Vec<&str> = [
        header("x-api-key"),
        bearer,
        header("x-goog-api-key"),
        in_query,
    ]
    .into_iter()
    .flatten()
    .collect();
    if given.is_empty() {
        Some("the request carries no API key")
    } else if given.contains(&required) {
        None
    } else {
        Some("invalid API key")
    }
}

fn parse_body(body: &Bytes) -> Result<Value, String> {
    serde_json::from_slice(body).map_err(|e| format!("request body is not JSON: {e}"))
}

fn parse(api: Api, body: &Value, path: &PathInfo) -> Result<ChatRequest, String> {
    let r = match api {
        Api::Anthropic => api::anthropic::parse(body, path),
        Api::Responses => api::responses::parse(body, path),
        Api::Chat => api::chat::parse(body, path),
        Api::Gemini => api::gemini::parse(body, path),
    };
    r.map_err(|e| e.to_string())
}

fn render(req: &ChatRequest, resp: &crate::reply::Response) -> Rendered {
    match req.api {
        Api::Anthropic => api::anthropic::render(req, resp),
        Api::Responses => api::responses::render(req, resp),
        Api::Chat => api::chat::render(req, resp),
        Api::Gemini => api::gemini::render(req, resp),
    }
}

fn bad_request(shared: &Shared, mut entry: LogEntry, message: String) -> HttpResponse {
    entry.outcome = "bad_request";
    entry.status = Some(400);
    entry.error = Some(message.clone());
    shared.log.record(entry);
    json_response(
        StatusCode::BAD_REQUEST,
        json!({"error": {"message": format!("fake-llm: {message}"), "type": "invalid_request_error"}}),
        None,
    )
}

async fn answer(
    shared: Arc<Shared>,
    mut entry: LogEntry,
    req: ChatRequest,
    reply: Reply,
) -> HttpResponse {
    match &reply.outcome {
        Outcome::Hang => entry.outcome = "hang",
        Outcome::Error(e) => {
            entry.outcome = "error";
            entry.status = Some(e.status);
        }
        Outcome::Respond(_) => {
            entry.outcome = "respond";
            entry.status = Some(200);
        }
    }
    shared.log.record(entry);
    if !reply.delay.is_zero() {
        tokio::select! {
            () = tokio::time::sleep(reply.delay) => {}
            () = shared.until_shutdown() => return shutting_down(),
        }
    }
    let resp = answer_reply(&shared, &req, reply.outcome, reply.chunk_delay).await;
    with_headers(resp, &reply.headers)
}

async fn answer_reply(
    shared: &Shared,
    req: &ChatRequest,
    outcome: Outcome,
    chunk_delay: std::time::Duration,
) -> HttpResponse {
    match outcome {
        Outcome::Hang => {
            shared.until_shutdown().await;
            shutting_down()
        }
        Outcome::Error(err) => {
            let status =
                StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            json_response(status, error_body(req.api, &err), err.retry_after)
        }
        Outcome::Respond(resp) => match render(req, &resp) {
            Rendered::Json(body) => match &resp.cut {
                None => json_response(StatusCode::OK, body, None),
                // A non-streamed answer cannot break off part way: it fails
                // (with the scripted error, if any) or hangs as a whole.
                Some(Cut::ErrorEvent(err) | Cut::ResponseFailed(err)) => {
                    let status = StatusCode::from_u16(err.status)
                        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    json_response(status, error_body(req.api, err), err.retry_after)
                }
                Some(Cut::Hang) => stream_frames(
                    shared.stop_signal(),
                    &[],
                    Ending::Hang,
                    chunk_delay,
                    "application/json",
                ),
                Some(Cut::Fail | Cut::NoFinish) => stream_frames(
                    shared.stop_signal(),
                    &[],
                    Ending::Close,
                    chunk_delay,
                    "application/json",
                ),
            },
            Rendered::Sse(frames) => {
                let (frames, ending) = match &resp.cut {
                    None => (frames, Ending::Complete),
                    Some(cut) => fault::break_off(req, &resp, frames, cut),
                };
                stream_frames(
                    shared.stop_signal(),
                    &frames,
                    ending,
                    chunk_delay,
                    "text/event-stream",
                )
            }
        },
    }
}

/// The answer to a model request of a replaying server: the next recorded
/// response of the request's API, a 502 when the recorded call had no
/// response, a 400 in the API's shape past the end of the recording.
fn replayed(shared: &Shared, mut entry: LogEntry, req: &ChatRequest) -> HttpResponse {
    let Some(replay) = &shared.replay else {
        return bad_request(shared, entry, "no recording to replay".to_owned());
    };
    let name = replay.recording().name();
    let failure = |message: String, status: u16, kind: ErrorKind| ErrorReply {
        kind,
        status,
        message: Some(message),
        retry_after: None,
        model: req.model.clone(),
    };
    let err = match replay.next(req.api) {
        Next::Call(_, call) => {
            entry.replayed_call = Some(call.call);
            match call.response {
                Some(recorded) => {
                    entry.outcome = "replay";
                    entry.status = Some(recorded.status.as_u16());
                    shared.log.record(entry);
                    return replay_response(shared, recorded);
                }
                None => failure(
                    format!(
                        "fake-llm: call {} of the recording {name} (line {}) got no response (the upstream was unreachable)",
                        call.call, call.line
                    ),
                    502,
                    ErrorKind::ServerError,
                ),
            }
        }
        Next::Exhausted(count) => failure(
            format!(
                "fake-llm: the recording {name} has no more {} calls (it holds {count})",
                wire_name(req.api)
            ),
            400,
            ErrorKind::InvalidRequest,
        ),
    };
    entry.outcome = "error";
    entry.status = Some(err.status);
    entry.error = err.message.clone();
    shared.log.record(entry);
    let status = StatusCode::from_u16(err.status).unwrap_or(StatusCode::BAD_REQUEST);
    json_response(status, error_body(req.api, &err), None)
}

/// A recorded response as it was sent: its status, its headers, its body
/// (an event stream event by event); one cut short breaks off after it.
fn replay_response(shared: &Shared, recorded: replay::RecordedResponse) -> HttpResponse {
    let ending = if recorded.cut {
        Ending::Close
    } else {
        Ending::Complete
    };
    let chunks: Vec<Bytes> = if recorded.is_event_stream() {
        replay::events(&recorded.body)
            .into_iter()
            .map(Bytes::from)
            .collect()
    } else {
        vec![Bytes::from(recorded.body)]
    };
    let mut resp = if recorded.cut || chunks.len() > 1 {
        stream_body(
            shared.stop_signal(),
            chunks,
            ending,
            std::time::Duration::ZERO,
            HeaderValue::from_static("application/json"),
        )
    } else {
        chunks
            .into_iter()
            .next()
            .unwrap_or_default()
            .into_response()
    };
    *resp.status_mut() = recorded.status;
    let h = resp.headers_mut();
    h.remove(axum::http::header::CONTENT_TYPE);
    for (name, value) in recorded.headers {
        h.insert(name, value);
    }
    resp
}

/// The recording's name of `api`.
fn wire_name(api: Api) -> &'static str {
    match api {
        Api::Anthropic => "anthropic_messages",
        Api::Responses => "openai_responses",
        Api::Chat => "openai_chat",
        Api::Gemini => "gemini",
    }
}
