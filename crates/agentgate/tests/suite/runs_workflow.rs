//! A workflow run in the store (kind `workflow`) is listed and shown by
//! `agentgate runs` like any other run.

use agentgate_protocol::{Envelope, Event, EventBody, TextDeltaEvent};
use agentgate_store::{RunKind, RunRecord, RunStore, Store};
use serde_json::Value;

use super::support::agentgate_ok;

#[test]
fn a_workflow_run_is_listed_and_shown_by_agentgate_runs() {
    let home = tempfile::tempdir().unwrap();
    let store = Store::open(home.path().join("agentgate.db")).unwrap();
    let run_id = "run_flow_1";
    store
        .insert_run(&RunRecord {
            run_id: run_id.to_owned(),
            started_at: jiff::Timestamp::now(),
            providers: vec!["release.yaml".to_owned()],
            model: None,
            session: None,
            cwd: None,
            prompt_bytes: 0,
            kind: RunKind::Workflow,
            parent_run_id: None,
            labels: Default::default(),
        })
        .unwrap();
    let mut files = store.create_run_files(run_id).unwrap();
    files
        .write_event(&Event::new(
            run_id,
            0,
            "2026-05-01T12:00:00Z",
            EventBody::TextDelta(TextDeltaEvent {
                text: "step one done".to_owned(),
            }),
        ))
        .unwrap();
    files.sync().unwrap();
    drop(files);
    store.finish_run(run_id, &Envelope::new(run_id)).unwrap();
    drop(store);

    let listed = agentgate_ok(home.path(), &["runs", "--json"]);
    let listed: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(listed["record"]["run_id"], run_id, "{listed}");
    assert_eq!(listed["record"]["kind"], "workflow", "{listed}");
    assert_eq!(listed["status"], "succeeded", "{listed}");

    let table = agentgate_ok(home.path(), &["runs"]);
    let row = table
        .stdout
        .lines()
        .find(|l| l.starts_with(run_id))
        .unwrap_or_else(|| panic!("no row for {run_id}:\n{}", table.stdout));
    assert!(row.contains("succeeded"), "{row}");

    let shown = agentgate_ok(home.path(), &["runs", "show", "run_flow"]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(
        shown["run"]["summary"]["record"]["kind"], "workflow",
        "{shown}"
    );
    assert_eq!(shown["events"][0]["text"], "step one done", "{shown}");
}
