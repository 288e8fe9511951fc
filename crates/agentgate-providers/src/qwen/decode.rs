//! Qwen Code: `qwen --output-format stream-json` (Claude-like records), and
//! the single JSON array of `--output-format json`.
//!
//! | line | decoded as |
//! |---|---|
//! | `system/init` | `session` (session id, model) |
//! | `system/retry` (0.24) | `status` retry: a broken stream asked again, its `data.reason` the detail |
//! | `assistant` text block | `message` |
//! | `assistant` text block `[API Error: ...]` | provider error, not terminal (the answer decides, see below) |
//! | `assistant` thinking block | `thinking` |
//! | `assistant` tool_use block | `tool_use` with class |
//! | `assistant` with non-zero `message.usage` | `usage` scope turn (one model call), with its context size |
//! | `user` tool_result block | `tool_result` (exit code for shell tools when Qwen prints it) |
//! | `result` | provider error (terminal) when `is_error`; thread totals; the final record |
//! | stderr `[qwen-code] Waiting for API capacity... attempt N` | `status` retry, once per attempt |
//! | anything else | `raw` |
//!
//! Qwen prints one `assistant` line per content block; only the last line
//! of a model call carries that call's usage, the others `{0, 0}`.
//!
//! `result.usage` is cumulative over the whole session: a resumed session
//! starts from the totals of its earlier turns (Qwen replays them from its
//! session file), and it includes the background memory-extraction request
//! Qwen sends after a turn without tools. It is reported as
//! [`Decoded::ThreadTotals`], so that the run subtracts the totals it stored
//! after the session's previous turn, as for Codex; the final record carries
//! no billing figures. After the run, the adapter replaces them by
//! [`session_totals`], the same figures from Qwen's session file plus the
//! reasoning tokens that `stream-json` does not print. The per-call `usage`
//! events leave the background request out; they give the context size.
//!
//! Up to 0.2x Qwen exits 0 when the model API fails, with `is_error:
//! false`: its answer is the error report (`[API Error: 429 ...]`). The
//! classifier's Qwen table marks such an answer as an error
//! (`answer_error`); the decoder only keeps the report out of the `message`
//! events. From 0.24 the `result` says it (`is_error: true`, the report in
//! `error.message`) and Qwen exits 1: a terminal provider error, as for the
//! setup failures every version reports that way. 0.24 also prints
//! `stream_event` records (its goal state), kept as `raw`.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::{Path, PathBuf};

use agentgate_protocol::{EventBody, MessageEvent, StatusEvent, Usage, UsageEvent, UsageScope};
use serde_json::{Map, Value};

use super::errors::ERRORS;
use crate::classify::{is_retry_notice, status_in_text};
use crate::decode::claude_shape::{
    ResultHead, content_blocks, result_head, session_init, tool_results,
};
use crate::decode::tools::TOOL_OUTPUT_CAP;
use crate::decode::{
    Decoded, Decoder, ProviderError, ProviderFinal, Understood, event, json_value_line, str_of,
};

/// How Qwen starts the text it writes in place of an answer when a model
/// request failed.
const API_ERROR_PREFIX: &str = "[API Error:";

/// Decodes Qwen Code's `stream-json` (and `json`) output.
#[derive(Debug, Clone)]
pub struct QwenDecoder {
    tool_output_cap: usize,
    /// Tool names by `tool_use` id, to know which results are a shell's.
    tool_names: HashMap<String, String>,
    session_reported: bool,
    /// The attempt of the last retry heartbeat reported (Qwen repeats the
    /// heartbeat every 30 s while it waits for one attempt).
    retry_attempt: Option<u32>,
}

impl Default for QwenDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl QwenDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            tool_names: HashMap::new(),
            session_reported: false,
            retry_attempt: None,
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    /// Decodes one JSON object.
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match str_of(obj, "type") {
            Some("system") if str_of(obj, "subtype") == Some("retry") => stream_retry(obj, out),
            Some("system") => session_init(obj, &mut self.session_reported, out),
            Some("assistant") => self.assistant(obj, out),
            Some("user") => self.user(obj, out),
            Some("result") => self.result(obj, out),
            _ => Understood::No,
        }
    }

    fn assistant(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(msg) = obj.get("message").and_then(Value::as_object) else {
            return Understood::No;
        };
        // A subagent's calls are billed like the main agent's, but its
        // context is not the conversation's.
        let main_agent = obj.get("parent_tool_use_id").is_none_or(Value::is_null);
        if let Some(usage) = msg.get("usage").and_then(Value::as_object) {
            let u = usage_of(usage);
            if u.input_tokens > 0 || u.output_tokens > 0 {
                let context_tokens =
                    main_agent.then(|| u.input_tokens.saturating_add(u.output_tokens));
                out.push(event(EventBody::Usage(UsageEvent {
                    scope: UsageScope::Turn,
                    usage: Usage {
                        context_tokens,
                        ..u
                    },
                })));
            }
        }
        content_blocks(msg, &mut self.tool_names, out, |text, out| {
            if is_api_error(text) {
                out.push(Decoded::ProviderError(ProviderError {
                    message: text.to_owned(),
                    http_status: status_in_text(text),
                    code: None,
                    terminal: false,
                }));
            } else if !text.is_empty() {
                out.push(event(EventBody::Message(MessageEvent {
                    text: text.to_owned(),
                })));
            }
        })
    }

    fn user(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        tool_results(
            obj,
            &self.tool_names,
            self.tool_output_cap,
            out,
            |output, _| shell_exit_code(output),
        )
    }

    fn result(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let ResultHead {
            session_id,
            subtype,
            is_error,
            text,
        } = result_head(obj, &mut self.session_reported, out);
        if is_error {
            // Setup failures (no API key, no auth type) carry `error.message`
            // and no `result`.
            let message = text
                .clone()
                .filter(|t| !t.trim().is_empty())
                .or_else(|| {
                    obj.get("error")
                        .and_then(|e| e.get("message"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
                .unwrap_or_else(|| subtype.to_owned());
            out.push(Decoded::ProviderError(ProviderError {
                http_status: status_in_text(&message),
                message,
                code: subtype.starts_with("error").then(|| subtype.to_owned()),
                terminal: true,
            }));
        }
        if let Some(usage) = obj.get("usage").and_then(Value::as_object) {
            out.push(Decoded::ThreadTotals(usage_of(usage)));
        }
        out.push(Decoded::Final(ProviderFinal {
            text,
            session_id,
            is_error,
            usage: None,
            num_turns: obj
                .get("num_turns")
                .and_then(Value::as_u64)
                .and_then(|n| u32::try_from(n).ok()),
        }));
        Understood::Yes
    }
}

impl Decoder for QwenDecoder {
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        json_value_line(line, out, |value, out| match value {
            Value::Object(obj) => self.object(obj, out),
            // `--output-format json`: every record in one array.
            Value::Array(records) => records
                .iter()
                .map(|record| match record.as_object() {
                    Some(obj) => self.object(obj, out),
                    None => Understood::No,
                })
                .fold(Understood::Yes, Understood::and),
            _ => Understood::No,
        });
    }

    fn stderr_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let line = String::from_utf8_lossy(line);
        let Some(notice) = is_retry_notice(&ERRORS, line.trim_end()) else {
            return;
        };
        if notice.attempt.is_some() && notice.attempt == self.retry_attempt {
            return;
        }
        self.retry_attempt = notice.attempt;
        out.push(event(EventBody::Status(StatusEvent::Retry {
            retry_attempt: notice.attempt,
            max_retries: notice.max,
            delay_ms: notice.delay_ms,
            provider_status: notice.http_status,
            detail: Some(line.trim().to_owned()),
        })));
    }
}

/// `system/retry` (Qwen Code 0.24): the model's stream broke and Qwen asks
/// again, keeping the text it had (`data: {reason, discardedToolCalls,
/// preserveText}`). It carries no attempt count, delay or status.
fn stream_retry(obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
    let detail = obj
        .get("data")
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or("retry");
    out.push(event(EventBody::Status(StatusEvent::Retry {
        retry_attempt: None,
        max_retries: None,
        delay_ms: None,
        provider_status: None,
        detail: Some(detail.to_owned()),
    })));
    Understood::Yes
}

/// The session's totals as Qwen's session file records them: the sum of
/// its `ui_telemetry` `qwen-code.api_response` records, one per model
/// response (the background requests included). They are the figures of
/// `result.usage` (Qwen computes those by replaying these records) plus the
/// reasoning tokens, which `stream-json` leaves out. `qwen_dir` is Qwen's
/// folder (`~/.qwen`); `None` when the session has no file (chat recording
/// off, another `QWEN_RUNTIME_DIR`) or the file records no response.
pub fn session_totals(qwen_dir: &Path, session_id: &str) -> Option<Usage> {
    let file = find_session_file(qwen_dir, session_id)?;
    let reader = std::io::BufReader::new(std::fs::File::open(file).ok()?);
    let mut sum = Usage::default();
    let mut responses = 0u64;
    for line in reader.split(b'\n').map_while(Result::ok) {
        // Most lines are messages; only telemetry records are parsed.
        if !line.windows(12).any(|w| w == b"ui_telemetry") {
            continue;
        }
        let Ok(record) = serde_json::from_slice::<Value>(&line) else {
            continue;
        };
        let event = &record["systemPayload"]["uiEvent"];
        if record["subtype"] != "ui_telemetry" || event["event.name"] != "qwen-code.api_response" {
            continue;
        }
        let n = |k: &str| event[k].as_u64().unwrap_or(0);
        responses += 1;
        sum.input_tokens = sum.input_tokens.saturating_add(n("input_token_count"));
        sum.output_tokens = sum.output_tokens.saturating_add(n("output_token_count"));
        sum.cache_read_input_tokens = sum
            .cache_read_input_tokens
            .saturating_add(n("cached_content_token_count"));
        sum.reasoning_tokens = sum
            .reasoning_tokens
            .saturating_add(n("thoughts_token_count"));
    }
    sum.total_tokens = sum.input_tokens.saturating_add(sum.output_tokens);
    (responses > 0).then_some(sum)
}

/// `<qwen_dir>/projects/<project>/chats/<id>.jsonl`, found by name (the
/// project folder is the working directory with its separators replaced).
pub fn find_session_file(qwen_dir: &Path, session_id: &str) -> Option<PathBuf> {
    if session_id.is_empty() || session_id.contains(['/', '\\']) || session_id.contains("..") {
        return None;
    }
    let name = format!("{session_id}.jsonl");
    std::fs::read_dir(qwen_dir.join("projects"))
        .ok()?
        .flatten()
        .map(|project| project.path().join("chats").join(&name))
        .find(|f| f.is_file())
}

/// Whether an answer is Qwen's report of a failed model request rather
/// than the model's words.
pub fn is_api_error(text: &str) -> bool {
    text.trim_start().starts_with(API_ERROR_PREFIX)
}

/// Qwen's `usage` object: `input_tokens` (the prompt, cache reads
/// included), `output_tokens` (reasoning included), `cache_read_input_tokens`.
fn usage_of(usage: &Map<String, Value>) -> Usage {
    let n = |k: &str| usage.get(k).and_then(Value::as_u64).unwrap_or(0);
    let input_tokens = n("input_tokens");
    let output_tokens = n("output_tokens");
    Usage {
        input_tokens,
        output_tokens,
        cache_read_input_tokens: n("cache_read_input_tokens"),
        total_tokens: input_tokens.saturating_add(output_tokens),
        ..Usage::default()
    }
}

/// The `Exit Code: N` line of a shell tool's report. Qwen prints the whole
/// report only when the command printed nothing; otherwise the result is the
/// command's output alone and the exit code is unknown.
fn shell_exit_code(output: &str) -> Option<i32> {
    output
        .lines()
        .find_map(|l| l.trim().strip_prefix("Exit Code:"))
        .and_then(|code| code.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(lines: &[&str]) -> Vec<Decoded> {
        crate::test_support::decode(&mut QwenDecoder::new(), lines)
    }

    #[test]
    fn an_api_error_answer_is_not_a_message() {
        let out = decode(&[
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"[API Error: 401 Incorrect API key provided]"}],"usage":{"input_tokens":0,"output_tokens":0}}}"#,
        ]);
        assert_eq!(
            out,
            [Decoded::ProviderError(ProviderError {
                message: "[API Error: 401 Incorrect API key provided]".into(),
                http_status: Some(401),
                code: None,
                terminal: false,
            })]
        );
        assert!(!is_api_error("The log shows [API Error: 500] twice."));
    }

    #[test]
    fn huge_figures_saturate() {
        let out = decode(&[
            r#"{"type":"assistant","message":{"content":[],"usage":{"input_tokens":18446744073709551615,"output_tokens":5}}}"#,
        ]);
        let Decoded::Event(EventBody::Usage(u)) = &out[0] else {
            panic!("{out:?}");
        };
        assert_eq!(u.usage.total_tokens, u64::MAX);
        assert_eq!(u.usage.context_tokens, Some(u64::MAX));
    }

    #[test]
    fn the_exit_code_comes_from_the_shell_report() {
        assert_eq!(
            shell_exit_code("Command: true\nOutput: (empty)\nExit Code: 3\nSignal: 0"),
            Some(3)
        );
        assert_eq!(shell_exit_code("oops"), None);
    }
}
