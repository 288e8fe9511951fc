use agentgate_protocol::{
    ActivityClass, ChangedFile, Envelope, ErrorKind, TokensUsed, Usage, WorkspaceReport,
    estimate_output_tokens, exit_code_for,
};
use serde_json::{Value, json};

use super::samples;

/// Every field of the shell-wrapper envelope, as a path of object keys.
const WRAPPER_FIELDS: &[&[&str]] = &[
    &["response"],
    &["session_id"],
    &["reasoning"],
    &["tokens_used"],
    &["tokens_used", "input_tokens"],
    &["tokens_used", "output_tokens"],
    &["tokens_used", "estimated_output_tokens"],
    &["tokens_used", "total_tokens"],
    &["tokens_used", "cost_usd"],
    &["tokens_used", "cache_read_input_tokens"],
    &["tokens_used", "cache_creation_input_tokens"],
    &["metadata"],
    &["metadata", "token_usage_available"],
    &["metadata", "reasoning_available"],
    &["metadata", "reasoning_source"],
    &["metadata", "reasoning_absent_reason"],
    &["metadata", "tool_activity"],
    &["model_resolution"],
];

/// The wrapper's failure-only fields.
const WRAPPER_ERROR_FIELDS: &[&str] = &["error", "error_type", "exit_code", "recoverable"];

/// The wrapper's `metadata.tool_activity` fields.
const TOOL_ACTIVITY_FIELDS: &[&str] = &[
    "call_count",
    "write_count",
    "error_count",
    "tool_names",
    "result_classes",
    "activity_class",
    "source",
];

/// What agentgate adds.
const AGENTGATE_FIELDS: &[&str] = &[
    "run_id",
    "provider",
    "model",
    "duration_ms",
    "attempts",
    "stderr_tail",
    "reasoning_tokens",
    "context_tokens",
    "retry_after_s",
    "reset_at",
    "session_recreated",
    "structured_output",
    "agent",
    "chain",
    "workspace",
    "tool",
    "workflow",
    "approvals",
    "warm",
];

fn has(value: &Value, path: &[&str]) -> bool {
    let mut at = value;
    for key in path {
        match at.get(key) {
            Some(next) => at = next,
            None => return false,
        }
    }
    true
}

#[test]
fn success_wire_shape() {
    assert_eq!(
        serde_json::to_value(samples::success_envelope()).unwrap(),
        json!({
            "response": "Done: added the test.",
            "session_id": "sess-1",
            "reasoning": "Look at the file first.",
            "tokens_used": {
                "input_tokens": 1200,
                "output_tokens": 450,
                "estimated_output_tokens": 5,
                "total_tokens": 1650,
                "cost_usd": 0.012,
                "cache_read_input_tokens": 800,
                "cache_creation_input_tokens": 100,
                "estimated": false,
            },
            "metadata": {
                "token_usage_available": true,
                "reasoning_available": true,
                "reasoning_source": "raw_output",
                "reasoning_absent_reason": "available",
                "tool_activity": {
                    "call_count": 2,
                    "write_count": 1,
                    "error_count": 0,
                    "tool_names": ["Read", "Edit"],
                    "result_classes": ["read", "write"],
                    "activity_class": "write_active",
                    "source": "stream:claude",
                },
            },
            "model_resolution": null,
            "run_id": "run_01",
            "provider": "claude",
            "model": "claude-sonnet-4-5",
            "duration_ms": 4200,
            "attempts": [{
                "provider": "claude",
                "model": "claude-sonnet-4-5",
                "agent": "main",
                "session_id": "sess-1",
                "duration_ms": 4100,
                "exit_code": 0,
                "error_type": null,
                "error": null,
                "recoverable": null,
                "reset_at": null,
                "skipped": false,
                "survivors": [],
            }],
            "stderr_tail": null,
            "reasoning_tokens": 120,
            "context_tokens": 1650,
            "retry_after_s": null,
            "reset_at": null,
            "session_recreated": false,
            "structured_output": null,
            "agent": null,
            "chain": null,
            "workspace": null,
            "tool": null,
            "workflow": null,
            "approvals": null,
            "warm": null,
        })
    );
}

#[test]
fn failure_wire_shape() {
    assert_eq!(
        serde_json::to_value(samples::failure_envelope()).unwrap(),
        json!({
            "response": "",
            "session_id": null,
            "reasoning": "",
            "tokens_used": {
                "input_tokens": 0,
                "output_tokens": 0,
                "estimated_output_tokens": 0,
                "total_tokens": 0,
                "cost_usd": null,
                "cache_read_input_tokens": 0,
                "cache_creation_input_tokens": 0,
                "estimated": false,
            },
            "metadata": {
                "token_usage_available": false,
                "reasoning_available": false,
                "reasoning_source": "none",
                "reasoning_absent_reason": "error_path",
                "tool_activity": null,
            },
            "model_resolution": null,
            "error": "You've hit your usage limit. Try again at 3:28 PM.",
            "error_type": "quota",
            "exit_code": 75,
            "recoverable": true,
            "run_id": "run_01",
            "provider": "codex",
            "model": null,
            "duration_ms": 900,
            "attempts": [{
                "provider": "codex",
                "model": null,
                "agent": null,
                "session_id": null,
                "duration_ms": 850,
                "exit_code": 1,
                "error_type": "quota",
                "error": "You've hit your usage limit. Try again at 3:28 PM.",
                "recoverable": true,
                "reset_at": "2026-05-01T15:28:00Z",
                "skipped": false,
                "survivors": [],
            }],
            "stderr_tail": "Reading additional input from stdin...",
            "reasoning_tokens": 0,
            "context_tokens": null,
            "retry_after_s": null,
            "reset_at": "2026-05-01T15:28:00Z",
            "session_recreated": false,
            "structured_output": null,
            "agent": null,
            "chain": null,
            "workspace": null,
            "tool": null,
            "workflow": null,
            "approvals": null,
            "warm": null,
        })
    );
}

#[test]
fn keeps_every_wrapper_field_name() {
    let success = serde_json::to_value(samples::success_envelope()).unwrap();
    let failure = serde_json::to_value(samples::failure_envelope()).unwrap();
    for envelope in [&success, &failure] {
        for path in WRAPPER_FIELDS {
            assert!(has(envelope, path), "missing {path:?} in {envelope}");
        }
        for field in AGENTGATE_FIELDS {
            assert!(has(envelope, &[field]), "missing {field} in {envelope}");
        }
    }
    for field in TOOL_ACTIVITY_FIELDS {
        assert!(
            has(&success, &["metadata", "tool_activity", field]),
            "missing tool_activity.{field}"
        );
    }
    for field in WRAPPER_ERROR_FIELDS {
        assert!(has(&failure, &[field]), "failure lacks {field}");
        assert!(!has(&success, &[field]), "success carries {field}");
    }
}

#[test]
fn empty_envelope_has_the_full_shape() {
    let value = serde_json::to_value(Envelope::new("r")).unwrap();
    let keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut expected: Vec<&str> = WRAPPER_FIELDS
        .iter()
        .filter(|path| path.len() == 1)
        .map(|path| path[0])
        .chain(AGENTGATE_FIELDS.iter().copied())
        .collect();
    let mut keys = keys;
    keys.sort_unstable();
    expected.sort_unstable();
    assert_eq!(keys, expected);
}

#[test]
fn round_trips_and_reads_a_wrapper_envelope() {
    for envelope in [samples::success_envelope(), samples::failure_envelope()] {
        let text = serde_json::to_string(&envelope).unwrap();
        assert_eq!(serde_json::from_str::<Envelope>(&text).unwrap(), envelope);
    }

    // What a shell wrapper printed for a failure: no agentgate fields.
    let wrapper = json!({
        "response": "",
        "session_id": "abc",
        "reasoning": "",
        "tokens_used": {
            "input_tokens": 0, "output_tokens": 0, "estimated_output_tokens": 0,
            "total_tokens": 0, "cost_usd": 0, "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
        },
        "metadata": {
            "token_usage_available": false, "reasoning_available": false,
            "reasoning_source": "none", "reasoning_absent_reason": "error_path",
        },
        "error": "timed out",
        "error_type": "timeout",
        "exit_code": 124,
        "recoverable": true,
    });
    let envelope: Envelope = serde_json::from_value(wrapper).unwrap();
    assert!(!envelope.is_success());
    assert_eq!(envelope.error_type, Some(ErrorKind::Timeout));
    assert_eq!(envelope.session_id.as_deref(), Some("abc"));
    assert_eq!(envelope.tokens_used.cost_usd, Some(0.0));
    assert_eq!(envelope.metadata.tool_activity, None);
}

#[test]
fn with_error_fills_the_failure_fields() {
    let error = samples::quota_error();
    let code = exit_code_for(Some(error.kind), error.recoverable);
    let envelope = Envelope::new("r").with_error(&error, code);
    assert!(!envelope.is_success());
    assert_eq!(envelope.error.as_deref(), Some(error.message.as_str()));
    assert_eq!(envelope.error_type, Some(ErrorKind::Quota));
    assert_eq!(envelope.recoverable, Some(true));
    assert_eq!(envelope.exit_code, Some(75));
    assert_eq!(envelope.reset_at, error.reset_at);
    assert!(Envelope::new("r").is_success());
}

#[test]
fn tokens_used_copies_usage_and_estimates_output() {
    let usage = Usage {
        input_tokens: 10,
        output_tokens: 3,
        total_tokens: 13,
        cost_usd: None,
        estimated: true,
        ..Usage::default()
    };
    let tokens = TokensUsed::from_usage(&usage, "twelve chars");
    assert_eq!(
        serde_json::to_value(tokens).unwrap(),
        json!({
            "input_tokens": 10,
            "output_tokens": 3,
            "estimated_output_tokens": 3,
            "total_tokens": 13,
            "cost_usd": null,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "estimated": true,
        })
    );
    assert_eq!(estimate_output_tokens(""), 0);
    assert_eq!(estimate_output_tokens("ab"), 1);
    // Characters, not bytes.
    assert_eq!(estimate_output_tokens("éééééééé"), 2);
}

#[test]
fn activity_class_rolls_up_in_the_wrapper_order() {
    assert_eq!(ActivityClass::from_counts(0, 0, 0), ActivityClass::None);
    assert_eq!(
        ActivityClass::from_counts(3, 0, 0),
        ActivityClass::ToolActive
    );
    assert_eq!(
        ActivityClass::from_counts(3, 1, 0),
        ActivityClass::WriteActive
    );
    assert_eq!(
        ActivityClass::from_counts(3, 1, 1),
        ActivityClass::ToolErrors
    );
}

#[test]
fn a_kept_worktree_is_reported_with_its_branch_and_files() {
    let mut envelope = Envelope::new("r1");
    envelope.workspace = Some(WorkspaceReport {
        mode: "worktree".into(),
        repository: "/src/app".into(),
        path: "/home/u/.local/share/agentgate/runs/r1/worktree".into(),
        cwd: "/home/u/.local/share/agentgate/runs/r1/worktree/web".into(),
        branch: "agentgate/r1".into(),
        base_commit: "0123abcd".into(),
        kept: true,
        changed_files: vec![ChangedFile {
            path: "web/index.html".into(),
            change: "modified".into(),
        }],
    });
    let value = serde_json::to_value(&envelope).unwrap();
    assert_eq!(
        value["workspace"],
        json!({
            "mode": "worktree",
            "repository": "/src/app",
            "path": "/home/u/.local/share/agentgate/runs/r1/worktree",
            "cwd": "/home/u/.local/share/agentgate/runs/r1/worktree/web",
            "branch": "agentgate/r1",
            "base_commit": "0123abcd",
            "kept": true,
            "changed_files": [{"path": "web/index.html", "change": "modified"}],
        })
    );
    assert_eq!(serde_json::from_value::<Envelope>(value).unwrap(), envelope);
}
