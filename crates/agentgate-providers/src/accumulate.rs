//! Builds the result envelope from a run's decoded output.

use agentgate_protocol::{
    ActivityClass, Envelope, ErrorInfo, EventBody, Metadata, RateLimitEvent, ReasoningAbsentReason,
    ReasoningSource, StatusEvent, TokensUsed, ToolActivity, ToolClass, Usage, UsageScope,
};

use crate::decode::tools::compact_tool_name;
use crate::decoded::{Decoded, ProviderError, ProviderFinal};

/// Everything learned from one invocation's output, in order.
#[derive(Debug, Clone, Default)]
pub struct Accumulator {
    provider: String,
    /// Finished assistant messages (text between tool calls).
    segments: Vec<String>,
    /// The message being streamed.
    current: String,
    thinking: Vec<String>,
    reasoning_source: ReasoningSource,
    session_id: Option<String>,
    model: Option<String>,
    turn_usage: Option<Usage>,
    total_usage: Option<Usage>,
    thread_totals: Option<Usage>,
    context_tokens: Option<u64>,
    final_: Option<ProviderFinal>,
    errors: Vec<ProviderError>,
    tools: ToolTally,
    retries: u32,
    rate_limit: Option<RateLimitEvent>,
}

#[derive(Debug, Clone, Default)]
struct ToolTally {
    calls: u64,
    writes: u64,
    errors: u64,
    names: Vec<String>,
    classes: Vec<ToolClass>,
}

/// What the run knows beyond the output when it finishes.
#[derive(Debug, Clone, Default)]
pub struct Finish {
    /// The run's id.
    pub run_id: String,
    /// Wall-clock duration of the run.
    pub duration_ms: u64,
    /// The model requested (reported when the CLI does not say).
    pub requested_model: Option<String>,
    /// The classified error, if the run failed.
    pub error: Option<ErrorInfo>,
    /// agentgate's exit code for a failed run.
    pub exit_code: i32,
    /// Codex: the thread's totals after the previous turn, to subtract.
    pub previous_thread_totals: Option<Usage>,
    /// The last lines of the CLI's stderr.
    pub stderr_tail: Option<String>,
    /// Whether the provider CLI exposes reasoning at all.
    pub exposes_reasoning: bool,
}

impl Accumulator {
    /// An empty accumulator for `provider`.
    pub fn new(provider: &str) -> Self {
        Accumulator {
            provider: provider.to_owned(),
            ..Accumulator::default()
        }
    }

    /// Take in one decoded item.
    pub fn observe(&mut self, item: &Decoded) {
        match item {
            Decoded::Event(e) => self.event(e),
            Decoded::Final(f) => {
                if let Some(id) = &f.session_id {
                    self.session_id = Some(id.clone());
                }
                self.final_ = Some(f.clone());
            }
            Decoded::ProviderError(e) => self.errors.push(e.clone()),
            Decoded::ThreadTotals(u) => self.thread_totals = Some(u.clone()),
        }
    }

    /// Take in an item recovered after the run from the provider's session
    /// files: thinking found there is reported with source `session_log`.
    pub fn observe_recovered(&mut self, item: &Decoded) {
        if let Decoded::Event(EventBody::Thinking(t)) = item {
            if self.thinking.is_empty() || self.reasoning_source == ReasoningSource::SessionLog {
                self.thinking.push(t.text.clone());
                self.reasoning_source = ReasoningSource::SessionLog;
            }
        } else {
            self.observe(item);
        }
    }

    fn event(&mut self, e: &EventBody) {
        match e {
            EventBody::Session(s) => {
                self.session_id = Some(s.session_id.clone());
                if s.model.is_some() {
                    self.model = s.model.clone();
                }
            }
            EventBody::TextDelta(t) => self.current.push_str(&t.text),
            EventBody::Message(m) => {
                // A complete message is authoritative over the deltas that
                // streamed it.
                self.current.clear();
                self.close_segment_with(&m.text);
            }
            EventBody::Thinking(t) => {
                self.thinking.push(t.text.clone());
                self.reasoning_source = ReasoningSource::RawOutput;
            }
            EventBody::ToolUse(t) => {
                self.close_segment();
                self.tools.calls += 1;
                if t.class == ToolClass::Write {
                    self.tools.writes += 1;
                }
                let name = compact_tool_name(&t.name);
                if !self.tools.names.contains(&name) {
                    self.tools.names.push(name);
                }
                if !self.tools.classes.contains(&t.class) {
                    self.tools.classes.push(t.class);
                }
            }
            EventBody::ToolResult(r) if !r.ok => self.tools.errors += 1,
            EventBody::Usage(u) => match u.scope {
                UsageScope::Turn => {
                    let sum = self.turn_usage.get_or_insert_with(Usage::default);
                    sum.add_counts(&u.usage);
                    if let Some(c) = u.usage.context_tokens {
                        self.context_tokens = Some(c);
                    }
                }
                UsageScope::Total => {
                    if u.usage.context_tokens.is_some() {
                        self.context_tokens = u.usage.context_tokens;
                    }
                    self.total_usage = Some(u.usage.clone());
                }
            },
            EventBody::RateLimit(r) => self.rate_limit = Some(r.clone()),
            EventBody::Status(StatusEvent::Retry { .. }) => self.retries += 1,
            _ => {}
        }
    }

    fn close_segment(&mut self) {
        let text = std::mem::take(&mut self.current);
        self.close_segment_with(&text);
    }

    fn close_segment_with(&mut self, text: &str) {
        if !text.trim().is_empty() {
            self.segments.push(text.to_owned());
        }
    }

    /// The native session id, once known.
    pub fn session_id(&self) -> Option<&str> {
        self.session_id.as_deref()
    }

    /// The model the provider reported, once known.
    pub fn model(&self) -> Option<&str> {
        self.model.as_deref()
    }

    /// Whether the CLI printed its final result record.
    pub fn has_final(&self) -> bool {
        self.final_.is_some()
    }

    /// The CLI's final record, if it printed one.
    pub fn final_record(&self) -> Option<&ProviderFinal> {
        self.final_.as_ref()
    }

    /// The structured errors seen so far, in order.
    pub fn errors(&self) -> &[ProviderError] {
        &self.errors
    }

    /// How many retry notices the CLI printed.
    pub fn retries(&self) -> u32 {
        self.retries
    }

    /// The last rate-limit state the CLI reported.
    pub fn rate_limit(&self) -> Option<&RateLimitEvent> {
        self.rate_limit.as_ref()
    }

    /// The sum of the per-call usage the CLI streamed so far (its `usage`
    /// events of one model call each), as a live figure while it runs:
    /// unlike [`Accumulator::usage`], never a total that may count from
    /// before this invocation.
    pub fn calls_usage(&self) -> Option<&Usage> {
        self.turn_usage.as_ref()
    }

    /// Codex: the thread totals the CLI reported.
    pub fn thread_totals(&self) -> Option<&Usage> {
        self.thread_totals.as_ref()
    }

    /// The answer: the CLI's own final text when it gives one, else the last
    /// assistant message; a whole answer in one code fence is unwrapped.
    /// A final record that is an error carries the error's text, not an
    /// answer (Claude's `result` of an API error): that text is the run's
    /// `error`, and the answer is what the model said before, if anything.
    pub fn response(&self) -> String {
        let from_final = self
            .final_
            .as_ref()
            .filter(|f| !f.is_error)
            .and_then(|f| f.text.as_deref())
            .filter(|t| !t.trim().is_empty());
        let text = match from_final {
            Some(t) => t.to_owned(),
            None if !self.current.trim().is_empty() => self.current.clone(),
            None => self.segments.last().cloned().unwrap_or_default(),
        };
        // A message that only repeats the error (Claude's made-up assistant
        // message, which a described CLI cannot tell from a real one) is
        // the error too.
        let error_text = self
            .final_
            .as_ref()
            .filter(|f| f.is_error)
            .and_then(|f| f.text.as_deref())
            .map(str::trim)
            .filter(|t| !t.is_empty());
        if error_text == Some(text.trim()) {
            return String::new();
        }
        strip_single_fence(&text)
    }

    /// The usage of this invocation, with the rule that picks the best
    /// evidence: the CLI's own billing totals, then its totals events, then
    /// Codex's thread totals minus the previous turn's, then the sum of
    /// per-call figures.
    pub fn usage(&self, previous_thread_totals: Option<&Usage>) -> Option<Usage> {
        let mut u = if let Some(u) = self.final_.as_ref().and_then(|f| f.usage.clone()) {
            u
        } else if let Some(u) = &self.total_usage {
            u.clone()
        } else if let Some(t) = &self.thread_totals {
            match previous_thread_totals {
                Some(prev) => delta(t, prev),
                None => t.clone(),
            }
        } else {
            self.turn_usage.clone()?
        };
        if u.total_tokens == 0 {
            u.total_tokens = u.input_tokens + u.output_tokens;
        }
        if u.context_tokens.is_none() {
            u.context_tokens = self.context_tokens;
        }
        Some(u)
    }

    /// The envelope of this invocation.
    pub fn finish(&self, f: Finish) -> Envelope {
        let response = self.response();
        let usage = self.usage(f.previous_thread_totals.as_ref());
        let reasoning = self.thinking.join("\n\n");
        let reasoning_available = !reasoning.trim().is_empty();
        let mut env = Envelope::new(f.run_id);
        env.tokens_used = match &usage {
            Some(u) => TokensUsed::from_usage(u, &response),
            None => TokensUsed {
                estimated_output_tokens: agentgate_protocol::estimate_output_tokens(&response),
                ..TokensUsed::default()
            },
        };
        env.reasoning_tokens = usage.as_ref().map(|u| u.reasoning_tokens).unwrap_or(0);
        env.context_tokens = usage.as_ref().and_then(|u| u.context_tokens);
        env.response = response;
        env.session_id = self.session_id.clone();
        env.metadata = Metadata {
            // Estimated figures are not usage the provider reported.
            token_usage_available: usage.as_ref().is_some_and(|u| !u.estimated),
            reasoning_available,
            reasoning_source: if reasoning_available {
                self.reasoning_source
            } else {
                ReasoningSource::None
            },
            reasoning_absent_reason: if reasoning_available {
                ReasoningAbsentReason::Available
            } else if !f.exposes_reasoning {
                ReasoningAbsentReason::NotExposed
            } else {
                ReasoningAbsentReason::ModelNotEmitted
            },
            usage_source: None,
            tool_activity: Some(ToolActivity {
                call_count: self.tools.calls,
                write_count: self.tools.writes,
                error_count: self.tools.errors,
                tool_names: self.tools.names.clone(),
                result_classes: self.tools.classes.clone(),
                activity_class: ActivityClass::from_counts(
                    self.tools.calls,
                    self.tools.writes,
                    self.tools.errors,
                ),
                source: format!("stream:{}", self.provider),
            }),
        };
        env.reasoning_summary = agentgate_protocol::compact_reasoning(&reasoning);
        env.reasoning = reasoning;
        env.provider = Some(self.provider.clone());
        env.model = self.model.clone().or(f.requested_model);
        env.duration_ms = f.duration_ms;
        env.stderr_tail = f.stderr_tail;
        match &f.error {
            Some(e) => env.with_error(e, f.exit_code),
            None => env,
        }
    }
}

/// `now - before`, field by field (never below zero: a thread whose totals
/// went down was reset, and its totals are this turn's).
pub fn delta(now: &Usage, before: &Usage) -> Usage {
    if now.input_tokens < before.input_tokens || now.output_tokens < before.output_tokens {
        return now.clone();
    }
    Usage {
        input_tokens: now.input_tokens - before.input_tokens,
        output_tokens: now.output_tokens - before.output_tokens,
        cache_read_input_tokens: now
            .cache_read_input_tokens
            .saturating_sub(before.cache_read_input_tokens),
        cache_creation_input_tokens: now
            .cache_creation_input_tokens
            .saturating_sub(before.cache_creation_input_tokens),
        cache_creation_1h_input_tokens: now
            .cache_creation_1h_input_tokens
            .saturating_sub(before.cache_creation_1h_input_tokens),
        reasoning_tokens: now.reasoning_tokens.saturating_sub(before.reasoning_tokens),
        total_tokens: now.total_tokens.saturating_sub(before.total_tokens),
        cost_usd: match (now.cost_usd, before.cost_usd) {
            (Some(a), Some(b)) => Some((a - b).max(0.0)),
            (a, _) => a,
        },
        context_tokens: now.context_tokens,
        estimated: now.estimated,
    }
}

/// The inside of the answer when the whole answer is one fenced code block.
pub fn strip_single_fence(text: &str) -> String {
    let t = text.trim();
    let Some(rest) = t.strip_prefix("```") else {
        return text.to_owned();
    };
    let Some(body) = rest.strip_suffix("```") else {
        return text.to_owned();
    };
    // The opening fence line may carry a language tag.
    let Some((_, inner)) = body.split_once('\n') else {
        return text.to_owned();
    };
    if inner.contains("\n```") {
        // More than one block, or prose between blocks: leave it alone.
        return text.to_owned();
    }
    inner.trim_end_matches('\n').to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use agentgate_protocol::{MessageEvent, TextDeltaEvent, ToolUseEvent, UsageEvent};

    fn ev(e: EventBody) -> Decoded {
        Decoded::Event(e)
    }

    fn usage(input: u64, output: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input + output,
            ..Usage::default()
        }
    }

    #[test]
    fn the_answer_is_the_last_message_after_the_tools() {
        let mut a = Accumulator::new("gemini");
        for d in [
            ev(EventBody::TextDelta(TextDeltaEvent {
                text: "I'll run ".into(),
            })),
            ev(EventBody::TextDelta(TextDeltaEvent { text: "it.".into() })),
            ev(EventBody::ToolUse(ToolUseEvent {
                id: "1".into(),
                name: "run_shell_command".into(),
                class: ToolClass::Shell,
                input: serde_json::json!({}),
            })),
            ev(EventBody::TextDelta(TextDeltaEvent { text: "do".into() })),
            ev(EventBody::TextDelta(TextDeltaEvent { text: "ne".into() })),
        ] {
            a.observe(&d);
        }
        assert_eq!(a.response(), "done");
        let env = a.finish(Finish {
            run_id: "r".into(),
            exposes_reasoning: true,
            ..Finish::default()
        });
        let t = env.metadata.tool_activity.unwrap();
        assert_eq!((t.call_count, t.write_count, t.error_count), (1, 0, 0));
        assert_eq!(t.tool_names, ["run_shell_command"]);
        assert_eq!(t.activity_class, ActivityClass::ToolActive);
        assert_eq!(
            env.metadata.reasoning_absent_reason,
            ReasoningAbsentReason::ModelNotEmitted
        );
    }

    #[test]
    fn a_final_text_wins_and_messages_replace_their_deltas() {
        let mut a = Accumulator::new("claude");
        a.observe(&ev(EventBody::TextDelta(TextDeltaEvent {
            text: "partial".into(),
        })));
        a.observe(&ev(EventBody::Message(MessageEvent {
            text: "whole".into(),
        })));
        assert_eq!(a.response(), "whole");
        a.observe(&Decoded::Final(ProviderFinal {
            text: Some("final".into()),
            ..ProviderFinal::default()
        }));
        assert_eq!(a.response(), "final");
    }

    #[test]
    fn an_error_final_record_is_not_the_answer() {
        let mut a = Accumulator::new("claude");
        let api_error = || {
            Decoded::Final(ProviderFinal {
                text: Some("API Error: Connection to the API was lost".into()),
                is_error: true,
                ..ProviderFinal::default()
            })
        };
        a.observe(&api_error());
        assert_eq!(a.response(), "");
        let mut a = Accumulator::new("claude");
        a.observe(&ev(EventBody::Message(MessageEvent {
            text: "half an answer".into(),
        })));
        a.observe(&api_error());
        assert_eq!(a.response(), "half an answer");
        // The error's text, also sent as a message: still no answer.
        let mut a = Accumulator::new("claude");
        a.observe(&ev(EventBody::Message(MessageEvent {
            text: "API Error: Connection to the API was lost\n".into(),
        })));
        a.observe(&api_error());
        assert_eq!(a.response(), "");
    }

    #[test]
    fn usage_prefers_billing_totals_then_thread_deltas_then_sums() {
        let mut a = Accumulator::new("codex");
        for u in [usage(10, 1), usage(20, 2)] {
            a.observe(&ev(EventBody::Usage(UsageEvent {
                scope: UsageScope::Turn,
                usage: u,
            })));
        }
        assert_eq!(a.usage(None).unwrap().input_tokens, 30);
        a.observe(&Decoded::ThreadTotals(usage(500, 50)));
        assert_eq!(
            a.usage(Some(&usage(400, 45))).unwrap(),
            Usage {
                context_tokens: None,
                ..usage(100, 5)
            }
        );
        assert_eq!(a.usage(None).unwrap().input_tokens, 500);
        a.observe(&Decoded::Final(ProviderFinal {
            usage: Some(usage(7, 3)),
            ..ProviderFinal::default()
        }));
        assert_eq!(a.usage(None).unwrap().total_tokens, 10);
    }

    #[test]
    fn a_thread_that_shrank_counts_its_totals() {
        assert_eq!(delta(&usage(5, 1), &usage(100, 10)), usage(5, 1));
    }

    #[test]
    fn one_fenced_block_is_unwrapped_but_prose_is_not() {
        assert_eq!(strip_single_fence("```json\n{\"a\": 1}\n```"), "{\"a\": 1}");
        assert_eq!(strip_single_fence("  ```\nx\n```  \n"), "x");
        let two = "```\na\n```\ntext\n```\nb\n```";
        assert_eq!(strip_single_fence(two), two);
        assert_eq!(strip_single_fence("plain"), "plain");
    }

    #[test]
    fn recovered_thinking_is_marked_as_from_the_session_log() {
        let mut a = Accumulator::new("gemini");
        a.observe_recovered(&ev(EventBody::Thinking(
            agentgate_protocol::ThinkingEvent { text: "hmm".into() },
        )));
        let env = a.finish(Finish {
            exposes_reasoning: true,
            ..Finish::default()
        });
        assert_eq!(env.reasoning, "hmm");
        assert_eq!(env.metadata.reasoning_source, ReasoningSource::SessionLog);
    }
}
