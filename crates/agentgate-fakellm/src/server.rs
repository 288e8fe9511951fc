//! The HTTP server: routing, streaming, delays, hangs and failures.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use crate::api::{self, Frame, PathInfo, Rendered};
use crate::engine::{Engine, SideRequest};
use crate::fault::{self, Ending};
use crate::log::{LogEntry, RequestLog};
use crate::models::{ModelsFlavor, models_listing};
use crate::reply::{Cut, ErrorReply, Outcome, Reply};
use crate::request::{Api, ChatRequest};
use crate::script::Script;

/// Request bodies up to this size are accepted (agent CLIs send large ones).
const BODY_LIMIT: usize = 256 * 1024 * 1024;

/// How to start a server.
#[derive(Debug, Clone, Default)]
pub struct ServerConfig {
    /// The script to play (the default model when empty).
    pub script: Script,
    /// Append one JSON line per request to this file.
    pub log_path: Option<PathBuf>,
}

/// The state shared by every request.
#[derive(Debug)]
pub struct Shared {
    engine: Engine,
    log: RequestLog,
    counter: AtomicU64,
    stop: watch::Sender<bool>,
}

impl Shared {
    /// The state of a server playing `config`'s script.
    pub fn new(config: ServerConfig) -> std::io::Result<Arc<Shared>> {
        Ok(Arc::new(Shared {
            engine: Engine::new(config.script),
            log: RequestLog::open(config.log_path.as_deref())?,
            counter: AtomicU64::new(0),
            stop: watch::channel(false).0,
        }))
    }

    /// The requests logged so far.
    pub fn requests(&self) -> Vec<LogEntry> {
        self.log.entries()
    }

    /// Release hanging requests and tell the listener to stop.
    pub fn stop(&self) {
        self.stop.send_replace(true);
    }

    fn until_shutdown(&self) -> impl std::future::Future<Output = ()> + use<> {
        let mut rx = self.stop.subscribe();
        async move {
            let _ = rx.wait_for(|s| *s).await;
        }
    }
}

/// A running server.
#[derive(Debug)]
pub struct FakeLlm {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl FakeLlm {
    /// Bind `addr` (port 0 picks a free port) and serve in the background.
    pub async fn start(addr: SocketAddr, config: ServerConfig) -> std::io::Result<FakeLlm> {
        let shared = Shared::new(config)?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let app = router(shared.clone());
        let stopped = shared.until_shutdown();
        let task = tokio::spawn(async move {
            axum::serve(listener, app)
                .with_graceful_shutdown(stopped)
                .await
        });
        Ok(FakeLlm { addr, shared, task })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL, `http://127.0.0.1:PORT` (no trailing slash).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The requests logged so far.
    pub fn requests(&self) -> Vec<LogEntry> {
        self.shared.log.entries()
    }

    /// Uses left per scripted turn (`None` = unlimited), in script order.
    pub fn turns_remaining(&self) -> Vec<Option<u32>> {
        self.shared.engine.remaining()
    }

    /// Stop serving: hanging requests are released (with a 503), then the
    /// server waits for open connections to finish.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shared.stop();
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// The axum router (exposed for in-process tests).
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .fallback(handle)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(shared)
}

/// What a request path asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    Root,
    Model(Api, PathInfo),
    AnthropicCount,
    GeminiCount(String),
    Models(ModelsFlavor),
    NotFound,
}

fn route(method: &Method, path: &str, query: Option<&str>, headers: &HeaderMap) -> Route {
    let path = path.trim_end_matches('/');
    if path.is_empty() && (method == Method::HEAD || method == Method::GET) {
        return Route::Root;
    }
    if method == Method::GET {
        if path.ends_with("/models") {
            let codex =
                query.is_some_and(|q| q.split('&').any(|kv| kv.starts_with("client_version=")));
            if codex || path.ends_with("/codex/models") {
                return Route::Models(ModelsFlavor::Codex);
            }
            if path.contains("v1beta") || path.contains("/v1alpha") {
                return Route::Models(ModelsFlavor::Gemini);
            }
            if headers.contains_key("anthropic-version") {
                return Route::Models(ModelsFlavor::Anthropic);
            }
            return Route::Models(ModelsFlavor::OpenAi);
        }
        return Route::NotFound;
    }
    if method != Method::POST {
        return Route::NotFound;
    }
    if path.ends_with("/messages/count_tokens") {
        return Route::AnthropicCount;
    }
    if path.ends_with("/messages") {
        return Route::Model(Api::Anthropic, PathInfo::default());
    }
    if path.ends_with("/responses") {
        return Route::Model(Api::Responses, PathInfo::default());
    }
    if path.ends_with("/chat/completions") {
        return Route::Model(Api::Chat, PathInfo::default());
    }
    if let Some((before, action)) = path.rsplit_once(':') {
        let model = before
            .rsplit_once("/models/")
            .map(|(_, m)| m.to_owned())
            .unwrap_or_default();
        return match action {
            "generateContent" => Route::Model(
                Api::Gemini,
                PathInfo {
                    model: Some(model),
                    stream: Some(false),
                },
            ),
            "streamGenerateContent" => Route::Model(
                Api::Gemini,
                PathInfo {
                    model: Some(model),
                    stream: Some(true),
                },
            ),
            "countTokens" => Route::GeminiCount(model),
            _ => Route::NotFound,
        };
    }
    Route::NotFound
}

fn now_rfc3339() -> String {
    jiff::Timestamp::now().to_string()
}

async fn handle(
    State(shared): State<Arc<Shared>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> HttpResponse {
    let n = shared.counter.fetch_add(1, Ordering::Relaxed) + 1;
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

fn error_body(api: Api, err: &ErrorReply) -> Value {
    match api {
        Api::Anthropic => api::anthropic::error_body(err),
        Api::Responses => api::responses::error_body(err),
        Api::Chat => api::chat::error_body(err),
        Api::Gemini => api::gemini::error_body(err),
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

fn json_response(status: StatusCode, body: Value, retry_after: Option<u64>) -> HttpResponse {
    let mut resp = (status, body.to_string()).into_response();
    let h = resp.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    if let Some(s) = retry_after
        && let Ok(v) = HeaderValue::from_str(&s.to_string())
    {
        h.insert(header::RETRY_AFTER, v);
    }
    resp
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
    match reply.outcome {
        Outcome::Hang => {
            shared.until_shutdown().await;
            shutting_down()
        }
        Outcome::Error(err) => {
            let status =
                StatusCode::from_u16(err.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            json_response(status, error_body(req.api, &err), err.retry_after)
        }
        Outcome::Respond(resp) => match render(&req, &resp) {
            Rendered::Json(body) => match &resp.cut {
                None => json_response(StatusCode::OK, body, None),
                // A non-streamed answer cannot break off part way: it fails
                // (with the scripted error, if any) or hangs as a whole.
                Some(Cut::ErrorEvent(err) | Cut::ResponseFailed(err)) => {
                    let status = StatusCode::from_u16(err.status)
                        .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                    json_response(status, error_body(req.api, err), err.retry_after)
                }
                Some(Cut::Hang) => stream_body(
                    shared,
                    Vec::new(),
                    Ending::Hang,
                    reply.chunk_delay,
                    "application/json",
                ),
                Some(Cut::Fail | Cut::NoFinish) => stream_body(
                    shared,
                    Vec::new(),
                    Ending::Close,
                    reply.chunk_delay,
                    "application/json",
                ),
            },
            Rendered::Sse(frames) => {
                let (frames, ending) = match &resp.cut {
                    None => (frames, Ending::Complete),
                    Some(cut) => fault::break_off(&req, &resp, frames, cut),
                };
                stream_body(
                    shared,
                    frames,
                    ending,
                    reply.chunk_delay,
                    "text/event-stream",
                )
            }
        },
    }
}

fn shutting_down() -> HttpResponse {
    json_response(
        StatusCode::SERVICE_UNAVAILABLE,
        json!({"error": {"message": "fake-llm is shutting down", "type": "server_shutdown"}}),
        None,
    )
}

/// Encode one SSE frame: optional `event:` line, one `data:` line per line
/// of payload, blank line.
pub fn encode_frame(frame: &Frame) -> Bytes {
    let mut out = String::with_capacity(frame.data.len() + 32);
    if let Some(ev) = &frame.event {
        out.push_str("event: ");
        out.push_str(ev);
        out.push('\n');
    }
    for line in frame.data.split('\n') {
        out.push_str("data: ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    Bytes::from(out)
}

fn stream_body(
    shared: Arc<Shared>,
    frames: Vec<Frame>,
    ending: Ending,
    chunk_delay: std::time::Duration,
    content_type: &'static str,
) -> HttpResponse {
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        for (i, frame) in frames.iter().enumerate() {
            if i > 0 && !chunk_delay.is_zero() {
                tokio::time::sleep(chunk_delay).await;
            }
            if tx.send(Ok(encode_frame(frame))).await.is_err() {
                return;
            }
        }
        match ending {
            Ending::Complete => {}
            Ending::Close => {
                let _ = tx
                    .send(Err(std::io::Error::new(
                        std::io::ErrorKind::ConnectionAborted,
                        "fake-llm: scripted mid-stream failure",
                    )))
                    .await;
            }
            Ending::Hang => {
                tokio::select! {
                    () = tx.closed() => {}
                    () = shared.until_shutdown() => {}
                }
            }
        }
    });
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut resp = HttpResponse::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}
