//! The decoder of config-described providers: reads the output through the
//! JSON pointers and selectors of the provider's [`OutputSpec`].
//!
//! | output | decoded as |
//! |---|---|
//! | text, each line | `text_delta`; at the end, the whole stdout (trailing whitespace trimmed) as one `message` and, when not blank, the final record |
//! | json, the document (read at the end) | `session`, provider error when it is an error, the final record |
//! | jsonl, the `final` line | provider error when it is an error, the final record |
//! | jsonl, an `error.match` line | provider error (terminal unless `terminal: false`) |
//! | jsonl, a `message` line | `message`; without `final`, the end of a stream that had one is the final record |
//! | jsonl, a `usage.match` line | `usage` scope turn |
//! | jsonl, a `tool_use.match` line | `tool_use`, classed by its name |
//! | jsonl, a `tool_result.match` line | `tool_result` |
//! | jsonl, the first line with a `session_id` | `session` (and whatever else the line is) |
//! | anything else | `raw` |
//!
//! A json document that does not parse is tried as its last non-empty
//! line (a CLI that prints a banner first); failing that, its lines are
//! kept as `raw`.
//!
//! Every format ends with a final record when the CLI answered, and
//! without one when it did not (blank text, no document, no `final` line,
//! no `message` line): the classifier fails such a run
//! (`fallback.no_final_record`, see `CustomProvider::final_record`).

use std::sync::Arc;

use agentgate_protocol::{
    EventBody, MessageEvent, RawStream, SessionEvent, TextDeltaEvent, ToolResultEvent,
    ToolUseEvent, Usage, UsageEvent, UsageScope,
};
use serde_json::Value;

use super::spec::{OutputFormat, OutputSpec, UsageSpec};
use crate::decode::tools::{TOOL_OUTPUT_CAP, tool_class};
use crate::decode::{Decoded, Decoder, ProviderError, ProviderFinal, Understood, json_value_line};

/// Decodes a config-described provider's output.
#[derive(Debug, Clone)]
pub struct CustomDecoder {
    spec: Arc<OutputSpec>,
    /// text: the answer so far; json: the document so far.
    text: String,
    /// json: the lines, to keep as raw when the document does not parse.
    lines: Vec<Vec<u8>>,
    lines_seen: usize,
    /// Tool calls seen, to number those without an id.
    tool_calls: usize,
    /// jsonl: an assistant `message` line was seen.
    messages_seen: bool,
    /// The first session id found (reported once as a `session` event).
    session_id: Option<String>,
}

impl CustomDecoder {
    /// A decoder for one invocation.
    pub fn new(spec: Arc<OutputSpec>) -> Self {
        CustomDecoder {
            spec,
            text: String::new(),
            lines: Vec::new(),
            lines_seen: 0,
            tool_calls: 0,
            messages_seen: false,
            session_id: None,
        }
    }

    fn text_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        let line = String::from_utf8_lossy(line);
        let piece = if self.lines_seen == 0 {
            line.into_owned()
        } else {
            format!("\n{line}")
        };
        self.lines_seen += 1;
        self.text.push_str(&piece);
        if !piece.is_empty() {
            out.push(Decoded::Event(EventBody::TextDelta(TextDeltaEvent {
                text: piece,
            })));
        }
    }

    fn jsonl_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        if line.iter().all(u8::is_ascii_whitespace) {
            return;
        }
        json_value_line(line, out, |record, out| self.record(record, out));
    }

    /// One jsonl record: understood when the spec uses it for something.
    fn record(&mut self, record: &Value, out: &mut Vec<Decoded>) -> Understood {
        self.session(record, out);
        let spec = self.spec.clone();
        let is_final = spec
            .final_record
            .as_ref()
            .is_some_and(|s| s.matches(record));
        let error_line = !is_final
            && spec
                .error
                .as_ref()
                .and_then(|e| e.matches.as_ref())
                .is_some_and(|s| s.matches(record));
        let mut used = is_final || error_line;
        if is_final {
            self.final_record(record, out);
        } else if error_line {
            let mut e = self.error_of(record, None);
            e.terminal = spec.error.as_ref().is_none_or(|e| e.terminal);
            out.push(Decoded::ProviderError(e));
        }
        if !is_final
            && let Some(m) = &spec.message
            && m.matches.as_ref().is_none_or(|s| s.matches(record))
            && let Some(text) = m.text.text(record).filter(|t| !t.is_empty())
        {
            used = true;
            self.messages_seen = true;
            out.push(Decoded::Event(EventBody::Message(MessageEvent { text })));
        }
        if let Some(t) = &spec.tool_use
            && t.matches.matches(record)
            && let Some(name) = t.name.text(record)
        {
            used = true;
            self.tool_calls += 1;
            let id =
                t.id.as_ref()
                    .and_then(|p| p.text(record))
                    .unwrap_or_else(|| format!("tool-{}", self.tool_calls));
            out.push(Decoded::Event(EventBody::ToolUse(ToolUseEvent {
                id,
                class: tool_class(&name),
                name,
                input: t
                    .input
                    .as_ref()
                    .and_then(|p| p.first(record))
                    .cloned()
                    .unwrap_or(Value::Null),
            })));
        }
        if let Some(t) = &spec.tool_result
            && t.matches.matches(record)
            && let Some(id) = t.id.text(record)
        {
            used = true;
            let output = t
                .output
                .as_ref()
                .and_then(|p| p.text(record))
                .unwrap_or_default();
            let failed = t.is_error.as_ref().is_some_and(|c| c.holds(record));
            let exit_code = t
                .exit_code
                .as_ref()
                .and_then(|p| p.first(record))
                .and_then(Value::as_i64)
                .and_then(|c| i32::try_from(c).ok());
            out.push(Decoded::Event(EventBody::ToolResult(ToolResultEvent::new(
                id,
                !failed,
                &output,
                TOOL_OUTPUT_CAP,
                exit_code,
            ))));
        }
        if let Some(u) = &spec.usage
            && u.matches.as_ref().is_some_and(|s| s.matches(record))
        {
            used = true;
            if let Some(usage) = usage_of(u, record) {
                out.push(Decoded::Event(EventBody::Usage(UsageEvent {
                    scope: UsageScope::Turn,
                    usage,
                })));
            }
        }
        if used {
            Understood::Quietly
        } else {
            Understood::No
        }
    }

    /// A `session` event for the first session id found.
    fn session(&mut self, record: &Value, out: &mut Vec<Decoded>) -> Option<String> {
        let id = self
            .spec
            .session_id
            .as_ref()
            .and_then(|p| p.text(record))
            .filter(|id| !id.is_empty())?;
        if self.session_id.is_none() {
            self.session_id = Some(id.clone());
            out.push(Decoded::Event(EventBody::Session(SessionEvent {
                session_id: id.clone(),
                model: None,
            })));
        }
        Some(id)
    }

    /// The final record: a provider error first when it reports one.
    fn final_record(&mut self, record: &Value, out: &mut Vec<Decoded>) {
        let spec = self.spec.clone();
        let session_id = self.session(record, out);
        let text = spec.text.as_ref().and_then(|p| p.text(record));
        let is_error = spec.error.as_ref().is_some_and(|e| match &e.is_error {
            Some(c) => c.holds(record),
            None => [&e.message, &e.status, &e.code]
                .into_iter()
                .flatten()
                .any(|p| p.first(record).is_some()),
        });
        if is_error {
            out.push(Decoded::ProviderError(
                self.error_of(record, text.as_deref()),
            ));
        }
        let usage = spec
            .usage
            .as_ref()
            .filter(|u| u.matches.is_none())
            .and_then(|u| usage_of(u, record));
        out.push(Decoded::Final(ProviderFinal {
            text,
            session_id,
            is_error,
            usage,
            num_turns: None,
        }));
    }

    fn error_of(&self, record: &Value, fallback: Option<&str>) -> ProviderError {
        let e = self.spec.error.as_ref();
        let message = e
            .and_then(|e| e.message.as_ref())
            .and_then(|p| p.text(record))
            .filter(|m| !m.trim().is_empty())
            .or_else(|| fallback.filter(|t| !t.trim().is_empty()).map(str::to_owned))
            .unwrap_or_else(|| record.to_string());
        ProviderError {
            message,
            http_status: e
                .and_then(|e| e.status.as_ref())
                .and_then(|p| p.status(record)),
            code: e.and_then(|e| e.code.as_ref()).and_then(|p| p.text(record)),
            terminal: true,
        }
    }

    fn finish_json(&mut self, out: &mut Vec<Decoded>) {
        let lines = std::mem::take(&mut self.lines);
        let text = std::mem::take(&mut self.text);
        if text.trim().is_empty() {
            return;
        }
        if let Ok(doc) = serde_json::from_str::<Value>(&text) {
            self.final_record(&doc, out);
            return;
        }
        let last = lines
            .iter()
            .rposition(|l| !l.iter().all(u8::is_ascii_whitespace));
        if let Some(i) = last
            && let Ok(doc) = serde_json::from_slice::<Value>(&lines[i])
        {
            out.extend(lines[..i].iter().map(|l| raw(l)));
            self.final_record(&doc, out);
            return;
        }
        out.extend(lines.iter().map(|l| raw(l)));
    }
}

impl Decoder for CustomDecoder {
    fn stdout_line(&mut self, line: &[u8], out: &mut Vec<Decoded>) {
        match self.spec.format {
            OutputFormat::Text => self.text_line(line, out),
            OutputFormat::Json => {
                if !self.lines.is_empty() {
                    self.text.push('\n');
                }
                self.text.push_str(&String::from_utf8_lossy(line));
                self.lines.push(line.to_vec());
            }
            OutputFormat::Jsonl => self.jsonl_line(line, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<Decoded>) {
        match self.spec.format {
            OutputFormat::Text => {
                let text = self.text.trim_end();
                if !text.is_empty() {
                    out.push(Decoded::Event(EventBody::Message(MessageEvent {
                        text: text.to_owned(),
                    })));
                    // Plain text has no closing record: the answer is one.
                    out.push(Decoded::Final(ProviderFinal {
                        text: Some(text.to_owned()),
                        ..ProviderFinal::default()
                    }));
                }
            }
            OutputFormat::Json => self.finish_json(out),
            // Without a `final` line, the answer is the last message line.
            OutputFormat::Jsonl if self.spec.final_record.is_none() && self.messages_seen => {
                out.push(Decoded::Final(ProviderFinal {
                    session_id: self.session_id.clone(),
                    ..ProviderFinal::default()
                }));
            }
            OutputFormat::Jsonl => {}
        }
    }
}

fn raw(line: &[u8]) -> Decoded {
    crate::decode::raw(RawStream::Stdout, line)
}

/// The figures `spec` finds in `record`, or `None` when none resolves.
fn usage_of(spec: &UsageSpec, record: &Value) -> Option<Usage> {
    let count = |p: &Option<super::json::Pointers>| p.as_ref().and_then(|p| p.count(record));
    let fields = [
        count(&spec.input_tokens),
        count(&spec.output_tokens),
        count(&spec.cache_read_input_tokens),
        count(&spec.cache_creation_input_tokens),
        count(&spec.reasoning_tokens),
        count(&spec.total_tokens),
        count(&spec.context_tokens),
    ];
    let cost = spec.cost_usd.as_ref().and_then(|p| p.amount(record));
    if fields.iter().all(Option::is_none) && cost.is_none() {
        return None;
    }
    let [
        input,
        output,
        cache_read,
        cache_creation,
        reasoning,
        total,
        context,
    ] = fields;
    let input_tokens = input.unwrap_or(0);
    let output_tokens = output.unwrap_or(0);
    Some(Usage {
        input_tokens,
        output_tokens,
        cache_read_input_tokens: cache_read.unwrap_or(0),
        cache_creation_input_tokens: cache_creation.unwrap_or(0),
        cache_creation_1h_input_tokens: 0,
        reasoning_tokens: reasoning.unwrap_or(0),
        total_tokens: total.unwrap_or(input_tokens.saturating_add(output_tokens)),
        cost_usd: cost,
        context_tokens: context,
        estimated: false,
    })
}
