//! WIP(i13 skeleton): replaced by the real implementation.

use std::path::Path;

use agentgate_protocol::{Envelope, Usage};

use super::PgStore;
use crate::error::StoreError;
use crate::records::{AttemptRecord, QuotaState, RunDetail, RunRecord, RunSummary, SessionRecord};
use crate::session_lock::SessionLock;

fn wip(store: &PgStore) -> StoreError {
    StoreError::InvalidStore {
        store: store.database().to_owned(),
        reason: "WIP".to_owned(),
    }
}

impl crate::run_store::RunStore for PgStore {
    fn runs_dir(&self) -> &Path {
        self.local_runs_dir()
    }

    fn insert_run(&self, _run: &RunRecord) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn finish_run(&self, _run_id: &str, _envelope: &Envelope) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn list_runs(&self, _limit: usize, _offset: usize) -> Result<Vec<RunSummary>, StoreError> {
        Err(wip(self))
    }

    fn get_run(&self, _run_id: &str) -> Result<Option<RunDetail>, StoreError> {
        Err(wip(self))
    }

    fn find_run(&self, _prefix: &str) -> Result<Option<RunDetail>, StoreError> {
        Err(wip(self))
    }

    fn insert_attempt(&self, _run_id: &str, _attempt: &AttemptRecord) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn try_lock_session(&self, _name: &str) -> Result<Option<SessionLock>, StoreError> {
        Err(wip(self))
    }

    fn get_session(
        &self,
        _name: &str,
        _provider: &str,
    ) -> Result<Option<SessionRecord>, StoreError> {
        Err(wip(self))
    }

    fn put_session(&self, _session: &SessionRecord) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn delete_session(&self, _name: &str, _provider: &str) -> Result<bool, StoreError> {
        Err(wip(self))
    }

    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        Err(wip(self))
    }

    fn get_thread_totals(
        &self,
        _provider: &str,
        _thread_id: &str,
    ) -> Result<Option<Usage>, StoreError> {
        Err(wip(self))
    }

    fn put_thread_totals(
        &self,
        _provider: &str,
        _thread_id: &str,
        _totals: &Usage,
    ) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn put_quota(&self, _provider: &str, _state: &QuotaState) -> Result<(), StoreError> {
        Err(wip(self))
    }

    fn get_quota(&self, _provider: &str) -> Result<Option<QuotaState>, StoreError> {
        Err(wip(self))
    }

    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError> {
        Err(wip(self))
    }
}
