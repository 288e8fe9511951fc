//! Runs and attempts: round trips, listing, prefix lookup.

use agentgate_protocol::{ErrorKind, Usage};
use agentgate_store::{AttemptRecord, RunKind, RunStatus, StoreError};

use super::support::{
    Backend, TestResult, TestStore, failure_envelope, run_record, success_envelope, ts,
};

crate::on_both_backends!(
    a_started_run_reads_back_as_running_with_nothing_else,
    a_finished_run_keeps_its_figures_and_the_whole_envelope,
    the_status_follows_the_envelopes_error_type,
    attempts_read_back_in_order_and_a_second_insert_replaces,
    attempts_and_outcomes_of_an_unknown_run_are_refused,
    a_run_id_is_stored_once_and_must_be_valid,
    runs_list_newest_first_with_limit_and_offset,
    a_unique_prefix_finds_the_run,
    an_exact_id_wins_over_longer_ids_that_share_it,
    an_ambiguous_prefix_names_the_candidates,
    an_ambiguous_prefix_with_many_matches_lists_a_bounded_number,
    a_prefix_that_matches_nothing_is_none_and_wildcards_are_refused,
    counts_above_the_bigint_range_are_refused_not_wrapped,
    a_tool_run_keeps_its_kind_and_parent,
);

crate::on_both_backends_fallible!(a_workflow_run_is_stored_listed_and_found_with_its_kind);

fn a_workflow_run_is_stored_listed_and_found_with_its_kind(store: &TestStore) -> TestResult {
    let workflow = agentgate_store::RunRecord {
        providers: vec!["release.yaml".to_owned()],
        kind: RunKind::Workflow,
        ..run_record("run_flow", "2026-05-01T12:00:00Z")
    };
    store.insert_run(&workflow)?;
    store.insert_run(&run_record("run_step", "2026-05-01T12:00:01Z"))?;
    store.finish_run("run_flow", &success_envelope("run_flow"))?;

    let read = store.get_run("run_flow")?.ok_or("no run_flow")?.summary;
    assert_eq!(read.record.kind, RunKind::Workflow);
    assert_eq!(read.record.providers, ["release.yaml"]);
    assert_eq!(read.status, RunStatus::Succeeded);
    let kinds: Vec<(String, RunKind)> = store
        .list_runs(10, 0)?
        .runs
        .into_iter()
        .map(|r| (r.record.run_id, r.record.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("run_step".to_owned(), RunKind::Agent),
            ("run_flow".to_owned(), RunKind::Workflow)
        ]
    );
    let found = store.find_run("run_fl")?.ok_or("run_fl found nothing")?;
    assert_eq!(found.summary.record.kind, RunKind::Workflow);
    Ok(())
}

#[test]
fn a_run_kind_is_named_workflow_when_stored_and_serialized() {
    assert_eq!(RunKind::Workflow.as_str(), "workflow");
    assert_eq!("workflow".parse::<RunKind>().unwrap(), RunKind::Workflow);
    assert_eq!(
        serde_json::to_string(&RunKind::Workflow).unwrap(),
        "\"workflow\""
    );
    assert_eq!(
        RunKind::ALL.map(RunKind::as_str),
        ["agent", "tool", "workflow"]
    );
    assert!("workflows".parse::<RunKind>().is_err());
}

fn a_tool_run_keeps_its_kind_and_parent(store: &TestStore) {
    store
        .insert_run(&run_record("run_agent", "2026-05-01T12:00:00Z"))
        .unwrap();
    let tool = agentgate_store::RunRecord {
        providers: vec!["scanner".to_owned()],
        kind: agentgate_store::RunKind::Tool,
        parent_run_id: Some("run_agent".to_owned()),
        prompt_bytes: 0,
        ..run_record("run_tool", "2026-05-01T12:00:01Z")
    };
    store.insert_run(&tool).unwrap();
    let read = store.get_run("run_tool").unwrap().unwrap().summary.record;
    assert_eq!(read.kind, agentgate_store::RunKind::Tool);
    assert_eq!(read.parent_run_id.as_deref(), Some("run_agent"));
    let agent = store.get_run("run_agent").unwrap().unwrap().summary.record;
    assert_eq!(agent.kind, agentgate_store::RunKind::Agent);
    assert_eq!(agent.parent_run_id, None);
    let listed = store.list_runs(10, 0).unwrap().runs;
    assert_eq!(listed[0].record.kind, agentgate_store::RunKind::Tool);
    assert_eq!(listed[1].record.kind, agentgate_store::RunKind::Agent);
}

fn a_started_run_reads_back_as_running_with_nothing_else(store: &TestStore) {
    let record = run_record("run_1", "2026-05-01T12:00:00.123456789Z");
    store.insert_run(&record).unwrap();

    let detail = store.get_run("run_1").unwrap().unwrap();
    // PostgreSQL's timestamptz keeps microseconds (the rest is cut), SQLite all nine
    // digits.
    let started_at = match store.backend {
        Backend::Sqlite => record.started_at,
        Backend::Postgres => ts("2026-05-01T12:00:00.123456Z"),
    };
    assert_eq!(
        detail.summary.record,
        agentgate_store::RunRecord {
            started_at,
            ..record
        }
    );
    assert_eq!(detail.summary.status, RunStatus::Running);
    assert_eq!(detail.summary.ended_at, None);
    assert_eq!(detail.summary.usage, None);
    assert_eq!(detail.summary.exit_code, None);
    assert_eq!(detail.envelope, None);
    assert!(detail.attempts.is_empty());
}

fn a_finished_run_keeps_its_figures_and_the_whole_envelope(store: &TestStore) {
    store
        .insert_run(&run_record("run_ok", "2026-05-01T12:00:00Z"))
        .unwrap();
    let envelope = success_envelope("run_ok");
    store.finish_run("run_ok", &envelope).unwrap();

    let detail = store.get_run("run_ok").unwrap().unwrap();
    let summary = &detail.summary;
    assert_eq!(summary.status, RunStatus::Succeeded);
    assert!(summary.ended_at.is_some());
    assert_eq!(summary.duration_ms, Some(4321));
    assert_eq!(summary.exit_code, Some(0));
    assert_eq!(summary.error_type, None);
    assert_eq!(summary.provider.as_deref(), Some("codex"));
    assert_eq!(summary.final_model.as_deref(), Some("gpt-5-codex"));
    assert_eq!(summary.session_id.as_deref(), Some("sess-native-1"));
    assert_eq!(
        summary.usage,
        Some(Usage {
            input_tokens: 1500,
            output_tokens: 300,
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 200,
            cache_creation_1h_input_tokens: 0,
            reasoning_tokens: 120,
            total_tokens: 1800,
            cost_usd: Some(0.0123),
            context_tokens: Some(1800),
            estimated: false,
        })
    );
    assert_eq!(detail.envelope, Some(envelope));
}

fn the_status_follows_the_envelopes_error_type(store: &TestStore) {
    let cases = [
        ("run_quota", ErrorKind::Quota, 75, RunStatus::Failed),
        (
            "run_cancel",
            ErrorKind::Cancelled,
            130,
            RunStatus::Cancelled,
        ),
    ];
    for (run_id, kind, code, status) in cases {
        store
            .insert_run(&run_record(run_id, "2026-05-01T12:00:00Z"))
            .unwrap();
        let envelope = failure_envelope(run_id, kind, code);
        store.finish_run(run_id, &envelope).unwrap();

        let detail = store.get_run(run_id).unwrap().unwrap();
        assert_eq!(detail.summary.status, status, "{run_id}");
        assert_eq!(detail.summary.error_type, Some(kind));
        assert_eq!(detail.summary.exit_code, Some(code));
        assert_eq!(
            detail.summary.error.as_deref(),
            Some(format!("{kind} happened").as_str())
        );
        assert_eq!(detail.summary.usage.map(|u| u.cost_usd), Some(None));
        assert_eq!(detail.envelope, Some(envelope));
    }
}

fn attempts_read_back_in_order_and_a_second_insert_replaces(store: &TestStore) {
    store
        .insert_run(&run_record("run_a", "2026-05-01T12:00:00Z"))
        .unwrap();
    let second = AttemptRecord {
        n: 2,
        provider: "codex".to_owned(),
        agent: Some("backup".to_owned()),
        model: Some("gpt-5".to_owned()),
        session_id: Some("thread-9".to_owned()),
        started_at: ts("2026-05-01T12:00:05Z"),
        ended_at: Some(ts("2026-05-01T12:00:09.5Z")),
        duration_ms: Some(4500),
        exit_code: Some(0),
        error_type: None,
        error: None,
    };
    let first_started = AttemptRecord {
        n: 1,
        provider: "claude".to_owned(),
        agent: None,
        model: Some("opus".to_owned()),
        session_id: None,
        started_at: ts("2026-05-01T12:00:00Z"),
        ended_at: None,
        duration_ms: None,
        exit_code: None,
        error_type: None,
        error: None,
    };
    let first_ended = AttemptRecord {
        session_id: Some("sess-1".to_owned()),
        ended_at: Some(ts("2026-05-01T12:00:04Z")),
        duration_ms: Some(4000),
        exit_code: Some(1),
        error_type: Some(ErrorKind::Quota),
        error: Some("You've hit your usage limit".to_owned()),
        ..first_started.clone()
    };
    store.insert_attempt("run_a", &second).unwrap();
    store.insert_attempt("run_a", &first_started).unwrap();
    store.insert_attempt("run_a", &first_ended).unwrap();

    let detail = store.get_run("run_a").unwrap().unwrap();
    assert_eq!(detail.attempts, vec![first_ended, second]);
}

fn attempts_and_outcomes_of_an_unknown_run_are_refused(store: &TestStore) {
    let attempt = AttemptRecord {
        n: 1,
        provider: "claude".to_owned(),
        agent: None,
        model: None,
        session_id: None,
        started_at: ts("2026-05-01T12:00:00Z"),
        ended_at: None,
        duration_ms: None,
        exit_code: None,
        error_type: None,
        error: None,
    };
    let err = store.insert_attempt("run_ghost", &attempt).unwrap_err();
    assert!(
        matches!(&err, StoreError::RunNotFound { run_id, .. } if run_id == "run_ghost"),
        "{err}"
    );
    let err = store
        .finish_run("run_ghost", &success_envelope("run_ghost"))
        .unwrap_err();
    assert!(matches!(err, StoreError::RunNotFound { .. }), "{err}");
    assert!(err.to_string().contains("run_ghost"), "{err}");
}

fn a_run_id_is_stored_once_and_must_be_valid(store: &TestStore) {
    let record = run_record("run_dup", "2026-05-01T12:00:00Z");
    store.insert_run(&record).unwrap();
    let err = store.insert_run(&record).unwrap_err();
    assert!(
        matches!(err, StoreError::Sql { .. } | StoreError::Postgres { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("insert run"), "{err}");

    let err = store
        .insert_run(&run_record("../escape", "2026-05-01T12:00:00Z"))
        .unwrap_err();
    assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err}");
}

fn runs_list_newest_first_with_limit_and_offset(store: &TestStore) {
    // Inserted out of order; one start time has a fraction, which must still
    // sort as time, not as text of varying width.
    for (run_id, started) in [
        ("run_c", "2026-05-03T00:00:00Z"),
        ("run_a", "2026-05-01T00:00:00Z"),
        ("run_e", "2026-05-05T00:00:00Z"),
        ("run_b", "2026-05-02T00:00:00.5Z"),
        ("run_d", "2026-05-04T00:00:00Z"),
        ("run_b0", "2026-05-02T00:00:00Z"),
    ] {
        store.insert_run(&run_record(run_id, started)).unwrap();
    }
    let ids = |runs: Vec<agentgate_store::RunSummary>| {
        runs.into_iter()
            .map(|run| run.record.run_id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ids(store.list_runs(3, 0).unwrap().runs),
        ["run_e", "run_d", "run_c"]
    );
    assert_eq!(
        ids(store.list_runs(3, 3).unwrap().runs),
        ["run_b", "run_b0", "run_a"]
    );
    assert!(store.list_runs(3, 6).unwrap().runs.is_empty());
    assert_eq!(store.list_runs(usize::MAX, 0).unwrap().runs.len(), 6);
}

fn a_unique_prefix_finds_the_run(store: &TestStore) {
    for run_id in ["run_abc1", "run_abc2", "run_xyz"] {
        store
            .insert_run(&run_record(run_id, "2026-05-01T00:00:00Z"))
            .unwrap();
    }
    let found = store.find_run("run_x").unwrap().unwrap();
    assert_eq!(found.summary.record.run_id, "run_xyz");
    let found = store.find_run("run_abc2").unwrap().unwrap();
    assert_eq!(found.summary.record.run_id, "run_abc2");
}

fn an_exact_id_wins_over_longer_ids_that_share_it(store: &TestStore) {
    for run_id in ["run_1", "run_10", "run_11"] {
        store
            .insert_run(&run_record(run_id, "2026-05-01T00:00:00Z"))
            .unwrap();
    }
    let found = store.find_run("run_1").unwrap().unwrap();
    assert_eq!(found.summary.record.run_id, "run_1");
}

fn an_ambiguous_prefix_names_the_candidates(store: &TestStore) {
    for run_id in ["run_abc1", "run_abc2", "run_xyz"] {
        store
            .insert_run(&run_record(run_id, "2026-05-01T00:00:00Z"))
            .unwrap();
    }
    let err = store.find_run("run_abc").unwrap_err();
    match &err {
        StoreError::AmbiguousRunId {
            prefix,
            candidates,
            more,
        } => {
            assert_eq!(prefix, "run_abc");
            assert_eq!(candidates, &["run_abc1", "run_abc2"]);
            assert!(!more);
        }
        other => panic!("expected an ambiguity, got {other}"),
    }
    let message = err.to_string();
    assert!(
        message.contains("run_abc1") && message.contains("run_abc2"),
        "{message}"
    );
}

fn an_ambiguous_prefix_with_many_matches_lists_a_bounded_number(store: &TestStore) {
    for i in 0..15 {
        store
            .insert_run(&run_record(&format!("run_{i:02}"), "2026-05-01T00:00:00Z"))
            .unwrap();
    }
    let err = store.find_run("run_").unwrap_err();
    let StoreError::AmbiguousRunId {
        candidates, more, ..
    } = &err
    else {
        panic!("expected an ambiguity, got {err}");
    };
    assert_eq!(
        candidates.len(),
        agentgate_store::AMBIGUOUS_CANDIDATES_SHOWN
    );
    assert!(more);
    assert!(err.to_string().contains("and more"), "{err}");
}

fn a_prefix_that_matches_nothing_is_none_and_wildcards_are_refused(store: &TestStore) {
    store
        .insert_run(&run_record("run_abc", "2026-05-01T00:00:00Z"))
        .unwrap();
    assert_eq!(store.find_run("run_q").unwrap(), None);
    assert_eq!(store.get_run("run_q").unwrap(), None);
    // `_` would be a LIKE wildcard: `run_ab` must not match `runXabc`.
    store
        .insert_run(&run_record("runXabc", "2026-05-01T00:00:00Z"))
        .unwrap();
    assert_eq!(
        store
            .find_run("run_ab")
            .unwrap()
            .unwrap()
            .summary
            .record
            .run_id,
        "run_abc"
    );
    // `*` and `?` would be GLOB wildcards: a run id cannot hold them.
    for prefix in ["run_*", "run_ab?", ""] {
        let err = store.find_run(prefix).unwrap_err();
        assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err}");
    }
}

fn counts_above_the_bigint_range_are_refused_not_wrapped(store: &TestStore) {
    let record = agentgate_store::RunRecord {
        prompt_bytes: u64::MAX,
        ..run_record("run_big", "2026-05-01T00:00:00Z")
    };
    let err = store.insert_run(&record).unwrap_err();
    assert!(err.to_string().contains("insert run"), "{err}");
    assert_eq!(store.get_run("run_big").unwrap(), None);

    store
        .insert_run(&run_record("run_big2", "2026-05-01T00:00:00Z"))
        .unwrap();
    let mut envelope = success_envelope("run_big2");
    envelope.tokens_used.input_tokens = u64::MAX;
    assert!(store.finish_run("run_big2", &envelope).is_err());
    let detail = store.get_run("run_big2").unwrap().unwrap();
    assert_eq!(detail.summary.status, RunStatus::Running);
}
