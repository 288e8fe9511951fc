//! Decoding an ACP agent's turn (Gemini CLI, Qwen Code, opencode): `session/update`
//! notifications and the `session/prompt` response, as the events a cold
//! run of the same CLI gives.
//!
//! | message | decoded as |
//! |---|---|
//! | `agent_message_chunk` text | `text_delta` (the answer is their concatenation); Gemini's `[MODE_UPDATE] ...` chunk is dropped |
//! | `agent_thought_chunk` text | `thinking` |
//! | `tool_call` | `tool_use` (id `toolCallId`, name from `_meta.toolName`, else the title; class from `kind`) |
//! | `tool_call_update` completed / failed | `tool_result` (a call first seen here gets its `tool_use` too) |
//! | a chunk's `_meta.usage` (Qwen, once per model call) | `usage`, per turn |
//! | response `stopReason: end_turn` | the final record; opencode's `usage` (see `opencode_usage`), else Gemini's `_meta.quota.token_count`, as the turn's total usage |
//! | response `stopReason` cancelled, max_tokens, max_turn_requests, refusal | a terminal provider error naming it |
//! | error response | a terminal provider error (its code as the HTTP status when it is one) |
//!
//! An update for a tool call that agentgate refused never comes (the
//! agents report nothing for it): the `approval_decision` event says it.

use std::collections::HashSet;

use agentgate_protocol::{
    EventBody, MessageEvent, TextDeltaEvent, ThinkingEvent, ToolResultEvent, ToolUseEvent, Usage,
    UsageEvent, UsageScope,
};
use serde_json::{Map, Value};

use crate::approvals::class_of_acp_kind;
use agentgate_providers::decode::tools::TOOL_OUTPUT_CAP;
use agentgate_providers::decode::{
    Decoded, JsonLinesDecoder, ProviderError, ProviderFinal, Understood, event,
};

/// Decodes one ACP session's turns (see the module notes).
#[derive(Debug, Default)]
pub struct AcpDecoder {
    session_id: Option<String>,
    /// The response's `usage` is the turn's (opencode).
    response_usage: bool,
    answer: String,
    started: HashSet<String>,
}

impl AcpDecoder {
    /// A decoder for the session `session_id`.
    pub fn new(session_id: Option<String>) -> Self {
        AcpDecoder {
            session_id,
            ..AcpDecoder::default()
        }
    }

    /// opencode's: the `session/prompt` response's `usage` is the turn's.
    pub fn opencode(session_id: Option<String>) -> Self {
        AcpDecoder {
            response_usage: true,
            ..AcpDecoder::new(session_id)
        }
    }

    fn tool_use(&mut self, u: &Value, out: &mut Vec<Decoded>) {
        let Some(id) = u.get("toolCallId").and_then(Value::as_str) else {
            return;
        };
        if !self.started.insert(id.to_owned()) {
            return;
        }
        let name = u
            .pointer("/_meta/toolName")
            .and_then(Value::as_str)
            .or_else(|| id.split_once("__").map(|(n, _)| n))
            .or_else(|| u.get("title").and_then(Value::as_str))
            .unwrap_or("tool")
            .to_owned();
        let kind = u.get("kind").and_then(Value::as_str);
        out.push(event(EventBody::ToolUse(ToolUseEvent {
            id: id.to_owned(),
            class: class_of_acp_kind(kind, &name),
            name,
            input: u.get("rawInput").cloned().unwrap_or(Value::Null),
        })));
    }

    fn update(&mut self, u: &Value, out: &mut Vec<Decoded>) -> Understood {
        let text = u.pointer("/content/text").and_then(Value::as_str);
        match u.get("sessionUpdate").and_then(Value::as_str) {
            Some("agent_message_chunk") => {
                if let Some(usage) = u.pointer("/_meta/usage") {
                    out.push(event(EventBody::Usage(UsageEvent {
                        scope: UsageScope::Turn,
                        usage: qwen_usage(usage),
                    })));
                }
                match text {
                    Some(t) if !t.is_empty() && !t.starts_with("[MODE_UPDATE]") => {
                        self.answer.push_str(t);
                        out.push(event(EventBody::TextDelta(TextDeltaEvent {
                            text: t.to_owned(),
                        })));
                    }
                    _ => {}
                }
                Understood::Quietly
            }
            Some("agent_thought_chunk") => {
                if let Some(t) = text.filter(|t| !t.is_empty()) {
                    out.push(event(EventBody::Thinking(ThinkingEvent {
                        text: t.to_owned(),
                    })));
                }
                Understood::Quietly
            }
            Some("tool_call") => {
                self.tool_use(u, out);
                Understood::Yes
            }
            Some("tool_call_update") => {
                let status = u.get("status").and_then(Value::as_str);
                if matches!(status, Some("completed" | "failed")) {
                    self.tool_use(u, out);
                    let output = tool_output(u);
                    if let Some(id) = u.get("toolCallId").and_then(Value::as_str) {
                        out.push(event(EventBody::ToolResult(ToolResultEvent::new(
                            id,
                            status == Some("completed"),
                            &output,
                            TOOL_OUTPUT_CAP,
                            None,
                        ))));
                    }
                }
                Understood::Quietly
            }
            _ => Understood::Quietly,
        }
    }

    fn response(&mut self, msg: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        if let Some(error) = msg.get("error") {
            let code = error.get("code").and_then(Value::as_i64);
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("the agent failed the turn")
                .to_owned();
            out.push(Decoded::ProviderError(ProviderError {
                http_status: code
                    .filter(|c| (100..600).contains(c))
                    .and_then(|c| u16::try_from(c).ok()),
                message,
                code: None,
                terminal: true,
            }));
            return Understood::Yes;
        }
        let Some(result) = msg.get("result") else {
            return Understood::No;
        };
        if let Some(usage) = result
            .get("usage")
            .filter(|u| self.response_usage && u.is_object())
        {
            out.push(event(EventBody::Usage(UsageEvent {
                scope: UsageScope::Total,
                usage: opencode_usage(usage),
            })));
        } else if let Some(t) = result.pointer("/_meta/quota/token_count") {
            let n = |k: &str| t.get(k).and_then(Value::as_u64).unwrap_or(0);
            let (input, output) = (n("input_tokens"), n("output_tokens"));
            out.push(event(EventBody::Usage(UsageEvent {
                scope: UsageScope::Total,
                usage: Usage {
                    input_tokens: input,
                    output_tokens: output,
                    total_tokens: input.saturating_add(output),
                    ..Usage::default()
                },
            })));
        }
        let answer = std::mem::take(&mut self.answer);
        match result.get("stopReason").and_then(Value::as_str) {
            Some("end_turn") | None => {
                out.push(event(EventBody::Message(MessageEvent {
                    text: answer.clone(),
                })));
                out.push(Decoded::Final(ProviderFinal {
                    text: Some(answer),
                    session_id: self.session_id.clone(),
                    ..ProviderFinal::default()
                }));
            }
            Some(reason) => out.push(Decoded::ProviderError(ProviderError {
                message: format!("the turn ended: {reason}"),
                http_status: None,
                code: Some(reason.to_owned()),
                terminal: true,
            })),
        }
        Understood::Yes
    }
}

/// opencode's turn usage (the `session/prompt` response's `usage`): its
/// `inputTokens` leave out the cache's reads and writes and its
/// `outputTokens` the reasoning (`thoughtTokens`); agentgate's figures
/// include them (`totalTokens` is the sum of all five).
fn opencode_usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let (read, write, thought) = (
        n("cachedReadTokens"),
        n("cachedWriteTokens"),
        n("thoughtTokens"),
    );
    let input = n("inputTokens").saturating_add(read).saturating_add(write);
    let output = n("outputTokens").saturating_add(thought);
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: write,
        reasoning_tokens: thought,
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

/// Qwen's usage of one model call (a chunk's `_meta.usage`).
fn qwen_usage(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let (input, output) = (n("inputTokens"), n("outputTokens"));
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: n("cachedReadTokens"),
        reasoning_tokens: n("thoughtTokens"),
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

/// A tool call update's output: its `rawOutput` text, else its content's
/// text blocks.
fn tool_output(u: &Value) -> String {
    if let Some(text) = u.get("rawOutput").and_then(Value::as_str) {
        return text.to_owned();
    }
    let blocks = u.get("content").and_then(Value::as_array);
    let texts: Vec<&str> = blocks
        .into_iter()
        .flatten()
        .filter_map(|b| b.pointer("/content/text").and_then(Value::as_str))
        .collect();
    texts.join("\n")
}

impl JsonLinesDecoder for AcpDecoder {
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        match obj.get("method").and_then(Value::as_str) {
            Some("session/update") => match obj.get("params").and_then(|p| p.get("update")) {
                Some(u) => self.update(u, out),
                None => Understood::No,
            },
            Some(_) => Understood::No,
            None => self.response(obj, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_providers::decode::Decoder;

    fn decode(lines: &[&str]) -> Vec<Decoded> {
        let mut d = AcpDecoder::new(Some("s1".into()));
        let mut out = Vec::new();
        for l in lines {
            d.stdout_line(l.as_bytes(), &mut out);
        }
        out
    }

    fn update(u: &str) -> String {
        format!(
            r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s1","update":{u}}}}}"#
        )
    }

    #[test]
    fn a_gemini_turn_gives_deltas_a_tool_and_the_final_with_its_usage() {
        let lines = [
            update(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"[MODE_UPDATE] default"}}"#),
            update(r#"{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"****\nPlan: answer briefly."}}"#),
            update(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"Hello "}}"#),
            update(r#"{"sessionUpdate":"tool_call","toolCallId":"run_shell_command__call_2","status":"in_progress","title":"echo hi","content":[],"locations":[],"kind":"execute"}"#),
            update(r#"{"sessionUpdate":"tool_call_update","toolCallId":"run_shell_command__call_2","status":"completed","title":"echo hi","content":[],"locations":[],"kind":"execute"}"#),
            update(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"world."}}"#),
            r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","_meta":{"quota":{"token_count":{"input_tokens":500,"output_tokens":20}}}}}"#.to_owned(),
        ];
        let refs: Vec<&str> = lines.iter().map(String::as_str).collect();
        let out = decode(&refs);
        let kinds = crate::warm::labels(&out);
        assert_eq!(
            kinds,
            [
                "thinking",
                "text_delta",
                "tool_use",
                "tool_result",
                "text_delta",
                "usage",
                "message",
                "final:Hello world."
            ]
        );
        let tool = out.iter().find_map(|d| match d {
            Decoded::Event(EventBody::ToolUse(t)) => Some(t.clone()),
            _ => None,
        });
        let tool = tool.unwrap();
        assert_eq!(tool.name, "run_shell_command");
        assert_eq!(tool.class, agentgate_protocol::ToolClass::Shell);
    }

    #[test]
    fn qwen_usage_comes_per_model_call_in_empty_chunks() {
        let line = update(
            r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":""},"_meta":{"usage":{"inputTokens":100,"outputTokens":7,"totalTokens":107,"thoughtTokens":3,"cachedReadTokens":20}}}"#,
        );
        let out = decode(&[&line]);
        match out.as_slice() {
            [Decoded::Event(EventBody::Usage(u))] => {
                assert_eq!(u.scope, UsageScope::Turn);
                assert_eq!(u.usage.input_tokens, 100);
                assert_eq!(u.usage.cache_read_input_tokens, 20);
                assert_eq!(u.usage.reasoning_tokens, 3);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn opencodes_response_usage_is_the_turns_with_cache_and_reasoning_counted_in() {
        // As opencode 1.18.33 printed it: input 100 besides 40 cache reads
        // and 5 writes, output 10 besides 3 of reasoning.
        let done = r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn","usage":{"inputTokens":100,"outputTokens":10,"totalTokens":158,"thoughtTokens":3,"cachedReadTokens":40,"cachedWriteTokens":5},"_meta":{}}}"#;
        let mut d = AcpDecoder::opencode(Some("ses_1".into()));
        let mut out = Vec::new();
        d.stdout_line(done.as_bytes(), &mut out);
        let usage = out.iter().find_map(|x| match x {
            Decoded::Event(EventBody::Usage(u)) => Some(u.clone()),
            _ => None,
        });
        let u = usage.unwrap_or_else(|| panic!("no usage: {out:?}"));
        assert_eq!(u.scope, UsageScope::Total);
        assert_eq!(
            (
                u.usage.input_tokens,
                u.usage.output_tokens,
                u.usage.total_tokens
            ),
            (145, 13, 158)
        );
        assert_eq!(u.usage.cache_read_input_tokens, 40);
        assert_eq!(u.usage.cache_creation_input_tokens, 5);
        assert_eq!(u.usage.reasoning_tokens, 3);
        // Another agent's response usage is not read as the turn's.
        let out = decode(&[done]);
        assert!(
            !out.iter()
                .any(|x| matches!(x, Decoded::Event(EventBody::Usage(_)))),
            "{out:?}"
        );
    }

    #[test]
    fn errors_and_stops_end_the_turn_as_errors() {
        let out = decode(&[
            r#"{"jsonrpc":"2.0","id":3,"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota)."}}"#,
            r#"{"jsonrpc":"2.0","id":4,"result":{"stopReason":"cancelled"}}"#,
        ]);
        match out.as_slice() {
            [Decoded::ProviderError(a), Decoded::ProviderError(b)] => {
                assert_eq!(a.http_status, Some(429));
                assert!(a.terminal && b.terminal);
                assert_eq!(b.code.as_deref(), Some("cancelled"));
            }
            other => panic!("{other:?}"),
        }
    }
}
