//! The store as a job's run sees it, fenced by the job's lease: once the
//! lease ran out by the executor's own clock (`heartbeat.rs`), every write
//! of the run to the store is refused here, before it reaches the
//! database, so none can wait out a partition and land after another
//! executor took the job back. Reads pass; so do the run's local files
//! (its folder, `stderr.log`, `result.json`, which the next holder reads).
//!
//! A write already sent when the lease ran out is not recalled: it is
//! bounded by the store's own connection timeouts (on PostgreSQL, the TCP
//! user timeout, `postgres/connect.rs`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agentgate_protocol::{Envelope, Event, Usage};
use agentgate_store::{
    AttemptRecord, EventLine, EventLog, EventLogWriter, QuotaState, RunDetail, RunFiles, RunList,
    RunRecord, RunStore, SavedResult, SessionLock, SessionRecord, StoreError,
};

/// `store`, refusing writes once `closed` is set.
pub struct Fenced<'a> {
    pub store: &'a dyn RunStore,
    pub closed: Arc<AtomicBool>,
    pub job_id: String,
}

impl Fenced<'_> {
    fn open(&self, op: &'static str) -> Result<(), StoreError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(refused(op, &self.job_id));
        }
        Ok(())
    }

    fn fence(&self, files: RunFiles) -> RunFiles {
        let (closed, job_id) = (self.closed.clone(), self.job_id.clone());
        files.wrap_events(move |sink| {
            Box::new(FencedSink {
                sink,
                closed,
                job_id,
            })
        })
    }
}

fn refused(op: &'static str, job_id: &str) -> StoreError {
    StoreError::LeaseLost {
        op,
        job_id: job_id.to_owned(),
    }
}

impl std::fmt::Debug for Fenced<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fenced")
            .field("job_id", &self.job_id)
            .finish()
    }
}

/// A run's event log behind the fence.
#[derive(Debug)]
struct FencedSink {
    sink: Box<dyn EventLogWriter>,
    closed: Arc<AtomicBool>,
    job_id: String,
}

impl EventLogWriter for FencedSink {
    fn write_event(&mut self, event: &Event) -> Result<u64, StoreError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(refused("store the run's events", &self.job_id));
        }
        self.sink.write_event(event)
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        if self.closed.load(Ordering::SeqCst) {
            return Err(refused("store the run's events", &self.job_id));
        }
        self.sink.sync()
    }
}

impl RunStore for Fenced<'_> {
    fn runs_dir(&self) -> &Path {
        self.store.runs_dir()
    }
    fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.open("insert run")?;
        self.store.insert_run(run)
    }
    fn finish_run(&self, run_id: &str, envelope: &Envelope) -> Result<(), StoreError> {
        self.open("finish run")?;
        self.store.finish_run(run_id, envelope)
    }
    fn reopen_run(&self, run_id: &str) -> Result<(), StoreError> {
        self.open("reopen run")?;
        self.store.reopen_run(run_id)
    }
    fn list_runs_within(
        &self,
        labels: &agentgate_protocol::Labels,
        window: agentgate_store::TimeWindow,
        limit: usize,
        offset: usize,
    ) -> Result<RunList, StoreError> {
        self.store.list_runs_within(labels, window, limit, offset)
    }
    fn get_run(&self, run_id: &str) -> Result<Option<RunDetail>, StoreError> {
        self.store.get_run(run_id)
    }
    fn find_run(&self, prefix: &str) -> Result<Option<RunDetail>, StoreError> {
        self.store.find_run(prefix)
    }
    fn insert_attempt(&self, run_id: &str, attempt: &AttemptRecord) -> Result<(), StoreError> {
        self.open("insert attempt")?;
        self.store.insert_attempt(run_id, attempt)
    }
    fn try_lock_session(&self, name: &str) -> Result<Option<SessionLock>, StoreError> {
        self.open("lock session")?;
        self.store.try_lock_session(name)
    }
    fn get_session(&self, name: &str, provider: &str) -> Result<Option<SessionRecord>, StoreError> {
        self.store.get_session(name, provider)
    }
    fn put_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        self.open("put session")?;
        self.store.put_session(session)
    }
    fn delete_session(&self, name: &str, provider: &str) -> Result<bool, StoreError> {
        self.open("delete session")?;
        self.store.delete_session(name, provider)
    }
    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        self.store.list_sessions()
    }
    fn add_session_rotation(
        &self,
        rotation: &agentgate_store::SessionRotation,
    ) -> Result<(), StoreError> {
        self.open("add session rotation")?;
        self.store.add_session_rotation(rotation)
    }
    fn spent(
        &self,
        scope: &agentgate_store::SpendScope,
        since: jiff::Timestamp,
    ) -> Result<agentgate_store::Spent, StoreError> {
        self.store.spent(scope, since)
    }
    fn list_session_rotations(
        &self,
        name: Option<&str>,
    ) -> Result<Vec<agentgate_store::SessionRotation>, StoreError> {
        self.store.list_session_rotations(name)
    }
    fn get_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
    ) -> Result<Option<Usage>, StoreError> {
        self.store.get_thread_totals(provider, thread_id)
    }
    fn put_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
        totals: &Usage,
    ) -> Result<(), StoreError> {
        self.open("put thread totals")?;
        self.store.put_thread_totals(provider, thread_id, totals)
    }
    fn put_quota(&self, provider: &str, state: &QuotaState) -> Result<(), StoreError> {
        self.open("put quota")?;
        self.store.put_quota(provider, state)
    }
    fn get_quota(&self, provider: &str) -> Result<Option<QuotaState>, StoreError> {
        self.store.get_quota(provider)
    }
    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError> {
        self.store.list_quota()
    }
    fn run_dir(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        self.store.run_dir(run_id)
    }
    fn events_path(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        self.store.events_path(run_id)
    }
    fn stderr_path(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        self.store.stderr_path(run_id)
    }
    fn read_events(&self, run_id: &str) -> Result<EventLog, StoreError> {
        self.store.read_events(run_id)
    }
    fn create_run_files(&self, run_id: &str) -> Result<RunFiles, StoreError> {
        self.open("create run files")?;
        Ok(self.fence(self.store.create_run_files(run_id)?))
    }
    fn reopen_run_files(&self, run_id: &str) -> Result<(RunFiles, u64), StoreError> {
        self.open("reopen run files")?;
        let (files, next) = self.store.reopen_run_files(run_id)?;
        Ok((self.fence(files), next))
    }
    fn event_log_bound(&self) -> u64 {
        self.store.event_log_bound()
    }
    fn set_event_log_bound(&self, max_bytes: u64) {
        self.store.set_event_log_bound(max_bytes);
    }
    fn save_result(&self, run_id: &str, result: &SavedResult) -> Result<PathBuf, StoreError> {
        self.store.save_result(run_id, result)
    }
    fn read_saved_result(&self, run_id: &str) -> Result<Option<SavedResult>, StoreError> {
        self.store.read_saved_result(run_id)
    }
    fn events_file(&self, run_id: &str) -> Result<Option<PathBuf>, StoreError> {
        self.store.events_file(run_id)
    }
    fn read_event_lines(
        &self,
        run_id: &str,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<EventLine>, StoreError> {
        self.store.read_event_lines(run_id, after, limit)
    }
}
