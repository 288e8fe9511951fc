//! The queue's executor inside `agentgate serve`: claims queued jobs within
//! the config's limits and runs each with the same engine as `agentgate
//! run` (`agentgate_core::run`, the server's store, a keeper in front
//! of every CLI).
//!
//! ## Threads
//!
//! One claim thread ([`Executor::start`]) wakes on every enqueue
//! ([`Executor::wake`]) and at least every [`TICK`] (for `not_before`, quota
//! resets and backoffs coming due, read from the injectable [`Clock`]). On a
//! store that reports its changes (PostgreSQL's LISTEN/NOTIFY), a thread of
//! `notify.rs` also wakes it when another process queues a job or frees a
//! slot and this executor, idle, is the one the store picked to tell
//! (`idle.rs`: one idle executor per change, not all), and stops at once a
//! job of this executor whose cancel another process asked: the poll and
//! the lease renewal are the fallback. Each pass is logged at debug level
//! once it ended (`claim pass`: its count, what woke it, how it ended).
//! Each pass
//! (`claims.rs`) reads the quota of each provider it knows and asks the store
//! for the next job within the limits (`JobQueue::claim_next`), again and
//! again, until this executor has no room (`concurrency`) or no job may
//! start: the store decides from the jobs' columns, planned at submit, and
//! the running jobs of every executor on it (on PostgreSQL, of every host),
//! in one bounded step per claim, so two executors never together pass a
//! limit and no pass reads the whole queue or plans a queued job. A running
//! job counts against the provider its claim charged. Each claimed job is
//! planned again when it runs (the config may have changed since it was
//! queued; a request that no longer plans fails then) and runs on a thread
//! of its own with a one-thread tokio runtime, as `agentgate run` does
//! (`job.rs`): store calls block, and a slow one delays only its own job.
//! Jobs queued without those columns (an older version's) are planned by
//! the pass before it claims.
//!
//! ## Leases
//!
//! A claim holds the job under a lease of `queue.lease`, renewed every
//! third of it while the run goes on (`heartbeat.rs`). A renewal that
//! finds the lease lost (another server took the job back) kills the run
//! at once and writes nothing more; so does a lease that runs out by this
//! executor's own clock with no renewal landed (the store out of reach),
//! a quarter of the lease before it can end in the store, its run's
//! writes refused from then on (`fence.rs`). The lease owner is this process (`RunOwner` as JSON: host,
//! boot, pid, start time): at start and every [`SWEEP`], expired leases are
//! taken back per `queue.on_lease_expiry`, and so is at once a lease whose
//! owner is a dead process of this host (a `serve` killed with `kill -9`).
//!
//! ## Options
//!
//! [`ExecutorOptions`]: `concurrency` bounds the jobs this executor runs at
//! once (the config's `queue:` limits stay global rules over every
//! executor of the store); `providers` keeps it to jobs it can run
//! ([`ProviderFilter`]). `agentgate worker` (`worker.rs`) sets both;
//! `serve` neither.
//!
//! ## Metrics
//!
//! The executor tells its [`JobObserver`] (`ExecutorOptions::observer`,
//! `observer.rs`) what happens where it happens, in `job.rs`: a claim to
//! run, a lease found lost (at a renewal or at the final write), a job
//! handed back at a stop, and each run's end (provider, outcome, duration,
//! tokens, cost). The process's counters (the `metrics` module's `Metrics`)
//! listen; the executor does not know them.
//!
//! ## Stopping
//!
//! [`Executor::drain`]: no more claims; running jobs get the grace to end;
//! then they are cancelled and released (back to queued, no attempt
//! charged), for the next start (or another worker) to run again.
//! [`Executor::hurry`] (a second stop signal) ends the grace at once.

mod claims;
mod facts;
mod fence;
mod heartbeat;
mod idle;
mod job;
mod job_end;
pub mod limits;
mod notify;
pub mod observer;
pub mod sealing;
mod submitter;
mod take_back;
mod warm_hold;
pub mod workflow_job;

use agentgate_core::warm::desk::ApprovalDesk;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agentgate_core::CancelRequest;
use agentgate_core::{Config, LeaseExpiry};
use agentgate_store::{ExpiryPolicy, RunOwner, StoreBackend};

pub use facts::ProviderFilter;
pub use job::error_envelope;
use limits::RunningJob;
pub use observer::{JobObserver, RunEnd, Unobserved};

use crate::clock::Clock;

/// The longest the claim thread sleeps between two passes.
pub const TICK: Duration = Duration::from_millis(250);

/// Names a claim poll period in milliseconds other than [`TICK`], for
/// tests that prove an executor is woken without its poll (read at
/// [`Executor::start`]).
pub const POLL_ENV: &str = "AGENTGATE_TEST_CLAIM_POLL_MS";

/// How often leases are checked for expiry and dead owners.
pub const SWEEP: Duration = Duration::from_secs(5);

/// How long cancelled jobs get to end at shutdown, after the grace.
pub const CANCEL_WAIT: Duration = Duration::from_secs(30);

/// What the executor is given.
#[derive(Debug, Clone, Default)]
pub struct ExecutorOptions {
    /// The keeper executable (see `agentgate_core::RunOptions`).
    pub keeper: Option<PathBuf>,
    /// How the runs' agents get registry tools (see
    /// `agentgate_core::RunOptions::tool_server`).
    pub tool_server: Option<agentgate_core::ToolServer>,
    /// The most jobs this executor runs at once (`agentgate worker
    /// --concurrency`), on top of the config's `queue:` limits, which stay
    /// global; `None`: only those.
    pub concurrency: Option<usize>,
    /// The providers whose jobs this executor claims (`agentgate worker
    /// --providers`); `None`: every provider. See [`ProviderFilter`].
    pub providers: Option<Vec<String>>,
    /// Who is told what happens to the jobs (the process's counters of
    /// `GET /metrics`); `None`: no one.
    pub observer: Option<Arc<dyn JobObserver>>,
    /// How workflow jobs' tool steps are run (the agentgate binary as
    /// their sandbox); `None`: their tool steps fail.
    pub tool_runner: Option<agentgate_tools::runner::RunnerSetup>,
    /// The keys that open the jobs' sealed secrets (see `sealing.rs`).
    pub keys: agentgate_core::sealed::KeyRing,
    /// Files of this process that no sandboxed CLI may read (see
    /// `agentgate_core::RunOptions::hidden`): the server's token file, the
    /// queue's key file.
    pub hidden: Vec<PathBuf>,
}

/// The running executor (see the module notes).
#[derive(Debug)]
pub struct Executor {
    inner: Arc<Inner>,
    claimer: Mutex<Option<JoinHandle<()>>>,
}

#[derive(Debug)]
struct Inner {
    store: Arc<dyn StoreBackend>,
    config: Config,
    clock: Arc<dyn Clock>,
    owner: String,
    keeper: Option<PathBuf>,
    tool_server: Option<agentgate_core::ToolServer>,
    /// See [`ExecutorOptions::hidden`].
    hidden: Vec<PathBuf>,
    /// Where people answer the `ask` decisions of runs executing here.
    approvals: ApprovalDesk,
    /// The warm processes of `warm: true` sessions.
    warm: warm_hold::WarmHold,
    /// The keys that open the jobs' sealed secrets.
    keys: agentgate_core::sealed::KeyRing,
    /// What workflow jobs' steps run with.
    workflow_tools: workflow_job::WorkflowTools,
    concurrency: Option<usize>,
    providers: Option<ProviderFilter>,
    /// The longest the claim thread sleeps: [`TICK`] (or [`POLL_ENV`]).
    poll: Duration,
    observer: Arc<dyn JobObserver>,
    /// Wakes the claim thread, saying why.
    wake: Mutex<Sender<Wake>>,
    /// Its place on the store's list of idle executors (`idle.rs`).
    idle: idle::IdleEntry,
    shared: Mutex<Shared>,
    /// Signalled when a job thread ends.
    ended: Condvar,
    /// No more claims.
    stopping: AtomicBool,
    /// Running jobs are being cancelled to stop the server: they are
    /// released, not ended.
    stopping_runs: AtomicBool,
    /// The grace is cut short ([`Executor::hurry`]).
    hurry: AtomicBool,
}

#[derive(Debug, Default)]
struct Shared {
    running: HashMap<String, Slot>,
    /// When this executor first saw each dead owner of this host (see
    /// `take_back.rs`).
    dead_owners: HashMap<String, Instant>,
    /// The queued jobs sealed with a key this executor lacks (named once
    /// in the log, passed over by its claims, left for an executor that
    /// has the key; forgotten once no longer queued, at each sweep).
    unopenable: std::collections::HashSet<String>,
}

/// A job of this executor that runs now.
#[derive(Debug)]
struct Slot {
    limits: RunningJob,
    cancel: tokio::sync::mpsc::Sender<CancelRequest>,
    /// A cancel was asked by a client (not by the shutdown).
    cancelled: Arc<AtomicBool>,
    /// Its run ended and the job's end is being written, so far in vain:
    /// the claim thread renews its lease before it takes back any.
    settling: Arc<AtomicBool>,
    /// Its lease's token.
    token: agentgate_store::LeaseToken,
}

impl Executor {
    /// Start the claim thread.
    pub fn start(
        store: Arc<dyn StoreBackend>,
        config: Config,
        clock: Arc<dyn Clock>,
        options: ExecutorOptions,
    ) -> Result<Executor, std::io::Error> {
        let owner = serde_json::to_string(&RunOwner::current()).map_err(std::io::Error::other)?;
        let poll = poll_from_env()?;
        let (wake_tx, wake_rx) = std::sync::mpsc::channel();
        let inner = Arc::new(Inner {
            store,
            config,
            clock,
            owner,
            workflow_tools: workflow_job::WorkflowTools {
                runner: options.tool_runner,
                keeper: options.keeper.clone(),
                tool_server: options.tool_server.clone(),
                keys: options.keys.clone(),
                hidden: options.hidden.clone(),
            },
            keys: options.keys,
            keeper: options.keeper,
            tool_server: options.tool_server,
            hidden: options.hidden,
            approvals: ApprovalDesk::new(),
            warm: warm_hold::WarmHold::start()?,
            concurrency: options.concurrency,
            providers: options.providers.map(ProviderFilter),
            poll,
            observer: options
                .observer
                .unwrap_or_else(|| Arc::new(observer::Unobserved)),
            wake: Mutex::new(wake_tx),
            idle: idle::IdleEntry::default(),
            shared: Mutex::new(Shared::default()),
            ended: Condvar::new(),
            stopping: AtomicBool::new(false),
            stopping_runs: AtomicBool::new(false),
            hurry: AtomicBool::new(false),
        });
        notify::start(&inner)?;
        let looping = inner.clone();
        let claimer = std::thread::Builder::new()
            .name("agentgate-claim".into())
            .spawn(move || claim_loop(looping, wake_rx))?;
        Ok(Executor {
            inner,
            claimer: Mutex::new(Some(claimer)),
        })
    }

    /// A job was enqueued (or a slot freed): look at the queue now.
    pub fn wake(&self) {
        self.inner.wake();
    }

    /// The lease owner this executor claims jobs as (the jobs'
    /// `lease_owner`: `RunOwner` as JSON).
    pub fn owner(&self) -> &str {
        &self.inner.owner
    }

    /// The ids of the jobs this executor runs now, sorted.
    pub fn running_job_ids(&self) -> Vec<String> {
        let shared = lock(&self.inner.shared);
        let mut ids: Vec<String> = shared.running.keys().cloned().collect();
        ids.sort();
        ids
    }

    /// Cut a [`drain`](Executor::drain)'s grace short: the running jobs are
    /// cancelled and handed back now (a second stop signal).
    pub fn hurry(&self) {
        self.inner.hurry.store(true, Ordering::SeqCst);
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.inner.ended.notify_all();
    }

    /// Whether the last [`drain`](Executor::drain) cancelled and handed
    /// back running jobs.
    pub fn handed_back(&self) -> bool {
        self.inner.stopping_runs.load(Ordering::SeqCst)
    }

    /// Where people answer the `ask` decisions of the runs it executes.
    pub fn approvals(&self) -> &ApprovalDesk {
        &self.inner.approvals
    }

    /// The clock the executor decides with.
    pub fn clock(&self) -> &Arc<dyn Clock> {
        &self.inner.clock
    }

    /// What this executor runs now, as the limits count it: each running
    /// job's provider and session.
    pub fn running(&self) -> Vec<RunningJob> {
        let shared = lock(&self.inner.shared);
        shared.running.values().map(|s| s.limits.clone()).collect()
    }

    /// Cancel `job_id` if it runs in this executor: its run is stopped
    /// through the engine's cancel channel (the supervisor's termination).
    /// Whether it ran here.
    pub fn cancel(&self, job_id: &str) -> bool {
        let shared = lock(&self.inner.shared);
        let Some(slot) = shared.running.get(job_id) else {
            return false;
        };
        slot.cancelled.store(true, Ordering::SeqCst);
        let _ = slot.cancel.try_send(CancelRequest { immediate: false });
        true
    }

    /// Stop (see the module notes): no more claims, `grace` for the
    /// running jobs to end, then cancel and release them. Blocks.
    pub fn drain(&self, grace: Duration) {
        self.inner.stopping.store(true, Ordering::SeqCst);
        self.wake();
        if let Some(claimer) = lock(&self.claimer).take() {
            let _ = claimer.join();
        }
        if self.inner.wait_until_idle(grace, true) {
            self.inner.warm.end_all();
            return;
        }
        self.inner.stopping_runs.store(true, Ordering::SeqCst);
        {
            let shared = lock(&self.inner.shared);
            tracing::info!(
                running = shared.running.len(),
                "the grace is over: cancelling the running jobs; they go back to the queue"
            );
            for slot in shared.running.values() {
                let _ = slot.cancel.try_send(CancelRequest { immediate: false });
            }
        }
        if !self.inner.wait_until_idle(CANCEL_WAIT, false) {
            tracing::warn!("jobs still running after the cancel; their leases will expire");
        }
        self.inner.warm.end_all();
    }
}

/// What woke the claim thread (or made it look), as its debug log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wake {
    /// It starts.
    Start,
    /// Something in this process: an enqueue, a job of its own ended, a
    /// stop.
    Local,
    /// The store picked this idle executor for a job queued or ended.
    Woken,
    /// A job queued or ended, told to every listener (a watcher without
    /// a wake channel of its own).
    Broadcast,
    /// Notices were missed.
    Missed,
    /// It just registered as idle: one more look (see `idle.rs`).
    Registered,
    /// Its poll ([`TICK`]) came.
    Poll,
}

impl Wake {
    fn as_str(self) -> &'static str {
        match self {
            Wake::Start => "start",
            Wake::Local => "local",
            Wake::Woken => "woken",
            Wake::Broadcast => "broadcast",
            Wake::Missed => "missed",
            Wake::Registered => "registered",
            Wake::Poll => "poll",
        }
    }
}

impl Inner {
    fn wake(&self) {
        self.wake_for(Wake::Local);
    }

    fn wake_for(&self, why: Wake) {
        let _ = lock(&self.wake).send(why);
    }

    /// Wait until no job of this executor runs, at most `limit` (and, if
    /// `hurriable`, until [`Executor::hurry`]); whether none runs.
    fn wait_until_idle(&self, limit: Duration, hurriable: bool) -> bool {
        let deadline = Instant::now() + limit;
        let mut shared = lock(&self.shared);
        while !shared.running.is_empty() {
            if hurriable && self.hurry.load(Ordering::SeqCst) {
                return false;
            }
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            shared = match self.ended.wait_timeout(shared, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        true
    }

    fn policy(&self) -> ExpiryPolicy {
        match self.config.queue.on_lease_expiry {
            LeaseExpiry::Requeue => ExpiryPolicy::Requeue,
            LeaseExpiry::Abandon => ExpiryPolicy::Abandon,
        }
    }
}

fn claim_loop(inner: Arc<Inner>, wake: Receiver<Wake>) {
    let mut last_sweep: Option<Instant> = None;
    let mut passes: u64 = 0;
    let mut why = vec![Wake::Start];
    while !inner.stopping.load(Ordering::SeqCst) {
        if last_sweep.is_none_or(|t| t.elapsed() >= SWEEP) {
            if let Err(e) = inner.take_back_leases() {
                tracing::warn!("failed to check the job leases: {e}");
            }
            inner.forget_unopenable();
            last_sweep = Some(Instant::now());
        }
        let ended = inner.schedule();
        passes += 1;
        let cause = why.iter().map(|w| w.as_str()).collect::<Vec<_>>().join("+");
        let end = ended.as_ref().map_or("failed", |end| end.as_str());
        tracing::debug!(pass = passes, cause = %cause, end, "claim pass");
        let look_again = match ended {
            Ok(end) => inner.after_pass(end),
            Err(e) => {
                tracing::warn!("failed to claim jobs: {e}");
                false
            }
        };
        why.clear();
        if look_again {
            why.push(Wake::Registered);
            continue;
        }
        match wake.recv_timeout(inner.poll) {
            Ok(first) => {
                why.push(first);
                while let Ok(more) = wake.try_recv() {
                    if !why.contains(&more) {
                        why.push(more);
                    }
                }
            }
            Err(RecvTimeoutError::Timeout) => why.push(Wake::Poll),
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    inner.leave_idle_list();
}

/// The claim poll period: [`TICK`], or [`POLL_ENV`]'s milliseconds.
fn poll_from_env() -> Result<Duration, std::io::Error> {
    match std::env::var(POLL_ENV) {
        Err(_) => Ok(TICK),
        Ok(text) => match text.trim().parse::<u64>() {
            Ok(ms) if ms > 0 => Ok(Duration::from_millis(ms)),
            _ => Err(std::io::Error::other(format!(
                "{POLL_ENV}={text:?}: expected a number of milliseconds above 0"
            ))),
        },
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod test_store;
#[cfg(test)]
mod tests;
