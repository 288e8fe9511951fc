//! What the server answers to one request, independent of the wire protocol.
//!
//! The script engine turns a matched turn into a [`Reply`]; each API module
//! renders a [`Response`] as its own JSON or SSE frames, and an
//! [`ErrorReply`] as its provider's error body.

use std::time::Duration;

use axum::http::{HeaderName, HeaderValue};
use serde::Serialize;
use serde_json::Value;

/// Usage figures reported with an answer.
///
/// Semantics (the same in every script, whatever the wire protocol):
/// `input` is the uncached prompt tokens, `cache_read` and `cache_write` the
/// prompt tokens read from / written to the cache, `output` the visible
/// output tokens and `reasoning` the thinking tokens. Each API module maps
/// them onto its own fields (for example OpenAI's `input_tokens` is
/// `input + cache_read + cache_write` and its `output_tokens` includes
/// `reasoning`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    /// Uncached prompt tokens.
    #[serde(default)]
    pub input: u64,
    /// Visible output tokens (not counting reasoning).
    #[serde(default)]
    pub output: u64,
    /// Prompt tokens read from the cache.
    #[serde(default)]
    pub cache_read: u64,
    /// Prompt tokens written to the cache.
    #[serde(default)]
    pub cache_write: u64,
    /// The part of `cache_write` written with a 1-hour TTL (the rest has
    /// the 5-minute one); only Anthropic reports the split.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_1h: u64,
    /// Reasoning (thinking) tokens.
    #[serde(default)]
    pub reasoning: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// The part of `cache_write` written with the 5-minute TTL.
    pub fn cache_write_5m(&self) -> u64 {
        self.cache_write.saturating_sub(self.cache_write_1h)
    }

    /// All prompt tokens: uncached + cache read + cache write.
    pub fn prompt_total(&self) -> u64 {
        self.input + self.cache_read + self.cache_write
    }

    /// Output tokens including reasoning.
    pub fn output_with_reasoning(&self) -> u64 {
        self.output + self.reasoning
    }

    /// Everything: prompt plus output plus reasoning.
    pub fn total(&self) -> u64 {
        self.prompt_total() + self.output_with_reasoning()
    }
}

/// A tool call the model makes, already resolved to a declared tool.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ToolCall {
    /// The call id (unique per server run).
    pub id: String,
    /// The declared tool's name.
    pub name: String,
    /// The arguments, shaped to the tool's schema.
    pub arguments: Value,
}

/// How a streamed answer breaks off, always after its first content frame.
#[derive(Debug, Clone, PartialEq)]
pub enum Cut {
    /// Close the connection abruptly (no terminator, no closing chunk).
    Fail,
    /// Stop sending (but keep the connection open).
    Hang,
    /// Send the API's in-stream error event, then end the stream cleanly:
    /// Anthropic `event: error`, Responses `error`, a Chat Completions chunk
    /// with an `error` object, a Gemini chunk with an `error` object.
    ErrorEvent(ErrorReply),
    /// Responses: `response.failed` carrying the error (elsewhere the same
    /// as [`Cut::ErrorEvent`]).
    ResponseFailed(ErrorReply),
    /// End the stream cleanly without its closing record (no Gemini
    /// `finishReason`, no Anthropic `message_stop`, no Responses
    /// `response.completed`, no Chat `finish_reason` nor `[DONE]`).
    NoFinish,
}

/// A successful answer.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Response {
    /// A thinking/reasoning block sent before the text.
    pub thinking: Option<String>,
    /// The answer text, as the chunks to stream (joined for a non-streamed answer).
    pub text: Vec<String>,
    /// Tool calls, sent after the text.
    pub tool_calls: Vec<ToolCall>,
    /// Usage figures.
    pub usage: Usage,
    /// Break the stream off part way.
    pub cut: Option<Cut>,
    /// The id of the response message (unique per server run).
    pub id: String,
}

impl Response {
    /// The whole answer text.
    pub fn full_text(&self) -> String {
        self.text.concat()
    }
}

/// The kinds of provider error a script can ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    /// 429: too many requests.
    RateLimit,
    /// 429 (OpenAI, Gemini) or 400 (Anthropic): out of credit or quota.
    InsufficientQuota,
    /// 529 (Anthropic) or 503: the model is overloaded.
    Overloaded,
    /// 400/404: the model does not exist.
    InvalidModel,
    /// 401: bad API key.
    Auth,
    /// 403: the key may not use this resource.
    PermissionDenied,
    /// 400: the prompt is longer than the context window.
    ContextTooLong,
    /// 400: a malformed request.
    InvalidRequest,
    /// 500: an internal server error.
    ServerError,
}

impl ErrorKind {
    /// The HTTP status this kind has on `api` unless the script overrides it.
    pub fn default_status(self, api: crate::Api) -> u16 {
        use crate::Api;
        match self {
            ErrorKind::RateLimit => 429,
            ErrorKind::InsufficientQuota => match api {
                Api::Anthropic => 400,
                _ => 429,
            },
            ErrorKind::Overloaded => match api {
                Api::Anthropic => 529,
                _ => 503,
            },
            ErrorKind::InvalidModel => 404,
            ErrorKind::Auth => 401,
            ErrorKind::PermissionDenied => 403,
            ErrorKind::ContextTooLong | ErrorKind::InvalidRequest => 400,
            ErrorKind::ServerError => 500,
        }
    }
}

/// An HTTP error answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    /// What went wrong.
    pub kind: ErrorKind,
    /// The HTTP status.
    pub status: u16,
    /// A message to use instead of the provider's realistic default.
    pub message: Option<String>,
    /// Seconds for a `retry-after` header.
    pub retry_after: Option<u64>,
    /// The model of the request (some error texts name it).
    pub model: String,
}

/// What to do with one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// Answer it.
    Respond(Response),
    /// Fail it with an HTTP error.
    Error(ErrorReply),
    /// Never answer (until the client gives up or the server stops).
    Hang,
}

/// The engine's decision for one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The scripted turn that matched (its name, or `#index`), or `None` for the default.
    pub turn: Option<String>,
    /// Wait this long before the first byte.
    pub delay: Duration,
    /// Wait this long between streamed frames.
    pub chunk_delay: Duration,
    /// Headers the script adds to the HTTP response (after the server's
    /// own, so a scripted one replaces a default of the same name).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// What to send.
    pub outcome: Outcome,
}
