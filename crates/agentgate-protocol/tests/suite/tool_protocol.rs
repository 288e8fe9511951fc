//! The tool protocol v1: the seed's message lines read into typed messages
//! and written back unchanged; what is not a message is kept, not lost.

use agentgate_protocol::{
    ErrorKind, TOOL_MESSAGE_TYPES, ToolEnvelope, ToolErrorClass, ToolLine, ToolMessage,
    ToolMessageBody, ToolStatus,
};
use base64::Engine as _;
use serde_json::{Value, json};

use super::schema::assert_valid;

/// The message lines of seed 002's protocol section, one per type (the
/// `task_*` lines of its orchestrator example included).
const SEED_LINES: &[&str] = &[
    r#"{"v":1,"type":"start","ts":"2025-08-30T12:34:56Z","run_id":"r-123","step":"analyze","args":{"input":"data.json"}}"#,
    r#"{"v":1,"type":"progress","ts":"2025-08-30T12:34:56Z","run_id":"r-123","step":"analyze","pct":37.5,"msg":"Reading shard 3/8"}"#,
    r#"{"v":1,"type":"heartbeat","ts":"2025-08-30T12:34:56Z","run_id":"r-123","step":"analyze"}"#,
    r#"{"v":1,"type":"action_required","ts":"2025-08-30T12:34:56Z","run_id":"r-123","action":"choose_migration_strategy","context":{"files":1234,"batch_size":50}}"#,
    r#"{"v":1,"type":"result","ts":"2025-08-30T12:34:56Z","run_id":"r-123","status":"ok","artifacts":[{"path":"./out/report.json","sha256":"ab12"}],"metrics":{"rows":42017,"duration_s":12.4}}"#,
    r#"{"v":1,"type":"error","ts":"2025-08-30T12:34:56Z","run_id":"r-123","code":"E_INPUT_NOT_FOUND","msg":"data.json not found","hint":"Check path or mount","retryable":false}"#,
    r#"{"v":1,"type":"cancelled","ts":"2025-08-30T12:34:56Z","run_id":"r-123","reason":"cancel-file"}"#,
    r#"{"v":1,"type":"log","ts":"2025-08-30T12:34:56Z","run_id":"r-123","level":"info","msg":"Validated schema v2.1"}"#,
    r#"{"v":1,"type":"task_submitted","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","payload":{"command":"transform --part 5"}}"#,
    r#"{"v":1,"type":"task_started","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","child_run_id":"r-child-1"}"#,
    r#"{"v":1,"type":"task_done","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","status":"ok","child_rc":0,"events_count":4}"#,
    r#"{"v":1,"type":"task_progress","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","child_run_id":"r-child-1","child_event":{"type":"progress","pct":50}}"#,
    r#"{"v":1,"type":"task_action_required","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","child_event":{"type":"action_required","action":"pick"}}"#,
    r#"{"v":1,"type":"task_error","ts":"2025-08-30T12:34:56Z","run_id":"r-123","task_id":"t-5","child_event":{"type":"error","code":"E_UNKNOWN"}}"#,
];

/// The message a line reads as; `None` if it was kept as text.
fn message(line: &str) -> Option<ToolMessage> {
    match ToolMessage::parse_line(line.as_bytes()) {
        ToolLine::Message(message) => Some(message),
        ToolLine::Text(_) | ToolLine::Refused { .. } => None,
    }
}

#[test]
fn every_seed_line_reads_typed_and_writes_back_unchanged() {
    assert_eq!(SEED_LINES.len(), TOOL_MESSAGE_TYPES.len());
    for (line, expected_type) in SEED_LINES.iter().zip(TOOL_MESSAGE_TYPES) {
        let message = message(line).unwrap();
        assert_eq!(message.body.type_name(), *expected_type);
        assert!(
            !matches!(
                message.body,
                ToolMessageBody::Unknown(_) | ToolMessageBody::Malformed(_)
            ),
            "{line} was not read as its type"
        );
        let original: Value = serde_json::from_str(line).unwrap();
        assert_eq!(serde_json::to_value(&message).unwrap(), original, "{line}");
        assert_valid("tool-message.schema.json", &original);
    }
}

#[test]
fn typed_fields_carry_the_values() {
    let ToolMessageBody::Progress(progress) = message(SEED_LINES[1]).unwrap().body else {
        panic!("not progress");
    };
    assert_eq!(
        progress.pct.as_ref().and_then(serde_json::Number::as_f64),
        Some(37.5)
    );
    assert_eq!(progress.msg.as_deref(), Some("Reading shard 3/8"));
    let ToolMessageBody::Result(result) = message(SEED_LINES[4]).unwrap().body else {
        panic!("not result");
    };
    assert_eq!(result.artifacts[0].path, "./out/report.json");
    assert_eq!(result.artifacts[0].sha256.as_deref(), Some("ab12"));
    assert_eq!(result.metrics.unwrap()["rows"], json!(42017));
    let ToolMessageBody::Error(error) = message(SEED_LINES[5]).unwrap().body else {
        panic!("not error");
    };
    assert_eq!(error.code, "E_INPUT_NOT_FOUND");
    assert_eq!(error.retryable, Some(false));
    assert!(message(SEED_LINES[2]).unwrap().body.is_liveness());
    assert!(message(SEED_LINES[1]).unwrap().body.is_liveness());
    assert!(!message(SEED_LINES[7]).unwrap().body.is_liveness());
}

#[test]
fn fields_a_type_does_not_name_are_kept() {
    let line = r#"{"v":1,"type":"progress","run_id":"r","pct":10,"eta_s":42,"shard":{"n":3}}"#;
    let message = message(line).unwrap();
    let ToolMessageBody::Progress(progress) = &message.body else {
        panic!("not progress");
    };
    assert_eq!(progress.extra["eta_s"], json!(42));
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        serde_json::from_str::<Value>(line).unwrap()
    );
}

#[test]
fn an_unknown_type_is_kept_with_every_field() {
    let line = r#"{"v":2,"type":"metric_sample","run_id":"r","cpu":0.5,"nested":[1,2]}"#;
    let message = message(line).unwrap();
    assert!(matches!(message.body, ToolMessageBody::Unknown(_)));
    assert_eq!(message.body.type_name(), "metric_sample");
    assert_eq!(message.v, Some(2));
    assert_eq!(
        serde_json::to_value(&message).unwrap(),
        serde_json::from_str::<Value>(line).unwrap()
    );
}

#[test]
fn a_known_type_with_bad_fields_is_kept_as_malformed() {
    for line in [
        r#"{"v":1,"type":"progress","pct":"half"}"#,
        r#"{"v":1,"type":"error","msg":"no code"}"#,
        r#"{"v":1,"type":"action_required","context":{}}"#,
    ] {
        let message = message(line).unwrap();
        assert!(
            matches!(message.body, ToolMessageBody::Malformed(_)),
            "{line}: {message:?}"
        );
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            serde_json::from_str::<Value>(line).unwrap()
        );
    }
}

#[test]
fn a_line_that_is_not_a_message_becomes_a_log_with_its_text() {
    for line in [
        "Traceback (most recent call last):",
        "{\"half\": ",
        "[1,2,3]",
        "{\"no_type\":true}",
        "{\"type\":7}",
        "",
    ] {
        let ToolLine::Text(message) = ToolMessage::parse_line(line.as_bytes()) else {
            panic!("{line:?} read as a message");
        };
        let ToolMessageBody::Log(log) = &message.body else {
            panic!("not a log");
        };
        assert_eq!(log.msg, line);
        assert_eq!(log.level, "warn");
        assert_eq!(log.extra["non_json"], json!(true));
        assert!(!log.extra.contains_key("bytes_base64"));
    }
    let bytes = b"caf\xe9 \xff";
    let message = ToolMessage::parse_line(bytes).into_message();
    let ToolMessageBody::Log(log) = &message.body else {
        panic!("not a log");
    };
    assert_eq!(log.msg, "caf\u{fffd} \u{fffd}");
    let encoded = log.extra["bytes_base64"].as_str().unwrap();
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .unwrap();
    assert_eq!(decoded, bytes);
}

#[test]
fn a_line_that_gives_a_key_twice_is_no_message_but_is_kept() {
    let line = r#"{"v":1,"type":"result","status":"ok","status":"failed"}"#;
    let ToolLine::Refused { message, reason } = ToolMessage::parse_line(line.as_bytes()) else {
        panic!("{line} read as a message");
    };
    assert!(reason.contains("duplicate key `status`"), "{reason}");
    let ToolMessageBody::Log(log) = &message.body else {
        panic!("not a log");
    };
    assert_eq!(log.msg, line, "the line is kept as it came");
    assert_eq!(log.extra["non_json"], json!(true));
    assert_eq!(log.extra["refused"], json!(reason));
    // Nested objects count too.
    let nested = r#"{"v":1,"type":"result","metrics":{"rows":1,"rows":2}}"#;
    assert!(matches!(
        ToolMessage::parse_line(nested.as_bytes()),
        ToolLine::Refused { .. }
    ));
}

#[test]
fn tool_exit_status_and_error_kind() {
    let cases = [
        (ToolStatus::Ok, None, None, false, 0, None),
        (ToolStatus::ActionRequired, None, None, false, 0, None),
        (
            ToolStatus::Cancelled,
            None,
            None,
            false,
            130,
            Some(ErrorKind::Cancelled),
        ),
        (
            ToolStatus::Error,
            Some("E_POLICY"),
            Some(ToolErrorClass::PolicyError),
            false,
            2,
            Some(ErrorKind::Policy),
        ),
        (
            ToolStatus::Error,
            Some("E_PERMISSION"),
            Some(ToolErrorClass::PolicyError),
            false,
            1,
            Some(ErrorKind::Policy),
        ),
        (
            ToolStatus::Error,
            Some("E_TIMEOUT"),
            Some(ToolErrorClass::InfraError),
            false,
            124,
            Some(ErrorKind::Timeout),
        ),
        (
            ToolStatus::Error,
            Some("E_HEARTBEAT_MISSED"),
            Some(ToolErrorClass::InfraError),
            true,
            124,
            Some(ErrorKind::IdleTimeout),
        ),
        (
            ToolStatus::Error,
            Some("E_RATE_LIMIT"),
            Some(ToolErrorClass::Retryable),
            true,
            75,
            Some(ErrorKind::ToolError),
        ),
        (
            ToolStatus::Error,
            Some("E_WHATEVER"),
            Some(ToolErrorClass::Unknown),
            false,
            1,
            Some(ErrorKind::ToolError),
        ),
    ];
    for (status, code, class, retryable, exit, kind) in cases {
        assert_eq!(
            ToolEnvelope::exit_status_for(status, code, class, retryable),
            exit,
            "{status:?} {code:?}"
        );
        let envelope = ToolEnvelope {
            run_id: "r".to_owned(),
            tool: "t".to_owned(),
            version: "1".to_owned(),
            status,
            code: code.map(str::to_owned),
            class,
            retryable,
            error: None,
            hint: None,
            artifacts: Vec::new(),
            metrics: serde_json::Map::new(),
            actions: Vec::new(),
            tool_exit: None,
            exit_code: exit,
            duration_ms: 1,
            cpu_ms: None,
            max_rss_kib: None,
            limits: None,
            workspace: None,
            parent_run_id: None,
            resumed_from: None,
            stderr_tail: None,
            warnings: Vec::new(),
        };
        assert_eq!(envelope.error_kind(), kind, "{status:?} {code:?}");
        assert_valid(
            "tool-envelope.schema.json",
            &serde_json::to_value(&envelope).unwrap(),
        );
    }
}
