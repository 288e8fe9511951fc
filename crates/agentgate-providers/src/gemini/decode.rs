//! Gemini CLI: `gemini -p ... --output-format stream-json`, the
//! pretty-printed object of `--output-format json`, and what Gemini prints
//! on stderr about retries and errors.
//!
//! | stdout | decoded as |
//! |---|---|
//! | `init` | `session` (session id, model) |
//! | `message` role assistant, `delta: true` | `text_delta` |
//! | `message` role assistant, whole | `message` |
//! | `message` role user (the prompt echoed back) | `raw` |
//! | `tool_use` | `tool_use` (id = `tool_id`, name = `tool_name`, class) |
//! | `tool_result` | `tool_result` (ok = `status == "success"`; no exit code in the stream) |
//! | `error` severity warning / error | `status` notice / provider error, not terminal |
//! | `result` | provider error (terminal) when `status: "error"`, then the final record |
//! | json mode `{session_id, response, stats, error}` | `session`, provider error when `error`, final record |
//! | anything else | `raw` |
//!
//! | stderr | decoded as |
//! |---|---|
//! | `Attempt N failed with status S. Retrying with backoff... <error>` | `status` retry |
//! | `Attempt N failed: <quota or capacity message>` ... `Retrying after Tms...` (one line or more) | `status` retry (none when it ends `Max attempts reached`) |
//! | `Error when talking to Gemini API ... <Name>: <error>` and its stack | provider error, not terminal, HTTP status from the stack's `status:` |
//! | json mode's error object `{session_id, error{type, message, code}}` | `session`, provider error, terminal |
//! | anything else | nothing (stderr is stored apart) |
//!
//! The answer (the final record's text) is the assistant text after the
//! last tool call, as Gemini's own json mode reports it; the `text_delta`
//! events carry all assistant text in order. Usage comes from `stats`:
//! input includes cached tokens; output is `total_tokens - input_tokens`,
//! so that thoughts (which `output_tokens` leaves out) count as output and
//! reasoning.

use agentgate_protocol::{
    EventBody, MessageEvent, RawStream, SessionEvent, StatusEvent, TextDeltaEvent, ToolResultEvent,
    ToolUseEvent, Usage,
};
use serde_json::{Map, Value};

use crate::decode::fields::http_status_in;
use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{
    Decoded, Decoder, ProviderError, ProviderFinal, Understood, event, json_line, raw, str_of,
};

use super::retry_notice::{
    Continued, PendingAttempt, QuotaAttempt, embedded_error, quota_attempt, retry_notice,
};

/// The most stderr kept while collecting one multi-line error report.
const STDERR_DOC_CAP: usize = 1024 * 1024;

/// Decodes Gemini CLI's `stream-json` and `json` output.
#[derive(Debug, Clone)]
pub struct GeminiDecoder {
    tool_output_cap: usize,
    session_id: Option<String>,
    /// Assistant text since the last tool call: the answer so far.
    turn_text: String,
    /// The message of the last `error` event (severity error): a `result`
    /// with `status: "error"` and no error object of its own failed for it
    /// ("Model stream ended without a finish reason.").
    last_error: Option<String>,
    /// Lines of a pretty-printed JSON document being collected on stdout
    /// (json mode), with the offset where each line starts.
    doc: Option<Document>,
    stderr: StderrState,
}

/// A multi-line JSON document being collected.
#[derive(Debug, Clone, Default)]
struct Document {
    bytes: Vec<u8>,
    starts: Vec<usize>,
}

impl Document {
    fn push(&mut self, line: &[u8]) {
        self.starts.push(self.bytes.len());
        self.bytes.extend_from_slice(line);
        self.bytes.push(b'\n');
    }

    /// The collected lines, without their newlines.
    fn lines(&self) -> impl Iterator<Item = &[u8]> {
        self.starts.iter().enumerate().map(|(i, &start)| {
            let end = self
                .starts
                .get(i + 1)
                .map_or(self.bytes.len(), |&next| next);
            self.bytes
                .get(start..end.saturating_sub(1))
                .unwrap_or_default()
        })
    }
}

/// What the stderr decoder is in the middle of.
#[derive(Debug, Clone, Default)]
enum StderrState {
    #[default]
    Idle,
    /// The error object json mode prints, one line at a time.
    Document(Vec<u8>),
    /// An "Error when talking to Gemini API" report, waiting for the
    /// `status:` of its stack dump.
    Report(ProviderError),
    /// A quota or capacity error's `Attempt N failed: <message>`, waiting
    /// for the line that says whether it is retried (`retry_notice.rs`).
    QuotaAttempt(PendingAttempt),
}

impl Default for GeminiDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl GeminiDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            session_id: None,
            turn_text: String::new(),
            last_error: None,
            doc: None,
            stderr: StderrState::Idle,
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    /// One complete stdout line that is not part of a document.
    fn line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        // A line that yields nothing (the prompt echoed back) is kept raw.
        json_line(line, out, |obj, out| {
            self.object(obj, out);
            Understood::Yes
        });
    }

    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) {
        match str_of(obj, "type") {
            Some("init") => {
                if let Some(id) = str_of(obj, "session_id") {
                    self.session(id, str_of(obj, "model"), out);
                }
            }
            Some("message") => self.message(obj, out),
            Some("tool_use") => {
                let (Some(id), Some(name)) = (str_of(obj, "tool_id"), str_of(obj, "tool_name"))
                else {
                    return;
                };
                self.turn_text.clear();
                out.push(event(EventBody::ToolUse(ToolUseEvent {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    class: tool_class(name),
                    input: obj.get("parameters").cloned().unwrap_or(Value::Null),
                })));
            }
            Some("tool_result") => {
                let Some(id) = str_of(obj, "tool_id") else {
                    return;
                };
                self.turn_text.clear();
                let ok = str_of(obj, "status") == Some("success");
                let output = str_of(obj, "output")
                    .or_else(|| {
                        obj.get("error")
                            .and_then(|e| e.get("message"))
                            .and_then(Value::as_str)
                    })
                    .unwrap_or_default();
                out.push(event(EventBody::ToolResult(ToolResultEvent::new(
                    id,
                    ok,
                    output,
                    self.tool_output_cap,
                    None,
                ))));
            }
            Some("error") => {
                let Some(message) = str_of(obj, "message") else {
                    return;
                };
                if str_of(obj, "severity") == Some("warning") {
                    out.push(event(EventBody::Status(StatusEvent::Notice {
                        detail: message.to_owned(),
                    })));
                } else {
                    self.last_error = Some(message.to_owned());
                    out.push(Decoded::ProviderError(api_error(message, None, false)));
                }
            }
            Some("result") => {
                let is_error = str_of(obj, "status") == Some("error");
                if is_error {
                    let mut error = error_object(obj.get("error"), true);
                    if error_message(obj.get("error")).is_none()
                        && let Some(last) = self.last_error.take()
                    {
                        error = api_error(&last, None, true);
                    }
                    out.push(Decoded::ProviderError(error));
                }
                let text = (!is_error && !self.turn_text.is_empty())
                    .then(|| std::mem::take(&mut self.turn_text));
                out.push(Decoded::Final(ProviderFinal {
                    text,
                    session_id: self.session_id.clone(),
                    is_error,
                    usage: obj
                        .get("stats")
                        .and_then(Value::as_object)
                        .map(stream_usage),
                    num_turns: None,
                }));
            }
            _ => {}
        }
    }

    fn message(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) {
        if str_of(obj, "role") != Some("assistant") {
            // The prompt echoed back: kept raw.
            return;
        }
        let Some(text) = str_of(obj, "content") else {
            return;
        };
        if obj.get("delta").and_then(Value::as_bool) == Some(true) {
            if !text.is_empty() {
                self.turn_text.push_str(text);
                out.push(event(EventBody::TextDelta(TextDeltaEvent {
                    text: text.to_owned(),
                })));
            }
        } else {
            self.turn_text = text.to_owned();
            out.push(event(EventBody::Message(MessageEvent {
                text: text.to_owned(),
            })));
        }
    }

    fn session(&mut self, id: &str, model: Option<&str>, out: &mut Vec<Decoded>) {
        self.session_id = Some(id.to_owned());
        out.push(event(EventBody::Session(SessionEvent {
            session_id: id.to_owned(),
            model: model.map(str::to_owned),
        })));
    }

    /// json mode's single object on stdout.
    fn json_output(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) {
        if let Some(id) = str_of(obj, "session_id")
            && self.session_id.as_deref() != Some(id)
        {
            self.session(id, None, out);
        }
        let error = obj.get("error").filter(|e| e.is_object());
        if error.is_some() {
            out.push(Decoded::ProviderError(error_object(error, true)));
        }
        if error.is_none() && !obj.contains_key("response") {
            return;
        }
        out.push(Decoded::Final(ProviderFinal {
            text: str_of(obj, "response").map(str::to_owned),
            session_id: self.session_id.clone(),
            is_error: error.is_some(),
            usage: obj
                .get("stats")
                .and_then(Value::as_object)
                .map(metrics_usage),
            num_turns: None,
        }));
    }

    /// The end of a stdout document: decoded as json mode's object, or kept
    /// line by line as raw when it is not one.
    fn close_document(&mut self, doc: &Document, out: &mut Vec<Decoded>) {
        let start = out.len();
        if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(&doc.bytes) {
            self.json_output(&obj, out);
        }
        if out.len() == start {
            flush_raw(doc, out);
        }
    }

    fn stderr_report_line(&mut self, line: &str, out: &mut Vec<Decoded>) {
        let StderrState::Report(report) = &mut self.stderr else {
            return;
        };
        if line.starts_with([' ', '\t']) {
            if report.http_status.is_none() {
                let t = line.trim();
                let value = t
                    .strip_prefix("status:")
                    .or_else(|| t.strip_prefix("code:"))
                    .map(|v| v.trim().trim_end_matches(','));
                report.http_status = value
                    .and_then(|v| v.parse().ok())
                    .filter(|s| (100..600).contains(s));
            }
            return;
        }
        let closing = line.trim_end() == "}";
        if let StderrState::Report(report) = std::mem::take(&mut self.stderr) {
            out.push(Decoded::ProviderError(report));
        }
        if !closing {
            self.stderr_idle_line(line, out);
        }
    }

    fn stderr_idle_line(&mut self, line: &str, out: &mut Vec<Decoded>) {
        if line.trim_end() == "{" {
            let mut doc = Vec::with_capacity(line.len() + 1);
            doc.extend_from_slice(line.as_bytes());
            doc.push(b'\n');
            self.stderr = StderrState::Document(doc);
        } else if let Some(retry) = retry_notice(line) {
            out.push(event(EventBody::Status(retry)));
        } else if let Some(attempt) = quota_attempt(line) {
            match attempt {
                QuotaAttempt::Retried(retry) => out.push(event(EventBody::Status(retry))),
                QuotaAttempt::Pending(p) => self.stderr = StderrState::QuotaAttempt(p),
                QuotaAttempt::Last => {}
            }
        } else if let Some(report) = error_report(line) {
            self.stderr = StderrState::Report(report);
        }
    }

    fn stderr_document_line(&mut self, line: &str, out: &mut Vec<Decoded>) {
        let StderrState::Document(doc) = &mut self.stderr else {
            return;
        };
        if doc.len().saturating_add(line.len()) > STDERR_DOC_CAP {
            self.stderr = StderrState::Idle;
            return;
        }
        if line.starts_with([' ', '\t']) {
            doc.extend_from_slice(line.as_bytes());
            doc.push(b'\n');
            return;
        }
        let StderrState::Document(mut doc) = std::mem::take(&mut self.stderr) else {
            return;
        };
        if line.trim_end() != "}" {
            // Not the object after all: the line is read on its own.
            self.stderr_idle_line(line, out);
            return;
        }
        doc.extend_from_slice(line.as_bytes());
        if let Ok(Value::Object(obj)) = serde_json::from_slice::<Value>(&doc) {
            if let Some(id) = str_of(&obj, "session_id")
                && self.session_id.as_deref() != Some(id)
            {
                self.session(id, None, out);
            }
            if obj.get("error").is_some_and(Value::is_object) {
                out.push(Decoded::ProviderError(error_object(obj.get("error"), true)));
            }
        }
    }
}

impl Decoder for GeminiDecoder {
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        if line.is_empty() {
            return;
        }
        if let Some(doc) = &mut self.doc {
            // json mode indents every line inside the object; the first line
            // back at column 0 closes it.
            if line.starts_with(b" ") || line.starts_with(b"\t") {
                doc.push(line);
                return;
            }
            let Some(mut doc) = self.doc.take() else {
                return;
            };
            if line.trim_ascii_end() == b"}" {
                doc.push(line);
                self.close_document(&doc, out);
                return;
            }
            flush_raw(&doc, out);
        }
        if line.trim_ascii_end() == b"{" {
            let mut doc = Document::default();
            doc.push(line);
            self.doc = Some(doc);
            return;
        }
        self.line(line, out);
    }

    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let line = String::from_utf8_lossy(line);
        let line = line.trim_end_matches('\r');
        match self.stderr {
            StderrState::Idle => self.stderr_idle_line(line, out),
            StderrState::Document(_) => self.stderr_document_line(line, out),
            StderrState::Report(_) => self.stderr_report_line(line, out),
            StderrState::QuotaAttempt(_) => {
                let StderrState::QuotaAttempt(pending) = std::mem::take(&mut self.stderr) else {
                    return;
                };
                match pending.next_line(line) {
                    Continued::Retried(retry) => out.push(event(EventBody::Status(retry))),
                    Continued::Waiting(p) => self.stderr = StderrState::QuotaAttempt(p),
                    Continued::Last => {}
                    Continued::Other => self.stderr_idle_line(line, out),
                }
            }
        }
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) {
        if let Some(doc) = self.doc.take() {
            self.close_document(&doc, out);
        }
        if let StderrState::Report(report) = std::mem::take(&mut self.stderr) {
            out.push(Decoded::ProviderError(report));
        }
    }
}

fn flush_raw(doc: &Document, out: &mut Vec<Decoded>) {
    for line in doc.lines() {
        out.push(raw(RawStream::Stdout, line));
    }
}

/// The `message` of an error object, if it has one.
fn error_message(error: Option<&Value>) -> Option<&str> {
    error
        .and_then(Value::as_object)
        .and_then(|e| str_of(e, "message"))
}

/// `{type, message, code}` of a `result` or of json mode's error object.
fn error_object(error: Option<&Value>, terminal: bool) -> ProviderError {
    let message = error_message(error).unwrap_or("Gemini reported an error without a message");
    let error = error.and_then(Value::as_object);
    let code = error.and_then(|e| e.get("code")).and_then(|c| {
        c.as_u64()
            .or_else(|| c.as_str().and_then(|s| s.parse().ok()))
            .and_then(|n| u16::try_from(n).ok())
    });
    let mut e = api_error(message, code, terminal);
    if e.code.is_none() {
        e.code = error
            .and_then(|e| str_of(e, "type"))
            .filter(|t| !matches!(*t, "" | "unknown" | "Error"))
            .map(str::to_owned);
    }
    e
}

/// A provider error from Gemini's message, which may embed the API's error
/// body: `[API Error: {"error":{"code":401,"message":...,"status":...}}]`.
fn api_error(message: &str, http_status: Option<u16>, terminal: bool) -> ProviderError {
    let body = embedded_error(message);
    ProviderError {
        message: message.to_owned(),
        http_status: http_status
            .or_else(|| {
                body.as_ref()
                    .and_then(|b| b.get("code"))
                    .and_then(Value::as_u64)
                    .and_then(|n| u16::try_from(n).ok())
            })
            .or_else(|| http_status_in(message)),
        code: body
            .as_ref()
            .and_then(|b| b.get("status"))
            .and_then(Value::as_str)
            .map(str::to_owned),
        terminal,
    }
}

/// `Error when talking to Gemini API Full report available at: <path>
/// <Name>: <error>`: the main request failed. (The model router's own
/// failures, "Error generating content via API", are not the run's.)
fn error_report(line: &str) -> Option<ProviderError> {
    let rest = line.strip_prefix("Error when talking to Gemini API")?;
    let rest = match rest.split_once(".json ") {
        Some((_, after)) => after,
        None => rest.trim_start_matches(|c: char| c != ' ').trim_start(),
    };
    let (name, message) = rest.split_once(": ").unwrap_or(("", rest));
    let message = message.trim();
    let mut e = api_error(message, None, false);
    if let Some(body) = embedded_error(message)
        && let Some(inner) = body.get("message").and_then(Value::as_str)
    {
        e.message = inner.to_owned();
    }
    if e.code.is_none() && !name.is_empty() && !name.contains(' ') {
        e.code = Some(name.to_owned());
    }
    Some(e)
}

/// `result.stats` of stream-json: `{total_tokens, input_tokens,
/// output_tokens, cached, input}` summed over models.
fn stream_usage(stats: &Map<String, Value>) -> Usage {
    let n = |k: &str| stats.get(k).and_then(Value::as_u64).unwrap_or(0);
    let input = n("input_tokens");
    let candidates = n("output_tokens");
    let output = n("total_tokens").saturating_sub(input).max(candidates);
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: n("cached"),
        reasoning_tokens: output - candidates,
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

/// json mode's `stats.models.*.tokens{prompt, candidates, cached,
/// thoughts, tool}`: input = prompt + tool-use prompt, output = candidates +
/// thoughts.
fn metrics_usage(stats: &Map<String, Value>) -> Usage {
    let mut u = Usage::default();
    let models = stats.get("models").and_then(Value::as_object);
    for tokens in models
        .into_iter()
        .flat_map(|m| m.values())
        .filter_map(|m| m.get("tokens").and_then(Value::as_object))
    {
        let n = |k: &str| tokens.get(k).and_then(Value::as_u64).unwrap_or(0);
        let input = n("prompt").saturating_add(n("tool"));
        let output = n("candidates").saturating_add(n("thoughts"));
        u.input_tokens = u.input_tokens.saturating_add(input);
        u.output_tokens = u.output_tokens.saturating_add(output);
        u.cache_read_input_tokens = u.cache_read_input_tokens.saturating_add(n("cached"));
        u.reasoning_tokens = u.reasoning_tokens.saturating_add(n("thoughts"));
    }
    u.total_tokens = u.input_tokens.saturating_add(u.output_tokens);
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_errors_embedded_in_messages_give_status_and_code() {
        let e = api_error(
            r#"[API Error: {"error":{"code":401,"message":"API key not valid.","status":"UNAUTHENTICATED"}}]"#,
            None,
            true,
        );
        assert_eq!(
            (e.http_status, e.code.as_deref()),
            (Some(401), Some("UNAUTHENTICATED"))
        );
        let e = api_error("[API Error: The model is overloaded.]", None, true);
        assert_eq!((e.http_status, e.code), (None, None));
    }

    #[test]
    fn stream_usage_counts_thoughts_as_output() {
        let stats = serde_json::json!({"total_tokens": 1878, "input_tokens": 1830, "output_tokens": 39, "cached": 800, "input": 1030});
        let Value::Object(stats) = stats else {
            unreachable!()
        };
        let u = stream_usage(&stats);
        assert_eq!(
            (
                u.input_tokens,
                u.output_tokens,
                u.reasoning_tokens,
                u.cache_read_input_tokens,
                u.total_tokens
            ),
            (1830, 48, 9, 800, 1878)
        );
    }

    /// A stream that ended without a finish reason: Gemini prints the
    /// reason as an `error` event, then a `result` with `status: "error"`
    /// and no error object; the terminal error carries the reason.
    #[test]
    fn an_error_result_without_a_message_takes_the_last_error_event() {
        let mut d = GeminiDecoder::new();
        let mut out = Vec::new();
        for line in [
            r#"{"type":"message","role":"assistant","content":"Partial answer ","delta":true}"#,
            r#"{"type":"error","severity":"error","message":"Model stream ended without a finish reason."}"#,
            r#"{"type":"result","status":"error","stats":{"total_tokens":10,"input_tokens":10}}"#,
        ] {
            d.line(line.as_bytes(), &mut out);
        }
        let terminal: Vec<&ProviderError> = out
            .iter()
            .filter_map(|d| match d {
                Decoded::ProviderError(e) if e.terminal => Some(e),
                _ => None,
            })
            .collect();
        assert_eq!(terminal.len(), 1, "{out:#?}");
        assert_eq!(
            terminal[0].message,
            "Model stream ended without a finish reason."
        );
    }
}
