//! `--handoff summary`: what the next agent is told of a failed attempt.

use std::fmt::Write as _;

use agentgate_protocol::{ErrorInfo, EventBody};

/// How many bytes of transcript the summary keeps (its end: the latest
/// work matters most).
const MAX_SUMMARY_BYTES: usize = 16 * 1024;
/// How many bytes of one tool result it keeps.
const MAX_TOOL_OUTPUT: usize = 600;

/// The partial transcript of one step: assistant text, tool calls and
/// their results, in order.
#[derive(Debug, Default)]
pub(super) struct Transcript {
    entries: Vec<String>,
    /// Text deltas not yet closed by a complete message.
    pending: String,
}

impl Transcript {
    pub(super) fn observe(&mut self, body: &EventBody) {
        match body {
            EventBody::TextDelta(d) => self.pending.push_str(&d.text),
            EventBody::Message(m) => {
                // The complete message replaces the deltas that built it.
                self.pending.clear();
                if !m.text.trim().is_empty() {
                    self.entries.push(format!("assistant: {}", m.text.trim()));
                }
            }
            EventBody::ToolUse(t) => {
                self.flush();
                let input = serde_json::to_string(&t.input).unwrap_or_default();
                self.entries.push(format!(
                    "tool call {}: {}",
                    t.name,
                    cut(&input, MAX_TOOL_OUTPUT)
                ));
            }
            EventBody::ToolResult(r) => {
                self.flush();
                let status = if r.ok { "ok" } else { "failed" };
                self.entries.push(format!(
                    "tool result ({status}): {}",
                    cut(r.output.trim(), MAX_TOOL_OUTPUT)
                ));
            }
            _ => {}
        }
    }

    fn flush(&mut self) {
        let text = std::mem::take(&mut self.pending);
        if !text.trim().is_empty() {
            self.entries.push(format!("assistant: {}", text.trim()));
        }
    }

    /// The text put before the next agent's task.
    pub(super) fn summary(mut self, label: &str, error: &ErrorInfo) -> String {
        self.flush();
        let mut out = format!(
            "A previous agent ({label}) started this task and stopped with an error ({}: {}).",
            error.kind, error.message
        );
        if self.entries.is_empty() {
            out.push_str(" It produced no output before it stopped.");
            out.push_str("\nDo the task below from the start.");
            return out;
        }
        let mut body = String::new();
        for e in &self.entries {
            let _ = writeln!(body, "- {e}");
        }
        let body = if body.len() > MAX_SUMMARY_BYTES {
            let start = ceil_boundary(&body, body.len() - MAX_SUMMARY_BYTES);
            format!("[... earlier transcript omitted ...]\n{}", &body[start..])
        } else {
            body
        };
        let _ = write!(
            out,
            " Its partial transcript follows; files it changed may still be in the workspace.\n\
             <previous-attempt>\n{body}</previous-attempt>\n\
             Continue the task below; do not redo finished steps without checking them."
        );
        out
    }
}

fn cut(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_owned();
    }
    let end = floor_boundary(s, max);
    format!("{} [... {} more bytes]", &s[..end], s.len() - end)
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    while i > 0 && !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::{
        ErrorKind, ErrorSource, MessageEvent, TextDeltaEvent, ToolClass, ToolResultEvent,
        ToolUseEvent,
    };

    use super::*;

    #[test]
    fn the_summary_holds_messages_tools_and_the_error() {
        let mut t = Transcript::default();
        t.observe(&EventBody::TextDelta(TextDeltaEvent {
            text: "Looking at ".into(),
        }));
        t.observe(&EventBody::TextDelta(TextDeltaEvent {
            text: "the tests".into(),
        }));
        t.observe(&EventBody::ToolUse(ToolUseEvent {
            id: "1".into(),
            name: "shell".into(),
            class: ToolClass::Shell,
            input: serde_json::json!({"command": "cargo test"}),
        }));
        t.observe(&EventBody::ToolResult(ToolResultEvent {
            id: "1".into(),
            ok: false,
            output: "é".repeat(1000),
            truncated: false,
            original_bytes: None,
            exit_code: Some(1),
        }));
        t.observe(&EventBody::Message(MessageEvent {
            text: "Two tests fail.".into(),
        }));
        let e = ErrorInfo::new(ErrorKind::RateLimit, ErrorSource::Pattern, "429 slow down");
        let s = t.summary("claude", &e);
        assert!(s.contains("(claude)"), "{s}");
        assert!(s.contains("rate_limit: 429 slow down"), "{s}");
        assert!(s.contains("- assistant: Looking at the tests\n"), "{s}");
        assert!(
            s.contains(r#"- tool call shell: {"command":"cargo test"}"#),
            "{s}"
        );
        assert!(s.contains("- tool result (failed): éé"), "{s}");
        assert!(s.contains("more bytes]"), "{s}");
        assert!(s.contains("- assistant: Two tests fail.\n"), "{s}");
    }

    #[test]
    fn an_empty_attempt_says_so_and_long_ones_keep_their_end() {
        let e = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Pattern, "limit");
        let s = Transcript::default().summary("codex", &e);
        assert!(s.contains("no output"), "{s}");
        let mut t = Transcript::default();
        for i in 0..2000 {
            t.observe(&EventBody::Message(MessageEvent {
                text: format!("message number {i}"),
            }));
        }
        let s = t.summary("codex", &e);
        assert!(s.contains("earlier transcript omitted"), "{s}");
        assert!(s.contains("message number 1999"), "{s}");
        assert!(!s.contains("message number 0\n"), "{s}");
        assert!(s.len() < MAX_SUMMARY_BYTES + 1024);
    }
}
