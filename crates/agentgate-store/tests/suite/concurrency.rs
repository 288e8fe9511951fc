//! Two handles on one file, as two agentgate processes would have, writing
//! at the same time.

use std::sync::Barrier;

use agentgate_protocol::Usage;
use agentgate_store::{AttemptRecord, RunStatus, RunStore, SessionRecord, Store};

use super::support::{run_record, success_envelope, ts};

const WRITERS: usize = 2;
const RUNS_PER_WRITER: usize = 50;

fn write_runs(store: &Store, writer: usize) {
    for i in 0..RUNS_PER_WRITER {
        let run_id = format!("run_w{writer}_{i:03}");
        store
            .insert_run(&run_record(&run_id, "2026-05-01T00:00:00Z"))
            .unwrap();
        store
            .insert_attempt(
                &run_id,
                &AttemptRecord {
                    n: 1,
                    provider: "codex".to_owned(),
                    agent: None,
                    model: None,
                    session_id: Some(format!("thread-{writer}")),
                    started_at: ts("2026-05-01T00:00:00Z"),
                    ended_at: None,
                    duration_ms: None,
                    exit_code: None,
                    error_type: None,
                    error: None,
                },
            )
            .unwrap();
        store
            .finish_run(&run_id, &success_envelope(&run_id))
            .unwrap();
        let turns = u64::try_from(i).unwrap() + 1;
        store
            .put_session(&SessionRecord {
                name: "shared".to_owned(),
                provider: format!("p{writer}"),
                native_session_id: format!("thread-{writer}"),
                cwd: None,
                created_at: ts("2026-05-01T00:00:00Z"),
                updated_at: ts("2026-05-01T00:00:00Z"),
                turns,
                labels: Default::default(),
                context_tokens: None,
            })
            .unwrap();
        store
            .put_thread_totals(
                "codex",
                &format!("thread-{writer}"),
                &Usage {
                    input_tokens: turns,
                    ..Usage::default()
                },
            )
            .unwrap();
        assert!(store.list_runs(5, 0).unwrap().runs.len() <= 5);
    }
}

#[test]
fn two_handles_write_interleaved_without_busy_errors() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let stores: Vec<Store> = (0..WRITERS).map(|_| Store::open(&path).unwrap()).collect();
    let barrier = Barrier::new(WRITERS);

    std::thread::scope(|scope| {
        for (writer, store) in stores.iter().enumerate() {
            let barrier = &barrier;
            scope.spawn(move || {
                barrier.wait();
                write_runs(store, writer);
            });
        }
    });

    let check = Store::open(&path).unwrap();
    let runs = check.list_runs(1000, 0).unwrap().runs;
    assert_eq!(runs.len(), WRITERS * RUNS_PER_WRITER);
    assert!(runs.iter().all(|run| run.status == RunStatus::Succeeded));
    for writer in 0..WRITERS {
        let thread = format!("thread-{writer}");
        let totals = check.get_thread_totals("codex", &thread).unwrap().unwrap();
        assert_eq!(totals.input_tokens, RUNS_PER_WRITER as u64);
        let session = check
            .get_session("shared", &format!("p{writer}"))
            .unwrap()
            .unwrap();
        assert_eq!(session.turns, RUNS_PER_WRITER as u64);
    }
}

#[test]
fn concurrent_opens_of_a_new_file_migrate_it_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let barrier = Barrier::new(4);
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                barrier.wait();
                Store::open(&path).unwrap()
            });
        }
    });
    let store = Store::open(&path).unwrap();
    store
        .insert_run(&run_record("run_after", "2026-05-01T00:00:00Z"))
        .unwrap();
    assert_eq!(store.list_runs(10, 0).unwrap().runs.len(), 1);
}
