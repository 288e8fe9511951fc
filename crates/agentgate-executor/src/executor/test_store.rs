//! A store for the executor's tests: a real SQLite store behind a wrapper
//! that can hold one kind of call at a gate (to force an interleaving of
//! the job's thread and the test, with no sleep) or refuse writes as a
//! full disk does (ENOSPC), by kind: a job's or run's end, a lease
//! renewal, a take-back of expired leases.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use agentgate_protocol::{Envelope, Usage};
use agentgate_store::{
    ActiveJobCount, AttemptRecord, CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy,
    Heartbeat, JobCounts, JobCursor, JobFilter, JobOutcome, JobPage, JobQueue, JobRecord,
    LeaseToken, NewJob, QueueWatcher, QuotaState, RunDetail, RunList, RunRecord, RunStore,
    SessionLock, SessionRecord, Settlement, Store, StoreError, WorkerRecord, WorkerRegistry,
};
use jiff::Timestamp;

/// The calls a [`GatedStore`] can hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Call {
    /// `RunStore::insert_attempt`: the engine records an attempt after its
    /// CLI ended and its error was decided.
    InsertAttempt,
}

#[derive(Debug, Default)]
struct GateState {
    armed: Option<Call>,
    reached: bool,
    open: bool,
}

/// See the module notes.
#[derive(Debug)]
pub struct GatedStore {
    pub inner: Store,
    gate: Mutex<GateState>,
    changed: Condvar,
    /// While set, the writes that end a job or a run fail as on a full
    /// disk (ENOSPC).
    pub refuse_ends: AtomicBool,
    /// While set, lease renewals fail so.
    pub refuse_renewals: AtomicBool,
    /// While set, taking back expired leases fails so.
    pub refuse_sweeps: AtomicBool,
    /// How many writes of a job's end (settle, finish, retry, release)
    /// were refused.
    pub ends_refused: AtomicUsize,
    /// How many lease renewals the claim thread asked for (its sweep).
    pub sweep_renewals: AtomicUsize,
}

impl GatedStore {
    pub fn open(path: &Path) -> GatedStore {
        GatedStore {
            inner: Store::open(path).unwrap(),
            gate: Mutex::new(GateState::default()),
            changed: Condvar::new(),
            refuse_ends: AtomicBool::new(false),
            refuse_renewals: AtomicBool::new(false),
            refuse_sweeps: AtomicBool::new(false),
            ends_refused: AtomicUsize::new(0),
            sweep_renewals: AtomicUsize::new(0),
        }
    }

    /// Hold the next `call` until [`GatedStore::open_gate`].
    pub fn arm(&self, call: Call) {
        *self.gate.lock().unwrap() = GateState {
            armed: Some(call),
            ..GateState::default()
        };
    }

    /// Wait (at most `limit`) until a call is held at the gate.
    pub fn wait_reached(&self, limit: Duration) -> bool {
        let state = self.gate.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, limit, |s| !s.reached)
            .unwrap();
        state.reached
    }

    /// Let the held call (and every later one) through.
    pub fn open_gate(&self) {
        self.gate.lock().unwrap().open = true;
        self.changed.notify_all();
    }

    fn pass(&self, call: Call) {
        let mut state = self.gate.lock().unwrap();
        if state.armed != Some(call) || state.open {
            return;
        }
        state.reached = true;
        self.changed.notify_all();
        let _held = self
            .changed
            .wait_timeout_while(state, Duration::from_secs(60), |s| !s.open)
            .unwrap();
    }

    /// Every kind of write a full disk refuses, from now on.
    pub fn fill(&self, full: bool) {
        for flag in [
            &self.refuse_ends,
            &self.refuse_renewals,
            &self.refuse_sweeps,
        ] {
            flag.store(full, Ordering::SeqCst);
        }
    }

    fn refuse_end(&self, op: &'static str) -> Result<(), StoreError> {
        self.refuse(&self.refuse_ends, op)
            .inspect_err(|_| _ = self.ends_refused.fetch_add(1, Ordering::SeqCst))
    }

    fn refuse(&self, flag: &AtomicBool, op: &'static str) -> Result<(), StoreError> {
        if !flag.load(Ordering::SeqCst) {
            return Ok(());
        }
        Err(StoreError::Io {
            op,
            path: self.inner.path().to_path_buf(),
            source: std::io::Error::from_raw_os_error(28),
        })
    }
}

impl RunStore for GatedStore {
    fn runs_dir(&self) -> &Path {
        self.inner.runs_dir()
    }
    fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        self.inner.insert_run(run)
    }
    fn finish_run(&self, run_id: &str, envelope: &Envelope) -> Result<(), StoreError> {
        self.refuse(&self.refuse_ends, "finish run")?;
        self.inner.finish_run(run_id, envelope)
    }
    fn reopen_run(&self, run_id: &str) -> Result<(), StoreError> {
        self.inner.reopen_run(run_id)
    }
    fn list_runs_within(
        &self,
        labels: &agentgate_protocol::Labels,
        window: agentgate_store::TimeWindow,
        limit: usize,
        offset: usize,
    ) -> Result<RunList, StoreError> {
        self.inner.list_runs_within(labels, window, limit, offset)
    }
    fn get_run(&self, run_id: &str) -> Result<Option<RunDetail>, StoreError> {
        self.inner.get_run(run_id)
    }
    fn find_run(&self, prefix: &str) -> Result<Option<RunDetail>, StoreError> {
        self.inner.find_run(prefix)
    }
    fn insert_attempt(&self, run_id: &str, attempt: &AttemptRecord) -> Result<(), StoreError> {
        self.pass(Call::InsertAttempt);
        self.inner.insert_attempt(run_id, attempt)
    }
    fn try_lock_session(&self, name: &str) -> Result<Option<SessionLock>, StoreError> {
        self.inner.try_lock_session(name)
    }
    fn get_session(&self, name: &str, provider: &str) -> Result<Option<SessionRecord>, StoreError> {
        self.inner.get_session(name, provider)
    }
    fn put_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        self.inner.put_session(session)
    }
    fn delete_session(&self, name: &str, provider: &str) -> Result<bool, StoreError> {
        self.inner.delete_session(name, provider)
    }
    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        self.inner.list_sessions()
    }
    fn add_session_rotation(
        &self,
        rotation: &agentgate_store::SessionRotation,
    ) -> Result<(), StoreError> {
        self.inner.add_session_rotation(rotation)
    }
    fn spent(
        &self,
        scope: &agentgate_store::SpendScope,
        since: jiff::Timestamp,
    ) -> Result<agentgate_store::Spent, StoreError> {
        self.inner.spent(scope, since)
    }
    fn list_session_rotations(
        &self,
        name: Option<&str>,
    ) -> Result<Vec<agentgate_store::SessionRotation>, StoreError> {
        self.inner.list_session_rotations(name)
    }
    fn get_thread_totals(&self, provider: &str, thread: &str) -> Result<Option<Usage>, StoreError> {
        self.inner.get_thread_totals(provider, thread)
    }
    fn put_thread_totals(&self, p: &str, thread: &str, totals: &Usage) -> Result<(), StoreError> {
        self.inner.put_thread_totals(p, thread, totals)
    }
    fn put_quota(&self, provider: &str, state: &QuotaState) -> Result<(), StoreError> {
        self.inner.put_quota(provider, state)
    }
    fn get_quota(&self, provider: &str) -> Result<Option<QuotaState>, StoreError> {
        self.inner.get_quota(provider)
    }
    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError> {
        self.inner.list_quota()
    }
    fn run_dir(&self, run_id: &str) -> Result<PathBuf, StoreError> {
        self.inner.run_dir(run_id)
    }
    fn event_log_bound(&self) -> u64 {
        self.inner.event_log_bound()
    }
    fn set_event_log_bound(&self, max_bytes: u64) {
        self.inner.set_event_log_bound(max_bytes);
    }
}

impl JobQueue for GatedStore {
    fn enqueue(&self, job: &NewJob, now: Timestamp) -> Result<Enqueued, StoreError> {
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
        if std::thread::current().name() == Some("agentgate-claim") {
            self.sweep_renewals.fetch_add(1, Ordering::SeqCst);
        }
        self.refuse(&self.refuse_renewals, "renew job lease")?;
        self.inner.heartbeat(id, t, l, n)
    }
    fn finish(
        &self,
        id: &str,
        t: &LeaseToken,
        o: &JobOutcome,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.refuse_end("finish job")?;
        self.inner.finish(id, t, o, n)
    }
    fn settle(
        &self,
        id: &str,
        t: &LeaseToken,
        s: &Settlement,
        n: Timestamp,
    ) -> Result<JobRecord, StoreError> {
        self.refuse_end("settle job")?;
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
        self.refuse_end("release job")?;
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
        self.refuse_end("retry job")?;
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
        e: Option<&Envelope>,
        n: Timestamp,
    ) -> Result<CancelOutcome, StoreError> {
        self.inner.cancel(id, e, n)
    }
    fn expire_leases(&self, n: Timestamp, p: ExpiryPolicy) -> Result<Vec<ExpiredJob>, StoreError> {
        self.refuse(&self.refuse_sweeps, "expire job leases")?;
        self.inner.expire_leases(n, p)
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
    fn get_job(&self, id: &str) -> Result<Option<JobRecord>, StoreError> {
        self.inner.get_job(id)
    }
    fn list_jobs(
        &self,
        f: &JobFilter,
        limit: usize,
        c: Option<&JobCursor>,
    ) -> Result<JobPage, StoreError> {
        self.inner.list_jobs(f, limit, c)
    }
    fn count_jobs(&self) -> Result<JobCounts, StoreError> {
        self.inner.count_jobs()
    }
    fn watch_queue(&self) -> Result<Option<QueueWatcher>, StoreError> {
        self.inner.watch_queue()
    }
    fn watch_queue_for_executor(&self) -> Result<Option<QueueWatcher>, StoreError> {
        self.inner.watch_queue_for_executor()
    }
    fn register_idle(
        &self,
        channel: &str,
        owner: &str,
        providers: Option<&[String]>,
        now: Timestamp,
    ) -> Result<(), StoreError> {
        self.inner.register_idle(channel, owner, providers, now)
    }
    fn unregister_idle(&self, channel: &str) -> Result<(), StoreError> {
        self.inner.unregister_idle(channel)
    }
    fn count_active_jobs(&self) -> Result<Vec<ActiveJobCount>, StoreError> {
        self.inner.count_active_jobs()
    }
}

impl WorkerRegistry for GatedStore {
    fn register_worker(&self, worker: &WorkerRecord) -> Result<(), StoreError> {
        self.inner.register_worker(worker)
    }
    fn beat_worker(
        &self,
        worker_id: &str,
        state: agentgate_store::WorkerState,
        running: &[String],
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        self.inner.beat_worker(worker_id, state, running, now)
    }
    fn remove_worker(&self, worker_id: &str) -> Result<bool, StoreError> {
        self.inner.remove_worker(worker_id)
    }
    fn list_workers(&self) -> Result<Vec<WorkerRecord>, StoreError> {
        self.inner.list_workers()
    }
    fn prune_workers(&self, before: Timestamp) -> Result<usize, StoreError> {
        self.inner.prune_workers(before)
    }
}

impl agentgate_store::UsageReports for GatedStore {
    fn usage_report(
        &self,
        query: &agentgate_store::UsageQuery,
    ) -> Result<agentgate_store::UsageReport, StoreError> {
        self.inner.usage_report(query)
    }
}

impl agentgate_store::WebhookOutbox for GatedStore {
    fn enqueue_webhooks(
        &self,
        deliveries: &[agentgate_store::NewWebhookDelivery],
        now: Timestamp,
    ) -> Result<usize, StoreError> {
        self.inner.enqueue_webhooks(deliveries, now)
    }
    fn claim_webhooks(
        &self,
        owner: &str,
        lease: Duration,
        limit: usize,
        now: Timestamp,
    ) -> Result<Vec<agentgate_store::ClaimedDelivery>, StoreError> {
        self.inner.claim_webhooks(owner, lease, limit, now)
    }
    fn record_webhook_attempt(
        &self,
        delivery_id: i64,
        owner: &str,
        attempt: &agentgate_store::DeliveryAttempt,
        after: agentgate_store::AfterAttempt,
    ) -> Result<bool, StoreError> {
        self.inner
            .record_webhook_attempt(delivery_id, owner, attempt, after)
    }
    fn list_webhook_deliveries(
        &self,
        filter: &agentgate_store::DeliveryFilter,
    ) -> Result<Vec<agentgate_store::DeliveryRecord>, StoreError> {
        self.inner.list_webhook_deliveries(filter)
    }
    fn next_webhook_due(&self) -> Result<Option<Timestamp>, StoreError> {
        self.inner.next_webhook_due()
    }
}
