use std::path::PathBuf;
use std::time::Duration;

use super::*;

fn refused(json: &str) -> RequestError {
    match RunRequest::from_json(json) {
        Err(e) => e,
        Ok(req) => req.to_flags().expect_err("the request was accepted"),
    }
}

#[test]
fn a_full_request_becomes_the_flags_of_agentgate_run() {
    let req = RunRequest::from_json(
        r#"{"prompt": "fix the bug", "providers": ["claude", "codex"], "model": "opus",
            "tier": "fast", "permission_mode": "acceptEdits", "cwd": "/srv/repo",
            "timeout": "90s", "idle_timeout": "1m", "env": {"A": "1"},
            "extra_args": ["--verbose"], "session": "s1", "session_busy": "fail",
            "retry_on": ["quota", "rate_limit"], "on_dirty": "stash",
            "handoff": "summary", "ignore_quota": true, "priority": 5, "workspace": "worktree",
            "idempotency_key": "k-1", "not_before": "2026-11-25T01:00:00Z"}"#,
    )
    .unwrap();
    let (flags, task) = req.to_flags().unwrap();
    assert_eq!(task.prompt, "fix the bug");
    assert_eq!(flags.providers, ["claude", "codex"]);
    assert_eq!(flags.model.as_deref(), Some("opus"));
    assert_eq!(flags.tier, Tier::Fast);
    assert_eq!(
        flags.settings.permission_mode,
        Some(PermissionMode::AcceptEdits)
    );
    assert_eq!(flags.settings.cwd, Some(PathBuf::from("/srv/repo")));
    assert_eq!(flags.settings.timeout, Some(Duration::from_secs(90)));
    assert_eq!(flags.settings.idle_timeout, Some(Duration::from_secs(60)));
    assert_eq!(flags.settings.env, [("A".to_owned(), "1".to_owned())]);
    assert_eq!(flags.settings.extra_args, ["--verbose"]);
    assert_eq!(flags.session.as_deref(), Some("s1"));
    assert_eq!(flags.session_busy, SessionBusy::Fail);
    assert_eq!(flags.settings.retry_on.unwrap().kinds.len(), 2);
    assert_eq!(flags.on_dirty, Some(OnDirty::Stash));
    assert_eq!(flags.handoff, Some(Handoff::Summary));
    assert!(flags.ignore_quota);
    assert_eq!(flags.settings.workspace, Some(WorkspaceMode::Worktree));
    assert_eq!(req.priority, 5);
    assert_eq!(req.not_before.unwrap().to_string(), "2026-11-25T01:00:00Z");
}

#[test]
fn a_request_survives_a_round_trip_through_json() {
    let req = RunRequest {
        task: Some(serde_json::json!({"prompt": "p", "context": {"k": 1}})),
        agents: vec!["fixer".into()],
        context: vec![PathBuf::from("/a/notes.md")],
        session: Some("s".into()),
        session_busy: Some(SessionBusy::Wait),
        tier: Some(Tier::Thinking),
        env: BTreeMap::from([("K".into(), "v".into())]),
        priority: -3,
        skip_context_file: true,
        ..RunRequest::default()
    };
    let text = serde_json::to_string(&req).unwrap();
    assert_eq!(RunRequest::from_json(&text).unwrap(), req);
    // Absent choices stay out of the JSON.
    assert!(
        !text.contains("providers") && !text.contains("ignore_quota"),
        "{text}"
    );
}

#[test]
fn a_task_object_is_read_as_a_json_task_input() {
    let req = RunRequest::from_json(
        r#"{"task": {"prompt": "review", "context": "ctx", "files": ["/r/a.rs"]}}"#,
    )
    .unwrap();
    let (_, task) = req.to_flags().unwrap();
    assert_eq!(task.prompt, "review");
    assert_eq!(task.context.as_deref(), Some("ctx"));
    assert_eq!(task.files, [PathBuf::from("/r/a.rs")]);
}

#[test]
fn a_file_name_goes_with_a_prompt_or_in_the_task_once() {
    let req = RunRequest::from_json(r#"{"prompt": "buy milk", "file_name": "note.md"}"#).unwrap();
    let (_, task) = req.to_flags().unwrap();
    assert_eq!(task.file_name.as_deref(), Some("note.md"));
    let req =
        RunRequest::from_json(r#"{"task": {"prompt": "p", "file_name": "in-task.md"}}"#).unwrap();
    assert_eq!(
        req.to_flags().unwrap().1.file_name.as_deref(),
        Some("in-task.md")
    );
    for bad in [
        r#"{"task": {"prompt": "p", "file_name": "a.md"}, "file_name": "b.md"}"#,
        r#"{"prompt": "p", "file_name": "two\nlines"}"#,
    ] {
        let e = RunRequest::from_json(bad).unwrap().to_flags().unwrap_err();
        assert_eq!(e.field, "file_name", "{bad}: {}", e.message);
    }
}

#[test]
fn every_refusal_names_its_field() {
    let cases = [
        (r#"{"prompt": "p", "colour": 1}"#, "colour"),
        (r#"{"prompt": "p", "timeout": 5}"#, "timeout"),
        (r#"{"prompt": "p", "timeout": "soon"}"#, "timeout"),
        (r#"{"prompt": "p", "cwd": "repo"}"#, "cwd"),
        (
            r#"{"prompt": "p", "context": ["/ok", "rel.md"]}"#,
            "context",
        ),
        (r#"{"prompt": "p", "task": {"prompt": "q"}}"#, "task"),
        (r#"{"model": "m"}"#, "prompt"),
        (r#"{"prompt": "  "}"#, "prompt"),
        (r#"{"task": "text"}"#, "task"),
        (
            r#"{"task": {"prompt": "q", "files": ["a.rs"]}}"#,
            "task.files",
        ),
        (
            r#"{"prompt": "p", "providers": ["claude"], "chain": "c"}"#,
            "chain",
        ),
        (
            r#"{"prompt": "p", "providers": ["claude", " "]}"#,
            "providers",
        ),
        (r#"{"prompt": "p", "session_busy": "fail"}"#, "session_busy"),
        (r#"{"prompt": "p", "warm": true}"#, "warm"),
        (
            r#"{"prompt": "p", "session": "s", "warm_idle": "1m"}"#,
            "warm_idle",
        ),
        (
            r#"{"prompt": "p", "session": "s", "warm": true, "warm_idle": "idle"}"#,
            "warm_idle",
        ),
        (
            r#"{"prompt": "p", "session": "s", "resume": "id"}"#,
            "resume",
        ),
        (r#"{"prompt": "p", "priority": 1001}"#, "priority"),
        (
            r#"{"prompt": "p", "idempotency_key": ""}"#,
            "idempotency_key",
        ),
        (r#"{"prompt": "p", "retry_on": ["auth"]}"#, "retry_on"),
        (
            r#"{"prompt": "p", "permission_mode": "root"}"#,
            "permission_mode",
        ),
        (r#"{"prompt": "p", "env": {"A=B": "1"}}"#, "env"),
        (r#"{"prompt": "p", "tier": "slow"}"#, "tier"),
        (r#"{"prompt": "p", "workspace": "clone"}"#, "workspace"),
        (r#"{"prompt": "p", "not_before": "tomorrow"}"#, "not_before"),
        (r#"["prompt"]"#, "request"),
        (r#"{"prompt": "p""#, "request"),
    ];
    for (json, field) in cases {
        let err = refused(json);
        assert_eq!(err.field, field, "{json}: {err}");
        assert!(!err.message.is_empty(), "{json}");
    }
}

#[test]
fn workspace_is_shared_or_worktree_and_absent_by_default() {
    let err = refused(r#"{"prompt": "p", "workspace": "clone"}"#);
    assert!(
        err.message.contains("`shared`") && err.message.contains("`worktree`"),
        "{err}"
    );
    let (flags, _) = RunRequest::from_json(r#"{"prompt": "p", "workspace": "shared"}"#)
        .unwrap()
        .to_flags()
        .unwrap();
    assert_eq!(flags.settings.workspace, Some(WorkspaceMode::Shared));
    let plain = RunRequest::from_json(r#"{"prompt": "p"}"#).unwrap();
    assert_eq!(plain.to_flags().unwrap().0.settings.workspace, None);
    assert!(!serde_json::to_string(&plain).unwrap().contains("workspace"));
}

#[test]
fn an_unknown_field_is_named_in_the_message() {
    let err = refused(r#"{"prompt": "p", "colour": 1}"#);
    assert!(err.message.contains("colour"), "{err}");
}

#[test]
fn a_request_asks_for_timeout_warnings_and_extension() {
    let req = RunRequest::from_json(
        r#"{"prompt": "p", "timeout": "10m", "timeout_warn": "80%,1m",
            "extend_on_activity": "5m", "max_timeout": "30m"}"#,
    )
    .unwrap();
    let (flags, _) = req.to_flags().unwrap();
    assert_eq!(
        flags.settings.timeout_warn.as_deref(),
        Some(
            &[
                agentgate_supervise::WarnPoint::Permille(800),
                agentgate_supervise::WarnPoint::Remaining(Duration::from_secs(60)),
            ][..]
        )
    );
    assert_eq!(
        flags.settings.extend_on_activity,
        Some(Duration::from_secs(300))
    );
    assert_eq!(flags.settings.max_timeout, Some(Duration::from_secs(1800)));
    for (body, field) in [
        (
            r#"{"prompt": "p", "timeout_warn": "always"}"#,
            "timeout_warn",
        ),
        (
            r#"{"prompt": "p", "extend_on_activity": "later"}"#,
            "extend_on_activity",
        ),
        (r#"{"prompt": "p", "max_timeout": "x"}"#, "max_timeout"),
    ] {
        let e = RunRequest::from_json(body).unwrap().to_flags().unwrap_err();
        assert_eq!(e.field, field, "{body}");
    }
}

#[test]
fn a_skill_needs_no_prompt_and_its_input_needs_a_skill() {
    let req = RunRequest::from_json(r#"{"skill": "greet", "input": {"name": "Ada"}}"#).unwrap();
    let (flags, task) = req.to_flags().unwrap();
    let call = flags.skill.unwrap();
    assert_eq!(call.name, "greet");
    assert_eq!(call.input_text(), r#"{"name":"Ada"}"#);
    assert_eq!(task.prompt, "");
    // A JSON string is passed as its text.
    let req = RunRequest::from_json(r#"{"skill": "greet", "input": "Ada"}"#).unwrap();
    assert_eq!(req.to_flags().unwrap().0.skill.unwrap().input_text(), "Ada");
    for (body, field) in [
        (r#"{"prompt": "p", "input": {}}"#, "input"),
        (r#"{"skill": "a b"}"#, "skill"),
        (r#"{"skill": "../x"}"#, "skill"),
        (r#"{"skill": ""}"#, "skill"),
        (r#"{}"#, "prompt"),
    ] {
        assert_eq!(refused(body).field, field, "{body}");
    }
}

#[test]
fn the_gateway_fields_become_the_gateway_flags() {
    let req = RunRequest::from_json(
        r#"{"prompt": "p", "gateway": true, "record_model_calls": true,
            "max_model_calls": 20, "max_input_tokens": 100000, "max_output_tokens": 4000,
            "max_model_time": "10m"}"#,
    )
    .unwrap();
    let (flags, _) = req.to_flags().unwrap();
    assert_eq!(flags.gateway, Some(true));
    assert!(flags.record_model_calls);
    assert_eq!(flags.gateway_limits.max_model_calls, Some(20));
    assert_eq!(flags.gateway_limits.max_input_tokens, Some(100_000));
    assert_eq!(flags.gateway_limits.max_output_tokens, Some(4000));
    assert_eq!(
        flags.gateway_limits.max_model_time,
        Some(Duration::from_secs(600))
    );
    let (flags, _) = RunRequest::from_json(r#"{"prompt": "p", "gateway": false}"#)
        .unwrap()
        .to_flags()
        .unwrap();
    assert_eq!(flags.gateway, Some(false));
    for (json, field) in [
        (
            r#"{"prompt": "p", "max_model_calls": 0}"#,
            "max_model_calls",
        ),
        (
            r#"{"prompt": "p", "max_output_tokens": 0}"#,
            "max_output_tokens",
        ),
        (
            r#"{"prompt": "p", "max_model_time": "soon"}"#,
            "max_model_time",
        ),
        (
            r#"{"prompt": "p", "max_model_time": "0s"}"#,
            "max_model_time",
        ),
    ] {
        assert_eq!(refused(json).field, field, "{json}");
    }
}
