//! A run's spans from a stream of events written as the wire has them.

use std::time::{Duration, SystemTime};

use agentgate_protocol::Event;
use opentelemetry::trace::Status;
use opentelemetry::{Key, Value as OtelValue};
use opentelemetry_sdk::trace::SpanData;
use serde_json::{Value, json};

use super::*;
use crate::export_config::{ExportConfig, OtlpProtocol};
use crate::trace_context::TraceContext;

/// An export that is never reached (nothing is submitted in these tests).
fn telemetry() -> &'static Telemetry {
    let config = ExportConfig {
        protocol: OtlpProtocol::HttpProtobuf,
        traces_endpoint: "http://127.0.0.1:9/v1/traces".into(),
        base_endpoint: None,
        service_name: "agentgate".into(),
    };
    Box::leak(Box::new(Telemetry::start(config).unwrap()))
}

fn event(seq: u64, ms: u64, attempt: Option<(&str, u32)>, body: Value) -> Event {
    let ts = jiff::Timestamp::from_millisecond(1_700_000_000_000 + ms as i64).unwrap();
    let mut e = json!({"v": 1, "ts": ts.to_string(), "run_id": "r1", "seq": seq});
    if let Some((provider, n)) = attempt {
        e["provider"] = json!(provider);
        e["attempt"] = json!(n);
    }
    for (k, v) in body.as_object().unwrap() {
        e[k] = v.clone();
    }
    serde_json::from_value(e).unwrap()
}

fn at(ms: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(1_700_000_000_000 + ms)
}

fn attr<'a>(span: &'a SpanData, key: &str) -> Option<&'a OtelValue> {
    span.attributes
        .iter()
        .find(|kv| kv.key == Key::from(key.to_owned()))
        .map(|kv| &kv.value)
}

fn stream() -> Vec<Event> {
    let claude = Some(("claude", 1));
    let codex = Some(("codex", 2));
    vec![
        event(0, 0, claude, json!({"type": "start", "model": "opus"})),
        event(
            1,
            40,
            claude,
            json!({"type": "model_call", "call": 1, "api": "anthropic_messages",
            "model": "opus", "path": "/v1/messages", "stream": true, "status": 429,
            "request_bytes": 10, "response_bytes": 5, "latency_ms": 30}),
        ),
        event(2, 100, codex, json!({"type": "start"})),
        event(
            3,
            110,
            codex,
            json!({"type": "usage", "scope": "turn",
            "usage": {"input_tokens": 10, "output_tokens": 2}}),
        ),
        event(
            4,
            120,
            codex,
            json!({"type": "tool_use", "id": "t1", "name": "exec_command",
            "class": "shell", "input": {}}),
        ),
        event(
            5,
            150,
            codex,
            json!({"type": "tool_result", "id": "t1", "ok": false,
            "output": "", "exit_code": 1}),
        ),
        event(
            6,
            160,
            codex,
            json!({"type": "tool_use", "id": "t2", "name": "Read",
            "class": "read", "input": {}}),
        ),
        event(
            7,
            170,
            codex,
            json!({"type": "usage", "scope": "turn",
            "usage": {"input_tokens": 5, "output_tokens": 3}}),
        ),
        event(
            8,
            200,
            None,
            json!({"type": "result", "envelope": {
            "run_id": "r1", "provider": "codex", "response": "ok",
            "attempts": [
                {"provider": "gemini", "skipped": true, "error_type": "quota"},
                {"provider": "claude", "duration_ms": 60, "error_type": "rate_limit",
                 "error": "429", "recoverable": true},
                {"provider": "codex", "duration_ms": 90}
            ]}}),
        ),
    ]
}

fn spans_of(parent: SpanParent) -> Vec<SpanData> {
    let mut trace = RunTrace::begin(telemetry(), parent).started_at(at(0));
    for e in stream() {
        trace.observe(&e);
    }
    trace.into_spans_ending(at(210))
}

#[test]
fn attempts_calls_and_tools_hang_where_their_events_say() {
    let given = TraceContext::parse(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        None,
    )
    .unwrap();
    let spans = spans_of(SpanParent::remote(Some(&given)));
    let named = |name: &str| {
        spans
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("no {name}: {spans:#?}"))
    };
    let run = named("agentgate.run");
    assert_eq!(run.parent_span_id, given.span_id);
    assert!(run.parent_span_is_remote);
    assert_eq!(run.end_time, at(210));
    // The skipped attempt is not one of the attempts that started: the
    // envelope's second and third entries are the two `start`s.
    let claude = named("invoke_agent claude");
    assert_eq!(claude.parent_span_id, run.span_context.span_id());
    assert_eq!((claude.start_time, claude.end_time), (at(0), at(60)));
    assert_eq!(
        attr(claude, "error.type"),
        Some(&OtelValue::from("rate_limit"))
    );
    assert_eq!(claude.status, Status::error("429"));
    let codex = named("invoke_agent codex");
    assert_eq!((codex.start_time, codex.end_time), (at(100), at(190)));
    assert_eq!(codex.status, Status::Unset);
    // Per-turn usage adds up.
    assert_eq!(
        attr(codex, "gen_ai.usage.input_tokens"),
        Some(&OtelValue::I64(15))
    );
    assert_eq!(
        attr(codex, "gen_ai.usage.output_tokens"),
        Some(&OtelValue::I64(5))
    );
    // The model call ends at its event and started its latency before.
    let call = named("chat opus");
    assert_eq!(call.parent_span_id, claude.span_context.span_id());
    assert_eq!((call.start_time, call.end_time), (at(10), at(40)));
    assert_eq!(call.status, Status::error("HTTP 429"));
    // A tool call from its use to its result; one without a result ends
    // with its attempt.
    let shell = named("execute_tool exec_command");
    assert_eq!(shell.parent_span_id, codex.span_context.span_id());
    assert_eq!((shell.start_time, shell.end_time), (at(120), at(150)));
    assert!(matches!(shell.status, Status::Error { .. }));
    let read = named("execute_tool Read");
    assert_eq!((read.start_time, read.end_time), (at(160), at(190)));
    assert_eq!(spans.len(), 6, "{spans:#?}");
    assert!(
        spans
            .iter()
            .all(|s| s.span_context.trace_id() == given.trace_id)
    );
}

#[test]
fn an_unsampled_parent_exports_nothing_and_no_parent_starts_a_trace() {
    let unsampled = TraceContext::parse(
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00",
        None,
    )
    .unwrap();
    assert!(spans_of(SpanParent::remote(Some(&unsampled))).is_empty());
    let spans = spans_of(SpanParent::remote(None));
    let run = spans.iter().find(|s| s.name == "agentgate.run").unwrap();
    assert_eq!(run.parent_span_id, opentelemetry::trace::SpanId::INVALID);
    assert_ne!(
        run.span_context.trace_id(),
        opentelemetry::trace::TraceId::INVALID
    );
}
