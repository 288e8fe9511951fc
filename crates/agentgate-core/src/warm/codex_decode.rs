//! Decoding `codex app-server` notifications: each is translated into the
//! `codex exec --json` record that says the same thing and handed to
//! [`CodexDecoder`], so a warm turn and a cold run of Codex produce the
//! same events. Two things differ:
//!
//! - usage comes in `thread/tokenUsage/updated`, once per model request,
//!   with `last` (that request) and `total` (the thread's); the turn's
//!   figures are the sum of `last`, skipping an update whose `total` did
//!   not change (Codex repeats the last update on resume and on
//!   interrupt);
//! - `turn/completed` carries the turn's status: `completed` is the final
//!   record, `failed` a terminal provider error with its message,
//!   `interrupted` a terminal error saying so.

use agentgate_protocol::{EventBody, Usage, UsageEvent, UsageScope};
use serde_json::{Map, Value, json};

use agentgate_providers::codex::CodexDecoder;
use agentgate_providers::decode::{Decoded, JsonLinesDecoder, Understood, event};

/// Decodes a warm Codex's notifications (see the module notes).
#[derive(Debug, Default)]
pub struct CodexAppServerDecoder {
    inner: CodexDecoder,
    /// The thread's `totalTokens` at the last usage update seen.
    last_total: Option<u64>,
}

impl CodexAppServerDecoder {
    /// A decoder for one warm process.
    pub fn new() -> Self {
        Self::default()
    }
}

/// `agentMessage` → `agent_message`.
fn snake(kind: &str) -> String {
    let mut out = String::with_capacity(kind.len() + 4);
    for c in kind.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// An app-server item as the exec record's item.
fn exec_item(item: &Map<String, Value>) -> Value {
    let mut out = Map::new();
    for (k, v) in item {
        let key = snake(k);
        let value = if key == "type" {
            json!(snake(v.as_str().unwrap_or_default()))
        } else {
            v.clone()
        };
        out.insert(key, value);
    }
    // A reasoning item's text is its summary.
    if out.get("type").and_then(Value::as_str) == Some("reasoning")
        && let Some(summary) = item.get("summary").and_then(Value::as_array)
    {
        let text: Vec<&str> = summary.iter().filter_map(Value::as_str).collect();
        out.insert("text".into(), json!(text.join("\n")));
    }
    Value::Object(out)
}

fn usage_of(u: &Value) -> Usage {
    let n = |k: &str| u.get(k).and_then(Value::as_u64).unwrap_or(0);
    let input = n("inputTokens");
    let output = n("outputTokens");
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: n("cachedInputTokens"),
        cache_creation_input_tokens: n("cacheWriteInputTokens"),
        reasoning_tokens: n("reasoningOutputTokens"),
        total_tokens: input.saturating_add(output),
        ..Usage::default()
    }
}

impl JsonLinesDecoder for CodexAppServerDecoder {
    fn object(&mut self, obj: &Map<String, Value>, out: &mut Vec<Decoded>) -> Understood {
        let Some(method) = obj.get("method").and_then(Value::as_str) else {
            return Understood::No;
        };
        let params = obj.get("params").unwrap_or(&Value::Null);
        let exec = match method {
            "thread/started" => json!({"type": "thread.started",
                "thread_id": params.pointer("/thread/id")}),
            "turn/started" => {
                // Resets the turn's answer; nothing to show.
                if let Value::Object(record) = json!({"type": "turn.started"}) {
                    self.inner.object(&record, out);
                }
                return Understood::Quietly;
            }
            "item/started" | "item/completed" => {
                let Some(item) = params.get("item").and_then(Value::as_object) else {
                    return Understood::No;
                };
                let kind = if method == "item/started" {
                    "item.started"
                } else {
                    "item.completed"
                };
                json!({"type": kind, "item": exec_item(item)})
            }
            "error" => {
                let message = params
                    .pointer("/error/message")
                    .and_then(Value::as_str)
                    .unwrap_or("an error");
                json!({"type": "error", "message": message})
            }
            "thread/tokenUsage/updated" => {
                let total = params
                    .pointer("/tokenUsage/total/totalTokens")
                    .and_then(Value::as_u64);
                if total.is_some() && total != self.last_total {
                    self.last_total = total;
                    if let Some(last) = params.pointer("/tokenUsage/last") {
                        out.push(event(EventBody::Usage(UsageEvent {
                            scope: UsageScope::Turn,
                            usage: usage_of(last),
                        })));
                    }
                }
                return Understood::Quietly;
            }
            "turn/completed" => match params.pointer("/turn/status").and_then(Value::as_str) {
                Some("completed") => json!({"type": "turn.completed"}),
                Some("interrupted") => json!({"type": "turn.failed",
                    "error": {"message": "the turn was interrupted"}}),
                _ => json!({"type": "turn.failed", "error": {"message":
                    params.pointer("/turn/error/message").and_then(Value::as_str)
                        .unwrap_or("the turn failed")}}),
            },
            // Deltas are shown by the completed items; the rest is
            // bookkeeping.
            _ => return Understood::Quietly,
        };
        match exec {
            Value::Object(record) => self.inner.object(&record, out),
            _ => Understood::No,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_providers::decode::Decoder;

    fn decode(lines: &[&str]) -> Vec<Decoded> {
        let mut d = CodexAppServerDecoder::new();
        let mut out = Vec::new();
        for l in lines {
            d.stdout_line(l.as_bytes(), &mut out);
        }
        out
    }

    const USAGE_1: &str = r#"{"method":"thread/tokenUsage/updated","params":{"threadId":"t","turnId":"u","tokenUsage":{"total":{"totalTokens":110,"inputTokens":100,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0},"last":{"totalTokens":110,"inputTokens":100,"cachedInputTokens":0,"cacheWriteInputTokens":0,"outputTokens":10,"reasoningOutputTokens":0}}}}"#;
    const USAGE_2: &str = r#"{"method":"thread/tokenUsage/updated","params":{"threadId":"t","turnId":"v","tokenUsage":{"total":{"totalTokens":385,"inputTokens":350,"cachedInputTokens":50,"cacheWriteInputTokens":0,"outputTokens":35,"reasoningOutputTokens":5},"last":{"totalTokens":275,"inputTokens":250,"cachedInputTokens":50,"cacheWriteInputTokens":0,"outputTokens":25,"reasoningOutputTokens":5}}}}"#;

    #[test]
    fn a_turn_decodes_as_a_cold_runs_would() {
        let out = decode(&[
            r#"{"method":"thread/started","params":{"thread":{"id":"01a212da"}},"emittedAtMs":1}"#,
            r#"{"method":"turn/started","params":{"turn":{"id":"u"}}}"#,
            r#"{"method":"item/agentMessage/delta","params":{"delta":"reply"}}"#,
            r#"{"method":"item/completed","params":{"item":{"type":"agentMessage","id":"msg_1","text":"reply-one"}}}"#,
            r#"{"method":"item/completed","params":{"item":{"type":"commandExecution","id":"call_1","command":"/bin/bash -lc 'cat a'","status":"completed","aggregatedOutput":"hello\n","exitCode":0}}}"#,
            USAGE_1,
            r#"{"method":"turn/completed","params":{"turn":{"id":"u","status":"completed","error":null}}}"#,
        ]);
        let texts = crate::warm::labels(&out);
        assert_eq!(
            texts,
            [
                "session",
                "message",
                "tool_use",
                "tool_result",
                "usage",
                "final:reply-one"
            ]
        );
        let tool = out.iter().find_map(|d| match d {
            Decoded::Event(EventBody::ToolResult(r)) => Some(r.clone()),
            _ => None,
        });
        assert_eq!(tool.map(|t| t.output), Some("hello\n".to_owned()));
    }

    #[test]
    fn usage_is_each_requests_last_and_a_repeated_total_is_skipped() {
        let out = decode(&[USAGE_1, USAGE_2, USAGE_2]);
        let usages: Vec<Usage> = out
            .iter()
            .filter_map(|d| match d {
                Decoded::Event(EventBody::Usage(u)) => Some(u.usage.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(usages.len(), 2, "the repeat is skipped: {usages:?}");
        assert_eq!(usages[1].input_tokens, 250);
        assert_eq!(usages[1].cache_read_input_tokens, 50);
        assert_eq!(usages[1].reasoning_tokens, 5);
        assert_eq!(usages[1].output_tokens, 25);
    }

    #[test]
    fn a_failed_or_interrupted_turn_is_a_terminal_error() {
        for (line, says) in [
            (
                r#"{"method":"turn/completed","params":{"turn":{"status":"failed","error":{"message":"exceeded retry limit, last status: 500 Internal Server Error"}}}}"#,
                "500",
            ),
            (
                r#"{"method":"turn/completed","params":{"turn":{"status":"interrupted","error":null}}}"#,
                "interrupted",
            ),
        ] {
            let out = decode(&[line]);
            match out.as_slice() {
                [Decoded::ProviderError(e)] => {
                    assert!(e.terminal);
                    assert!(e.message.contains(says), "{}", e.message);
                }
                other => panic!("{other:?}"),
            }
        }
    }
}
