//! The store's operations, one trait for every backend.

use std::path::{Path, PathBuf};

use agentgate_protocol::{Envelope, Labels, Usage};

use crate::error::StoreError;
use crate::event_log::EventLog;
use crate::listing::RunList;
use crate::records::{
    AttemptRecord, QuotaState, RunDetail, RunRecord, SessionRecord, SessionRotation,
};
use crate::run_files::{EVENTS_FILE_NAME, RunFiles, STDERR_FILE_NAME};
use crate::run_id::validate_run_id;
use crate::session_lock::SessionLock;
use crate::settle::SavedResult;
use crate::time_window::TimeWindow;

/// How many candidates [`StoreError::AmbiguousRunId`] lists at most.
pub const AMBIGUOUS_CANDIDATES_SHOWN: usize = 10;

/// One stored event: its `seq` and its JSON line as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventLine {
    /// The event's `seq`.
    pub seq: u64,
    /// The event, one line of JSON.
    pub line: String,
}

/// Everything agentgate keeps about runs, sessions, usage and quotas.
///
/// The SQLite store ([`crate::SqliteStore`]) and the PostgreSQL store
/// (`PgStore`, feature `postgres`) implement it with the same semantics,
/// except that PostgreSQL keeps times to the microsecond (finer digits are
/// cut). Calls block: async callers run them
/// on a blocking thread. Every backend is `Send + Sync`, so one handle can
/// be shared between threads.
///
/// A run's folder (`stderr.log`, files a provider writes for its CLI) is on
/// the local disk in [`RunStore::runs_dir`] whatever the backend. Its events
/// are where the backend keeps them: SQLite in the folder's `events.jsonl`,
/// PostgreSQL in a table, so any host can read any run's events. Write them
/// through [`RunStore::create_run_files`], read them with
/// [`RunStore::read_events`] and [`RunStore::read_event_lines`].
pub trait RunStore: Send + Sync {
    /// The folder that holds one folder per run.
    fn runs_dir(&self) -> &Path;

    /// Records a run as it starts, with status `running`, owned by the
    /// calling process ([`crate::RunOwner::current`]): if that process dies
    /// before [`RunStore::finish_run`], the run reads as
    /// [`crate::RunStatus::Abandoned`]. Fails if the run id is invalid or
    /// already stored.
    fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError>;

    /// Records how a run ended: its status (from the envelope's
    /// `error_type`), the end time (now), the figures and the whole envelope.
    /// Finishing a run again replaces the outcome.
    fn finish_run(&self, run_id: &str, envelope: &Envelope) -> Result<(), StoreError>;

    /// Makes a run that ended (any final status) or was abandoned (stored
    /// `running`, its owner process gone: see [`crate::effective_status`])
    /// `running` again, owned by the calling process
    /// ([`crate::RunOwner::current`]), with its end cleared: `ended_at`,
    /// `duration_ms`, `exit_code`, `error_type`, `error` and the envelope.
    /// Its record, attempts and events are kept. This is how a later
    /// process resumes a run (a workflow, whose events are its checkpoint):
    /// `reopen_run`, then [`RunStore::reopen_run_files`] to append to its
    /// events, then [`RunStore::finish_run`].
    ///
    /// Fails with [`StoreError::RunStillRunning`] if the run is running
    /// and its owner is alive, runs on another host (where it cannot be
    /// checked) or was never recorded; with [`StoreError::RunNotFound`] if
    /// there is no such run.
    ///
    /// A compare-and-swap: the write names the status and owner columns
    /// read just before it, so of two processes reopening the same run at
    /// once exactly one succeeds; the other gets
    /// [`StoreError::RunStillRunning`] (or
    /// [`StoreError::RunChangedWhileReopening`] if what came between left
    /// the run not running).
    fn reopen_run(&self, run_id: &str) -> Result<(), StoreError>;

    /// Runs, newest first (by start time), skipping `offset`, at most
    /// `limit` rows. A running run whose owner is gone reads as abandoned
    /// (see [`crate::effective_status`]), here and in every other read. A
    /// row that cannot be read (damaged) is in [`RunList::unreadable`]
    /// and counts as one of the `limit` (and of a later call's `offset`).
    fn list_runs(&self, limit: usize, offset: usize) -> Result<RunList, StoreError> {
        self.list_runs_labelled(&Labels::new(), limit, offset)
    }

    /// [`RunStore::list_runs`], only the runs that carry every label of
    /// `labels` (none: every run). Each label is looked up in the side
    /// table `labels` through its index by key and value; no row's JSON is
    /// read to filter.
    fn list_runs_labelled(
        &self,
        labels: &Labels,
        limit: usize,
        offset: usize,
    ) -> Result<RunList, StoreError> {
        self.list_runs_within(labels, TimeWindow::default(), limit, offset)
    }

    /// [`RunStore::list_runs_labelled`], only the runs that started in
    /// `window` (at or after its `since`, before its `until`): a range of
    /// the index on the start time, the order the list is in.
    fn list_runs_within(
        &self,
        labels: &Labels,
        window: TimeWindow,
        limit: usize,
        offset: usize,
    ) -> Result<RunList, StoreError>;

    /// Everything about one run; `None` if there is no such run.
    fn get_run(&self, run_id: &str) -> Result<Option<RunDetail>, StoreError>;

    /// The run whose id is `prefix` or, failing that, the only run whose id
    /// starts with `prefix`. `None` if no run matches;
    /// [`StoreError::AmbiguousRunId`] (naming the candidates) if several do.
    fn find_run(&self, prefix: &str) -> Result<Option<RunDetail>, StoreError>;

    /// Records an attempt of a run. Storing the same `n` again replaces it,
    /// so an attempt can be stored when it starts and again when it ends.
    fn insert_attempt(&self, run_id: &str, attempt: &AttemptRecord) -> Result<(), StoreError>;

    /// Takes the lock of session `name` (every provider's mapping of that
    /// name) if no one holds it; `Ok(None)` if another run does. Held until
    /// the returned [`SessionLock`] is dropped, and released by the backend
    /// when its holder dies, so a crashed run never leaves a session locked.
    /// Never waits: a caller that waits polls, so its own deadline and
    /// cancellation stay in its hands.
    fn try_lock_session(&self, name: &str) -> Result<Option<SessionLock>, StoreError>;

    /// The session `name` of `provider`, if stored.
    fn get_session(&self, name: &str, provider: &str) -> Result<Option<SessionRecord>, StoreError>;

    /// Stores a session, replacing the one with the same name and provider
    /// but keeping its `created_at`.
    fn put_session(&self, session: &SessionRecord) -> Result<(), StoreError>;

    /// Forgets a session; whether there was one.
    fn delete_session(&self, name: &str, provider: &str) -> Result<bool, StoreError>;

    /// Every session, by name then provider.
    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError>;

    /// Records a rotation of a session (`max_context_tokens`): the native
    /// session it left, the one it started, and why.
    fn add_session_rotation(&self, rotation: &SessionRotation) -> Result<(), StoreError>;

    /// The rotations of session `name` (of every session without one), by
    /// name, provider, then oldest first.
    fn list_session_rotations(
        &self,
        name: Option<&str>,
    ) -> Result<Vec<SessionRotation>, StoreError>;

    /// What the agent runs of `scope` that started at or after `since`
    /// spent (`crate::spend`): budgets read this before a run starts.
    fn spent(
        &self,
        scope: &crate::spend::SpendScope,
        since: jiff::Timestamp,
    ) -> Result<crate::spend::Spent, StoreError>;

    /// The cumulative token totals last stored for a provider thread (Codex
    /// reports usage cumulated over the thread; the next turn's figures are
    /// its totals minus these).
    fn get_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
    ) -> Result<Option<Usage>, StoreError>;

    /// Stores the cumulative token totals of a provider thread.
    fn put_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
        totals: &Usage,
    ) -> Result<(), StoreError>;

    /// Stores what is known of a provider's usage limit, replacing the
    /// previous state.
    fn put_quota(&self, provider: &str, state: &QuotaState) -> Result<(), StoreError>;

    /// The last stored quota state of a provider.
    fn get_quota(&self, provider: &str) -> Result<Option<QuotaState>, StoreError>;

    /// Every provider's quota state, by provider.
    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError>;

    /// The folder of a run: `<runs_dir>/<run_id>`. Fails for an invalid run
    /// id, so no id can point outside [`RunStore::runs_dir`].
    fn run_dir(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        validate_run_id(run_id)?;
        Ok(self.runs_dir().join(run_id))
    }

    /// The run's `events.jsonl`.
    fn events_path(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.run_dir(run_id)?.join(EVENTS_FILE_NAME))
    }

    /// The run's `stderr.log`: the provider CLIs' stderr, raw.
    fn stderr_path(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.run_dir(run_id)?.join(STDERR_FILE_NAME))
    }

    /// The events of a run. From `events.jsonl`: a truncated last line (a
    /// write cut short by a crash) is reported in
    /// [`EventLog::truncated_tail`], not an error.
    fn read_events(&self, run_id: &str) -> Result<EventLog, StoreError> {
        EventLog::read_file(&self.events_path(run_id)?)
    }

    /// Creates the run's folder and opens its event log and `stderr.log`
    /// for writing. Fails with [`StoreError::RunFilesExist`] if the run was
    /// opened before: one run, one writer.
    fn create_run_files(&self, run_id: &str) -> Result<RunFiles, StoreError> {
        let mut files = RunFiles::create(self.run_dir(run_id)?, run_id)?;
        files.bound_log(self.event_log_bound());
        Ok(files)
    }

    /// Opens the folder of a run that has run before, to continue writing
    /// it: its event log for appending after the events stored, and its
    /// `stderr.log` for appending (created if missing). Returns the files
    /// and the `seq` the next event takes: the highest stored `seq` plus
    /// one, 0 when there is none.
    ///
    /// Only for a caller that has just made the run its own with
    /// [`RunStore::reopen_run`]: one run, one writer. Nothing checks that
    /// no one else writes the run's events; the previous writer must be
    /// gone (its process died) or have synced and dropped its files, or
    /// events it has not stored yet are not counted.
    ///
    /// `events.jsonl` (this default) is opened as it is, never created anew
    /// (created empty if missing, as [`RunStore::create_run_files`] would).
    /// A last line without its newline, a write cut short by a crash, is
    /// cut off first, so the next event starts on a line of its own; the
    /// event it held was never reported written. The folder stays mode
    /// 700 and the files 600 on Unix.
    fn reopen_run_files(&self, run_id: &str) -> Result<(RunFiles, u64), StoreError> {
        let (mut files, next_seq) = RunFiles::reopen(self.run_dir(run_id)?)?;
        files.bound_log(self.event_log_bound());
        Ok((files, next_seq))
    }

    /// The bound each run's event log gets from this handle
    /// ([`RunFiles::bound_log`]): [`crate::DEFAULT_EVENT_LOG_MAX`] unless
    /// [`RunStore::set_event_log_bound`] said otherwise.
    fn event_log_bound(&self) -> u64;

    /// The store's API tokens ([`crate::TokenStore`]), when the backend
    /// keeps them (SQLite and PostgreSQL do; a wrapper or a test double may
    /// not, and then only the server's own token is known).
    fn token_store(&self) -> Option<&dyn crate::api_tokens::TokenStore> {
        None
    }

    /// Bounds the event log of every run whose files this handle creates
    /// or reopens from now on (the config's `event_log.max_bytes`).
    fn set_event_log_bound(&self, max_bytes: u64);

    /// Keeps how a run ended in its folder (`result.json`, see
    /// [`SavedResult`]), before the run's record is written: a later
    /// process can finish the run's job from it if the record never lands.
    /// The file written.
    fn save_result(&self, run_id: &str, result: &SavedResult) -> Result<PathBuf, StoreError> {
        result.write_to(&self.run_dir(run_id)?)
    }

    /// The result [`RunStore::save_result`] kept for a run; `None` if none.
    fn read_saved_result(&self, run_id: &str) -> Result<Option<SavedResult>, StoreError> {
        SavedResult::read_from(&self.run_dir(run_id)?)
    }

    /// The file to follow to see the run's events as they are written, or
    /// `None` when the backend keeps them elsewhere: then poll
    /// [`RunStore::read_event_lines`].
    fn events_file(&self, run_id: &str) -> Result<Option<PathBuf>, StoreError> {
        self.events_path(run_id).map(Some)
    }

    /// Starts hearing the event writes and job changes of other processes
    /// sharing this store, rung as this process's [`crate::bells`] while
    /// the returned listener lives. `None` when the backend cannot tell
    /// (SQLite: its followers poll what other processes write).
    fn listen_for_bells(&self) -> Result<Option<crate::bells::BellListener>, StoreError> {
        Ok(None)
    }

    /// The run's events with a `seq` above `after` (all with `None`), in
    /// `seq` order, at most `limit`, each as the JSON line written. An empty
    /// list if the run has none (yet).
    fn read_event_lines(
        &self,
        run_id: &str,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<EventLine>, StoreError> {
        let log = match self.read_events(run_id) {
            Ok(log) => log,
            Err(StoreError::Io { source, .. }) if source.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Vec::new());
            }
            Err(e) => return Err(e),
        };
        let mut lines = Vec::new();
        for event in log.events {
            if after.is_some_and(|after| event.seq <= after) {
                continue;
            }
            if lines.len() == limit {
                break;
            }
            let line = serde_json::to_string(&event).map_err(|source| StoreError::EncodeEvent {
                path: self.events_path(run_id).unwrap_or_default(),
                source,
            })?;
            lines.push(EventLine {
                seq: event.seq,
                line,
            });
        }
        Ok(lines)
    }
}
