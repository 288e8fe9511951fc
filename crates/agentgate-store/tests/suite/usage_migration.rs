//! The usage report's migration (SQLite version 12) on a store written
//! before it: existing runs get their agent and chain from their envelopes
//! (the report groups them), a run whose envelope is not JSON does not stop
//! the migration (its agent is NULL), and a tool run is not counted.

use agentgate_protocol::Envelope;
use agentgate_store::{RunKind, RunStore, Store, UsageQuery, UsageReports};
use rusqlite::Connection;

use super::support::run_record;

#[test]
fn a_version_11_store_gets_agent_and_chain_for_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let store = Store::open(&path).unwrap();
    for (id, agent) in [("a1", "reviewer"), ("a2", "reviewer"), ("a3", "fixer")] {
        store
            .insert_run(&run_record(id, "2026-05-01T12:00:00Z"))
            .unwrap();
        let envelope = Envelope {
            agent: Some(agent.to_owned()),
            chain: Some("main".to_owned()),
            ..Envelope::default()
        };
        store.finish_run(id, &envelope).unwrap();
    }
    store
        .insert_run(&run_record("damaged", "2026-05-02T00:00:00Z"))
        .unwrap();
    let mut tool = run_record("tool", "2026-05-02T00:00:00Z");
    tool.kind = RunKind::Tool;
    store.insert_run(&tool).unwrap();
    drop(store);
    // Back to version 11 (neither usage's version 12 nor rotation's 13), with a damaged envelope as no agentgate writes.
    let conn = Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP INDEX runs_usage; DROP INDEX runs_spend_agent; DROP INDEX runs_spend_chain; DROP INDEX runs_spend_session; ALTER TABLE runs DROP COLUMN agent; \
         ALTER TABLE runs DROP COLUMN chain; \
         DROP TABLE session_rotations; ALTER TABLE sessions DROP COLUMN context_tokens; \
         DROP TABLE api_tokens; \
         DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; \
         UPDATE runs SET envelope = 'not json', status = 'failed' WHERE run_id = 'damaged'; \
         PRAGMA user_version = 11;",
    )
    .unwrap();
    drop(conn);

    let store = Store::open(&path).unwrap();
    let now = "2026-05-20T00:00:00Z".parse().unwrap();
    let report = |group: &str| {
        store
            .usage_report(
                &UsageQuery::from_params(Some("month"), Some(group), None, None, now).unwrap(),
            )
            .unwrap()
    };
    let by_agent: Vec<(Option<String>, u64)> = report("agent")
        .rows
        .iter()
        .map(|r| (r.group.clone(), r.figures.runs))
        .collect();
    assert_eq!(
        by_agent,
        [
            (Some("fixer".to_owned()), 1),
            (Some("reviewer".to_owned()), 2),
            (None, 1),
        ]
    );
    let by_chain = report("chain");
    assert_eq!(by_chain.rows[0].group.as_deref(), Some("main"));
    assert_eq!(by_chain.rows[0].figures.runs, 3);
    assert_eq!(by_chain.totals.runs, 4);
    assert_eq!(by_chain.totals.failed, 1);
}
