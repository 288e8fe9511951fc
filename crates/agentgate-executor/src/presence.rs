//! An executor's presence in the store (`GET /v1/workers`): one row per
//! `agentgate worker` or `agentgate serve` with its executor.
//!
//! [`Presence::start`] registers the row and starts a thread that rewrites
//! it every [`heartbeat_period`] (a third of the job lease, at most
//! [`MAX_HEARTBEAT`]: the same family as the leases) and at once when the
//! set of running jobs changes (checked every [`CHECK`]). The running jobs
//! are the executor's own list, not derived from the jobs' lease owners.
//! [`Presence::draining`] marks the row at a stop signal; [`Presence::stop`]
//! removes it after a clean stop. Each beat also prunes rows silent for
//! [`agentgate_store::PRUNE_AFTER`]. A row whose worker could not be
//! reached is re-registered at the next beat.

use std::sync::mpsc::{RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use agentgate_store::{RunOwner, StoreBackend, StoreError, WorkerKind, WorkerRecord, WorkerState};

use crate::executor::Executor;

/// The longest period between two heartbeats of a worker.
pub const MAX_HEARTBEAT: Duration = Duration::from_secs(5);

/// How often the presence thread looks for a change of the running jobs.
pub const CHECK: Duration = Duration::from_millis(250);

/// The heartbeat period for a job lease of `lease`.
pub fn heartbeat_period(lease: Duration) -> Duration {
    (lease / 3).clamp(Duration::from_secs(1), MAX_HEARTBEAT)
}

/// What a worker says of itself at registration.
#[derive(Debug, Clone)]
pub struct PresenceInfo {
    /// `worker` or `serve`.
    pub kind: WorkerKind,
    /// The providers it claims jobs of; empty: all.
    pub providers: Vec<String>,
    /// Its `--concurrency`, if any.
    pub concurrency: Option<usize>,
}

/// The presence thread (see the module notes).
#[derive(Debug)]
pub struct Presence {
    worker_id: String,
    store: Arc<dyn StoreBackend>,
    state: Arc<Mutex<WorkerState>>,
    tx: Sender<()>,
    thread: Option<JoinHandle<()>>,
}

impl Presence {
    /// Register `executor` in its store and start heartbeating.
    pub fn start(
        store: Arc<dyn StoreBackend>,
        executor: Arc<Executor>,
        lease: Duration,
        info: PresenceInfo,
    ) -> Result<Presence, PresenceError> {
        let me = RunOwner::current();
        let now = executor.clock().now();
        let record = WorkerRecord {
            worker_id: new_worker_id()?,
            kind: info.kind,
            host: me.host,
            pid: me.pid,
            owner: executor.owner().to_owned(),
            providers: info.providers,
            concurrency: info
                .concurrency
                .map(|c| u32::try_from(c).unwrap_or(u32::MAX)),
            started_at: now,
            last_heartbeat: now,
            heartbeat_every: heartbeat_period(lease),
            state: WorkerState::Running,
            running_jobs: executor.running_job_ids(),
        };
        store.register_worker(&record)?;
        let state = Arc::new(Mutex::new(WorkerState::Running));
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let beating = Beat {
            store: store.clone(),
            executor,
            state: state.clone(),
            record: record.clone(),
        };
        let thread = std::thread::Builder::new()
            .name("agentgate-presence".into())
            .spawn(move || {
                let mut last = Instant::now();
                let mut sent = (WorkerState::Running, record.running_jobs.clone());
                loop {
                    let changed = match rx.recv_timeout(CHECK) {
                        Ok(()) => true,
                        Err(RecvTimeoutError::Timeout) => false,
                        Err(RecvTimeoutError::Disconnected) => return,
                    };
                    let now_state = (beating.state(), beating.executor.running_job_ids());
                    if changed || now_state != sent || last.elapsed() >= record.heartbeat_every {
                        beating.beat(&now_state.0, &now_state.1);
                        sent = now_state;
                        last = Instant::now();
                    }
                }
            })
            .map_err(PresenceError::Thread)?;
        Ok(Presence {
            worker_id: record.worker_id,
            store,
            state,
            tx,
            thread: Some(thread),
        })
    }

    /// This worker's id in the store.
    pub fn worker_id(&self) -> &str {
        &self.worker_id
    }

    /// Mark the row `draining` now.
    pub fn draining(&self) {
        *self.state.lock().unwrap_or_else(|p| p.into_inner()) = WorkerState::Draining;
        let _ = self.tx.send(());
    }

    /// Stop heartbeating and remove the row (a clean stop).
    pub fn stop(mut self) {
        self.end();
        if let Err(e) = self.store.remove_worker(&self.worker_id) {
            tracing::warn!("failed to remove this worker from the store: {e}");
        }
    }

    fn end(&mut self) {
        let (tx, _) = std::sync::mpsc::channel();
        drop(std::mem::replace(&mut self.tx, tx));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Presence {
    fn drop(&mut self) {
        self.end();
    }
}

struct Beat {
    store: Arc<dyn StoreBackend>,
    executor: Arc<Executor>,
    state: Arc<Mutex<WorkerState>>,
    record: WorkerRecord,
}

impl Beat {
    fn state(&self) -> WorkerState {
        *self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn beat(&self, state: &WorkerState, running: &[String]) {
        let now = self.executor.clock().now();
        let result = self
            .store
            .beat_worker(&self.record.worker_id, *state, running, now)
            .and_then(|present| {
                if present {
                    return Ok(());
                }
                let record = WorkerRecord {
                    last_heartbeat: now,
                    state: *state,
                    running_jobs: running.to_vec(),
                    ..self.record.clone()
                };
                self.store.register_worker(&record)
            });
        if let Err(e) = result {
            tracing::warn!("failed to renew this worker's presence: {e}");
        }
        let prune = agentgate_store::PRUNE_AFTER;
        let before = now
            .checked_sub(jiff::SignedDuration::try_from(prune).unwrap_or_default())
            .unwrap_or(now);
        match self.store.prune_workers(before) {
            Ok(0) => {}
            Ok(n) => tracing::info!(pruned = n, "removed workers silent for an hour"),
            Err(e) => tracing::warn!("failed to prune lost workers: {e}"),
        }
    }
}

/// Why the presence could not start.
#[derive(Debug, thiserror::Error)]
pub enum PresenceError {
    /// Registering failed.
    #[error("failed to register this worker in the store: {0}")]
    Store(#[from] StoreError),
    /// No random id.
    #[error("failed to read random bytes for the worker id from /dev/urandom: {0}")]
    Random(std::io::Error),
    /// No thread.
    #[error("failed to start the presence thread: {0}")]
    Thread(std::io::Error),
}

/// A new worker id: 8 random bytes, hex.
fn new_worker_id() -> Result<String, PresenceError> {
    use std::io::Read as _;
    let mut bytes = [0u8; 8];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(PresenceError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

impl Presence {
    /// The presence of `executor` as `serve`'s or a worker's: what
    /// [`Presence::start`] logs when it cannot register (the server still
    /// serves; the workers list lacks it).
    pub fn start_or_warn(
        store: Arc<dyn StoreBackend>,
        executor: Arc<Executor>,
        lease: Duration,
        info: PresenceInfo,
    ) -> Option<Presence> {
        match Presence::start(store, executor, lease, info) {
            Ok(p) => Some(p),
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        }
    }
}
