//! Worker presence: which executors (`agentgate worker`, `agentgate serve`
//! with its executor) share this store, and what they run now.
//!
//! A worker registers at start ([`WorkerRegistry::register_worker`]),
//! rewrites its row at every heartbeat ([`WorkerRegistry::beat_worker`]:
//! its state and the ids of the jobs it runs, kept by the worker itself, not
//! derived from the jobs' lease owners), and removes it on a clean stop. A
//! row whose heartbeat is older than [`LOST_AFTER_BEATS`] of its own
//! periods reads as [`Presence::Lost`] (the process died or cannot reach the
//! store); any worker prunes rows older than [`PRUNE_AFTER`].

use std::time::Duration;

use jiff::{SignedDuration, Timestamp};
use serde::{Deserialize, Serialize};

use crate::error::StoreError;

/// Heartbeats a worker may miss before it reads as lost.
pub const LOST_AFTER_BEATS: u32 = 3;

/// How long a lost worker's row stays before any worker prunes it.
pub const PRUNE_AFTER: Duration = Duration::from_secs(3600);

/// What kind of process a worker is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerKind {
    /// `agentgate worker`.
    Worker,
    /// `agentgate serve` with its executor.
    Serve,
}

/// What a worker says of itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkerState {
    /// Claiming and running jobs.
    Running,
    /// Stopping (SIGTERM): no more claims, its running jobs finish or are
    /// handed back.
    Draining,
}

/// What a reader makes of a worker row at some time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Presence {
    /// Heartbeating, claiming.
    Running,
    /// Heartbeating, stopping.
    Draining,
    /// No heartbeat for [`LOST_AFTER_BEATS`] periods.
    Lost,
}

impl WorkerKind {
    /// The name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerKind::Worker => "worker",
            WorkerKind::Serve => "serve",
        }
    }

    /// The kind named `text`.
    pub fn parse(text: &str) -> Option<WorkerKind> {
        match text {
            "worker" => Some(WorkerKind::Worker),
            "serve" => Some(WorkerKind::Serve),
            _ => None,
        }
    }
}

impl WorkerState {
    /// The name stored.
    pub fn as_str(self) -> &'static str {
        match self {
            WorkerState::Running => "running",
            WorkerState::Draining => "draining",
        }
    }

    /// The state named `text`.
    pub fn parse(text: &str) -> Option<WorkerState> {
        match text {
            "running" => Some(WorkerState::Running),
            "draining" => Some(WorkerState::Draining),
            _ => None,
        }
    }
}

/// One worker's row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerRecord {
    /// A random id, new at each start.
    pub worker_id: String,
    /// `worker` or `serve`.
    pub kind: WorkerKind,
    /// The host name.
    pub host: String,
    /// Its process id on that host.
    pub pid: u32,
    /// The lease owner it claims jobs as (the jobs' `lease_owner`).
    pub owner: String,
    /// The providers whose jobs it claims; empty: every provider.
    pub providers: Vec<String>,
    /// The most jobs it runs at once; `None`: only the config's limits.
    pub concurrency: Option<u32>,
    /// When it started.
    pub started_at: Timestamp,
    /// Its last heartbeat.
    pub last_heartbeat: Timestamp,
    /// How often it heartbeats.
    pub heartbeat_every: Duration,
    /// What it says of itself.
    pub state: WorkerState,
    /// The jobs it runs now, as of its last heartbeat.
    pub running_jobs: Vec<String>,
}

impl WorkerRecord {
    /// The worker as seen at `now`: lost when its last heartbeat is older
    /// than [`LOST_AFTER_BEATS`] periods.
    pub fn presence(&self, now: Timestamp) -> Presence {
        let limit = self.heartbeat_every.saturating_mul(LOST_AFTER_BEATS);
        let silent = now.duration_since(self.last_heartbeat);
        if silent > SignedDuration::try_from(limit).unwrap_or(SignedDuration::MAX) {
            return Presence::Lost;
        }
        match self.state {
            WorkerState::Running => Presence::Running,
            WorkerState::Draining => Presence::Draining,
        }
    }
}

/// The presence operations, one trait for every backend.
pub trait WorkerRegistry {
    /// Write `worker`'s row (a row of the same id is replaced).
    fn register_worker(&self, worker: &WorkerRecord) -> Result<(), StoreError>;

    /// Rewrite `worker_id`'s heartbeat, state and running jobs; `false` if
    /// its row is gone (pruned while it could not reach the store: register
    /// again).
    fn beat_worker(
        &self,
        worker_id: &str,
        state: WorkerState,
        running_jobs: &[String],
        now: Timestamp,
    ) -> Result<bool, StoreError>;

    /// Remove `worker_id`'s row; whether it was there.
    fn remove_worker(&self, worker_id: &str) -> Result<bool, StoreError>;

    /// Every worker row, oldest start first.
    fn list_workers(&self) -> Result<Vec<WorkerRecord>, StoreError>;

    /// Remove the rows whose last heartbeat is before `before`; how many.
    fn prune_workers(&self, before: Timestamp) -> Result<usize, StoreError>;
}
