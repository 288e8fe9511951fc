//! Building HTTP responses: a JSON body, an error in an API's own shape,
//! a streamed body sent chunk by chunk (SSE frames, a replayed event
//! stream) that may end by breaking the connection or hanging, and the
//! headers a script adds.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response as HttpResponse};
use serde_json::{Value, json};
use tokio::sync::{mpsc, watch};

use crate::api::{self, Frame};
use crate::fault::Ending;
use crate::reply::ErrorReply;
use crate::request::Api;

/// Fires when the server stops (hanging answers are released then).
#[derive(Debug, Clone)]
pub(crate) struct StopSignal(watch::Receiver<bool>);

impl StopSignal {
    /// A signal on the server's stop channel.
    pub(crate) fn new(rx: watch::Receiver<bool>) -> Self {
        StopSignal(rx)
    }

    /// Resolves when the server stops.
    pub(crate) async fn wait(mut self) {
        let _ = self.0.wait_for(|s| *s).await;
    }
}

/// `api`'s error body for `err`.
pub(super) fn error_body(api: Api, err: &ErrorReply) -> Value {
    match api {
        Api::Anthropic => api::anthropic::error_body(err),
        Api::Responses => api::responses::error_body(err),
        Api::Chat => api::chat::error_body(err),
        Api::Gemini => api::gemini::error_body(err),
    }
}

/// A JSON response (with a `retry-after` header when given).
pub(super) fn json_response(
    status: StatusCode,
    body: Value,
    retry_after: Option<u64>,
) -> HttpResponse {
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

/// `resp` with `headers` set on it (each replacing one of the same name).
pub(super) fn with_headers(
    mut resp: HttpResponse,
    headers: &[(HeaderName, HeaderValue)],
) -> HttpResponse {
    let h = resp.headers_mut();
    for (name, value) in headers {
        h.insert(name.clone(), value.clone());
    }
    resp
}

/// The 503 a hanging request gets when the server stops.
pub(super) fn shutting_down() -> HttpResponse {
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

/// A 200 body streamed chunk by chunk (`chunk_delay` apart), ending as
/// `ending` says, with `content_type`.
pub(super) fn stream_body(
    stop: StopSignal,
    chunks: Vec<Bytes>,
    ending: Ending,
    chunk_delay: Duration,
    content_type: HeaderValue,
) -> HttpResponse {
    let (tx, rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(16);
    tokio::spawn(async move {
        for (i, chunk) in chunks.into_iter().enumerate() {
            if i > 0 && !chunk_delay.is_zero() {
                tokio::time::sleep(chunk_delay).await;
            }
            if tx.send(Ok(chunk)).await.is_err() {
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
                    () = stop.wait() => {}
                }
            }
        }
    });
    let stream = tokio_stream::wrappers::ReceiverStream::new(rx);
    let mut resp = HttpResponse::new(Body::from_stream(stream));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, content_type);
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    resp
}

/// SSE frames streamed (see [`stream_body`]).
pub(super) fn stream_frames(
    stop: StopSignal,
    frames: &[Frame],
    ending: Ending,
    chunk_delay: Duration,
    content_type: &'static str,
) -> HttpResponse {
    stream_body(
        stop,
        frames.iter().map(encode_frame).collect(),
        ending,
        chunk_delay,
        HeaderValue::from_static(content_type),
    )
}
