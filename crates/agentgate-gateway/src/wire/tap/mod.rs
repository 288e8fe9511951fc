//! The response tap: reads a response body as it streams by and keeps
//! what a model call reports (model, usage by class, the API's error, the
//! end record), with bounded memory.
//!
//! An event stream goes through `sse::SseReader` (only a partial line
//! kept); each event's `data:` is parsed as JSON and handed to the API's
//! reader (`anthropic`, `responses`, `chat`, `gemini`). Any other
//! body is buffered up to [`MAX_JSON_BODY`] and read whole when it ends (a
//! Gemini `streamGenerateContent` without `alt=sse` is a JSON array of the
//! same chunks). The first byte that is not blank decides: a body
//! announced as JSON that starts like SSE is read as SSE, and one announced
//! as SSE that starts with `{` or `[` (an error answered in JSON) as JSON.

mod anthropic;
mod chat;
mod gemini;
mod responses;
pub(crate) mod sse;

use agentgate_protocol::{Usage, WireApi};
use serde_json::Value;

use self::sse::{SseEvent, SseReader, clip};
use super::error_shape::error_text;

/// The largest non-stream body read for its usage.
pub const MAX_JSON_BODY: usize = 32 << 20;

/// The longest SSE line (or one event's data) read.
pub const MAX_SSE_LINE: usize = sse::MAX_LINE;

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

/// What the API readers found so far (the report less `invalid`).
#[derive(Debug, Default)]
pub(crate) struct Findings {
    pub model: Option<String>,
    pub usage: Option<Usage>,
    pub cache_write_5m: Option<u64>,
    pub cache_write_1h: Option<u64>,
    pub api_error: Option<String>,
    pub retry_after_s: Option<u64>,
    pub complete: bool,
}

impl Findings {
    /// Keep the first error the body gave.
    fn error(&mut self, text: String) {
        self.api_error.get_or_insert(text);
    }

    /// Take the model a record names, when it names one.
    fn model_from(&mut self, v: Option<&Value>) {
        if let Some(m) = v.and_then(Value::as_str).filter(|m| !m.is_empty()) {
            self.model = Some(m.to_owned());
        }
    }
}

/// A usage in agentgate's terms from the API's classes: `input` all
/// prompt tokens (cache reads and writes in it), `output` all generated
/// tokens (reasoning in it).
pub(crate) fn usage(
    input: u64,
    cache_read: u64,
    cache_write: u64,
    output: u64,
    reasoning: u64,
) -> Usage {
    let total = input.saturating_add(output);
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_write,
        // Anthropic's reader sets the 1-hour part; no other API has one.
        cache_creation_1h_input_tokens: 0,
        reasoning_tokens: reasoning,
        total_tokens: total,
        cost_usd: None,
        context_tokens: Some(total),
        estimated: false,
    }
}

/// A count at `pointer` in `v` (absent, null or not a count: 0).
pub(crate) fn count(v: &Value, pointer: &str) -> u64 {
    v.pointer(pointer).and_then(Value::as_u64).unwrap_or(0)
}

/// Per-API state across a stream's events.
#[derive(Debug)]
enum ApiReader {
    Anthropic(anthropic::Reader),
    Responses,
    Chat,
    Gemini,
}

/// How the body is being read.
enum Mode {
    /// Not yet known (nothing but blanks seen yet).
    Undecided,
    Sse(SseReader),
    /// A JSON body, buffered; `None` once it outgrew the bound.
    Json(Option<Vec<u8>>),
}

impl std::fmt::Debug for Mode {
    // The buffered body is long and not for logs: its size only.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Undecided => f.write_str("Undecided"),
            Self::Sse(_) => f.write_str("Sse"),
            Self::Json(Some(buf)) => write!(f, "Json({} bytes)", buf.len()),
            Self::Json(None) => f.write_str("Json(over the bound)"),
        }
    }
}

/// Reads a response body as it streams by, chunk by chunk, keeping only
/// what it needs (a partial line of SSE; a JSON body up to a bound).
#[derive(Debug)]
pub struct ResponseTap {
    api: WireApi,
    event_stream: bool,
    mode: Mode,
    reader: ApiReader,
    found: Findings,
    invalid: Option<String>,
}

impl ResponseTap {
    /// A tap for a response of `api`; `event_stream` when its content type
    /// is `text/event-stream`.
    pub fn new(api: WireApi, event_stream: bool) -> Self {
        let reader = match api {
            WireApi::AnthropicMessages => ApiReader::Anthropic(anthropic::Reader::default()),
            WireApi::OpenaiResponses => ApiReader::Responses,
            WireApi::OpenaiChat => ApiReader::Chat,
            WireApi::Gemini => ApiReader::Gemini,
        };
        Self {
            api,
            event_stream,
            mode: Mode::Undecided,
            reader,
            found: Findings::default(),
            invalid: None,
        }
    }

    /// The API this tap reads.
    pub fn api(&self) -> WireApi {
        self.api
    }

    /// Whether the body is being read as an event stream (as announced
    /// until its first byte that is not blank, then as found).
    pub fn is_event_stream(&self) -> bool {
        match self.mode {
            Mode::Undecided => self.event_stream,
            Mode::Sse(_) => true,
            Mode::Json(_) => false,
        }
    }

    /// The next bytes of the body.
    pub fn push(&mut self, chunk: &[u8]) {
        if matches!(self.mode, Mode::Undecided) {
            // The first byte that is not blank tells a JSON body (an error
            // answered in JSON under an event-stream type, too) from SSE.
            match chunk.iter().find(|b| !b.is_ascii_whitespace()) {
                None => return, // blanks before a body mean nothing
                Some(b'{' | b'[') => self.mode = Mode::Json(Some(Vec::new())),
                Some(_) if self.event_stream => self.mode = Mode::Sse(SseReader::default()),
                Some(b'd' | b'e' | b':') => self.mode = Mode::Sse(SseReader::default()),
                Some(_) => self.mode = Mode::Json(Some(Vec::new())),
            }
        }
        match &mut self.mode {
            Mode::Undecided => {}
            Mode::Sse(reader) => {
                let (reader_state, found) = (&mut self.reader, &mut self.found);
                let mut bad = None;
                reader.push(chunk, &mut |e| {
                    if let Err(why) = on_event(reader_state, found, e) {
                        bad.get_or_insert(why);
                    }
                });
                if let Some(why) = bad {
                    reader.set_invalid(why);
                }
            }
            Mode::Json(buffer) => {
                if let Some(buf) = buffer {
                    if buf.len().saturating_add(chunk.len()) > MAX_JSON_BODY {
                        *buffer = None;
                        self.invalid.get_or_insert(format!(
                            "the body is over {} MiB: its usage could not be read",
                            MAX_JSON_BODY >> 20
                        ));
                    } else {
                        buf.extend_from_slice(chunk);
                    }
                }
            }
        }
    }

    /// The usage summed so far (for limits checked while a stream runs).
    pub fn usage_so_far(&self) -> Option<Usage> {
        self.found.usage.clone()
    }

    /// The body ended.
    pub fn finish(mut self) -> TapReport {
        match std::mem::replace(&mut self.mode, Mode::Undecided) {
            Mode::Undecided => {
                self.invalid.get_or_insert("the body was empty".to_owned());
            }
            Mode::Sse(mut reader) => {
                let (reader_state, found) = (&mut self.reader, &mut self.found);
                let mut bad = None;
                reader.finish(&mut |e| {
                    if let Err(why) = on_event(reader_state, found, e) {
                        bad.get_or_insert(why);
                    }
                });
                if let Some(why) = bad {
                    reader.set_invalid(why);
                }
                if let Some(why) = reader.invalid() {
                    self.invalid.get_or_insert(why.to_owned());
                }
            }
            Mode::Json(Some(buf)) => match serde_json::from_slice::<Value>(&buf) {
                Ok(v) => {
                    on_body(&mut self.reader, &mut self.found, &v);
                    self.found.complete = true;
                }
                Err(e) => {
                    self.invalid
                        .get_or_insert(format!("the body is not JSON: {e}"));
                }
            },
            Mode::Json(None) => {}
        }
        let f = self.found;
        TapReport {
            model: f.model,
            usage: f.usage,
            cache_write_5m_tokens: f.cache_write_5m,
            cache_write_1h_tokens: f.cache_write_1h,
            api_error: f.api_error,
            retry_after_s: f.retry_after_s,
            invalid: self.invalid,
            complete: f.complete,
        }
    }
}

/// One event of a stream: `[DONE]` ends it, anything else must be JSON.
fn on_event(reader: &mut ApiReader, found: &mut Findings, e: SseEvent) -> Result<(), String> {
    let data = e.data.trim();
    if data == "[DONE]" {
        found.complete = true;
        return Ok(());
    }
    let v: Value = serde_json::from_str(data)
        .map_err(|err| format!("an SSE event is not JSON ({err}): {}", clip(data)))?;
    let name = e.event.as_deref();
    match reader {
        ApiReader::Anthropic(r) => r.event(found, name, &v),
        ApiReader::Responses => responses::event(found, name, &v),
        ApiReader::Chat => chat::chunk(found, &v),
        ApiReader::Gemini => gemini::chunk(found, &v),
    }
    Ok(())
}

/// A whole JSON body: the API's answer, or its error body.
fn on_body(reader: &mut ApiReader, found: &mut Findings, v: &Value) {
    match reader {
        ApiReader::Anthropic(r) => r.body(found, v),
        ApiReader::Responses => responses::body(found, v),
        ApiReader::Chat => chat::chunk(found, v),
        ApiReader::Gemini => match v {
            // streamGenerateContent without alt=sse: the chunks as an array.
            Value::Array(chunks) => chunks.iter().for_each(|c| gemini::chunk(found, c)),
            _ => gemini::chunk(found, v),
        },
    }
    // An error body whose API reader did not know it.
    if found.api_error.is_none()
        && let Some(text) = error_text(v)
    {
        found.error(text);
    }
}

#[cfg(test)]
mod tests;
