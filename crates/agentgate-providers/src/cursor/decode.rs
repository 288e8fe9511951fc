//! Cursor's agent CLI: `cursor-agent --print --output-format stream-json`
//! (without `--stream-partial-output`).
//!
//! | line | decoded as |
//! |---|---|
//! | `system/init` | `session` (session id, model) |
//! | `user` (the prompt, echoed), `interaction_query` | nothing |
//! | `thinking/delta` | buffered; `thinking/completed` (or the next other line) emits one `thinking` |
//! | `assistant` | `message` (one complete message between tool calls) |
//! | `tool_call/started` | `tool_use`: the `<kind>ToolCall` key names the tool (`shellToolCall` → `shell`) |
//! | `tool_call/completed` | `tool_result`: `result.success` is ok, `rejected` / `error` / `failure` not; a shell's `exitCode` |
//! | `result` | provider error (terminal) when `is_error` or `subtype: "error"`, then the final record with `usage{inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens}` |
//! | `error` | provider error (terminal) |
//! | anything else | `raw` |
//!
//! On failure cursor-agent may end without a `result` and write its message
//! to stderr ("Error: You've hit your usage limit" and indented detail
//! lines, "Cannot use this model: X. Available models: ..."); when the
//! stream ends without a `result`, the last stderr text becomes a terminal
//! error. JSON lines on stderr (some versions mirror the events there) are
//! ignored.
//!
//! `result.result` is the text of every assistant message of the run joined
//! together; the answer is the text after the last tool call when the
//! record ends with it, as for the other CLIs.
//!
//! Usage: `inputTokens` excludes cache reads and writes, which Cursor
//! counts apart; agentgate's `input_tokens` includes them.

use std::collections::HashMap;

use agentgate_protocol::{
    EventBody, MessageEvent, ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent, Usage,
};
use serde_json::{Map, Value};

use crate::decode::claude_shape::{ResultHead, result_head, session_init};
use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{
    Decoded, JsonLinesDecoder, ProviderError, ProviderFinal, Understood, event, str_of,
};

/// How many stderr lines are kept to explain a failure.
const STDERR_LINES: usize = 40;

/// Decodes cursor-agent's `stream-json` output.
#[derive(Debug, Clone)]
pub struct CursorDecoder {
    tool_output_cap: usize,
    session_reported: bool,
    /// Thinking deltas not yet emitted.
    thinking: String,
    /// Tool class by call id, for calls whose start was seen.
    tools: HashMap<String, ToolClass>,
    /// Assistant text since the last tool call.
    since_tool: String,
    tool_seen: bool,
    final_seen: bool,
    next_id: u64,
    /// The last non-JSON stderr lines.
    stderr: Vec<String>,
}

impl Default for CursorDecoder {
    fn default() -> Self {
        Self::new()
    }
}

impl CursorDecoder {
    /// A decoder for one invocation, keeping at most [`TOOL_OUTPUT_CAP`]
    /// bytes of each tool output.
    pub fn new() -> Self {
        Self {
            tool_output_cap: TOOL_OUTPUT_CAP,
            session_reported: false,
            thinking: String::new(),
            tools: HashMap::new(),
            since_tool: String::new(),
            tool_seen: false,
            final_seen: false,
            next_id: 0,
            stderr: Vec::new(),
        }
    }

    /// The same decoder keeping at most `bytes` of each tool output.
    #[must_use]
    pub fn with_tool_output_cap(mut self, bytes: usize) -> Self {
        self.tool_output_cap = bytes;
        self
    }

    fn thinking(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match str_of(obj, "subtype") {
            Some("delta") => {
                self.thinking
                    .push_str(str_of(obj, "text").unwrap_or_default());
                Understood::Quietly
            }
            Some("completed") => {
                self.flush_thinking(out);
                Understood::Quietly
            }
            _ => Understood::No,
        }
    }

    fn flush_thinking(&mut self, out: &mut Vec<Decoded>) {
        let text = std::mem::take(&mut self.thinking);
        if !text.trim().is_empty() {
            out.push(event(EventBody::Thinking(ThinkingEvent { text })));
        }
    }

    fn assistant(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(content) = obj
            .get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
        else {
            return Understood::No;
        };
        let text: String = content
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect();
        self.since_tool.push_str(&text);
        if !text.is_empty() {
            out.push(event(EventBody::Message(MessageEvent { text })));
        }
        Understood::Quietly
    }

    fn tool_call(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(call) = obj.get("tool_call").and_then(Value::as_object) else {
            return Understood::No;
        };
        let Some(tool) = ToolCall::of(call) else {
            return Understood::No;
        };
        let id = match str_of(obj, "call_id").filter(|s| !s.is_empty()) {
            Some(id) => id.to_owned(),
            None => match tool.body.get("args").and_then(|a| a.get("toolCallId")) {
                Some(Value::String(id)) if !id.is_empty() => id.clone(),
                _ => {
                    self.next_id += 1;
                    format!("cursor-tool-{}", self.next_id)
                }
            },
        };
        match str_of(obj, "subtype") {
            Some("started") => {
                self.start_tool(&id, &tool, out);
                Understood::Quietly
            }
            Some("completed") => {
                if !self.tools.contains_key(&id) {
                    self.start_tool(&id, &tool, out);
                }
                let class = self.tools.get(&id).copied().unwrap_or(tool.class);
                let (ok, output, exit_code) = tool_outcome(tool.body.get("result"), class);
                out.push(event(EventBody::ToolResult(ToolResultEvent::new(
                    id,
                    ok,
                    &output,
                    self.tool_output_cap,
                    exit_code,
                ))));
                Understood::Quietly
            }
            _ => Understood::No,
        }
    }

    fn start_tool(&mut self, id: &str, tool: &ToolCall<'_>, out: &mut Vec<Decoded>) {
        self.tool_seen = true;
        self.since_tool.clear();
        self.tools.insert(id.to_owned(), tool.class);
        out.push(event(EventBody::ToolUse(ToolUseEvent {
            id: id.to_owned(),
            name: tool.name.clone(),
            class: tool.class,
            input: tool.input.clone(),
        })));
    }

    fn result(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        self.final_seen = true;
        let ResultHead {
            session_id,
            subtype,
            is_error,
            text,
        } = result_head(obj, &mut self.session_reported, out);
        if is_error {
            let message = match text.as_deref() {
                Some(t) if !t.trim().is_empty() => t.to_owned(),
                _ => format!("cursor-agent reported {subtype}"),
            };
            out.push(Decoded::ProviderError(ProviderError {
                message,
                http_status: None,
                code: (!subtype.is_empty()).then(|| subtype.to_owned()),
                terminal: true,
            }));
        }
        let text = if is_error {
            text
        } else {
            text.map(|t| self.answer(t))
        };
        out.push(Decoded::Final(ProviderFinal {
            text,
            session_id,
            is_error,
            usage: obj.get("usage").and_then(Value::as_object).map(usage_of),
            num_turns: None,
        }));
        Understood::Quietly
    }

    /// The answer out of `result.result`: the text after the last tool call
    /// when the record ends with it (cursor-agent joins every message of
    /// the run into `result`), else the record as it is.
    fn answer(&self, result: String) -> String {
        let tail = self.since_tool.trim();
        if self.tool_seen && !tail.is_empty() && result.trim_end().ends_with(tail) {
            tail.to_owned()
        } else {
            result
        }
    }
}

impl JsonLinesDecoder for CursorDecoder {
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let kind = str_of(obj, "type");
        if kind != Some("thinking") {
            self.flush_thinking(out);
        }
        match kind {
            Some("system") => session_init(obj, &mut self.session_reported, out),
            Some("user" | "interaction_query") => Understood::Quietly,
            Some("thinking") => self.thinking(obj, out),
            Some("assistant") => self.assistant(obj, out),
            Some("tool_call") => self.tool_call(obj, out),
            Some("result") => self.result(obj, out),
            Some("error") => error_event(obj, out),
            _ => Understood::No,
        }
    }

    fn stderr_line(&mut self, line: &[u8], _out: &mut Vec<Decoded>) {
        let text = String::from_utf8_lossy(line);
        let text = text.trim_end();
        if text.trim().is_empty() || serde_json::from_str::<Map<String, Value>>(text).is_ok() {
            return;
        }
        if self.stderr.len() == STDERR_LINES {
            self.stderr.remove(0);
        }
        self.stderr.push(text.to_owned());
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) {
        self.flush_thinking(out);
        if self.final_seen || self.stderr.is_empty() {
            return;
        }
        // The message starts at the last "Error:" line, with the indented
        // detail lines cursor-agent prints under it.
        let start = self
            .stderr
            .iter()
            .rposition(|l| {
                let t = l.trim_start();
                t.starts_with("Error") || t.starts_with("error:") || t.contains("Error: ")
            })
            .unwrap_or(0);
        let message = self.stderr[start..].join("\n").trim().to_owned();
        out.push(Decoded::ProviderError(ProviderError {
            message,
            http_status: None,
            code: None,
            terminal: true,
        }));
    }
}

/// One `tool_call` payload: `{"<kind>ToolCall": {"args": ..., "result":
/// ...}}`, or `{"function": {"name", "arguments"}}`.
#[derive(Debug)]
struct ToolCall<'a> {
    name: String,
    class: ToolClass,
    input: Value,
    body: &'a Map<String, Value>,
}

impl<'a> ToolCall<'a> {
    fn of(call: &'a Map<String, Value>) -> Option<ToolCall<'a>> {
        if let Some(body) = call.get("function").and_then(Value::as_object) {
            let name = str_of(body, "name").unwrap_or("function").to_owned();
            let input = match body.get("arguments") {
                Some(Value::String(s)) => {
                    serde_json::from_str(s).unwrap_or_else(|_| Value::String(s.clone()))
                }
                Some(v) => v.clone(),
                None => Value::Null,
            };
            return Some(ToolCall {
                class: tool_class(&name),
                name,
                input,
                body,
            });
        }
        let (key, body) = call
            .iter()
            .find_map(|(k, v)| Some((k.strip_suffix("ToolCall")?, v.as_object()?)))?;
        let args = body.get("args").cloned().unwrap_or(Value::Null);
        let name = if key == "mcp" {
            mcp_name(&args)
        } else {
            key.to_owned()
        };
        Some(ToolCall {
            class: kind_class(key, &name),
            name,
            input: args,
            body,
        })
    }
}

/// The class of a Cursor tool kind (`shell`, `read`, `edit`, ...): Cursor's
/// own names first, then the names every CLI shares.
fn kind_class(kind: &str, name: &str) -> ToolClass {
    match kind.to_ascii_lowercase().as_str() {
        "shell" | "bash" | "terminal" | "runterminalcommand" => ToolClass::Shell,
        "read" | "ls" | "grep" | "glob" | "semsearch" | "codebasesearch" | "filesearch"
        | "readlints" | "listdir" => ToolClass::Read,
        "edit" | "write" | "delete" | "applypatch" | "multiedit" | "editnotebook"
        | "notebookedit" | "searchreplace" => ToolClass::Write,
        "webfetch" | "websearch" | "fetch" => ToolClass::Web,
        _ => tool_class(name),
    }
}

/// An MCP call's name as `mcp__<server>__<tool>` (reported as
/// `server.tool`), from the call's arguments.
fn mcp_name(args: &Value) -> String {
    let field = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| args.get(*k).and_then(Value::as_str))
            .filter(|s| !s.is_empty())
    };
    let tool = field(&["toolName", "name", "tool"]);
    let server = field(&["providerIdentifier", "serverName", "server"]);
    match (server, tool) {
        (Some(s), Some(t)) => format!("mcp__{s}__{t}"),
        (None, Some(t)) => t.to_owned(),
        _ => "mcp".to_owned(),
    }
}

/// Whether a finished call succeeded, its output, and a shell's exit code.
fn tool_outcome(result: Option<&Value>, class: ToolClass) -> (bool, String, Option<i32>) {
    let Some(result) = result.filter(|r| !r.is_null()) else {
        return (true, String::new(), None);
    };
    let Some(obj) = result.as_object() else {
        return (true, text_of(result), None);
    };
    let failed = ["rejected", "error", "failure", "failed", "denied"]
        .iter()
        .find_map(|k| obj.get(*k));
    let (mut ok, payload) = match (obj.get("success"), failed) {
        (Some(p), _) => (true, p),
        (None, Some(p)) => (false, p),
        (None, None) => (true, result),
    };
    let exit_code = if class == ToolClass::Shell {
        ["exitCode", "exit_code", "code"]
            .iter()
            .find_map(|k| payload.get(*k).and_then(Value::as_i64))
            .and_then(|c| i32::try_from(c).ok())
    } else {
        None
    };
    if exit_code.is_some_and(|c| c != 0) {
        ok = false;
    }
    (ok, text_of(payload), exit_code)
}

/// A tool payload as text: a shell's stdout and stderr, a file's content,
/// an error's message, else the payload as JSON.
fn text_of(v: &Value) -> String {
    let Some(obj) = v.as_object() else {
        return match v {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        };
    };
    let get = |k: &str| obj.get(k).and_then(Value::as_str);
    if get("stdout").is_some() || get("stderr").is_some() {
        let parts: Vec<&str> = [get("stdout"), get("stderr")]
            .into_iter()
            .flatten()
            .filter(|s| !s.is_empty())
            .collect();
        return parts.join("\n");
    }
    ["output", "content", "message", "reason", "error"]
        .iter()
        .find_map(|k| get(k))
        .map_or_else(|| v.to_string(), str::to_owned)
}

/// `{"type": "error", "message": ...}`: not documented for cursor-agent,
/// but the shape other CLIs use; taken as the CLI giving up.
fn error_event(obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
    let message = str_of(obj, "message")
        .or_else(|| str_of(obj, "error"))
        .or_else(|| {
            obj.get("error")
                .and_then(|e| e.get("message"))
                .and_then(Value::as_str)
        });
    let Some(message) = message else {
        return Understood::No;
    };
    out.push(Decoded::ProviderError(ProviderError {
        message: message.to_owned(),
        http_status: None,
        code: None,
        terminal: true,
    }));
    Understood::Quietly
}

/// `result.usage` in the protocol's terms. Cursor writes camelCase
/// (`inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens`,
/// input excluding both cache figures); snake_case is accepted too.
fn usage_of(usage: &Map<String, Value>) -> Usage {
    let n = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| usage.get(*k).and_then(Value::as_u64))
            .unwrap_or(0)
    };
    let cache_read = n(&[
        "cacheReadTokens",
        "cache_read_tokens",
        "cache_read_input_tokens",
    ]);
    let cache_write = n(&[
        "cacheWriteTokens",
        "cache_write_tokens",
        "cache_creation_input_tokens",
    ]);
    let input = n(&["inputTokens", "input_tokens"])
        .saturating_add(cache_read)
        .saturating_add(cache_write);
    let output = n(&["outputTokens", "output_tokens"]);
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_write,
        reasoning_tokens: n(&["reasoningTokens", "reasoning_tokens"]),
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(lines: &[&str]) -> Vec<Decoded> {
        crate::test_support::decode(&mut CursorDecoder::new(), lines)
    }

    #[test]
    fn tool_kinds_name_and_classify_the_call() {
        let cases = [
            (
                r#"{"shellToolCall":{"args":{"command":"ls"}}}"#,
                "shell",
                ToolClass::Shell,
            ),
            (
                r#"{"readToolCall":{"args":{"path":"a"}}}"#,
                "read",
                ToolClass::Read,
            ),
            (
                r#"{"editToolCall":{"args":{"path":"a"}}}"#,
                "edit",
                ToolClass::Write,
            ),
            (
                r#"{"deleteToolCall":{"args":{"path":"a"}}}"#,
                "delete",
                ToolClass::Write,
            ),
            (
                r#"{"webFetchToolCall":{"args":{}}}"#,
                "webFetch",
                ToolClass::Web,
            ),
            (r#"{"todoToolCall":{"args":{}}}"#, "todo", ToolClass::Other),
            (
                r#"{"function":{"name":"run_shell_command","arguments":"{\"command\":\"ls\"}"}}"#,
                "run_shell_command",
                ToolClass::Shell,
            ),
        ];
        for (call, name, class) in cases {
            let v: Map<String, Value> = serde_json::from_str(call).unwrap();
            let t = ToolCall::of(&v).unwrap();
            assert_eq!((t.name.as_str(), t.class), (name, class), "{call}");
        }
        let v: Map<String, Value> = serde_json::from_str(
            r#"{"mcpToolCall":{"args":{"providerIdentifier":"playwright","toolName":"browser_navigate"}}}"#,
        )
        .unwrap();
        let t = ToolCall::of(&v).unwrap();
        assert_eq!(t.name, "mcp__playwright__browser_navigate");
        assert_eq!(t.class, ToolClass::Browser);
    }

    #[test]
    fn shell_outcomes_carry_exit_codes_and_rejections_fail() {
        let ok = serde_json::json!({"success": {"exitCode": 0, "stdout": "hi\n", "stderr": ""}});
        assert_eq!(
            tool_outcome(Some(&ok), ToolClass::Shell),
            (true, "hi\n".to_owned(), Some(0))
        );
        let bad = serde_json::json!({"failure": {"exitCode": 2, "stdout": "", "stderr": "no"}});
        assert_eq!(
            tool_outcome(Some(&bad), ToolClass::Shell),
            (false, "no".to_owned(), Some(2))
        );
        let rejected = serde_json::json!({"rejected": {"reason": "not allowed"}});
        assert_eq!(
            tool_outcome(Some(&rejected), ToolClass::Shell),
            (false, "not allowed".to_owned(), None)
        );
    }

    #[test]
    fn the_answer_is_the_text_after_the_last_tool_call() {
        let out = decode(&[
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Running it."}]},"session_id":"s"}"#,
            r#"{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"true"}}},"session_id":"s"}"#,
            r#"{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"shellToolCall":{"args":{"command":"true"},"result":{"success":{"exitCode":0,"stdout":""}}}},"session_id":"s"}"#,
            r#"{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s"}"#,
            r#"{"type":"result","subtype":"success","is_error":false,"result":"Running it.Done.","session_id":"s"}"#,
        ]);
        let final_ = out.iter().find_map(|d| match d {
            Decoded::Final(f) => Some(f),
            _ => None,
        });
        assert_eq!(final_.unwrap().text.as_deref(), Some("Done."));
    }
}
