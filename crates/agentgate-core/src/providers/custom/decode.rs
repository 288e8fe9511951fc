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
        reasoning_tokens: reasoning.unwrap_or(0),
        total_tokens: total.unwrap_or(input_tokens.saturating_add(output_tokens)),
        cost_usd: cost,
        context_tokens: context,
        estimated: false,
    })
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::config::{Config, ConfigSource};

    fn decoder(yaml: &str) -> CustomDecoder {
        let cfg = Config::parse(
            &format!("version: 1\nproviders:\n  mycli:\n    command: [mycli]\n{yaml}"),
            ConfigSource::Flag(PathBuf::from("/etc/agentgate.yaml")),
        )
        .unwrap();
        CustomDecoder::new(Arc::new(cfg.providers[0].output.clone()))
    }

    fn decode(d: &mut CustomDecoder, stdout: &str) -> Vec<Decoded> {
        let mut out = Vec::new();
        for line in stdout.lines() {
            d.stdout_line(line.as_bytes(), &mut out);
        }
        d.finish(&mut out);
        out
    }

    fn finals(out: &[Decoded]) -> Vec<&ProviderFinal> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::Final(f) => Some(f),
                _ => None,
            })
            .collect()
    }

    fn errors(out: &[Decoded]) -> Vec<&ProviderError> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::ProviderError(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    fn events(out: &[Decoded]) -> Vec<&EventBody> {
        out.iter()
            .filter_map(|d| match d {
                Decoded::Event(e) => Some(e),
                _ => None,
            })
            .collect()
    }

    const CLAUDE: &str = r#"    output: jsonl
    final: {type: result}
    text: /result
    session_id: /session_id
    message: {match: {type: assistant}, text: /message/content/0/text}
    usage:
      input_tokens: [/usage/input_tokens, /usage/cache_read_input_tokens, /usage/cache_creation_input_tokens]
      output_tokens: /usage/output_tokens
      cache_read_input_tokens: /usage/cache_read_input_tokens
      cost_usd: /total_cost_usd
    error: {message: /result, status: /api_error_status, is_error: /is_error}
    tool_use:
      match: {type: assistant, /message/content/0/type: tool_use}
      id: /message/content/0/id
      name: /message/content/0/name
      input: /message/content/0/input
    tool_result:
      match: {type: user, /message/content/0/type: tool_result}
      id: /message/content/0/tool_use_id
      output: /message/content/0/content
      is_error: /message/content/0/is_error
"#;

    #[test]
    fn claude_stream_json_decodes_through_pointers() {
        let mut d = decoder(CLAUDE);
        let stdout = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/decode/claude/tool_stream_json.stdout"
        ))
        .unwrap();
        let out = decode(&mut d, &stdout);
        let ev = events(&out);
        assert!(
            matches!(ev[0], EventBody::Session(s) if s.session_id == "358ff9e1-c88e-4a8a-b341-e15832f54555")
        );
        let messages: Vec<&str> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::Message(m) => Some(m.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(messages, ["I'll run the command.", "done"]);
        let tools: Vec<String> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::ToolUse(t) => {
                    Some(format!("{} {} {:?} {}", t.id, t.name, t.class, t.input))
                }
                EventBody::ToolResult(r) => Some(format!("{} ok={} {:?}", r.id, r.ok, r.output)),
                _ => None,
            })
            .collect();
        assert_eq!(
            tools,
            [
                "toolu_1a0e89e60cc14b24af90 Bash Shell {\"command\":\"echo hello > hello.txt\"}",
                "toolu_1a0e89e60cc14b24af90 ok=true \"(Bash completed with no output)\""
            ]
        );
        // Lines the config does not describe are kept.
        assert!(ev.iter().any(|e| matches!(e, EventBody::Raw(_))));
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].text.as_deref(), Some("done"));
        assert!(!f[0].is_error);
        let u = f[0].usage.as_ref().unwrap();
        assert_eq!(
            (u.input_tokens, u.output_tokens, u.total_tokens),
            (38104, 14, 38118)
        );
        assert!((u.cost_usd.unwrap() - 0.19087).abs() < 1e-9, "{u:?}");
        assert!(errors(&out).is_empty());
    }

    #[test]
    fn an_error_result_is_a_terminal_provider_error_with_its_status() {
        let mut d = decoder(CLAUDE);
        let stdout = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/decode/claude/err_429_maxretry2_stream_json.stdout"
        ))
        .unwrap();
        let out = decode(&mut d, &stdout);
        let e = errors(&out);
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].http_status, Some(429));
        assert!(e[0].terminal);
        assert!(
            e[0].message
                .starts_with("API Error: Request rejected (429)"),
            "{}",
            e[0].message
        );
        assert!(finals(&out)[0].is_error);
    }

    #[test]
    fn jsonl_error_lines_and_per_call_usage() {
        let mut d = decoder(
            r#"    output: jsonl
    message: {match: {type: [text, answer]}, text: /part/text}
    session_id: /sessionID
    usage: {match: {type: step_finish}, input_tokens: /tokens/input, output_tokens: /tokens/output, cost_usd: /cost}
    error: {match: {type: error}, message: /error/data/message, status: /error/data/statusCode, code: /error/name}
"#,
        );
        let out = decode(
            &mut d,
            concat!(
                "{\"type\":\"step_start\",\"sessionID\":\"ses_1\"}\n",
                "{\"type\":\"text\",\"part\":{\"text\":\"hi\"}}\n",
                "{\"type\":\"step_finish\",\"tokens\":{\"input\":10,\"output\":2},\"cost\":0.5}\n",
                "{\"type\":\"step_finish\",\"tokens\":{\"input\":20,\"output\":3}}\n",
                "not json\n",
                "{\"type\":\"error\",\"error\":{\"name\":\"APIError\",\"data\":{\"message\":\"Too Many Requests\",\"statusCode\":429}}}\n",
            ),
        );
        let ev = events(&out);
        assert!(matches!(ev[0], EventBody::Session(s) if s.session_id == "ses_1"));
        let usage: Vec<(u64, u64, Option<f64>)> = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::Usage(u) if u.scope == UsageScope::Turn => Some((
                    u.usage.input_tokens,
                    u.usage.output_tokens,
                    u.usage.cost_usd,
                )),
                _ => None,
            })
            .collect();
        assert_eq!(usage, [(10, 2, Some(0.5)), (20, 3, None)]);
        let raws = ev.iter().filter(|e| matches!(e, EventBody::Raw(_))).count();
        // The step_start line (a session id only) and the non-JSON line.
        assert_eq!(raws, 2);
        let e = errors(&out);
        assert_eq!(e[0].message, "Too Many Requests");
        assert_eq!(e[0].http_status, Some(429));
        assert_eq!(e[0].code.as_deref(), Some("APIError"));
        assert!(e[0].terminal);
        // Without `final`, a stream that had a message ends with a record
        // (no text of its own); the terminal error still decides the run.
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(
            (f[0].text.as_deref(), f[0].session_id.as_deref()),
            (None, Some("ses_1"))
        );
    }

    const CODEX: &str = r#"    output: jsonl
    message: {match: {type: item.completed, /item/type: agent_message}, text: /item/text}
    session_id: /thread_id
    usage: {match: {type: turn.completed}, input_tokens: /usage/input_tokens, output_tokens: /usage/output_tokens}
    error: {match: {type: [error, turn.failed]}, message: [/error/message, /message], terminal: false}
"#;

    fn fixture(path: &str) -> String {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/decode/{path}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    }

    #[test]
    fn notice_errors_only_type_a_failure_the_exit_status_reveals() {
        use crate::classify::{ClassifyInput, classify};
        let mut d = decoder(CODEX);
        let out = decode(&mut d, &fixture("codex/err_429_json.stdout"));
        let e = errors(&out);
        assert_eq!(e.len(), 7);
        assert!(e.iter().all(|e| !e.terminal));
        let tz = jiff::tz::TimeZone::UTC;
        let now = jiff::Timestamp::now();
        let owned: Vec<ProviderError> = e.into_iter().cloned().collect();
        let failed = ClassifyInput {
            errors: &owned,
            exit_code: Some(1),
            provider: "codex-cfg",
            ..ClassifyInput::new(&crate::classify::GENERIC, now, &tz)
        };
        let info = classify(&failed).unwrap();
        assert_eq!(
            info.kind,
            agentgate_protocol::ErrorKind::RateLimit,
            "{info:?}"
        );
        // The same notices before a clean exit: the CLI recovered.
        let recovered = ClassifyInput {
            exit_code: Some(0),
            ..failed
        };
        assert_eq!(classify(&recovered), None);
        // A plain answer.
        let mut d = decoder(CODEX);
        let out = decode(&mut d, &fixture("codex/text_json.stdout"));
        let ev = events(&out);
        assert!(matches!(ev[0], EventBody::Session(_)));
        assert!(
            ev.iter()
                .any(|e| matches!(e, EventBody::Message(m) if m.text == "done"))
        );
        assert!(
            ev.iter()
                .any(|e| matches!(e, EventBody::Usage(u) if u.usage.input_tokens == 9510))
        );
    }

    #[test]
    fn a_json_document_is_the_final_record_even_after_a_banner() {
        let spec = r#"    output: json
    text: /response
    session_id: /session_id
    usage: {input_tokens: /stats/in, output_tokens: /stats/out}
    error: {message: /error/message, code: /error/type}
"#;
        let mut d = decoder(spec);
        let out = decode(
            &mut d,
            "{\n  \"response\": \"Paris.\",\n  \"session_id\": \"s9\",\n  \"stats\": {\"in\": 5, \"out\": 1}\n}\n",
        );
        let f = finals(&out);
        assert_eq!(f[0].text.as_deref(), Some("Paris."));
        assert_eq!(f[0].session_id.as_deref(), Some("s9"));
        assert_eq!(f[0].usage.as_ref().unwrap().total_tokens, 6);
        assert!(errors(&out).is_empty());
        // Without is_error, an error object makes the record an error.
        let mut d = decoder(spec);
        let out = decode(
            &mut d,
            "Loaded cached credentials.\n{\"error\": {\"type\": \"auth\", \"message\": \"bad key\"}}\n",
        );
        assert!(matches!(events(&out)[0], EventBody::Raw(_)));
        let e = errors(&out);
        assert_eq!(
            (e[0].message.as_str(), e[0].code.as_deref()),
            ("bad key", Some("auth"))
        );
        assert!(finals(&out)[0].is_error);
        // Not JSON at all: every line is kept, nothing is made up.
        let mut d = decoder(spec);
        let out = decode(&mut d, "oops\nno json\n");
        assert_eq!(events(&out).len(), 2);
        assert!(finals(&out).is_empty());
    }

    #[test]
    fn text_output_streams_deltas_and_ends_with_the_whole_answer() {
        let mut d = decoder("    output: text\n");
        let mut out = Vec::new();
        for line in [&b"First line."[..], b"", b"Third \xff line.", b"", b""] {
            d.stdout_line(line, &mut out);
        }
        d.finish(&mut out);
        let ev = events(&out);
        let deltas: String = ev
            .iter()
            .filter_map(|e| match e {
                EventBody::TextDelta(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "First line.\n\nThird \u{fffd} line.\n\n");
        assert!(
            matches!(ev.last().unwrap(), EventBody::Message(m) if m.text == "First line.\n\nThird \u{fffd} line.")
        );
        // The answer is the final record of plain text.
        let f = finals(&out);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].text.as_deref(),
            Some("First line.\n\nThird \u{fffd} line.")
        );
    }

    #[test]
    fn blank_text_is_no_answer_and_no_final_record() {
        for stdout in ["", "\n  \n\t\n"] {
            let out = decode(&mut decoder("    output: text\n"), stdout);
            assert!(finals(&out).is_empty(), "{stdout:?}: {out:?}");
        }
    }

    #[test]
    fn jsonl_without_final_ends_with_a_record_only_after_a_message() {
        let spec = "    output: jsonl\n    session_id: /sid\n    message: {match: {type: say}, text: /text}\n";
        let out = decode(
            &mut decoder(spec),
            "{\"type\":\"start\",\"sid\":\"s1\"}\n{\"type\":\"say\",\"text\":\"hi\"}\n",
        );
        let f = finals(&out);
        assert_eq!(f.len(), 1, "{out:?}");
        assert_eq!(f[0].session_id.as_deref(), Some("s1"));
        // No message line, or lines that are not JSON: no answer.
        for stdout in ["{\"type\":\"start\",\"sid\":\"s1\"}\n", "oops\n", ""] {
            let out = decode(&mut decoder(spec), stdout);
            assert!(finals(&out).is_empty(), "{stdout:?}: {out:?}");
        }
    }
}
