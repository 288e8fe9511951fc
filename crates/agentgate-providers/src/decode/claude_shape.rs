//! Records of the shape Claude Code's `stream-json` made common: Claude
//! Code, Qwen Code and cursor-agent print `system/init`, `assistant`
//! messages of content blocks, `user` messages of tool results and a
//! `result` record alike. What differs (error codes, usage, answers that
//! are error reports) stays in each provider's decoder.

use std::collections::HashMap;

use agentgate_protocol::{
    EventBody, SessionEvent, ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent,
};
use serde_json::{Map, Value};

use super::decoder::event;
use super::fields::str_of;
use super::json_lines::Understood;
use super::tools::tool_class;
use crate::decoded::Decoded;

/// `system/init`: the session id (and model) as a `session` event, once.
pub fn session_init(
    obj: &Map<String, Value>,
    session_reported: &mut bool,
    out: &mut Vec<Decoded>,
) -> Understood {
    if str_of(obj, "subtype") != Some("init") {
        return Understood::No;
    }
    let Some(id) = str_of(obj, "session_id").filter(|s| !s.is_empty()) else {
        return Understood::No;
    };
    *session_reported = true;
    out.push(event(EventBody::Session(SessionEvent {
        session_id: id.to_owned(),
        model: str_of(obj, "model").map(str::to_owned),
    })));
    Understood::Yes
}

/// The content blocks of an `assistant` message: `thinking` blocks become
/// `thinking` events, `tool_use` (and `server_tool_use`) blocks `tool_use`
/// events (their names remembered by id, for [`tool_results`]); `text`
/// blocks go to `text`, which knows whether one is an answer or an error
/// report. Returns whether every block was understood.
pub fn content_blocks(
    msg: &Map<String, Value>,
    tool_names: &mut HashMap<String, String>,
    out: &mut Vec<Decoded>,
    mut text: impl FnMut(&str, &mut Vec<Decoded>),
) -> Understood {
    let mut unknown = false;
    let blocks = msg.get("content").and_then(Value::as_array);
    for block in blocks.into_iter().flatten() {
        let Some(block) = block.as_object() else {
            unknown = true;
            continue;
        };
        match str_of(block, "type") {
            Some("text") => text(str_of(block, "text").unwrap_or_default(), out),
            Some("thinking") => {
                let text = str_of(block, "thinking").unwrap_or_default();
                if !text.is_empty() {
                    out.push(event(EventBody::Thinking(ThinkingEvent {
                        text: text.to_owned(),
                    })));
                }
            }
            Some("tool_use" | "server_tool_use") => {
                let (Some(id), Some(name)) = (str_of(block, "id"), str_of(block, "name")) else {
                    unknown = true;
                    continue;
                };
                tool_names.insert(id.to_owned(), name.to_owned());
                out.push(event(EventBody::ToolUse(ToolUseEvent {
                    id: id.to_owned(),
                    name: name.to_owned(),
                    class: tool_class(name),
                    input: block.get("input").cloned().unwrap_or(Value::Null),
                })));
            }
            _ => unknown = true,
        }
    }
    Understood::unless(unknown)
}

/// The common head of a `result` record: the session id (reported as a
/// `session` event the first time), the subtype, whether it is an error,
/// and the answer text.
#[derive(Debug)]
pub struct ResultHead<'a> {
    /// The session id.
    pub session_id: Option<String>,
    /// `success`, `error_max_turns`, `error_during_execution`, ...
    pub subtype: &'a str,
    /// `is_error`, or an `error...` subtype.
    pub is_error: bool,
    /// `result`: the answer, or the error's text.
    pub text: Option<String>,
}

/// Read a `result` record's [`ResultHead`].
pub fn result_head<'a>(
    obj: &'a Map<String, Value>,
    session_reported: &mut bool,
    out: &mut Vec<Decoded>,
) -> ResultHead<'a> {
    let session_id = str_of(obj, "session_id")
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    if let (Some(id), false) = (&session_id, *session_reported) {
        *session_reported = true;
        out.push(event(EventBody::Session(SessionEvent {
            session_id: id.clone(),
            model: None,
        })));
    }
    let subtype = str_of(obj, "subtype").unwrap_or_default();
    let is_error = obj
        .get("is_error")
        .and_then(Value::as_bool)
        .unwrap_or(false)
        || subtype.starts_with("error");
    let text = str_of(obj, "result").map(str::to_owned);
    ResultHead {
        session_id,
        subtype,
        is_error,
        text,
    }
}

/// The `tool_result` blocks of a `user` message, as `tool_result` events;
/// `shell_exit(output, ok)` gives a shell tool's exit code. Anything else
/// in the message (a prompt, a summary as plain text) is not understood.
pub fn tool_results(
    obj: &Map<String, Value>,
    tool_names: &HashMap<String, String>,
    cap: usize,
    out: &mut Vec<Decoded>,
    shell_exit: impl Fn(&str, bool) -> Option<i32>,
) -> Understood {
    let Some(blocks) = obj
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
    else {
        return Understood::No;
    };
    let mut unknown = false;
    for block in blocks {
        let Some(block) = block.as_object() else {
            unknown = true;
            continue;
        };
        let (Some("tool_result"), Some(id)) = (str_of(block, "type"), str_of(block, "tool_use_id"))
        else {
            unknown = true;
            continue;
        };
        let ok = !block
            .get("is_error")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let output = block.get("content").map(content_text).unwrap_or_default();
        let is_shell = tool_names
            .get(id)
            .is_some_and(|name| tool_class(name) == ToolClass::Shell);
        let exit_code = if is_shell {
            shell_exit(&output, ok)
        } else {
            None
        };
        out.push(event(EventBody::ToolResult(ToolResultEvent::new(
            id, ok, &output, cap, exit_code,
        ))));
    }
    Understood::unless(unknown)
}

/// A `tool_result`'s content: a string, or text blocks joined by newlines.
fn content_text(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => {
            let texts: Vec<String> = blocks
                .iter()
                .map(|b| match b.get("text").and_then(Value::as_str) {
                    Some(t) => t.to_owned(),
                    None => match b.get("type").and_then(Value::as_str) {
                        Some(kind) => format!("[{kind}]"),
                        None => b.to_string(),
                    },
                })
                .collect();
            texts.join("\n")
        }
        Value::Null => String::new(),
        other => other.to_string(),
    }
}
