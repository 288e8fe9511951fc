//! [`RunStore`] for [`PgStore`]: each call one transaction on a pooled
//! connection (see `runs.rs`, `sessions.rs`, `thread_totals.rs`,
//! `quota.rs`), the session locks on connections of their own
//! (`session_locks.rs`), the events in `run_events` (`events.rs`).

use std::path::{Path, PathBuf};

use agentgate_protocol::{Envelope, Usage};

use super::events::{self, PgEventSink};
use super::{PgStore, quota, reopen, runs, session_locks, sessions, thread_totals};
use crate::error::StoreError;
use crate::event_log::EventLog;
use crate::owner::RunOwner;
use crate::records::{
    AttemptRecord, QuotaState, RunDetail, RunRecord, SessionRecord, SessionRotation,
};
use crate::run_files::RunFiles;
use crate::run_id::validate_run_id;
use crate::run_store::{EventLine, RunStore};
use crate::session_lock::SessionLock;

impl crate::usage::UsageReports for PgStore {
    fn usage_report(
        &self,
        query: &crate::usage::UsageQuery,
    ) -> Result<crate::usage::UsageReport, StoreError> {
        let query = query.clone();
        self.transaction("usage report", move |tx| {
            Box::pin(async move { super::usage::usage_report(tx, &query).await })
        })
    }
}

impl RunStore for PgStore {
    fn token_store(&self) -> Option<&dyn crate::api_tokens::TokenStore> {
        Some(self)
    }

    fn runs_dir(&self) -> &Path {
        self.local_runs_dir()
    }

    fn listen_for_bells(&self) -> Result<Option<crate::bells::BellListener>, StoreError> {
        super::events_listen::listen_for_bells(self).map(Some)
    }

    fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        validate_run_id(&run.run_id)?;
        let owner = RunOwner::current();
        let run = run.clone();
        self.transaction("insert run", move |tx| {
            Box::pin(async move { runs::insert_run(tx, &run, &owner).await })
        })
    }

    fn finish_run(&self, run_id: &str, envelope: &Envelope) -> Result<(), StoreError> {
        let (run_id, envelope) = (run_id.to_owned(), envelope.clone());
        let now = jiff::Timestamp::now();
        self.transaction("finish run", move |tx| {
            Box::pin(async move { runs::finish_run(tx, &run_id, &envelope, now).await })
        })
    }

    fn reopen_run(&self, run_id: &str) -> Result<(), StoreError> {
        validate_run_id(run_id)?;
        let me = RunOwner::current();
        let owned = run_id.to_owned();
        self.transaction("reopen run", move |tx| {
            Box::pin(async move { reopen::reopen_run(tx, &owned, &me).await })
        })?
        .into_result(run_id, || StoreError::RunNotFound {
            op: "reopen run",
            run_id: run_id.to_owned(),
            path: self.database().into(),
        })
    }

    fn list_runs_within(
        &self,
        labels: &agentgate_protocol::Labels,
        window: crate::TimeWindow,
        limit: usize,
        offset: usize,
    ) -> Result<crate::RunList, StoreError> {
        let labels = labels.clone();
        self.transaction("list runs", move |tx| {
            Box::pin(async move { runs::list_runs(tx, &labels, window, limit, offset).await })
        })
    }

    fn get_run(&self, run_id: &str) -> Result<Option<RunDetail>, StoreError> {
        let run_id = run_id.to_owned();
        self.transaction("read run", move |tx| {
            Box::pin(async move { runs::get_run(tx, &run_id).await })
        })
    }

    fn find_run(&self, prefix: &str) -> Result<Option<RunDetail>, StoreError> {
        validate_run_id(prefix)?;
        let owned = prefix.to_owned();
        let found = self.transaction("find run", move |tx| {
            Box::pin(async move { runs::find_run(tx, &owned).await })
        })?;
        match found {
            runs::Found::One(detail) => Ok(Some(*detail)),
            runs::Found::None => Ok(None),
            runs::Found::Several { candidates, more } => Err(StoreError::AmbiguousRunId {
                prefix: prefix.to_owned(),
                candidates,
                more,
            }),
        }
    }

    fn insert_attempt(&self, run_id: &str, attempt: &AttemptRecord) -> Result<(), StoreError> {
        let (run_id, attempt) = (run_id.to_owned(), attempt.clone());
        self.transaction("insert attempt", move |tx| {
            Box::pin(async move { runs::insert_attempt(tx, &run_id, &attempt).await })
        })
    }

    fn try_lock_session(&self, name: &str) -> Result<Option<SessionLock>, StoreError> {
        session_locks::try_lock(self, name)
    }

    fn get_session(&self, name: &str, provider: &str) -> Result<Option<SessionRecord>, StoreError> {
        let (name, provider) = (name.to_owned(), provider.to_owned());
        self.transaction("read session", move |tx| {
            Box::pin(async move { sessions::get(tx, &name, &provider).await })
        })
    }

    fn put_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        let session = session.clone();
        self.transaction("store session", move |tx| {
            Box::pin(async move { sessions::put(tx, &session).await })
        })
    }

    fn delete_session(&self, name: &str, provider: &str) -> Result<bool, StoreError> {
        let (name, provider) = (name.to_owned(), provider.to_owned());
        self.transaction("delete session", move |tx| {
            Box::pin(async move { sessions::delete(tx, &name, &provider).await })
        })
    }

    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        self.transaction("list sessions", |tx| {
            Box::pin(async move { sessions::list(tx).await })
        })
    }

    fn add_session_rotation(&self, rotation: &SessionRotation) -> Result<(), StoreError> {
        let rotation = rotation.clone();
        self.transaction("store session rotation", move |tx| {
            Box::pin(async move { sessions::add_rotation(tx, &rotation).await })
        })
    }

    fn list_session_rotations(
        &self,
        name: Option<&str>,
    ) -> Result<Vec<SessionRotation>, StoreError> {
        let name = name.map(str::to_owned);
        self.transaction("list session rotations", move |tx| {
            Box::pin(async move { sessions::list_rotations(tx, name.as_deref()).await })
        })
    }

    fn spent(
        &self,
        scope: &crate::spend::SpendScope,
        since: jiff::Timestamp,
    ) -> Result<crate::spend::Spent, StoreError> {
        let scope = scope.clone();
        self.transaction("spend", move |tx| {
            Box::pin(async move { super::spend::spent(tx, &scope, since).await })
        })
    }

    fn get_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
    ) -> Result<Option<Usage>, StoreError> {
        let (provider, thread_id) = (provider.to_owned(), thread_id.to_owned());
        self.transaction("read thread totals", move |tx| {
            Box::pin(async move { thread_totals::get(tx, &provider, &thread_id).await })
        })
    }

    fn put_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
        totals: &Usage,
    ) -> Result<(), StoreError> {
        let (provider, thread_id, totals) =
            (provider.to_owned(), thread_id.to_owned(), totals.clone());
        let now = jiff::Timestamp::now();
        self.transaction("store thread totals", move |tx| {
            Box::pin(
                async move { thread_totals::put(tx, &provider, &thread_id, &totals, now).await },
            )
        })
    }

    fn put_quota(&self, provider: &str, state: &QuotaState) -> Result<(), StoreError> {
        let (provider, state) = (provider.to_owned(), state.clone());
        self.transaction("store quota state", move |tx| {
            Box::pin(async move { quota::put(tx, &provider, &state).await })
        })
    }

    fn get_quota(&self, provider: &str) -> Result<Option<QuotaState>, StoreError> {
        let provider = provider.to_owned();
        self.transaction("read quota state", move |tx| {
            Box::pin(async move { quota::get(tx, &provider).await })
        })
    }

    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError> {
        self.transaction("list quota states", |tx| {
            Box::pin(async move { quota::list(tx).await })
        })
    }

    /// The run's folder with its `stderr.log`; the events go to
    /// `run_events` through a writer task that batches them (see the
    /// `postgres/events.rs` module doc).
    fn create_run_files(&self, run_id: &str) -> Result<RunFiles, StoreError> {
        validate_run_id(run_id)?;
        let sink = PgEventSink::start(self, run_id);
        let mut files = RunFiles::with_events(self.run_dir(run_id)?, run_id, Box::new(sink))?;
        files.bound_log(self.event_log_bound());
        Ok(files)
    }

    fn event_log_bound(&self) -> u64 {
        self.event_log_bound
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set_event_log_bound(&self, max_bytes: u64) {
        self.event_log_bound
            .store(max_bytes, std::sync::atomic::Ordering::Relaxed);
    }

    /// The run's folder, created if missing (the run may continue on
    /// another host), with its `stderr.log` appended to; the events go on
    /// in `run_events` after the highest stored `seq`, through a writer
    /// task as in [`RunStore::create_run_files`].
    fn reopen_run_files(&self, run_id: &str) -> Result<(RunFiles, u64), StoreError> {
        validate_run_id(run_id)?;
        let next_seq = events::next_seq(self, run_id)?;
        let sink = PgEventSink::start(self, run_id);
        let mut files = RunFiles::reopen_with_events(self.run_dir(run_id)?, Box::new(sink))?;
        files.bound_log(self.event_log_bound());
        Ok((files, next_seq))
    }

    /// Events are rows, not a file: follow them with
    /// [`RunStore::read_event_lines`].
    fn events_file(&self, run_id: &str) -> Result<Option<PathBuf>, StoreError> {
        validate_run_id(run_id)?;
        Ok(None)
    }

    fn read_event_lines(
        &self,
        run_id: &str,
        after: Option<u64>,
        limit: usize,
    ) -> Result<Vec<EventLine>, StoreError> {
        events::read_event_lines(self, run_id, after, limit)
    }

    fn read_events(&self, run_id: &str) -> Result<EventLog, StoreError> {
        events::read_events(self, run_id)
    }
}
