//! What a model call means, read off the bytes: which API a path belongs
//! to, the request's model and stream flag, the usage a response carries
//! (summed by a tap as the body streams by), the rate-limit headers, and
//! each API's own error shape. Pure functions, no I/O.
//!
//! (The signatures are the contract between the proxy and this module;
//! the bodies are being written.)

use agentgate_protocol::{RateLimitWindow, Usage, WireApi};

/// The API a request path belongs to (the path after the gateway's secret
/// prefix, without the query): `…/messages` (not `…/messages/count_tokens`),
/// `…/responses`, `…/chat/completions`, `…:generateContent`,
/// `…:streamGenerateContent`. Other paths (model lists, token counts) are
/// not model calls: `None`.
pub fn api_of(path: &str) -> Option<WireApi> {
    let _ = path;
    None
}

/// What a request says of itself.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RequestFacts {
    /// The model named (Gemini: from the path `models/<m>:…`).
    pub model: Option<String>,
    /// Whether a stream was asked for (`"stream": true`; Gemini:
    /// `:streamGenerateContent`).
    pub stream: bool,
}

/// Read the facts of a request to `api` at `path` with `body`.
pub fn request_facts(api: WireApi, path: &str, body: &[u8]) -> RequestFacts {
    let _ = (api, path, body);
    RequestFacts::default()
}

/// What a response body said, once it ended.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TapReport {
    /// The model the response names.
    pub model: Option<String>,
    /// The usage, normalised like every `Usage` of agentgate (input with
    /// cache reads and writes in it, output with reasoning in it, total,
    /// context = this call's input + output); `None` when the body carried
    /// none.
    pub usage: Option<Usage>,
    /// Anthropic's `cache_creation.ephemeral_5m_input_tokens`.
    pub cache_write_5m_tokens: Option<u64>,
    /// Anthropic's `cache_creation.ephemeral_1h_input_tokens`.
    pub cache_write_1h_tokens: Option<u64>,
    /// The error the API sent (an error body, an in-stream error event):
    /// its type and message.
    pub api_error: Option<String>,
    /// A retry delay the body gave (Gemini's `RetryInfo.retryDelay`), in
    /// seconds.
    pub retry_after_s: Option<u64>,
    /// The body was not what the API sends (invalid JSON, an SSE line that
    /// is not a field, an event that is not JSON): what was wrong.
    pub invalid: Option<String>,
    /// The stream reached its end record (`message_stop`,
    /// `response.completed`, `[DONE]`, a finish reason); always true for a
    /// whole JSON body.
    pub complete: bool,
}

/// Reads a response body as it streams by, chunk by chunk, keeping only
/// what it needs (a partial line of SSE; a JSON body up to a bound).
#[derive(Debug)]
pub struct ResponseTap {
    api: WireApi,
    event_stream: bool,
}

impl ResponseTap {
    /// A tap for a response of `api`; `event_stream` when its content type
    /// is `text/event-stream`.
    pub fn new(api: WireApi, event_stream: bool) -> Self {
        Self { api, event_stream }
    }

    /// The next bytes of the body.
    pub fn push(&mut self, chunk: &[u8]) {
        let _ = (chunk, self.api, self.event_stream);
    }

    /// The usage summed so far (for limits checked while a stream runs).
    pub fn usage_so_far(&self) -> Option<Usage> {
        None
    }

    /// The body ended.
    pub fn finish(self) -> TapReport {
        TapReport::default()
    }
}

/// The rate-limit state of a response's headers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateLimits {
    /// Each window the headers describe.
    pub windows: Vec<RateLimitWindow>,
    /// `retry-after` (seconds or an HTTP date) or `retry-after-ms`, in
    /// seconds (rounded up).
    pub retry_after_s: Option<u64>,
}

/// Read the rate-limit headers (Anthropic `anthropic-ratelimit-*` with the
/// unified windows, OpenAI `x-ratelimit-*`, Codex `x-codex-*`,
/// `retry-after`); `now` turns relative resets into times.
pub fn rate_limits(headers: &http::HeaderMap, now: jiff::Timestamp) -> RateLimits {
    let _ = (headers, now);
    RateLimits::default()
}

/// The body the API itself would send for an error with `status` and
/// `message` (Anthropic `{"type":"error","error":{…}}`, OpenAI
/// `{"error":{…}}`, Gemini `{"error":{"code","message","status"}}`), with
/// its content type. What the gateway answers when it refuses a call.
pub fn error_response(
    api: WireApi,
    status: http::StatusCode,
    message: &str,
) -> (&'static str, Vec<u8>) {
    let _ = (api, status);
    ("application/json", message.as_bytes().to_vec())
}
