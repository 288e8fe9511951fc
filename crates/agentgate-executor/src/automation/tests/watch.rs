//! Watched folders with real files in a temp folder and a real store.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use agentgate_core::Config;
use agentgate_store::{
    CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, FinalState, Heartbeat,
    JobCursor, JobFilter, JobOutcome, JobPage, JobQueue, JobRecord, JobState, LeaseToken, NewJob,
    StoreError,
};
use jiff::Timestamp;

use super::super::test_support::{TestStore, config, ts};
use super::super::watch::FolderWatcher;
use super::super::watch_files::ErrorRecord;

struct Folder {
    dir: tempfile::TempDir,
}

impl Folder {
    fn new() -> Folder {
        Folder {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn config(&self, extra: &str) -> Config {
        config(&format!(
            "version: 1\nwatch:\n  inbox:\n    folder: {}\n    settle: 1s\n{extra}    request:\n      providers: [claude]\n      timeout: 5m\n",
            self.path().display()
        ))
    }

    fn watcher(&self, cfg: &Config, queue: Arc<dyn JobQueue>) -> FolderWatcher {
        FolderWatcher::new(cfg.watches[0].clone(), cfg, queue)
    }

    fn write(&self, name: &str, text: &str) {
        fs::write(self.path().join(name), text).unwrap();
    }

    fn append(&self, name: &str, text: &str) {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(self.path().join(name))
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn names(&self, sub: &str) -> Vec<String> {
        let dir: PathBuf = self.path().join(sub);
        let Ok(entries) = fs::read_dir(dir) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.is_empty())
            .collect();
        names.sort();
        names
    }
}

/// Top-level files only (no done/ or failed/).
fn files(folder: &Folder) -> Vec<String> {
    folder
        .names("")
        .into_iter()
        .filter(|n| folder.path().join(n).is_file())
        .collect()
}

#[test]
fn a_file_still_being_written_is_taken_only_once_it_settles() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());

    f.write("note.md", "half of the ");
    assert!(w.scan(ts("2026-03-01T10:00:00Z")).enqueued.is_empty());
    // Written on between two scans: it changed, so it starts over.
    f.append("note.md", "task, then the rest");
    assert!(w.scan(ts("2026-03-01T10:00:02Z")).enqueued.is_empty());
    assert!(s.jobs().is_empty());
    // Unchanged, but not yet `settle` (1s) since it was last seen changed.
    assert!(w.scan(ts("2026-03-01T10:00:02.500Z")).enqueued.is_empty());
    assert!(s.jobs().is_empty());
    // Unchanged for 1s: taken, whole.
    let report = w.scan(ts("2026-03-01T10:00:03Z"));
    assert_eq!(report.enqueued.len(), 1, "{report:?}");
    let jobs = s.jobs();
    assert_eq!(jobs.len(), 1);
    assert_eq!(jobs[0].request["prompt"], "half of the task, then the rest");
    assert_eq!(jobs[0].request["timeout"], "5m");
    assert_eq!(jobs[0].providers, ["claude"]);
    assert!(
        jobs[0]
            .idempotency_key
            .as_deref()
            .unwrap()
            .starts_with("watch:")
    );
    assert!(
        jobs[0]
            .idempotency_key
            .as_deref()
            .unwrap()
            .ends_with(":note.md")
    );
    // Later scans while the job is queued create nothing more, and leave
    // the file where it is.
    assert!(w.scan(ts("2026-03-01T10:00:10Z")).enqueued.is_empty());
    assert_eq!(s.jobs().len(), 1);
    assert_eq!(files(&f), ["note.md"]);
}

#[test]
fn hidden_partial_and_unmatched_files_are_left_alone() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("    patterns: [\"*.md\"]\n");
    let mut w = f.watcher(&cfg, s.queue());
    for name in [".hidden.md", "upload.md.part", "x.md.tmp", "notes.txt"] {
        f.write(name, "task");
    }
    fs::create_dir(f.path().join("sub.md")).unwrap();
    w.scan(ts("2026-03-01T10:00:00Z"));
    w.scan(ts("2026-03-01T10:00:05Z"));
    assert!(s.jobs().is_empty());
    // A writer renames its finished `.part` file: now it is taken.
    fs::rename(f.path().join("upload.md.part"), f.path().join("upload.md")).unwrap();
    w.scan(ts("2026-03-01T10:00:06Z"));
    w.scan(ts("2026-03-01T10:00:08Z"));
    let jobs = s.jobs();
    assert_eq!(jobs.len(), 1);
    assert!(
        jobs[0]
            .idempotency_key
            .as_deref()
            .unwrap()
            .ends_with(":upload.md")
    );
}

/// Settle `name` and take it: two scans 2s apart from `t0` (seconds).
fn take(w: &mut FolderWatcher, t0: i64) {
    let t = |s: i64| Timestamp::from_second(ts("2026-03-01T10:00:00Z").as_second() + s).unwrap();
    w.scan(t(t0));
    w.scan(t(t0 + 2));
}

#[test]
fn a_file_whose_job_succeeds_moves_to_done() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());
    f.write("a.md", "do a");
    take(&mut w, 0);
    assert_eq!(s.jobs().len(), 1);
    let job_id = s.run_next(FinalState::Succeeded, None, "2026-03-01T10:01:00Z");
    let report = w.scan(ts("2026-03-01T10:01:01Z"));
    assert_eq!(report.done, [("a.md".to_owned(), job_id)]);
    assert!(files(&f).is_empty());
    assert_eq!(f.names("done"), ["a.md"]);
    assert_eq!(
        fs::read_to_string(f.path().join("done/a.md")).unwrap(),
        "do a"
    );
    assert!(f.names("failed").is_empty());
}

#[test]
fn a_file_whose_job_fails_moves_to_failed_next_to_its_error_record() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());
    f.write("b.md", "do b");
    take(&mut w, 0);
    let job_id = s.run_next(
        FinalState::Failed,
        Some("quota exhausted"),
        "2026-03-01T10:01:00Z",
    );
    w.scan(ts("2026-03-01T10:01:01Z"));
    assert!(files(&f).is_empty());
    assert_eq!(f.names("failed"), ["b.md", "b.md.error.json"]);
    let record: ErrorRecord =
        serde_json::from_str(&fs::read_to_string(f.path().join("failed/b.md.error.json")).unwrap())
            .unwrap();
    assert_eq!(
        record,
        ErrorRecord {
            watch: "inbox".to_owned(),
            file: "b.md".to_owned(),
            job_id: Some(job_id),
            state: "failed".to_owned(),
            error: Some("quota exhausted".to_owned()),
        }
    );
}

#[test]
fn a_cancelled_job_fails_its_file_and_a_name_clash_gets_a_suffix() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());
    fs::create_dir(f.path().join("failed")).unwrap();
    f.write("failed/c.md", "an older c");
    f.write("c.md", "do c");
    take(&mut w, 0);
    let job = s.jobs().remove(0);
    assert_eq!(
        s.store
            .cancel(&job.job_id, None, ts("2026-03-01T10:00:30Z"))
            .unwrap(),
        CancelOutcome::Cancelled
    );
    w.scan(ts("2026-03-01T10:00:31Z"));
    assert_eq!(f.names("failed"), ["c-1.md", "c-1.md.error.json", "c.md"]);
    assert_eq!(
        fs::read_to_string(f.path().join("failed/c.md")).unwrap(),
        "an older c"
    );
    let record: ErrorRecord = serde_json::from_str(
        &fs::read_to_string(f.path().join("failed/c-1.md.error.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record.state, "cancelled");
    assert_eq!(record.file, "c.md");
    assert_eq!(record.job_id, Some(job.job_id));
}

#[test]
fn a_restarted_watcher_finds_the_job_instead_of_submitting_again() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    f.write("d.md", "do d");
    let mut first = f.watcher(&cfg, s.queue());
    take(&mut first, 0);
    assert_eq!(s.jobs().len(), 1);
    drop(first);

    // A new watcher on the same database (a restarted server).
    let mut second = f.watcher(&cfg, s.reopen());
    take(&mut second, 10);
    assert_eq!(s.jobs().len(), 1);
    // It follows that job: when it ends, the file moves.
    s.run_next(FinalState::Succeeded, None, "2026-03-01T10:01:00Z");
    second.scan(ts("2026-03-01T10:01:01Z"));
    assert_eq!(f.names("done"), ["d.md"]);

    // A job that ended while no server ran: the file moves at once.
    f.write("e.md", "do e");
    let mut third = f.watcher(&cfg, s.queue());
    take(&mut third, 100);
    s.run_next(FinalState::Failed, Some("boom"), "2026-03-01T10:03:00Z");
    let mut fourth = f.watcher(&cfg, s.reopen());
    take(&mut fourth, 200);
    assert_eq!(f.names("failed"), ["e.md", "e.md.error.json"]);
    assert_eq!(s.jobs().len(), 2);
}

#[test]
fn a_json_task_object_is_the_task_input() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());
    f.write(
        "t.json",
        r#"{"prompt": "classify this note", "persona": "librarian"}"#,
    );
    take(&mut w, 0);
    let jobs = s.jobs();
    assert_eq!(jobs[0].request["task"]["prompt"], "classify this note");
    assert_eq!(jobs[0].request["task"]["persona"], "librarian");
    assert!(jobs[0].request.get("prompt").is_none());
}

#[test]
fn a_file_that_cannot_be_a_task_is_refused_into_failed() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let mut w = f.watcher(&cfg, s.queue());
    f.write("empty.md", "  \n");
    fs::write(f.path().join("binary.md"), [0xff, 0xfe, 0x00]).unwrap();
    f.write("bad.json", r#"{"prompt": "x", "colour": "red"}"#);
    take(&mut w, 0);
    assert!(s.jobs().is_empty());
    assert!(files(&f).is_empty());
    for name in ["empty.md", "binary.md", "bad.json"] {
        let record: ErrorRecord = serde_json::from_str(
            &fs::read_to_string(f.path().join(format!("failed/{name}.error.json"))).unwrap(),
        )
        .unwrap();
        assert_eq!(record.state, "refused", "{name}");
        assert_eq!(record.job_id, None, "{name}");
        assert!(record.error.is_some(), "{name}");
    }
}

/// A store whose enqueue fails while `down` is set.
struct FlakyQueue {
    inner: Arc<dyn JobQueue>,
    down: AtomicBool,
}

impl JobQueue for FlakyQueue {
    fn enqueue(&self, job: &NewJob, now: Timestamp) -> Result<Enqueued, StoreError> {
        if self.down.load(Ordering::SeqCst) {
            return Err(StoreError::Busy {
                op: "enqueue a job",
                path: PathBuf::from("/test/agentgate.db"),
                timeout_s: 5,
            });
        }
        self.inner.enqueue(job, now)
    }
    fn claim(&self, o: &str, l: Duration, n: Timestamp) -> Result<Option<ClaimedJob>, StoreError> {
        self.inner.claim(o, l, n)
    }
    fn heartbeat(
        &self,
        id: &str,
        t: &LeaseToken,
        l: Duration,
        n: Timestamp,
    ) -> Result<Heartbeat, StoreError> {
        self.inner.heartbeat(id, t, l, n)
    }
    fn finish(
        &self,
        id: &str,
        t: &LeaseToken,
        o: &JobOutcome,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.inner.finish(id, t, o, n)
    }
    fn settle(
        &self,
        id: &str,
        t: &LeaseToken,
        s: &agentgate_store::Settlement,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.inner.settle(id, t, s, n)
    }
    fn release(
        &self,
        id: &str,
        t: &LeaseToken,
        nb: Timestamp,
        w: Option<&str>,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.inner.release(id, t, nb, w, n)
    }
    fn retry(
        &self,
        id: &str,
        t: &LeaseToken,
        nb: Timestamp,
        e: &str,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.inner.retry(id, t, nb, e, n)
    }
    fn claim_job(
        &self,
        id: &str,
        o: &str,
        l: Duration,
        n: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        self.inner.claim_job(id, o, l, n)
    }
    fn claim_next(
        &self,
        o: &str,
        l: Duration,
        n: Timestamp,
        limits: &agentgate_store::ClaimLimits,
    ) -> Result<agentgate_store::NextClaim, StoreError> {
        self.inner.claim_next(o, l, n, limits)
    }
    fn unplanned_jobs(&self, limit: usize) -> Result<Vec<agentgate_store::JobRecord>, StoreError> {
        self.inner.unplanned_jobs(limit)
    }
    fn set_job_facts(
        &self,
        id: &str,
        facts: &agentgate_store::PlannedFacts,
    ) -> Result<bool, StoreError> {
        self.inner.set_job_facts(id, facts)
    }
    fn cancel(
        &self,
        id: &str,
        e: Option<&agentgate_protocol::Envelope>,
        n: Timestamp,
    ) -> Result<CancelOutcome, StoreError> {
        self.inner.cancel(id, e, n)
    }
    fn expire_owner(
        &self,
        id: &str,
        o: &str,
        n: Timestamp,
        p: ExpiryPolicy,
    ) -> Result<Option<ExpiredJob>, StoreError> {
        self.inner.expire_owner(id, o, n, p)
    }
    fn expire_leases(&self, n: Timestamp, p: ExpiryPolicy) -> Result<Vec<ExpiredJob>, StoreError> {
        self.inner.expire_leases(n, p)
    }
    fn get_job(&self, id: &str) -> Result<Option<JobRecord>, StoreError> {
        self.inner.get_job(id)
    }
    fn count_jobs(&self) -> Result<agentgate_store::JobCounts, StoreError> {
        self.inner.count_jobs()
    }
    fn watch_queue(&self) -> Result<Option<agentgate_store::QueueWatcher>, StoreError> {
        self.inner.watch_queue()
    }
    fn count_active_jobs(&self) -> Result<Vec<agentgate_store::ActiveJobCount>, StoreError> {
        self.inner.count_active_jobs()
    }
    fn list_jobs(
        &self,
        f: &JobFilter,
        l: usize,
        c: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError> {
        self.inner.list_jobs(f, l, c)
    }
}

#[test]
fn a_file_whose_job_cannot_be_created_stays_and_is_tried_again() {
    let (f, s) = (Folder::new(), TestStore::new());
    let cfg = f.config("");
    let flaky = Arc::new(FlakyQueue {
        inner: s.queue(),
        down: AtomicBool::new(true),
    });
    let mut w = f.watcher(&cfg, Arc::clone(&flaky) as Arc<dyn JobQueue>);
    f.write("g.md", "do g");
    w.scan(ts("2026-03-01T10:00:00Z"));
    let report = w.scan(ts("2026-03-01T10:00:02Z"));
    assert_eq!(report.errors.len(), 1, "{report:?}");
    assert!(report.errors[0].contains("cannot enqueue"), "{report:?}");
    assert_eq!(files(&f), ["g.md"]);
    assert!(s.jobs().is_empty());

    flaky.down.store(false, Ordering::SeqCst);
    let report = w.scan(ts("2026-03-01T10:00:04Z"));
    assert_eq!(report.enqueued.len(), 1, "{report:?}");
    assert_eq!(s.jobs().len(), 1);
    assert_eq!(s.jobs()[0].state, JobState::Queued);
}
