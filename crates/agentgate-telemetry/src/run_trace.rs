//! A run's spans, built from its events: [`RunTrace`] watches the stream
//! the engine emits (through [`crate::TracedSink`]) and, when the run has
//! ended, makes
//!
//! ```text
//! agentgate.run                      (start: begin(), end: finish())
//! └── invoke_agent <provider>        one per attempt: `start` event .. + duration_ms
//!     ├── chat <model>               one per `model_call` (the gateway's): ts - latency_ms .. ts
//!     └── execute_tool <name>        one per `tool_use` .. its `tool_result`
//! ```
//!
//! Nothing is threaded through the engine: the events already carry the
//! times (`ts`), the attempt they belong to, the gateway's per-call report
//! and the tool calls, and the final envelope each attempt's outcome. The
//! events were redacted before any sink sees them, so no span holds a
//! secret the run's stream does not. The run span's id is chosen at
//! [`RunTrace::begin`], so the CLIs get it as their `TRACEPARENT` before
//! it ends.

use std::time::{Duration, SystemTime};

use agentgate_protocol::{Envelope, Event, EventBody, ModelCallEvent, UsageScope, WireApi};
use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanId, SpanKind};
use opentelemetry_sdk::trace::SpanData;

use crate::exporter::Telemetry;
use crate::span_record::{SpanParent, SpanRecord, new_span_id, parse_ts};
use crate::trace_context::TraceContext;

/// The spans of one run, gathered from its events.
#[derive(Debug)]
pub struct RunTrace {
    telemetry: &'static Telemetry,
    parent: SpanParent,
    span_id: SpanId,
    started: SystemTime,
    attempts: Vec<AttemptSeen>,
    envelope: Option<Envelope>,
}

#[derive(Debug)]
struct AttemptSeen {
    number: u32,
    span_id: SpanId,
    provider: Option<String>,
    agent: Option<String>,
    model: Option<String>,
    start: SystemTime,
    last: SystemTime,
    input_tokens: u64,
    output_tokens: u64,
    cost_usd: Option<f64>,
    response_model: Option<String>,
    wire: Option<WireApi>,
    calls: Vec<SpanRecord>,
    tools: Vec<ToolSeen>,
}

#[derive(Debug)]
struct ToolSeen {
    id: String,
    record: SpanRecord,
    ended: bool,
}

impl RunTrace {
    /// A run starting now under `parent`.
    pub fn begin(telemetry: &'static Telemetry, parent: SpanParent) -> RunTrace {
        RunTrace {
            telemetry,
            parent,
            span_id: new_span_id(),
            started: SystemTime::now(),
            attempts: Vec::new(),
            envelope: None,
        }
    }

    /// The context a process of this run continues (`TRACEPARENT`).
    pub fn context(&self) -> TraceContext {
        self.parent.context_of(self.span_id)
    }

    /// The same run, started at `started` (a workflow step's run, whose
    /// first event is its start).
    pub(crate) fn started_at(mut self, started: SystemTime) -> RunTrace {
        self.started = started;
        self
    }

    /// Take in one event of the run.
    pub fn observe(&mut self, event: &Event) {
        let ts = parse_ts(&event.ts).unwrap_or_else(SystemTime::now);
        if let EventBody::Start(start) = &event.body {
            self.attempts.push(AttemptSeen {
                number: event.attempt.unwrap_or(self.attempts.len() as u32 + 1),
                span_id: new_span_id(),
                provider: event.provider.clone(),
                agent: start.agent.clone(),
                model: start.model.clone(),
                start: ts,
                last: ts,
                input_tokens: 0,
                output_tokens: 0,
                cost_usd: None,
                response_model: None,
                wire: None,
                calls: Vec::new(),
                tools: Vec::new(),
            });
            return;
        }
        if let EventBody::Result(result) = &event.body {
            self.envelope = Some((*result.envelope).clone());
            return;
        }
        let Some(attempt) = self.attempt_of(event) else {
            return;
        };
        attempt.last = attempt.last.max(ts);
        match &event.body {
            EventBody::ModelCall(call) => {
                attempt.wire = Some(call.api);
                if call.model.is_some() {
                    attempt.response_model.clone_from(&call.model);
                }
                attempt.calls.push(model_call_span(call, ts));
            }
            EventBody::ToolUse(tool) => {
                let mut record =
                    SpanRecord::new(format!("execute_tool {}", tool.name), new_span_id(), ts);
                record.set(KeyValue::new("gen_ai.operation.name", "execute_tool"));
                record.set(KeyValue::new("gen_ai.tool.name", tool.name.clone()));
                record.set(KeyValue::new("gen_ai.tool.call.id", tool.id.clone()));
                if let Ok(serde_json::Value::String(class)) = serde_json::to_value(tool.class) {
                    record.set(KeyValue::new("agentgate.tool.class", class));
                }
                attempt.tools.push(ToolSeen {
                    id: tool.id.clone(),
                    record,
                    ended: false,
                });
            }
            EventBody::ToolResult(result) => {
                if let Some(tool) = attempt
                    .tools
                    .iter_mut()
                    .rev()
                    .find(|t| t.id == result.id && !t.ended)
                {
                    tool.ended = true;
                    tool.record.end = ts;
                    tool.record
                        .set_some("agentgate.tool.exit_code", result.exit_code.map(i64::from));
                    if !result.ok {
                        tool.record.set(KeyValue::new("error.type", "tool_error"));
                        tool.record.error = Some("the tool reported a failure".into());
                    }
                }
            }
            EventBody::Usage(usage) => {
                let u = &usage.usage;
                match usage.scope {
                    UsageScope::Turn => {
                        attempt.input_tokens += u.input_tokens;
                        attempt.output_tokens += u.output_tokens;
                        if let Some(c) = u.cost_usd {
                            attempt.cost_usd = Some(attempt.cost_usd.unwrap_or(0.0) + c);
                        }
                    }
                    UsageScope::Total => {
                        attempt.input_tokens = u.input_tokens;
                        attempt.output_tokens = u.output_tokens;
                        attempt.cost_usd = u.cost_usd;
                    }
                }
            }
            _ => {}
        }
    }

    /// The attempt `event` belongs to: by its number, else the last one.
    fn attempt_of(&mut self, event: &Event) -> Option<&mut AttemptSeen> {
        let position = match event.attempt {
            Some(n) => self.attempts.iter().rposition(|a| a.number == n),
            None => None,
        };
        match position {
            Some(i) => self.attempts.get_mut(i),
            None => self.attempts.last_mut(),
        }
    }

    /// The run ended: its spans, queued for export.
    pub fn finish(self) {
        let telemetry = self.telemetry;
        let spans = self.into_spans_ending(SystemTime::now());
        telemetry.submit(spans);
    }

    /// The spans, the run's ending at `end` (nothing for an unsampled trace).
    pub(crate) fn into_spans_ending(self, end: SystemTime) -> Vec<SpanData> {
        if !self.parent.sampled {
            return Vec::new();
        }
        let under_run = self.parent.child_of(self.span_id);
        let mut run = SpanRecord::new("agentgate.run", self.span_id, self.started);
        run.end = end;
        run.set(KeyValue::new("gen_ai.operation.name", "invoke_agent"));
        let envelope = self.envelope.unwrap_or_default();
        describe_envelope(&mut run, &envelope);
        // The envelope's attempts that ran, in order, are the `start`s seen.
        let mut recorded = envelope.attempts.iter().filter(|a| !a.skipped);
        let mut spans = Vec::new();
        let count = self.attempts.len();
        let starts: Vec<SystemTime> = self.attempts.iter().map(|a| a.start).collect();
        for (i, seen) in self.attempts.into_iter().enumerate() {
            let outcome = recorded.next();
            let name = format!(
                "invoke_agent {}",
                seen.provider.as_deref().unwrap_or("agent")
            );
            let mut attempt = SpanRecord::new(name, seen.span_id, seen.start);
            attempt.end = match (outcome, starts.get(i + 1)) {
                (Some(o), _) if o.duration_ms > 0 => {
                    seen.start + Duration::from_millis(o.duration_ms)
                }
                (_, Some(next)) => *next,
                _ if i + 1 == count => end,
                _ => seen.last,
            };
            attempt.set(KeyValue::new("gen_ai.operation.name", "invoke_agent"));
            attempt.set(KeyValue::new("agentgate.attempt", i64::from(seen.number)));
            attempt.set_some("agentgate.provider", seen.provider.clone());
            attempt.set_some("gen_ai.agent.name", seen.agent.clone());
            attempt.set_some("gen_ai.request.model", seen.model.clone());
            attempt.set_some(
                "gen_ai.response.model",
                outcome
                    .and_then(|o| o.model.clone())
                    .or(seen.response_model.clone()),
            );
            attempt.set_some("gen_ai.provider.name", seen.wire.map(provider_of));
            attempt.set(KeyValue::new(
                "gen_ai.usage.input_tokens",
                seen.input_tokens as i64,
            ));
            attempt.set(KeyValue::new(
                "gen_ai.usage.output_tokens",
                seen.output_tokens as i64,
            ));
            attempt.set_some("agentgate.cost_usd", seen.cost_usd);
            if let Some(o) = outcome {
                attempt.set_some("agentgate.exit_code", o.exit_code.map(i64::from));
                attempt.set_some("agentgate.session", o.session_id.clone());
                match o.error_type {
                    Some(kind) => {
                        attempt.set(KeyValue::new("error.type", kind.as_str()));
                        attempt.set(KeyValue::new("agentgate.error_type", kind.as_str()));
                        attempt.set(KeyValue::new("agentgate.outcome", "failed"));
                        attempt.set_some("agentgate.recoverable", o.recoverable);
                        attempt.error = Some(o.error.clone().unwrap_or_else(|| kind.to_string()));
                    }
                    None => attempt.set(KeyValue::new("agentgate.outcome", "ok")),
                }
            }
            let under_attempt = under_run.child_of(seen.span_id);
            let attempt_end = attempt.end;
            spans.push(attempt.into_span_data(&under_run));
            for call in seen.calls {
                spans.push(call.into_span_data(&under_attempt));
            }
            for mut tool in seen.tools {
                if !tool.ended {
                    tool.record.end = attempt_end;
                }
                spans.push(tool.record.into_span_data(&under_attempt));
            }
        }
        spans.push(run.into_span_data(&self.parent));
        spans
    }
}

/// A run's (or workflow's, or job's) attributes, from its envelope.
pub(crate) fn describe_envelope(run: &mut SpanRecord, envelope: &Envelope) {
    if !envelope.run_id.is_empty() {
        run.set(KeyValue::new("agentgate.run_id", envelope.run_id.clone()));
    }
    run.set_some("agentgate.provider", envelope.provider.clone());
    run.set_some("gen_ai.agent.name", envelope.agent.clone());
    run.set_some("gen_ai.response.model", envelope.model.clone());
    run.set_some("agentgate.chain", envelope.chain.clone());
    run.set_some("agentgate.session", envelope.session_id.clone());
    run.set(KeyValue::new(
        "gen_ai.usage.input_tokens",
        envelope.tokens_used.input_tokens as i64,
    ));
    run.set(KeyValue::new(
        "gen_ai.usage.output_tokens",
        envelope.tokens_used.output_tokens as i64,
    ));
    run.set_some("agentgate.cost_usd", envelope.tokens_used.cost_usd);
    run.set(KeyValue::new(
        "agentgate.attempts",
        envelope.attempts.len() as i64,
    ));
    for (key, value) in &envelope.labels {
        run.set(KeyValue::new(
            format!("agentgate.label.{key}"),
            value.clone(),
        ));
    }
    match envelope.error_type {
        Some(kind) => {
            let outcome = match kind {
                agentgate_protocol::ErrorKind::Cancelled => "cancelled",
                _ => "failed",
            };
            run.set(KeyValue::new("agentgate.outcome", outcome));
            run.set(KeyValue::new("error.type", kind.as_str()));
            run.set(KeyValue::new("agentgate.error_type", kind.as_str()));
            run.set_some("agentgate.recoverable", envelope.recoverable);
            run.error = Some(envelope.error.clone().unwrap_or_else(|| kind.to_string()));
        }
        None => run.set(KeyValue::new("agentgate.outcome", "ok")),
    }
}

/// A model call's span, ending at the event's `ts`.
fn model_call_span(call: &ModelCallEvent, ts: SystemTime) -> SpanRecord {
    let start = ts
        .checked_sub(Duration::from_millis(call.latency_ms))
        .unwrap_or(ts);
    let name = match &call.model {
        Some(model) => format!("chat {model}"),
        None => "chat".to_owned(),
    };
    let mut span = SpanRecord::new(name, new_span_id(), start);
    span.kind = SpanKind::Client;
    span.end = ts;
    let provider = provider_of(call.api);
    span.set(KeyValue::new("gen_ai.operation.name", "chat"));
    span.set(KeyValue::new("gen_ai.provider.name", provider));
    span.set(KeyValue::new("gen_ai.system", provider));
    span.set_some("gen_ai.request.model", call.model.clone());
    span.set_some("gen_ai.response.model", call.model.clone());
    span.set(KeyValue::new("agentgate.model_call", i64::from(call.call)));
    span.set(KeyValue::new("agentgate.wire_api", call.api.as_str()));
    span.set(KeyValue::new("url.path", call.path.clone()));
    span.set_some("http.response.status_code", call.status.map(i64::from));
    if let Some(usage) = &call.usage {
        span.set(KeyValue::new(
            "gen_ai.usage.input_tokens",
            usage.input_tokens as i64,
        ));
        span.set(KeyValue::new(
            "gen_ai.usage.output_tokens",
            usage.output_tokens as i64,
        ));
        span.set_some("agentgate.cost_usd", usage.cost_usd);
    }
    span.set_some("agentgate.ttft_ms", call.ttft_ms.map(|t| t as i64));
    let failed_status = call.status.filter(|s| *s >= 400);
    if let Some(error) = &call.error {
        span.set(KeyValue::new("error.type", "transport"));
        span.error = Some(error.clone());
    } else if let Some(status) = failed_status {
        span.set(KeyValue::new("error.type", status.to_string()));
        span.error = Some(format!("HTTP {status}"));
    }
    span
}

/// The GenAI provider name of a wire API.
fn provider_of(api: WireApi) -> &'static str {
    match api {
        WireApi::AnthropicMessages => "anthropic",
        WireApi::OpenaiResponses | WireApi::OpenaiChat => "openai",
        WireApi::Gemini => "gcp.gemini",
    }
}

#[cfg(test)]
#[cfg(feature = "otlp")]
mod tests;
