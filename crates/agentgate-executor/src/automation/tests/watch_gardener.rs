//! The Gardener's side of a watched folder: the note's name reaches the
//! run, and `on_failure: keep` leaves a failed note in the inbox without
//! taking it again.

use std::fs;
use std::sync::Arc;

use agentgate_core::Config;
use agentgate_store::{FinalState, JobQueue};
use jiff::Timestamp;

use super::super::test_support::{TestStore, config, ts};
use super::super::watch::FolderWatcher;
use super::super::watch_files::ErrorRecord;

fn setup(extra: &str) -> (tempfile::TempDir, Config) {
    let dir = tempfile::tempdir().unwrap();
    let cfg = config(&format!(
        "version: 1\nwatch:\n  inbox:\n    folder: {}\n    settle: 1s\n{extra}    request:\n      providers: [claude]\n",
        dir.path().display()
    ));
    (dir, cfg)
}

fn watcher(cfg: &Config, queue: Arc<dyn JobQueue>) -> FolderWatcher {
    FolderWatcher::new(cfg.watches[0].clone(), cfg, queue)
}

fn at(s: i64) -> Timestamp {
    Timestamp::from_second(ts("2026-03-01T10:00:00Z").as_second() + s).unwrap()
}

#[test]
fn the_notes_file_name_goes_with_its_task() {
    let (dir, cfg) = setup("");
    let s = TestStore::new();
    let mut w = watcher(&cfg, s.queue());
    fs::write(dir.path().join("idea 1.md"), "buy milk").unwrap();
    fs::write(
        dir.path().join("t.json"),
        r#"{"prompt": "p", "file_name": "named-by-itself.md"}"#,
    )
    .unwrap();
    w.scan(at(0));
    w.scan(at(2));
    let jobs = s.jobs();
    let by_name = |n: &str| {
        jobs.iter()
            .find(|j| j.idempotency_key.as_deref().unwrap().ends_with(n))
            .unwrap()
    };
    let note = by_name(":idea 1.md");
    assert_eq!(note.request["prompt"], "buy milk");
    assert_eq!(note.request["file_name"], "idea 1.md");
    // A task object that names itself keeps its name.
    let t = by_name(":t.json");
    assert_eq!(t.request["task"]["file_name"], "named-by-itself.md");
    assert!(t.request.get("file_name").is_none());
}

#[test]
fn a_kept_note_stays_in_the_inbox_and_is_not_taken_again_until_it_changes() {
    let (dir, cfg) = setup("    on_failure: keep\n");
    let s = TestStore::new();
    let mut w = watcher(&cfg, s.queue());
    let note = dir.path().join("n.md");
    fs::write(&note, "classify me").unwrap();
    w.scan(at(0));
    w.scan(at(2));
    let job_id = s.run_next(
        FinalState::Failed,
        Some("all agents failed"),
        "2026-03-01T10:01:00Z",
    );
    let report = w.scan(at(61));
    assert_eq!(report.kept, [("n.md".to_owned(), job_id.clone())]);
    assert!(report.failed.is_empty(), "{report:?}");
    assert!(note.is_file(), "the note stays in the inbox");
    let record: ErrorRecord = serde_json::from_str(
        &fs::read_to_string(dir.path().join("failed/n.md.error.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record.job_id.as_deref(), Some(job_id.as_str()));
    assert_eq!(record.error.as_deref(), Some("all agents failed"));
    assert!(!dir.path().join("failed/n.md").exists());
    // Later scans pass it by: no new job, nothing reported.
    for t in [63, 65, 120] {
        let r = w.scan(at(t));
        assert!(r.enqueued.is_empty() && r.kept.is_empty(), "{r:?}");
    }
    assert_eq!(s.jobs().len(), 1);
    // A restarted server finds the same job by the file's key: kept again,
    // never run twice.
    let mut again = watcher(&cfg, s.reopen());
    again.scan(at(200));
    let r = again.scan(at(202));
    assert!(r.enqueued.is_empty(), "{r:?}");
    assert_eq!(r.kept.len(), 1, "{r:?}");
    assert_eq!(s.jobs().len(), 1);
    // Changed (the user fixed the note): a new file, a new job.
    fs::write(&note, "classify me, please").unwrap();
    again.scan(at(300));
    let r = again.scan(at(302));
    assert_eq!(r.enqueued.len(), 1, "{r:?}");
    assert_eq!(s.jobs().len(), 2);
    // And when it succeeds it moves to done/ as usual.
    s.run_next(FinalState::Succeeded, None, "2026-03-01T10:06:00Z");
    let r = again.scan(at(361));
    assert_eq!(r.done.len(), 1, "{r:?}");
    assert!(!note.exists());
}
