//! The script format: an ordered list of turns, read from YAML.
//!
//! The format is documented for users in `agentgate fake-llm --help`
//! ([`crate::SCRIPT_HELP`]) and in `docs/fake-llm.md`.

use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;

use axum::http::{HeaderName, HeaderValue};

use crate::headers::{self, HeadersSpec};
use crate::reply::{ErrorKind, Usage};
use crate::request::Api;

/// A parsed and validated script.
#[derive(Debug, Clone, Default)]
pub struct Script {
    /// The turns, in order.
    pub turns: Vec<Turn>,
    /// What to do with a request no turn matches.
    pub on_unmatched: Unmatched,
    /// The text of the default answer (instead of the built-in greeting).
    pub default_text: Option<String>,
    /// The models `GET /v1/models` lists (in every flavour), instead of
    /// the built-in list; the first is Codex's default.
    pub models: Option<Vec<String>>,
}

/// What the server does with a request that no turn matches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unmatched {
    /// Answer like a friendly default model.
    #[default]
    Default,
    /// Answer HTTP 500 with an error that says no turn matched.
    Error,
}

/// One scripted turn.
#[derive(Debug, Clone)]
pub struct Turn {
    /// A label for logs (`#N`, counting from 1, when the script gives none).
    pub name: String,
    /// When the turn applies.
    pub matcher: Matcher,
    /// How many requests the turn answers; `None` = unlimited.
    pub times: Option<u32>,
    /// The headers its response carries: the turn's `headers`, then its
    /// `error`'s (checked at load).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// What it answers.
    pub action: TurnSpec,
}

/// The conditions of a turn; all given conditions must hold.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    /// A substring of the latest user message.
    pub contains: Option<String>,
    /// A regex over the latest user message.
    pub regex: Option<Regex>,
    /// A substring of the system instructions.
    pub system: Option<String>,
    /// Whether the latest input must (true) or must not (false) carry a tool result.
    pub tool_result: Option<bool>,
    /// A substring of the requested model.
    pub model: Option<String>,
    /// The wire protocol.
    pub api: Option<Api>,
}

/// The YAML form of a script.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptFile {
    #[serde(default)]
    turns: Vec<TurnSpec>,
    #[serde(default)]
    on_unmatched: Unmatched,
    #[serde(default)]
    default_text: Option<String>,
    #[serde(default)]
    models: Option<Vec<String>>,
}

/// The conditions of a turn as written in YAML.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MatchFile {
    /// A substring of the latest user message.
    #[serde(default)]
    pub contains: Option<String>,
    /// A regex over the latest user message.
    #[serde(default)]
    pub regex: Option<String>,
    /// A substring of the system instructions.
    #[serde(default)]
    pub system: Option<String>,
    /// Whether the latest input carries a tool result.
    #[serde(default)]
    pub tool_result: Option<bool>,
    /// A substring of the model.
    #[serde(default)]
    pub model: Option<String>,
    /// The wire protocol.
    #[serde(default)]
    pub api: Option<Api>,
}

/// One turn as written in YAML: its label and conditions, and what it answers.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnSpec {
    /// A label for logs.
    #[serde(default)]
    pub name: Option<String>,
    /// When the turn applies.
    #[serde(default, rename = "match")]
    pub matcher: Option<MatchFile>,
    /// How many requests it answers (default 1).
    #[serde(default)]
    pub times: Option<u32>,
    /// Answer any number of requests.
    #[serde(default)]
    pub repeat: bool,
    /// Milliseconds to wait before answering.
    #[serde(default)]
    pub delay_ms: u64,
    /// Milliseconds to wait between streamed chunks.
    #[serde(default)]
    pub chunk_delay_ms: u64,
    /// A thinking/reasoning block sent before the text.
    #[serde(default)]
    pub thinking: Option<String>,
    /// The answer text: one string, or a list of chunks to stream.
    #[serde(default)]
    pub text: Option<TextSpec>,
    /// Split the text into chunks of this many characters.
    #[serde(default)]
    pub chunk_chars: Option<usize>,
    /// One tool call.
    #[serde(default)]
    pub tool_call: Option<ToolCallSpec>,
    /// Several tool calls.
    #[serde(default)]
    pub tool_calls: Vec<ToolCallSpec>,
    /// Usage figures to report (estimated from the request when absent).
    #[serde(default)]
    pub usage: Option<Usage>,
    /// Fail with an HTTP error instead of answering.
    #[serde(default)]
    pub error: Option<ErrorSpec>,
    /// Break the stream off after the first content frame.
    #[serde(default)]
    pub fail: Option<FailSpec>,
    /// The error a `fail: error_event` / `response_failed` stream carries
    /// (default: `server_error`).
    #[serde(default)]
    pub fail_error: Option<ErrorSpec>,
    /// Never answer (`true` or `before`), or stop part way (`mid_stream`).
    #[serde(default)]
    pub hang: Option<HangSpec>,
    /// Headers added to the HTTP response (rate-limit headers, ...).
    #[serde(default)]
    pub headers: Option<HeadersSpec>,
}

/// Answer text: one string or explicit chunks.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum TextSpec {
    /// One string.
    One(String),
    /// Chunks streamed one by one.
    Chunks(Vec<String>),
}

/// A scripted tool call.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCallSpec {
    /// The tool: a declared name, or an alias (`shell`).
    pub name: String,
    /// For `shell`: the command line to run.
    #[serde(default)]
    pub command: Option<String>,
    /// The arguments as given (merged over the shaped ones for aliases).
    #[serde(default)]
    pub args: Option<Value>,
}

/// A scripted HTTP error.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorSpec {
    /// The kind of error.
    pub kind: ErrorKind,
    /// The HTTP status (the kind's usual one when absent).
    #[serde(default)]
    pub status: Option<u16>,
    /// The error message (the provider's realistic wording when absent).
    #[serde(default)]
    pub message: Option<String>,
    /// Seconds for a `retry-after` header.
    #[serde(default)]
    pub retry_after: Option<u64>,
    /// Headers added to the error response (after the turn's).
    #[serde(default)]
    pub headers: Option<HeadersSpec>,
}

/// How a stream fails, after its first content frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailSpec {
    /// Close the connection (no terminator).
    MidStream,
    /// Send the API's in-stream error event, then end the stream.
    ErrorEvent,
    /// Responses `response.failed` (elsewhere the same as `error_event`).
    ResponseFailed,
    /// End the stream without its closing record (finish reason).
    NoFinish,
}

/// How a turn hangs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum HangSpec {
    /// `true`: hang before answering (`false` does nothing).
    Flag(bool),
    /// `before` or `mid_stream`.
    Mode(HangMode),
}

/// When a turn hangs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HangMode {
    /// Before sending anything.
    Before,
    /// After the first content frame.
    MidStream,
}

impl HangSpec {
    /// The effective mode, if the turn hangs at all.
    pub fn mode(self) -> Option<HangMode> {
        match self {
            HangSpec::Flag(true) => Some(HangMode::Before),
            HangSpec::Flag(false) => None,
            HangSpec::Mode(m) => Some(m),
        }
    }
}

/// A script that could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScriptError {
    /// The file could not be read.
    #[error("failed to read script {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The YAML is malformed or has unknown keys.
    #[error("invalid script{where_}: {message}")]
    Parse {
        /// ` <path>` or empty.
        where_: String,
        /// The parser's message, with the line and column.
        message: String,
    },
    /// A turn is inconsistent.
    #[error("invalid script: turn {turn}: {message}")]
    Invalid {
        /// The turn's label.
        turn: String,
        /// What is wrong.
        message: String,
    },
}

impl Script {
    /// Read and validate a script file.
    pub fn from_path(path: &Path) -> Result<Script, ScriptError> {
        let text = std::fs::read_to_string(path).map_err(|source| ScriptError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::parse(&text).map_err(|e| match e {
            ScriptError::Parse { message, .. } => ScriptError::Parse {
                where_: format!(" {}", path.display()),
                message,
            },
            other => other,
        })
    }

    /// Parse and validate a script from YAML text.
    pub fn parse(text: &str) -> Result<Script, ScriptError> {
        let file: ScriptFile = if text.trim().is_empty() {
            ScriptFile {
                turns: Vec::new(),
                on_unmatched: Unmatched::Default,
                default_text: None,
                models: None,
            }
        } else {
            serde_saphyr::from_str(text).map_err(|e| ScriptError::Parse {
                where_: String::new(),
                message: e.to_string(),
            })?
        };
        let mut turns = Vec::with_capacity(file.turns.len());
        for (i, t) in file.turns.into_iter().enumerate() {
            let name = t.name.clone().unwrap_or_else(|| format!("#{}", i + 1));
            let invalid = |message: String| ScriptError::Invalid {
                turn: name.clone(),
                message,
            };
            let matcher = match t.matcher.clone() {
                None => Matcher::default(),
                Some(m) => Matcher {
                    regex: match m.regex {
                        None => None,
                        Some(r) => {
                            Some(Regex::new(&r).map_err(|e| invalid(format!("bad regex: {e}")))?)
                        }
                    },
                    contains: m.contains,
                    system: m.system,
                    tool_result: m.tool_result,
                    model: m.model,
                    api: m.api,
                },
            };
            let a = &t;
            let has_output = a.text.is_some()
                || a.thinking.is_some()
                || a.tool_call.is_some()
                || !a.tool_calls.is_empty();
            if a.error.is_some() && has_output {
                return Err(invalid(
                    "`error` cannot be combined with text, thinking or tool calls".into(),
                ));
            }
            if let Some(e) = &a.error
                && let Some(s) = e.status
                && !(400..=599).contains(&s)
            {
                return Err(invalid(format!(
                    "error status {s} is not an HTTP error (400-599)"
                )));
            }
            if a.fail_error.is_some()
                && !matches!(
                    a.fail,
                    Some(FailSpec::ErrorEvent) | Some(FailSpec::ResponseFailed)
                )
            {
                return Err(invalid(
                    "`fail_error` needs `fail: error_event` or `fail: response_failed`".into(),
                ));
            }
            if a.fail_error.as_ref().is_some_and(|e| e.headers.is_some()) {
                return Err(invalid(
                    "`fail_error` is sent inside the stream and has no headers: give `headers` on the turn".into(),
                ));
            }
            if a.fail.is_some() && !has_output {
                return Err(invalid(
                    "`fail` needs text, thinking or a tool call to break off after".into(),
                ));
            }
            if a.chunk_chars == Some(0) {
                return Err(invalid("`chunk_chars` must be at least 1".into()));
            }
            for c in a.tool_call.iter().chain(a.tool_calls.iter()) {
                if c.name == crate::tools::SHELL_ALIAS && c.command.is_none() {
                    return Err(invalid("a `shell` tool call needs `command`".into()));
                }
                if let Some(args) = &c.args
                    && !args.is_object()
                {
                    return Err(invalid(format!(
                        "tool call `{}`: `args` must be a mapping",
                        c.name
                    )));
                }
            }
            if let Some(u) = &a.usage
                && u.cache_write_1h > u.cache_write
            {
                return Err(invalid(format!(
                    "`usage.cache_write_1h` ({}) is more than `cache_write` ({}): it is the part of the cache write with a 1-hour TTL",
                    u.cache_write_1h, u.cache_write
                )));
            }
            let mut response_headers = match &a.headers {
                Some(h) => headers::checked(h, "headers").map_err(invalid)?,
                None => Vec::new(),
            };
            if let Some(h) = a.error.as_ref().and_then(|e| e.headers.as_ref()) {
                response_headers.extend(headers::checked(h, "error.headers").map_err(invalid)?);
            }
            if t.repeat && t.times.is_some() {
                return Err(invalid("give `times` or `repeat`, not both".into()));
            }
            if t.times == Some(0) {
                return Err(invalid(
                    "`times` must be at least 1 (use `repeat: true` for unlimited)".into(),
                ));
            }
            turns.push(Turn {
                name,
                matcher,
                times: if t.repeat {
                    None
                } else {
                    Some(t.times.unwrap_or(1))
                },
                headers: response_headers,
                action: t,
            });
        }
        Ok(Script {
            turns,
            on_unmatched: file.on_unmatched,
            default_text: file.default_text,
            models: file.models,
        })
    }
}

impl Matcher {
    /// Whether a request satisfies every condition.
    pub fn matches(&self, req: &crate::ChatRequest) -> bool {
        let text = req.latest_user_text();
        if let Some(c) = &self.contains
            && !text.contains(c.as_str())
        {
            return false;
        }
        if let Some(r) = &self.regex
            && !r.is_match(text)
        {
            return false;
        }
        if let Some(sys) = &self.system
            && !req.system.contains(sys.as_str())
        {
            return false;
        }
        if let Some(want) = self.tool_result
            && req.latest_has_tool_result() != want
        {
            return false;
        }
        if let Some(m) = &self.model
            && !req.model.contains(m.as_str())
        {
            return false;
        }
        if let Some(api) = self.api
            && req.api != api
        {
            return false;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_turn_parses_with_every_field() {
        let s = Script::parse(
            r#"
on_unmatched: error
default_text: "ok"
turns:
  - name: first
    match: {contains: "hi", regex: "(?i)HI", system: "terse", tool_result: false, model: "son", api: anthropic}
    times: 2
    delay_ms: 5
    chunk_delay_ms: 1
    thinking: "hmm"
    text: [a, b]
    tool_call: {name: shell, command: "ls"}
    usage: {input: 1, output: 2, cache_read: 3, cache_write: 4, reasoning: 5}
    hang: mid_stream
  - repeat: true
    error: {kind: rate_limit, status: 429, message: "slow down", retry_after: 3}
"#,
        )
        .unwrap();
        assert_eq!(s.on_unmatched, Unmatched::Error);
        assert_eq!(s.turns.len(), 2);
        let t = &s.turns[0];
        assert_eq!((t.name.as_str(), t.times), ("first", Some(2)));
        assert_eq!(
            t.action.hang.and_then(HangSpec::mode),
            Some(HangMode::MidStream)
        );
        assert_eq!(
            t.action.usage,
            Some(Usage {
                input: 1,
                output: 2,
                cache_read: 3,
                cache_write: 4,
                cache_write_1h: 0,
                reasoning: 5
            })
        );
        assert_eq!((s.turns[1].name.as_str(), s.turns[1].times), ("#2", None));
        let e = s.turns[1].action.error.as_ref().unwrap();
        assert_eq!(
            (e.kind, e.status, e.retry_after),
            (ErrorKind::RateLimit, Some(429), Some(3))
        );
    }

    #[test]
    fn unknown_keys_are_rejected_with_their_name_and_line() {
        let err = Script::parse("turns:\n  - text: hi\n    txet: typo\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("txet"), "{err}");
        assert!(err.contains("line 3"), "{err}");
    }

    #[test]
    fn inconsistent_turns_are_rejected() {
        for (yaml, want) in [
            (
                "turns:\n  - text: a\n    error: {kind: auth}\n",
                "cannot be combined",
            ),
            (
                "turns:\n  - error: {kind: auth, status: 200}\n",
                "not an HTTP error",
            ),
            ("turns:\n  - tool_call: {name: shell}\n", "needs `command`"),
            ("turns:\n  - text: a\n    times: 0\n", "at least 1"),
            (
                "turns:\n  - text: a\n    times: 2\n    repeat: true\n",
                "not both",
            ),
            (
                "turns:\n  - match: {regex: \"(\"}\n    text: a\n",
                "bad regex",
            ),
            ("turns:\n  - error: {kind: teapot}\n", "teapot"),
        ] {
            let err = Script::parse(yaml).unwrap_err().to_string();
            assert!(err.contains(want), "{yaml:?}: {err}");
        }
    }

    #[test]
    fn hang_accepts_a_flag_or_a_mode() {
        let s =
            Script::parse("turns:\n  - hang: true\n  - hang: false\n  - hang: before\n").unwrap();
        let modes: Vec<_> = s
            .turns
            .iter()
            .map(|t| t.action.hang.and_then(HangSpec::mode))
            .collect();
        assert_eq!(
            modes,
            [Some(HangMode::Before), None, Some(HangMode::Before)]
        );
    }

    #[test]
    fn an_empty_file_is_the_default_model() {
        let s = Script::parse("  \n").unwrap();
        assert!(s.turns.is_empty());
        assert_eq!(s.on_unmatched, Unmatched::Default);
    }
}
