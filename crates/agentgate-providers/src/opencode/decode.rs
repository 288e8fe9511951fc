//! opencode: `opencode run --format json --thinking --print-logs
//! --log-level ERROR`.
//!
//! | stdout | decoded as |
//! |---|---|
//! | first line with a `sessionID` | `session` (opencode prints no model) |
//! | `text` | `message` (a part is printed once, complete) |
//! | `reasoning` (with `--thinking`) | `thinking` |
//! | `tool_use` | `tool_use` (id = `callID`, input = `state.input`), then `tool_result` (ok = `completed` and, for a shell, exit 0; exit code = `state.metadata.exit`; output = `state.output` or `state.error`) |
//! | `step_finish` | `usage` scope turn (one per model call, with its cost); when its `reason` ends the turn (not `tool-calls` / `unknown`), the final record with the step's text; the third tool-less `unknown` step in a row, a terminal provider error and an error final record (`unfinished.rs`) |
//! | `error` | provider error, terminal (`statusCode`, the API body's `error.code` or the error's name); an `UnknownError` waits for its detail from the log |
//! | anything else (`step_start`, …) | `raw` |
//!
//! | stderr | decoded as |
//! |---|---|
//! | `Error: <text>` (opencode's fatal errors, e.g. "Session not found") | provider error, terminal |
//! | `! <text>` (a refused permission, an unknown agent) | `status` notice |
//! | log `message="stream error"` (a failed model request) | `status` retry, see below |
//! | log `message=failed ref=R error="Name: text"` | the detail of stdout's `UnknownError` with ref R: provider error, terminal, code = Name |
//! | anything else | nothing (stderr is stored apart) |
//!
//! Usage: opencode's `tokens.input` leaves cache reads and writes out and
//! its `tokens.output` leaves reasoning out (it subtracts them from the
//! model API's figures), so input = `input + cache.read + cache.write` and
//! output = `output + reasoning`, as the protocol counts them. Every step
//! (model call) reports its own figures and `cost`: the accumulator adds
//! them up, and the last step's input plus output is the context size.
//! opencode never reports the title request it makes before a new session's
//! first turn; the adapter's `--title ""` spares that request.
//!
//! Retries: opencode retries a failed model request itself (up to
//! [`MAX_RETRIES`] times, waiting as the API's `retry-after` says, else 2 s
//! doubling to 30 s) and prints nothing on stdout meanwhile; at log level
//! ERROR it logs each failed request as a `stream error`. The k-th failure
//! of one request is reported as retry k when opencode will retry it: from
//! the second failure on (the first was retried, so the request is
//! retryable), and at the first when its text is one opencode retries on
//! (rate limits, overloads, 5xx words, network failures). Output on stdout
//! (the request got through) and the log of a request opencode gave up on
//! (`message=process`) start the count again.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use agentgate_protocol::{
    EventBody, MessageEvent, SessionEvent, StatusEvent, ThinkingEvent, ToolClass, ToolResultEvent,
    ToolUseEvent, Usage, UsageEvent, UsageScope,
};
use regex::Regex;
use serde_json::{Map, Value};

use super::unfinished::UnfinishedSteps;
use crate::classify::{compile_checked, status_in_text};
use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{
    Decoded, JsonLinesDecoder, ProviderError, ProviderFinal, Understood, event, str_of,
};

/// How many times opencode 1.18 retries one failed model request
/// (`SessionRetry.RETRY_MAX_RETRIES`).
pub const MAX_RETRIES: u32 = 5;

/// The `step_finish` reasons after which opencode calls the model again.
const CONTINUING_REASONS: &[&str] = &["tool-calls", "unknown"];

/// The error texts opencode retries on whatever the HTTP status
/// (`SessionRetry`'s list, opencode 1.18).
static RETRYABLE_TEXT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    compile_checked(concat!(
        r"429|500|502|503|504|524",
        r"|rate increased too quickly|rate limit|rate-limit|rate_limit|too many requests",
        r"|overloaded|service[-_ ]unavailable|internal[-_ ]error|internal server error",
        r"|server[-_ ]error|provider[-_ ]returned[-_ ]error",
        r"|terminated|fetch failed|failed to fetch|network[-_\s]error|upstream connect",
        r"|connection error|connection refused|connection lost|socket connection was closed",
        r"|socket hang up|reset before headers|getaddrinfo|enotfound|eai_again|econnrefused",
        r"|econnreset|etimedout|^timeout$",
        r"|\b(?:request|response|connection|network|stream|read) (?:timeout|timed out|time out)\b",
        r"|try your request again|retry your request|resource exhausted|resource_exhausted",
        r"|\btry again (?:later|in\b)|\b(?:currently|temporarily) at capacity\b",
    ))
    .ok()
});

/// Decodes opencode's `run --format json` output and its stderr.
#[derive(Debug, Clone)]
pub struct OpencodeDecoder {
    tool_output_cap: usize,
    session_id: Option<String>,
    /// Text parts of the current step: the answer when the step ends the turn.
    step_text: Vec<String>,
    /// Failed model requests since the last output on stdout.
    stream_errors: u32,
    /// Refs of `UnknownError`s printed on stdout whose detail is not logged yet.
    unexplained: HashSet<String>,
    /// Details logged on stderr (`error` name and text) by ref.
    logged: HashMap<String, (String, String)>,
    /// Steps ending without a finish reason, in a row.
    unfinished: UnfinishedSteps,
}

impl Default for OpencodeDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl OpencodeDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            session_id: None,
            step_text: Vec::new(),
            stream_errors: 0,
            unexplained: HashSet::new(),
            logged: HashMap::new(),
            unfinished: UnfinishedSteps::default(),
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    /// Output on stdout: the model request in flight got through.
    fn progress(&mut self) {
        self.stream_errors = 0;
    }

    fn tool(&mut self, part: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(name) = str_of(part, "tool") else {
            return Understood::No;
        };
        let Some(id) = str_of(part, "callID").or_else(|| str_of(part, "id")) else {
            return Understood::No;
        };
        let state = part.get("state").and_then(Value::as_object);
        let class = tool_class(name);
        out.push(event(EventBody::ToolUse(ToolUseEvent {
            id: id.to_owned(),
            name: name.to_owned(),
            class,
            input: state
                .and_then(|s| s.get("input"))
                .cloned()
                .unwrap_or(Value::Null),
        })));
        let Some(state) = state else {
            return Understood::Yes;
        };
        let exit_code = state
            .get("metadata")
            .and_then(|m| m.get("exit"))
            .and_then(Value::as_i64)
            .and_then(|c| i32::try_from(c).ok())
            .filter(|_| class == ToolClass::Shell);
        let (ok, output) = match str_of(state, "status") {
            Some("completed") => (
                exit_code.is_none_or(|c| c == 0),
                text_of(state.get("output")),
            ),
            Some("error") => (false, text_of(state.get("error"))),
            // opencode prints a tool part once it is done; any other state
            // has no result yet.
            _ => return Understood::Yes,
        };
        out.push(event(EventBody::ToolResult(ToolResultEvent::new(
            id,
            ok,
            &output,
            self.tool_output_cap,
            exit_code,
        ))));
        Understood::Yes
    }

    fn step_finish(&mut self, part: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let mut understood = Understood::No;
        if let Some(tokens) = part.get("tokens").and_then(Value::as_object) {
            let mut usage = usage_of(tokens);
            usage.cost_usd = part.get("cost").and_then(Value::as_f64);
            out.push(event(EventBody::Usage(UsageEvent {
                scope: UsageScope::Turn,
                usage,
            })));
            understood = Understood::Yes;
        }
        let reason = str_of(part, "reason");
        if self
            .unfinished
            .step_finished(reason, self.session_id.as_ref(), out)
        {
            return Understood::Yes;
        }
        if reason.is_some_and(|r| !CONTINUING_REASONS.contains(&r)) {
            let text = std::mem::take(&mut self.step_text).join("\n\n");
            out.push(Decoded::Final(ProviderFinal {
                text: (!text.trim().is_empty()).then_some(text),
                session_id: self.session_id.clone(),
                is_error: false,
                usage: None,
                num_turns: None,
            }));
            understood = Understood::Yes;
        }
        understood
    }

    /// opencode's `error{name, data{message, statusCode, isRetryable,
    /// responseBody, ref}}`.
    fn error(&mut self, error: &Map<String, Value>, out: &mut Vec<Decoded>) {
        let name = str_of(error, "name").unwrap_or("Error");
        let data = error.get("data").and_then(Value::as_object);
        let field = |k: &str| data.and_then(|d| str_of(d, k));
        if name == "UnknownError"
            && let Some(r) = field("ref")
        {
            if let Some((name, message)) = self.logged.get(r) {
                out.push(Decoded::ProviderError(detailed(name, message)));
                return;
            }
            self.unexplained.insert(r.to_owned());
        }
        let message = field("message").unwrap_or(name);
        let http_status = data
            .and_then(|d| d.get("statusCode"))
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .or_else(|| status_in_text(message));
        let code = field("responseBody")
            .and_then(body_code)
            .or_else(|| generic_name(name).then(|| name.to_owned()));
        out.push(Decoded::ProviderError(ProviderError {
            message: message.to_owned(),
            http_status,
            code,
            terminal: true,
        }));
    }

    /// One `key=value ...` line of opencode's log.
    fn log_line(&mut self, line: &str, out: &mut Vec<Decoded>) {
        let fields = logfmt(line);
        let get = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.as_str())
        };
        if get("level") != Some("ERROR") {
            return;
        }
        match get("message") {
            Some("stream error") if get("small") != Some("true") => {
                let detail = get("error.error").map(strip_error_name).unwrap_or_default();
                self.stream_errors = self.stream_errors.saturating_add(1);
                let retried = self.stream_errors > 1
                    || RETRYABLE_TEXT
                        .as_ref()
                        .is_some_and(|re| re.is_match(detail));
                if retried && self.stream_errors <= MAX_RETRIES {
                    out.push(event(EventBody::Status(StatusEvent::Retry {
                        retry_attempt: Some(self.stream_errors),
                        max_retries: Some(MAX_RETRIES),
                        delay_ms: None,
                        provider_status: status_in_text(detail),
                        detail: (!detail.is_empty()).then(|| detail.to_owned()),
                    })));
                }
            }
            // opencode gave up on the request: a later failure is another's.
            Some("process") => self.stream_errors = 0,
            Some("failed") => {
                let (Some(r), Some(error)) = (get("ref"), get("error")) else {
                    return;
                };
                let (name, message) = match error.split_once(": ") {
                    Some((name, message)) if is_identifier(name) => (name, message),
                    _ => ("", error),
                };
                if self.unexplained.remove(r) {
                    out.push(Decoded::ProviderError(detailed(name, message)));
                } else {
                    self.logged
                        .insert(r.to_owned(), (name.to_owned(), message.to_owned()));
                }
            }
            _ => {}
        }
    }
}

impl JsonLinesDecoder for OpencodeDecoder {
    /// Decodes one JSON object.
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        if let Some(id) = str_of(obj, "sessionID")
            && self.session_id.as_deref() != Some(id)
        {
            self.session_id = Some(id.to_owned());
            out.push(event(EventBody::Session(SessionEvent {
                session_id: id.to_owned(),
                model: None,
            })));
        }
        let part = obj.get("part").and_then(Value::as_object);
        match (str_of(obj, "type"), part) {
            (Some("step_start"), Some(_)) => {
                self.progress();
                self.unfinished.step_started();
                self.step_text.clear();
                // Nothing to report: the line stays raw.
                Understood::No
            }
            (Some("text"), Some(part)) => {
                self.progress();
                let text = str_of(part, "text").unwrap_or_default();
                if text.is_empty() {
                    return Understood::No;
                }
                self.step_text.push(text.to_owned());
                out.push(event(EventBody::Message(MessageEvent {
                    text: text.to_owned(),
                })));
                Understood::Yes
            }
            (Some("reasoning"), Some(part)) => {
                self.progress();
                let text = str_of(part, "text").unwrap_or_default();
                if text.trim().is_empty() {
                    return Understood::No;
                }
                out.push(event(EventBody::Thinking(ThinkingEvent {
                    text: text.to_owned(),
                })));
                Understood::Yes
            }
            (Some("tool_use"), Some(part)) => {
                self.progress();
                self.unfinished.tool_used();
                self.tool(part, out)
            }
            (Some("step_finish"), Some(part)) => {
                self.progress();
                self.step_finish(part, out)
            }
            (Some("error"), _) => match obj.get("error").and_then(Value::as_object) {
                Some(error) => {
                    self.error(error, out);
                    Understood::Yes
                }
                None => Understood::No,
            },
            _ => Understood::No,
        }
    }

    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let line = String::from_utf8_lossy(line);
        let line = strip_ansi(line.trim_end_matches('\r'));
        let text = line.trim();
        if text.starts_with("timestamp=") {
            self.log_line(text, out);
        } else if let Some(message) = text.strip_prefix("Error: ") {
            let message = message.trim();
            out.push(Decoded::ProviderError(ProviderError {
                message: message.to_owned(),
                http_status: status_in_text(message),
                code: None,
                terminal: true,
            }));
        } else if let Some(notice) = text.strip_prefix("! ").or_else(|| text.strip_prefix('!')) {
            let detail = notice.trim();
            if !detail.is_empty() {
                out.push(event(EventBody::Status(StatusEvent::Notice {
                    detail: detail.to_owned(),
                })));
            }
        }
    }
}

/// Figures of one step in the protocol's terms (see the module docs).
fn usage_of(tokens: &Map<String, Value>) -> Usage {
    let n = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let cache = tokens.get("cache");
    let cache_read = n(cache.and_then(|c| c.get("read")));
    let cache_write = n(cache.and_then(|c| c.get("write")));
    let reasoning = n(tokens.get("reasoning"));
    let input = n(tokens.get("input"))
        .saturating_add(cache_read)
        .saturating_add(cache_write);
    let output = n(tokens.get("output")).saturating_add(reasoning);
    let total = input.saturating_add(output);
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_write,
        reasoning_tokens: reasoning,
        total_tokens: total,
        context_tokens: Some(total),
        ..Usage::default()
    }
}

/// The error detail opencode logged for an `UnknownError`.
fn detailed(name: &str, message: &str) -> ProviderError {
    ProviderError {
        message: message.to_owned(),
        http_status: status_in_text(message),
        code: (!name.is_empty()).then(|| name.to_owned()),
        terminal: true,
    }
}

/// Whether an error name says more than "an API call failed".
fn generic_name(name: &str) -> bool {
    !matches!(name, "APIError" | "UnknownError" | "Error" | "")
}

/// `error.code` (else `error.type`) of an API error body.
fn body_code(body: &str) -> Option<String> {
    let v: Value = serde_json::from_str(body).ok()?;
    let error = v.get("error")?;
    ["code", "type"]
        .iter()
        .find_map(|k| error.get(k).and_then(Value::as_str))
        .filter(|c| !c.is_empty())
        .map(str::to_owned)
}

/// A string field as text; other values as JSON; nothing as "".
fn text_of(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// `AI_APICallError: Rate limit reached` → `Rate limit reached`.
fn strip_error_name(text: &str) -> &str {
    match text.split_once(": ") {
        Some((name, rest)) if is_identifier(name) && name.ends_with("Error") => rest,
        _ => text,
    }
}

fn is_identifier(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The `key=value` pairs of a logfmt line; quoted values are JSON strings.
fn logfmt(line: &str) -> Vec<(&str, String)> {
    let mut fields = Vec::new();
    let mut rest = line.trim_start();
    while !rest.is_empty() {
        let Some(eq) = rest.find('=') else {
            break;
        };
        let key = &rest[..eq];
        if key.contains(' ') {
            // A word without a value: skip it.
            let skip = key.find(' ').map_or(rest.len(), |s| s + 1);
            rest = rest[skip..].trim_start();
            continue;
        }
        let after = &rest[eq + 1..];
        let (value, next) = if after.starts_with('"') {
            let end = quoted_end(after);
            let raw = &after[..end];
            let value = serde_json::from_str::<String>(raw)
                .unwrap_or_else(|_| raw.trim_matches('"').to_owned());
            (value, &after[end..])
        } else {
            let end = after.find(' ').unwrap_or(after.len());
            (after[..end].to_owned(), &after[end..])
        };
        fields.push((key, value));
        rest = next.trim_start();
    }
    fields
}

/// The length of the quoted string at the start of `s` (quotes included),
/// or all of `s` when it is not closed.
fn quoted_end(s: &str) -> usize {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            '\\' if !escaped => escaped = true,
            '"' if !escaped => return i + 1,
            _ => escaped = false,
        }
    }
    s.len()
}

/// `line` without terminal escape sequences (opencode colours its errors
/// even when `NO_COLOR` is set).
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        if chars.peek() == Some(&'[') {
            chars.next();
            // Parameters and intermediates, up to the final byte.
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    break;
                }
            }
        } else {
            chars.next();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logfmt_reads_bare_and_quoted_values() {
        let line = r#"timestamp=2026-11-21T23:42:03.235Z level=ERROR message="stream error" small=false error.error="AI_APICallError: say \"hi\"\n at x""#;
        let fields = logfmt(line);
        let get = |k: &str| {
            fields
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("level"), Some("ERROR"));
        assert_eq!(get("message"), Some("stream error"));
        assert_eq!(get("small"), Some("false"));
        assert_eq!(
            get("error.error"),
            Some("AI_APICallError: say \"hi\"\n at x")
        );
        assert_eq!(logfmt(r#"a="unclosed b=1"#).len(), 1);
        assert!(logfmt("no pairs here").is_empty());
    }

    #[test]
    fn ansi_sequences_are_stripped() {
        assert_eq!(
            strip_ansi("\u{1b}[91m\u{1b}[1mError: \u{1b}[0mSession not found"),
            "Error: Session not found"
        );
        assert_eq!(strip_ansi("plain"), "plain");
        assert_eq!(strip_ansi("cut \u{1b}["), "cut ");
    }

    #[test]
    fn error_names_are_taken_off_log_messages() {
        assert_eq!(
            strip_error_name("AI_APICallError: Rate limit reached"),
            "Rate limit reached"
        );
        assert_eq!(strip_error_name("note: not an error"), "note: not an error");
        assert_eq!(
            body_code(r#"{"error":{"code":"rate_limit_exceeded","type":"requests"}}"#).as_deref(),
            Some("rate_limit_exceeded")
        );
        assert_eq!(body_code("not json"), None);
    }

    #[test]
    fn opencodes_retryable_texts() {
        let re = RETRYABLE_TEXT.as_ref().unwrap();
        for t in [
            "Rate limit reached for fake-model",
            "That model is currently overloaded",
            "Unable to connect. fetch failed",
            "Please try again in 20s",
        ] {
            assert!(re.is_match(t), "{t}");
        }
        for t in [
            "Incorrect API key provided",
            "The model `x` does not exist",
            "timeout while thinking",
        ] {
            assert!(!re.is_match(t), "{t}");
        }
    }
}
