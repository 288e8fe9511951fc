//! Codex: `codex exec --json` (and `codex exec resume --json`).
//!
//! | line | decoded as |
//! |---|---|
//! | `thread.started` | `session` (thread id) |
//! | `item.completed` agent_message | `message` (remembered as the answer) |
//! | `item.completed` reasoning | `thinking` |
//! | command_execution started / completed | `tool_use` `exec_command` (shell, input `{command}`) / `tool_result` (exit code, aggregated output) |
//! | file_change | `tool_use` `apply_patch` (write, input `{changes}`) / `tool_result` |
//! | mcp_tool_call | `tool_use` `mcp__server__tool` (class from the name) / `tool_result` |
//! | web_search | `tool_use` `web_search` (web) / `tool_result` |
//! | todo_list | `tool_use` `todo_list` (other) / `tool_result` (the list) |
//! | collab_tool_call | `tool_use` named by its `tool` (other) / `tool_result` |
//! | `item.*` error | provider error, not terminal |
//! | `turn.completed` | thread totals, then the final record (last message, thread id) |
//! | `turn.failed` | provider error, terminal (thread totals first when it has usage) |
//! | `error` "Reconnecting... n/m (reason)" | `status` retry (n, m, HTTP status from the reason) |
//! | other `error` | provider error, not terminal |
//! | anything else (`turn.started`, started/updated agent messages, …) | `raw` |
//!
//! Codex's usage is the thread's running total: `input_tokens` already
//! includes `cached_input_tokens` and `cache_write_input_tokens`, and
//! `output_tokens` includes `reasoning_output_tokens` (Responses API
//! semantics, checked against scripted figures), so they map one to one.

use std::collections::HashSet;

use agentgate_protocol::{
    EventBody, MessageEvent, SessionEvent, StatusEvent, ThinkingEvent, ToolClass, ToolResultEvent,
    ToolUseEvent,
};
use serde_json::{Map, Value, json};

use crate::decode::fields::http_status_in;
use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{
    Decoded, JsonLinesDecoder, ProviderError, ProviderFinal, Understood, event, str_of,
};
use crate::session_logs::codex_usage;

/// The name agentgate reports Codex's command executions under: the shell
/// tool Codex declares to the model.
pub const SHELL_TOOL: &str = "exec_command";

/// The name agentgate reports Codex's file changes under.
pub const PATCH_TOOL: &str = "apply_patch";

/// Decodes Codex's `exec --json` output.
#[derive(Debug, Clone)]
pub struct CodexDecoder {
    tool_output_cap: usize,
    thread_id: Option<String>,
    /// The last agent message of the current turn: the answer.
    last_message: Option<String>,
    /// Items whose `tool_use` was already reported.
    started: HashSet<String>,
    /// The last top-level error, for a `turn.failed` without a message.
    last_error: Option<String>,
}

impl Default for CodexDecoder {
    fn default() -> Self {
        Self::new()
    }
}

/// Which of `item.started`, `item.updated`, `item.completed` a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Started,
    Updated,
    Completed,
}

impl CodexDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            thread_id: None,
            last_message: None,
            started: HashSet::new(),
            last_error: None,
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    fn error(&mut self, message: &str, out: &mut Vec<Decoded>) {
        if let Some(retry) = reconnecting(message) {
            out.push(event(EventBody::Status(retry)));
            return;
        }
        self.last_error = Some(message.to_owned());
        out.push(Decoded::ProviderError(ProviderError {
            message: message.to_owned(),
            http_status: http_status_in(message),
            code: None,
            terminal: false,
        }));
    }

    fn item(&mut self, obj: &Map<String, Value>, phase: Phase, out: &mut Vec<Decoded>) {
        let Some(item) = obj.get("item").and_then(Value::as_object) else {
            return;
        };
        let Some(id) = str_of(item, "id") else {
            return;
        };
        let done = phase == Phase::Completed;
        match str_of(item, "type") {
            Some("agent_message") if done => {
                let text = str_of(item, "text").unwrap_or_default();
                self.last_message = Some(text.to_owned());
                out.push(event(EventBody::Message(MessageEvent {
                    text: text.to_owned(),
                })));
            }
            Some("reasoning") if done => {
                let text = str_of(item, "text").unwrap_or_default();
                if !text.is_empty() {
                    out.push(event(EventBody::Thinking(ThinkingEvent {
                        text: text.to_owned(),
                    })));
                }
            }
            Some("error") if done => {
                let message = str_of(item, "message").unwrap_or_default();
                out.push(Decoded::ProviderError(ProviderError {
                    message: message.to_owned(),
                    http_status: http_status_in(message),
                    code: None,
                    terminal: false,
                }));
            }
            Some(kind) => {
                if let Some(call) = tool_call(kind, item) {
                    self.tool(id, phase, item, call, out);
                }
            }
            None => {}
        }
    }

    /// `tool_use` at the item's first sighting, `tool_result` at its
    /// completion; updates in between stay raw.
    fn tool(
        &mut self,
        id: &str,
        phase: Phase,
        item: &Map<String, Value>,
        call: ToolCall,
        out: &mut Vec<Decoded>,
    ) {
        if self.started.insert(id.to_owned()) {
            out.push(event(EventBody::ToolUse(ToolUseEvent {
                id: id.to_owned(),
                class: call.class,
                name: call.name,
                input: call.input,
            })));
        }
        if phase != Phase::Completed {
            return;
        }
        let (ok, output, exit_code) = tool_outcome(item);
        out.push(event(EventBody::ToolResult(ToolResultEvent::new(
            id,
            ok,
            &output,
            self.tool_output_cap,
            exit_code,
        ))));
    }
}

impl JsonLinesDecoder for CodexDecoder {
    /// Decodes one JSON object; a line that yields nothing (`turn.started`,
    /// a started or updated agent message) is kept as raw.
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match str_of(obj, "type") {
            Some("thread.started") => {
                if let Some(id) = str_of(obj, "thread_id") {
                    self.thread_id = Some(id.to_owned());
                    out.push(event(EventBody::Session(SessionEvent {
                        session_id: id.to_owned(),
                        model: None,
                    })));
                }
            }
            Some("turn.started") => self.last_message = None,
            Some("item.started") => self.item(obj, Phase::Started, out),
            Some("item.updated") => self.item(obj, Phase::Updated, out),
            Some("item.completed") => self.item(obj, Phase::Completed, out),
            Some("turn.completed") => {
                if let Some(u) = obj.get("usage").and_then(Value::as_object) {
                    out.push(Decoded::ThreadTotals(codex_usage(u)));
                }
                out.push(Decoded::Final(ProviderFinal {
                    text: self.last_message.take(),
                    session_id: self.thread_id.clone(),
                    is_error: false,
                    usage: None,
                    num_turns: None,
                }));
            }
            Some("turn.failed") => {
                if let Some(u) = obj.get("usage").and_then(Value::as_object) {
                    out.push(Decoded::ThreadTotals(codex_usage(u)));
                }
                let message = obj
                    .get("error")
                    .and_then(|e| e.get("message"))
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .or_else(|| self.last_error.clone())
                    .unwrap_or_else(|| "turn failed".to_owned());
                out.push(Decoded::ProviderError(ProviderError {
                    http_status: http_status_in(&message),
                    message,
                    code: None,
                    terminal: true,
                }));
            }
            Some("error") => {
                if let Some(message) = str_of(obj, "message") {
                    self.error(message, out);
                }
            }
            _ => {}
        }
        Understood::Yes
    }
}

/// What a tool-like item is called, its class and its input.
#[derive(Debug)]
struct ToolCall {
    name: String,
    class: ToolClass,
    input: Value,
}

fn tool_call(kind: &str, item: &Map<String, Value>) -> Option<ToolCall> {
    let field = |k: &str| item.get(k).cloned().unwrap_or(Value::Null);
    let call = match kind {
        "command_execution" => ToolCall {
            name: SHELL_TOOL.to_owned(),
            class: ToolClass::Shell,
            input: json!({ "command": field("command") }),
        },
        "file_change" => ToolCall {
            name: PATCH_TOOL.to_owned(),
            class: ToolClass::Write,
            input: json!({ "changes": field("changes") }),
        },
        "mcp_tool_call" => {
            let server = str_of(item, "server").unwrap_or_default();
            let tool = str_of(item, "tool").unwrap_or_default();
            let name = format!("mcp__{server}__{tool}");
            ToolCall {
                class: tool_class(&name),
                name,
                input: field("arguments"),
            }
        }
        "web_search" => ToolCall {
            name: "web_search".to_owned(),
            class: ToolClass::Web,
            input: json!({ "query": field("query"), "action": field("action") }),
        },
        "todo_list" => ToolCall {
            name: "todo_list".to_owned(),
            class: ToolClass::Other,
            input: json!({ "items": field("items") }),
        },
        "collab_tool_call" => {
            let name = str_of(item, "tool")
                .unwrap_or("collab_tool_call")
                .to_owned();
            let mut input = item.clone();
            input.remove("id");
            input.remove("type");
            ToolCall {
                class: tool_class(&name),
                name,
                input: Value::Object(input),
            }
        }
        _ => return None,
    };
    Some(call)
}

/// Whether a completed tool item succeeded, its output and exit code.
fn tool_outcome(item: &Map<String, Value>) -> (bool, String, Option<i32>) {
    let status = str_of(item, "status");
    let completed = matches!(status, None | Some("completed"));
    match str_of(item, "type") {
        Some("command_execution") => {
            let exit_code = item
                .get("exit_code")
                .and_then(Value::as_i64)
                .and_then(|c| i32::try_from(c).ok());
            let ok = completed && exit_code.is_none_or(|c| c == 0);
            let output = str_of(item, "aggregated_output").unwrap_or_default();
            (ok, output.to_owned(), exit_code)
        }
        Some("file_change") => {
            let changes = item.get("changes").and_then(Value::as_array);
            let lines: Vec<String> = changes
                .into_iter()
                .flatten()
                .map(|c| {
                    let kind = c.get("kind").and_then(Value::as_str).unwrap_or("change");
                    let path = c.get("path").and_then(Value::as_str).unwrap_or_default();
                    format!("{kind} {path}")
                })
                .collect();
            (completed, lines.join("\n"), None)
        }
        Some("mcp_tool_call") => {
            let error = item
                .get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str);
            match error {
                Some(message) => (false, message.to_owned(), None),
                None => (completed, mcp_output(item.get("result")), None),
            }
        }
        Some("todo_list") => {
            let items = item.get("items").and_then(Value::as_array);
            let lines: Vec<String> = items
                .into_iter()
                .flatten()
                .map(|t| {
                    let done = t.get("completed").and_then(Value::as_bool) == Some(true);
                    let text = t.get("text").and_then(Value::as_str).unwrap_or_default();
                    format!("[{}] {text}", if done { "x" } else { " " })
                })
                .collect();
            (true, lines.join("\n"), None)
        }
        _ => (completed, String::new(), None),
    }
}

/// An MCP result's text blocks, else its structured content as JSON.
fn mcp_output(result: Option<&Value>) -> String {
    let Some(result) = result.and_then(Value::as_object) else {
        return String::new();
    };
    let texts: Vec<&str> = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect();
    if !texts.is_empty() {
        return texts.join("\n");
    }
    match result.get("structured_content") {
        Some(Value::Null) | None => String::new(),
        Some(v) => v.to_string(),
    }
}

/// `Reconnecting... 2/5 (unexpected status 401 Unauthorized: ...)` as a
/// retry notice.
fn reconnecting(message: &str) -> Option<StatusEvent> {
    let rest = message
        .strip_prefix("Reconnecting...")
        .or_else(|| message.strip_prefix("Re-connecting..."))?
        .trim_start();
    let (counts, reason) = match rest.split_once(' ') {
        Some((counts, reason)) => (counts, reason.trim()),
        None => (rest, ""),
    };
    let (attempt, max) = counts.split_once('/')?;
    let reason = reason
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(reason);
    Some(StatusEvent::Retry {
        retry_attempt: attempt.parse().ok(),
        max_retries: max.parse().ok(),
        delay_ms: None,
        provider_status: http_status_in(reason),
        detail: (!reason.is_empty()).then(|| reason.to_owned()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reconnecting_notices_become_retries() {
        assert_eq!(
            reconnecting(
                "Reconnecting... 2/5 (exceeded retry limit, last status: 429 Too Many Requests)"
            ),
            Some(StatusEvent::Retry {
                retry_attempt: Some(2),
                max_retries: Some(5),
                delay_ms: None,
                provider_status: Some(429),
                detail: Some("exceeded retry limit, last status: 429 Too Many Requests".into()),
            })
        );
        assert_eq!(reconnecting("The model does not exist"), None);
    }
}
