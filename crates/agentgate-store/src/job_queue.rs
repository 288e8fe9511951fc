//! The job queue's operations, one trait for every backend.
//!
//! A job is a run request waiting to be executed, keyed by a run id (the run
//! it executes is stored under the same id). Its life:
//!
//! ```text
//! enqueue ─► queued ──claim──► running ──finish──► succeeded | failed | cancelled
//!              ▲  │               │ │
//!              │  └─cancel──► cancelled (at once)
//!              └─release, retry───┘ └─lease expired──► queued | abandoned
//! ```
//!
//! - **Leases.** A claim moves one job to `running` under a lease: an owner
//!   name, a random token and an expiry. Every write by the executor
//!   (heartbeat, finish, release, retry) names the token and is refused
//!   with [`StoreError::LeaseLost`] unless the job is still running under that
//!   token, so a job ends exactly once even when a slow executor outlives its
//!   lease. A lease that is not renewed in time is taken back by
//!   [`JobQueue::expire_leases`], by whoever runs it (the server at start and
//!   periodically).
//! - **Attempts.** A claim charges one attempt. [`JobQueue::release`] gives
//!   it back: it is for a claim that did not run the job (every provider's
//!   quota exhausted, the server shutting down before the start): a job
//!   waiting for a quota is not charged an attempt. [`JobQueue::retry`]
//!   keeps it: the attempt ran and failed, the job waits for its backoff. A
//!   lease that expires keeps its attempt: the job may have run.
//! - **Cancel.** A queued job is cancelled at once. A running one is only
//!   marked (`cancel_requested`): a request, which its executor learns
//!   from its next heartbeat (or a notice) and passes to the run. The job
//!   then ends as its run did ([`JobQueue::settle`]): `cancelled` if the
//!   cancel stopped the run, `succeeded` or `failed` if the run ended
//!   first, never tried again. A marked job released or retried without a
//!   run's end ([`JobQueue::release`], [`JobQueue::retry`]), or taken back
//!   from an expired lease, ends as cancelled, not queued.
//! - **A run's end.** [`JobQueue::settle`] writes the run's final record
//!   and the job's next state in one transaction (see `crate::settle`).
//! - **Watching.** [`JobQueue::watch_queue`] reports enqueues, cancel
//!   requests and ends as they are committed, by any process (PostgreSQL).
//!   An executor watches with [`JobQueue::watch_queue_for_executor`]
//!   instead: it hears the cancels, and when it has nothing to claim it
//!   waits on the store's list of idle executors
//!   ([`JobQueue::register_idle`]), from which each job queued or ended
//!   wakes one, not all. Its poll and the lease renewal stay the fallback.
//! - **Time.** Every call that compares or writes a time takes `now`: the
//!   clock belongs to the caller, so tests and schedules can inject it.
//!
//! ## The claim, and adding limits to it
//!
//! SQLite: one `BEGIN IMMEDIATE` transaction runs one
//! `UPDATE jobs SET state = 'running', ... WHERE seq = (SELECT seq FROM jobs
//! WHERE state = 'queued' AND not_before <= :now ORDER BY priority DESC,
//! created_at, seq LIMIT 1) RETURNING ...`; the write lock makes two
//! claimers take turns, so they never get the same job.
//!
//! PostgreSQL runs the same statement, alone (no transaction around it),
//! with `FOR UPDATE SKIP LOCKED` in the subquery: the subquery walks the
//! partial index `jobs_claim` (`WHERE state = 'queued'`) in claim order and
//! locks the first ready row that no other session has locked; a row
//! another claimer changed meanwhile is re-checked under read committed and
//! passed over once it is no longer queued. Concurrent claimers thus take
//! different jobs without waiting for each other's row locks, on one host
//! or many. Every write under a lease is also one statement whose `WHERE`
//! names the token (`state = 'running' AND lease_token = $token`): the
//! database, not the executor, refuses a stale token, so no write from a
//! lease that was taken back lands after it (fencing).
//!
//! The limits (global, per provider, per session, one writer per folder,
//! quota waits) are decided by [`JobQueue::claim_next`] in the database, from
//! the jobs' columns and the running jobs, in one bounded step per claim:
//! see `crate::claim_next`. `agentgate serve`'s and `agentgate worker`'s
//! executors claim that way. [`JobQueue::claim`] and [`JobQueue::claim_job`]
//! (no limits) stay for callers that need them.

use std::time::Duration;

use agentgate_protocol::Envelope;
use jiff::Timestamp;

use crate::claim_next::{ClaimLimits, NextClaim};
use crate::error::StoreError;
use crate::jobs::{
    ActiveJobCount, CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, Heartbeat,
    JobCounts, JobCursor, JobFilter, JobOutcome, JobPage, JobRecord, LeaseToken, NewJob,
    PlannedFacts,
};
use crate::queue_watch::QueueWatcher;
use crate::settle::Settlement;

/// The job queue: a backend's jobs table behind the rules above.
///
/// The SQLite store ([`crate::SqliteStore`]) and the PostgreSQL store
/// (`PgStore`, feature `postgres`) implement it with the same semantics
/// (the same tests run on both). Calls block, like [`crate::RunStore`].
pub trait JobQueue: Send + Sync {
    /// Enqueues `job` at `now`. If its idempotency key was used before, the
    /// job enqueued first with that key is returned with `created: false`
    /// and nothing changes (the request is not compared). Atomic: two
    /// concurrent calls with one key create one job. Fails with
    /// [`StoreError::InvalidRunId`] for an invalid id and
    /// [`StoreError::JobExists`] for an id already used.
    fn enqueue(&self, job: &NewJob, now: Timestamp) -> Result<Enqueued, StoreError>;

    /// Claims the queued job with the highest priority, then the oldest
    /// (enqueue time, then submission order), whose `not_before` has passed:
    /// it becomes running under a new lease held by `owner` until
    /// `now + lease`, its attempt count grows by one and its `waiting_for`
    /// is cleared. `None` if no job is ready. Two claimers never get the
    /// same job.
    fn claim(
        &self,
        owner: &str,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError>;

    /// Renews a lease until `now + lease`, and tells whether a cancel was
    /// asked. [`StoreError::LeaseLost`] if the job is no longer running under
    /// `token` (its lease was taken back, or it ended). A lease past its end
    /// that no one has taken back yet is renewed: the token still proves
    /// that no one else holds the job.
    fn heartbeat(
        &self,
        job_id: &str,
        token: &LeaseToken,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Heartbeat, StoreError>;

    /// Ends a running job with `outcome` at `now` and clears its lease.
    /// [`StoreError::LeaseLost`] if the job is no longer running under
    /// `token`: a job is finished at most once.
    fn finish(
        &self,
        job_id: &str,
        token: &LeaseToken,
        outcome: &JobOutcome,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError>;

    /// Ends what an executor holds once its job's run ended, in one
    /// transaction: the run's final record (`settlement.run_id`, as
    /// [`crate::RunStore::finish_run`] writes it, its end time the wall
    /// clock's; a run never recorded is skipped) and the job's next state
    /// per `settlement.after`. A job that ends takes its run's state
    /// (`succeeded`, `failed` or `cancelled`, from the envelope), the
    /// envelope and its error, at `now`. A requeue (retry, release) of a
    /// job whose cancel was asked ends it instead, the same way: the
    /// request stops further tries, and the job says what its run did.
    /// [`StoreError::LeaseLost`] if the job is no longer running under
    /// `token`; then nothing is written, the run's record included.
    fn settle(
        &self,
        job_id: &str,
        token: &LeaseToken,
        settlement: &Settlement,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError>;

    /// Puts a running job back in the queue, not to be claimed before
    /// `not_before`, waiting for `waiting_for` (e.g. `"quota"`), and gives
    /// back the attempt its claim charged. A job whose cancel was asked ends
    /// as cancelled instead. [`StoreError::LeaseLost`] if the job is no
    /// longer running under `token`.
    fn release(
        &self,
        job_id: &str,
        token: &LeaseToken,
        not_before: Timestamp,
        waiting_for: Option<&str>,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError>;

    /// Puts a running job whose attempt failed back in the queue, not to be
    /// claimed before `not_before` (the caller's backoff), keeping the
    /// attempt charged, with `error` as the job's `error` until it ends.
    /// Whether attempts remain (`max_attempts`) is the caller's rule. A job whose cancel was asked ends as cancelled instead.
    /// [`StoreError::LeaseLost`] if the job is no longer running under
    /// `token`.
    fn retry(
        &self,
        job_id: &str,
        token: &LeaseToken,
        not_before: Timestamp,
        error: &str,
        now: Timestamp,
    ) -> Result<JobRecord, StoreError>;

    /// Claims the job `job_id` if it is queued and its `not_before` has
    /// passed, as [`JobQueue::claim`] claims the next one: for an executor
    /// that chose the job itself (its limits decided which job may start).
    /// `None` if the job is not (or no longer) claimable.
    fn claim_job(
        &self,
        job_id: &str,
        owner: &str,
        lease: Duration,
        now: Timestamp,
    ) -> Result<Option<ClaimedJob>, StoreError>;

    /// Claims the next job within `limits` in one bounded step (see
    /// `crate::claim_next` for the rules and their cost): the first queued
    /// job in claim order that is ready, planned, its session's turn, and
    /// within the limits counted over the running jobs of every claimer
    /// of the store; it runs under a new lease held by `owner` until
    /// `now + lease`, one attempt charged, counted against the first of
    /// its providers whose quota is not exhausted. A job whose every
    /// provider is exhausted is not claimed: it waits for the earliest
    /// reset ([`NextClaim::WaitingForQuota`]). Two claimers never get the
    /// same job, nor together exceed a limit.
    fn claim_next(
        &self,
        owner: &str,
        lease: Duration,
        now: Timestamp,
        limits: &ClaimLimits,
    ) -> Result<NextClaim, StoreError>;

    /// Up to `limit` queued jobs whose claim facts were never planned
    /// (queued by an older version, before the columns existed), oldest
    /// first: [`JobQueue::claim_next`] passes them over until
    /// [`JobQueue::set_job_facts`] stores their facts.
    fn unplanned_jobs(&self, limit: usize) -> Result<Vec<JobRecord>, StoreError>;

    /// Stores what planning the queued job `job_id` tells its claim and
    /// marks it planned; whether it was still queued and unplanned.
    fn set_job_facts(&self, job_id: &str, facts: &PlannedFacts) -> Result<bool, StoreError>;

    /// Cancels a job: a queued one at once (ended at `now`, with
    /// `envelope_if_queued` as its envelope, given the job's labels when it
    /// names none: it never ran, so no run made one), a running one by marking it for its executor; an ended one is
    /// left as it is. [`StoreError::JobNotFound`] if there is no such job.
    fn cancel(
        &self,
        job_id: &str,
        envelope_if_queued: Option<&Envelope>,
        now: Timestamp,
    ) -> Result<CancelOutcome, StoreError>;

    /// Takes back every lease that expired before `now`: the jobs go back to
    /// queued or end as abandoned per `policy` (a job whose cancel was asked
    /// ends as cancelled), their tokens cleared. Returns them, oldest lease
    /// first.
    fn expire_leases(
        &self,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Vec<ExpiredJob>, StoreError>;

    /// Takes back the lease of the running job `job_id` now, expired or
    /// not, if `owner` holds it (as [`JobQueue::expire_leases`] does with
    /// an expired one): for a lease whose owner is known dead (e.g. a
    /// process of this host that no longer runs). `None` if `owner` does
    /// not hold it.
    fn expire_owner(
        &self,
        job_id: &str,
        owner: &str,
        now: Timestamp,
        policy: ExpiryPolicy,
    ) -> Result<Option<ExpiredJob>, StoreError>;

    /// One job; `None` if there is no such job.
    fn get_job(&self, job_id: &str) -> Result<Option<JobRecord>, StoreError>;

    /// Jobs matching `filter`, newest first (enqueue time, then id), at most
    /// `limit`, after `cursor` (the previous page's `next`).
    fn list_jobs(
        &self,
        filter: &JobFilter,
        limit: usize,
        cursor: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError>;

    /// How many jobs are in each state, in all and per provider.
    fn count_jobs(&self) -> Result<JobCounts, StoreError>;

    /// The queue's changes made by any process, as they happen: for an
    /// executor to claim, or stop a cancelled run, at once rather than at
    /// its next poll or lease renewal (see [`QueueWatcher`]). `None` when
    /// the backend has no such channel: SQLite, one host, where the process
    /// that changes the queue wakes its own executor. Fails if the
    /// listening cannot start; the caller then relies on polling.
    fn watch_queue(&self) -> Result<Option<QueueWatcher>, StoreError>;

    /// What an executor of the queue needs to hear (see `queue_watch.rs`):
    /// the cancels of every change, and [`QueueNotice::Woken`] on a
    /// channel of its own ([`QueueWatcher::wake_channel`]) once it is on
    /// the list of idle executors ([`JobQueue::register_idle`]) and a job
    /// queued or ended picked it; not the other jobs queued or ended.
    /// `None` as for [`JobQueue::watch_queue`]. A backend without such
    /// channels returns its [`JobQueue::watch_queue`]: a watcher with no
    /// wake channel, whose queued and ended notices its consumer acts on.
    ///
    /// [`QueueNotice::Woken`]: crate::QueueNotice::Woken
    fn watch_queue_for_executor(&self) -> Result<Option<QueueWatcher>, StoreError> {
        self.watch_queue()
    }

    /// Puts the executor that listens on `channel` (its watcher's
    /// [`QueueWatcher::wake_channel`]), claims as `owner` and takes the
    /// jobs of `providers` (`None`: every provider, as
    /// [`ClaimLimits::only_providers`]) on the list of idle executors,
    /// behind those already there (kept in its place if it is there). Each
    /// job queued or ended then takes one executor off the list (the one
    /// waiting longest that could claim it, not the job's last lease
    /// holder) and wakes it on its channel. Also drops the entries of
    /// executors whose presence ([`crate::WorkerRegistry`]) was lost by
    /// `now`. Nothing on a backend without wake channels.
    fn register_idle(
        &self,
        channel: &str,
        owner: &str,
        providers: Option<&[String]>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        let _ = (channel, owner, providers, now);
        Ok(())
    }

    /// Takes the executor listening on `channel` off the list of idle
    /// executors (it has no room left, or it stops); nothing if it is not
    /// on it.
    fn unregister_idle(&self, channel: &str) -> Result<(), StoreError> {
        let _ = channel;
        Ok(())
    }

    /// How many jobs are queued and running, per provider (see
    /// [`ActiveJobCount`] for the provider a job counts under), queued
    /// first, then by provider. Reads only those two states (the partial
    /// indexes `jobs_claim` and `jobs_leases` on PostgreSQL, `jobs_by_state`
    /// on SQLite), so its cost follows the queue's depth, not the history.
    fn count_active_jobs(&self) -> Result<Vec<ActiveJobCount>, StoreError>;
}
