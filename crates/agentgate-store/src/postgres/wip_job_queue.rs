//! WIP(i13 skeleton): replaced by the real implementation.

use std::time::Duration;

use agentgate_protocol::Envelope;
use jiff::Timestamp;

use super::PgStore;
use crate::error::StoreError;
use crate::jobs::{
    CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, Heartbeat, JobCounts, JobCursor,
    JobFilter, JobOutcome, JobPage, JobRecord, LeaseToken, NewJob,
};

fn wip(store: &PgStore) -> StoreError {
    StoreError::InvalidStore {
        store: store.database().to_owned(),
        reason: "WIP".to_owned(),
    }
}

impl crate::job_queue::JobQueue for PgStore {
    fn enqueue(&self, _job: &NewJob, _now: Timestamp) -> Result<Enqueued, StoreError> {
        Err(wip(self))
    }

    fn claim(
        &self,
        _owner: &str,
        _lease: Duration,
        _now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        Err(wip(self))
    }

    fn heartbeat(
        &self,
        _job_id: &str,
        _token: &LeaseToken,
        _lease: Duration,
        _now: Timestamp,
    ) -> Result<Heartbeat, StoreError> {
        Err(wip(self))
    }

    fn finish(
        &self,
        _job_id: &str,
        _token: &LeaseToken,
        _outcome: &JobOutcome,
        _now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        Err(wip(self))
    }

    fn release(
        &self,
        _job_id: &str,
        _token: &LeaseToken,
        _not_before: Timestamp,
        _waiting_for: Option<&str>,
        _now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        Err(wip(self))
    }

    fn retry(
        &self,
        _job_id: &str,
        _token: &LeaseToken,
        _not_before: Timestamp,
        _error: &str,
        _now: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        Err(wip(self))
    }

    fn claim_job(
        &self,
        _job_id: &str,
        _owner: &str,
        _lease: Duration,
        _now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError> {
        Err(wip(self))
    }

    fn cancel(
        &self,
        _job_id: &str,
        _envelope_if_queued: Option<&Envelope>,
        _now: Timestamp,
    ) -> Result<CancelOutcome, StoreError> {
        Err(wip(self))
    }

    fn expire_leases(
        &self,
        _now: Timestamp,
        _policy: ExpiryPolicy,
    ) -> Result<Vec<ExpiredJob>, StoreError> {
        Err(wip(self))
    }

    fn expire_owner(
        &self,
        _job_id: &str,
        _owner: &str,
        _now: Timestamp,
        _policy: ExpiryPolicy,
    ) -> Result<Option<ExpiredJob>, StoreError> {
        Err(wip(self))
    }

    fn get_job(&self, _job_id: &str) -> Result<Option<JobRecord>, StoreError> {
        Err(wip(self))
    }

    fn list_jobs(
        &self,
        _filter: &JobFilter,
        _limit: usize,
        _cursor: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError> {
        Err(wip(self))
    }

    fn count_jobs(&self) -> Result<JobCounts, StoreError> {
        Err(wip(self))
    }
}
