use std::collections::BTreeSet;

use agentgate_protocol::{
    EVENT_TYPES, ErrorKind, Event, EventBody, HeartbeatEvent, PROTOCOL_VERSION, RawEvent,
    RawStream, STATUS_KINDS, StatusEvent, TextDeltaEvent, ToolResultEvent,
};
use serde_json::{Value, json};

use super::samples::{self, RUN_ID, TS};

#[test]
fn every_event_round_trips_through_json_text() {
    for event in samples::events() {
        let line = serde_json::to_string(&event).unwrap();
        assert!(
            !line.contains('\n'),
            "an event must fit one JSONL line: {line}"
        );
        let back: Event = serde_json::from_str(&line).unwrap();
        assert_eq!(back, event, "round trip changed {line}");
    }
}

#[test]
fn samples_cover_every_event_type_and_type_names_match_the_wire() {
    let mut seen = BTreeSet::new();
    for event in samples::events() {
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["type"], event.body.type_name(), "in {value}");
        seen.insert(event.body.type_name().to_owned());
    }
    let declared: BTreeSet<String> = EVENT_TYPES.iter().map(|t| (*t).to_owned()).collect();
    assert_eq!(
        declared.len(),
        EVENT_TYPES.len(),
        "EVENT_TYPES has duplicates"
    );
    assert_eq!(seen, declared);
}

#[test]
fn samples_cover_every_status_kind_and_kind_names_match_the_wire() {
    let mut seen = BTreeSet::new();
    for event in samples::events() {
        let EventBody::Status(status) = &event.body else {
            continue;
        };
        let value = serde_json::to_value(&event).unwrap();
        assert_eq!(value["kind"], status.kind_name(), "in {value}");
        seen.insert(status.kind_name().to_owned());
    }
    let declared: BTreeSet<String> = STATUS_KINDS.iter().map(|k| (*k).to_owned()).collect();
    assert_eq!(
        declared.len(),
        STATUS_KINDS.len(),
        "STATUS_KINDS has duplicates"
    );
    assert_eq!(seen, declared);
}

/// A skipped step: the header names its provider and the attempt number
/// it takes, the body the step as `failover` names it, why and until when.
#[test]
fn skipped_wire_shape() {
    let event = Event::new(
        RUN_ID,
        2,
        TS,
        EventBody::Status(StatusEvent::Skipped {
            step: "reviewer (claude)".to_owned(),
            error_type: ErrorKind::Budget,
            reset_at: Some("2026-05-02T00:00:00Z".to_owned()),
            message: "skipped reviewer (claude): the day budget of agent reviewer: $5.01 of $5 spent already by 3 runs".to_owned(),
        }),
    )
    .with_attempt("claude", 2);
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(
        value,
        json!({
            "v": 1, "ts": TS, "run_id": RUN_ID, "seq": 2,
            "provider": "claude", "attempt": 2,
            "type": "status", "kind": "skipped",
            "step": "reviewer (claude)",
            "error_type": "budget",
            "reset_at": "2026-05-02T00:00:00Z",
            "message": "skipped reviewer (claude): the day budget of agent reviewer: $5.01 of $5 spent already by 3 runs",
        })
    );
    // No reset time known: the field is left out, and reads back as None.
    let mut unknown_reset = value.clone();
    unknown_reset.as_object_mut().unwrap().remove("reset_at");
    let back: Event = serde_json::from_value(unknown_reset).unwrap();
    assert!(
        matches!(
            &back.body,
            EventBody::Status(StatusEvent::Skipped {
                reset_at: None,
                error_type: ErrorKind::Budget,
                ..
            })
        ),
        "{back:?}"
    );
}

/// A status `kind` this version does not know (a newer agentgate's) is read
/// with all its fields and written back unchanged; the lines around it
/// still parse. A known kind with malformed fields is still an error.
#[test]
fn unknown_status_kind_is_kept_not_rejected() {
    let line = json!({
        "v": 1, "ts": TS, "run_id": RUN_ID, "seq": 5,
        "provider": "claude", "attempt": 1,
        "type": "status", "kind": "parked",
        "until": "2026-05-01T13:00:00Z",
        "big": 18_446_744_073_709_551_615_u64,
    });
    let event: Event = serde_json::from_value(line.clone()).unwrap();
    assert_eq!(event.body.type_name(), "status");
    let EventBody::Status(status) = &event.body else {
        panic!("expected a status, got {:?}", event.body);
    };
    assert_eq!(status.kind_name(), "parked");
    let StatusEvent::Unknown(fields) = status else {
        panic!("expected Unknown, got {status:?}");
    };
    assert_eq!(fields["until"], "2026-05-01T13:00:00Z");
    assert_eq!(serde_json::to_value(&event).unwrap(), line);

    let jsonl = format!(
        "{}\n{}\n",
        serde_json::to_string(&line).unwrap(),
        r#"{"v":1,"ts":"2026-05-01T12:00:02Z","run_id":"r","seq":6,"type":"status","kind":"notice","detail":"hi"}"#,
    );
    let kinds: Vec<String> = jsonl
        .lines()
        .map(|l| match serde_json::from_str::<Event>(l).unwrap().body {
            EventBody::Status(s) => s.kind_name().to_owned(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(kinds, ["parked", "notice"]);

    let malformed = json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0,
        "type": "status", "kind": "skipped", "step": "claude", "error_type": "quota"});
    let err = serde_json::from_value::<Event>(malformed)
        .unwrap_err()
        .to_string();
    assert!(err.contains("message"), "unexpected error: {err}");
    let untagged = json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0,
        "type": "status", "detail": "no kind"});
    assert!(serde_json::from_value::<Event>(untagged).is_err());
    let non_string = json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0,
        "type": "status", "kind": 7});
    assert!(serde_json::from_value::<Event>(non_string).is_err());
}

#[test]
fn text_delta_wire_shape() {
    let event = Event::new(
        RUN_ID,
        3,
        TS,
        EventBody::TextDelta(TextDeltaEvent {
            text: "Hel".to_owned(),
        }),
    )
    .with_attempt("claude", 1);
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "v": 1,
            "ts": "2026-05-01T12:00:00.123Z",
            "run_id": "run_01",
            "seq": 3,
            "provider": "claude",
            "attempt": 1,
            "type": "text_delta",
            "text": "Hel",
        })
    );
}

#[test]
fn header_omits_provider_and_attempt_until_known() {
    let heartbeat = HeartbeatEvent {
        elapsed_ms: 1000,
        idle_ms: 500,
    };
    let event = Event::new(RUN_ID, 0, TS, EventBody::Heartbeat(heartbeat));
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "v": PROTOCOL_VERSION,
            "ts": TS,
            "run_id": RUN_ID,
            "seq": 0,
            "type": "heartbeat",
            "elapsed_ms": 1000,
            "idle_ms": 500,
        })
    );
}

#[test]
fn tool_use_and_tool_result_wire_shape() {
    let bodies = samples::bodies();
    let shapes: Vec<Value> = bodies
        .iter()
        .filter(|b| matches!(b, EventBody::ToolUse(_) | EventBody::ToolResult(_)))
        .map(|b| serde_json::to_value(b).unwrap())
        .collect();
    assert_eq!(
        shapes,
        vec![
            json!({
                "type": "tool_use",
                "id": "toolu_1",
                "name": "Bash",
                "class": "shell",
                "input": {"command": "ls -la", "timeout": 5000},
            }),
            json!({
                "type": "tool_result",
                "id": "toolu_1",
                "ok": true,
                "output": "a\nb\n",
                "truncated": false,
                "exit_code": 0,
            }),
            json!({
                "type": "tool_result",
                "id": "toolu_2",
                "ok": false,
                "output": "xxxxxxxxxx",
                "truncated": true,
                "original_bytes": 100,
            }),
        ]
    );
}

#[test]
fn status_retry_and_error_wire_shape() {
    let retry = EventBody::Status(StatusEvent::Retry {
        retry_attempt: Some(2),
        max_retries: Some(10),
        delay_ms: Some(1200),
        provider_status: Some(529),
        detail: None,
    });
    let event = Event::new(RUN_ID, 7, TS, retry).with_attempt("claude", 2);
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({
            "v": 1,
            "ts": TS,
            "run_id": RUN_ID,
            "seq": 7,
            "provider": "claude",
            "attempt": 2,
            "type": "status",
            "kind": "retry",
            "retry_attempt": 2,
            "max_retries": 10,
            "delay_ms": 1200,
            "provider_status": 529,
        })
    );

    let error = Event::new(RUN_ID, 8, TS, EventBody::Error(samples::quota_error()));
    assert_eq!(
        serde_json::to_value(&error).unwrap(),
        json!({
            "v": 1,
            "ts": TS,
            "run_id": RUN_ID,
            "seq": 8,
            "type": "error",
            "kind": "quota",
            "message": "You've hit your usage limit. Try again at 3:28 PM.",
            "recoverable": true,
            "exit_code": 1,
            "reset_at": "2026-05-01T15:28:00Z",
            "provider_status": 429,
            "source": "pattern",
        })
    );
}

#[test]
fn result_event_nests_the_envelope() {
    let envelope = samples::success_envelope();
    let event = Event::new(
        RUN_ID,
        9,
        TS,
        EventBody::Result(agentgate_protocol::ResultEvent {
            envelope: Box::new(envelope.clone()),
        }),
    );
    let value = serde_json::to_value(&event).unwrap();
    assert_eq!(value["type"], "result");
    assert_eq!(value["envelope"], serde_json::to_value(&envelope).unwrap());
}

#[test]
fn unknown_event_type_is_kept_not_rejected() {
    let line = json!({
        "v": 1,
        "ts": TS,
        "run_id": RUN_ID,
        "seq": 4,
        "provider": "codex",
        "type": "plan_update",
        "steps": [{"text": "read", "done": true}],
        "big": 18_446_744_073_709_551_615_u64,
    });
    let event: Event = serde_json::from_value(line.clone()).unwrap();
    assert_eq!(event.seq, 4);
    assert_eq!(event.provider.as_deref(), Some("codex"));
    assert_eq!(event.body.type_name(), "plan_update");
    let EventBody::Unknown(fields) = &event.body else {
        panic!("expected Unknown, got {:?}", event.body);
    };
    assert_eq!(fields["steps"], json!([{"text": "read", "done": true}]));
    // Forwarding it writes the same object back.
    assert_eq!(serde_json::to_value(&event).unwrap(), line);
}

#[test]
fn a_stream_with_an_unknown_line_still_parses_line_by_line() {
    let jsonl = format!(
        "{}\n{}\n{}\n",
        r#"{"v":1,"ts":"2026-05-01T12:00:00Z","run_id":"r","seq":0,"type":"text_delta","text":"a"}"#,
        r#"{"v":2,"ts":"2026-05-01T12:00:01Z","run_id":"r","seq":1,"type":"hologram","x":1}"#,
        r#"{"v":1,"ts":"2026-05-01T12:00:02Z","run_id":"r","seq":2,"type":"heartbeat","elapsed_ms":2,"idle_ms":1}"#,
    );
    let types: Vec<String> = jsonl
        .lines()
        .map(|line| serde_json::from_str::<Event>(line).unwrap())
        .map(|event| event.body.type_name().to_owned())
        .collect();
    assert_eq!(types, ["text_delta", "hologram", "heartbeat"]);
}

#[test]
fn known_type_with_malformed_fields_is_an_error_not_unknown() {
    let bad =
        json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0, "type": "text_delta", "text": 5});
    let err = serde_json::from_value::<Event>(bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("invalid type"), "unexpected error: {err}");

    let untyped = json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0, "text": "a"});
    let err = serde_json::from_value::<Event>(untyped)
        .unwrap_err()
        .to_string();
    assert!(err.contains("type"), "unexpected error: {err}");

    let non_string = json!({"v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0, "type": 3});
    assert!(serde_json::from_value::<Event>(non_string).is_err());
}

#[test]
fn unknown_fields_of_a_known_type_are_ignored() {
    let line = json!({
        "v": 1, "ts": TS, "run_id": RUN_ID, "seq": 1,
        "type": "message", "text": "Hi", "added_in_v1_5": true,
    });
    let event: Event = serde_json::from_value(line).unwrap();
    assert_eq!(
        event.body,
        EventBody::Message(agentgate_protocol::MessageEvent {
            text: "Hi".to_owned()
        })
    );
}

#[test]
fn raw_keeps_invalid_utf8_lossless() {
    let bytes = b"bad \xff\xfe bytes\r";
    let raw = RawEvent::from_bytes(RawStream::Stderr, bytes);
    assert_eq!(
        serde_json::to_value(&raw).unwrap(),
        json!({
            "stream": "stderr",
            "line": "bad \u{fffd}\u{fffd} bytes\r",
            "bytes_base64": "YmFkIP/+IGJ5dGVzDQ==",
        })
    );
    let back: RawEvent = serde_json::from_value(serde_json::to_value(&raw).unwrap()).unwrap();
    assert_eq!(back.bytes().unwrap(), bytes);

    let text = RawEvent::from_bytes(RawStream::Stdout, "plain ✓".as_bytes());
    assert_eq!(
        serde_json::to_value(&text).unwrap(),
        json!({"stream": "stdout", "line": "plain ✓"})
    );
    assert_eq!(text.bytes().unwrap(), "plain ✓".as_bytes());
}

#[test]
fn tool_result_truncates_on_a_char_boundary() {
    // "é" is two bytes: a cut after 3 bytes falls inside the second one.
    let result = ToolResultEvent::new("t", true, "éé", 3, None);
    assert_eq!(result.output, "é");
    assert!(result.truncated);
    assert_eq!(result.original_bytes, Some(4));

    let whole = ToolResultEvent::new("t", true, "éé", 4, None);
    assert_eq!(whole.output, "éé");
    assert!(!whole.truncated);
    assert_eq!(whole.original_bytes, None);

    let empty = ToolResultEvent::new("t", true, "abc", 0, None);
    assert_eq!(empty.output, "");
    assert!(empty.truncated);
}

#[test]
fn reads_events_without_optional_fields() {
    let minimal = json!({
        "v": 1, "ts": TS, "run_id": RUN_ID, "seq": 0,
        "type": "tool_result", "id": "t", "ok": true, "output": "",
    });
    let event: Event = serde_json::from_value(minimal).unwrap();
    assert_eq!(event.provider, None);
    assert_eq!(event.attempt, None);
    assert_eq!(
        event.body,
        EventBody::ToolResult(ToolResultEvent::new("t", true, "", 0, None))
    );
}
