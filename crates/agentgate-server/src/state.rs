//! What every handler shares: the token, the config, the store, the
//! executor, the health cache, the event streams' timing.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_core::Config;
use agentgate_core::health::HealthReport;
use agentgate_store::StoreBackend;
use tokio::sync::Mutex;

use agentgate_executor::Clock;
use agentgate_executor::Executor;

use crate::token::Token;

/// The state behind every route.
#[derive(Debug)]
pub struct AppState {
    /// The API token.
    pub token: Token,
    /// The config loaded at start (providers, agents, chains).
    pub config: Config,
    /// The store `agentgate run` uses: runs, sessions, quota, jobs.
    pub store: Arc<dyn StoreBackend>,
    /// The queue's executor (woken on enqueue, told of cancels); `None`
    /// with `--no-executor`: the workers sharing the store run the jobs.
    pub queue: Option<Arc<Executor>>,
    /// This process's counters, fed by its executor (the executor's
    /// observer; all zero without one, and in [`AppState::new`]).
    pub metrics: Arc<agentgate_executor::Metrics>,
    /// The clock requests are stamped with (the executor's, when it runs).
    pub clock: Arc<dyn Clock>,
    /// How `GET /v1/runs/{id}/events` waits and keeps streams alive.
    pub event_streams: EventStreamOptions,
    /// Set to true when the server stops: event streams end.
    pub stopping: tokio::sync::watch::Sender<bool>,
    /// `HOME`, where the CLIs keep their logins (read at start).
    pub home: Option<PathBuf>,
    /// The last health report and when it was made; the lock also makes
    /// concurrent requests share one probe.
    pub health: Mutex<Option<(Instant, Arc<HealthReport>)>>,
    /// How long a health report is served before the CLIs are probed again.
    pub health_ttl: Duration,
    /// The bound on each CLI's `--version` probe.
    pub probe_timeout: Duration,
    /// The keys that seal the secrets of the jobs this server queues (see
    /// `sealing.rs`); empty in [`AppState::new`]: a request with secrets
    /// is then refused.
    pub keys: agentgate_core::sealed::KeyRing,
    /// The queue's counts over the last hour (`queue_history.rs`), filled
    /// by the server's sampler.
    pub queue_history: Arc<crate::queue_history::QueueHistory>,
}

impl AppState {
    /// The state for `token`, `config`, `store`, the clock and the executor
    /// (if any), with the default health cache and event stream timing.
    pub fn new(
        token: Token,
        config: Config,
        store: Arc<dyn StoreBackend>,
        clock: Arc<dyn Clock>,
        queue: Option<Arc<Executor>>,
    ) -> AppState {
        AppState {
            token,
            config,
            store,
            metrics: Arc::default(),
            queue,
            clock,
            event_streams: EventStreamOptions::default(),
            stopping: tokio::sync::watch::Sender::new(false),
            home: std::env::var_os("HOME").map(PathBuf::from),
            health: Mutex::new(None),
            health_ttl: HEALTH_TTL,
            probe_timeout: agentgate_core::health::DEFAULT_PROBE_TIMEOUT,
            keys: agentgate_core::sealed::KeyRing::default(),
            queue_history: Arc::new(crate::queue_history::QueueHistory::from_env()),
        }
    }
}

/// How long `GET /v1/health` reuses its last report.
pub const HEALTH_TTL: Duration = Duration::from_secs(10);

/// The keep-alive interval of event streams without `--sse-keep-alive`.
pub const DEFAULT_KEEP_ALIVE: Duration = Duration::from_secs(15);

/// How event streams wait and keep alive (see `events/mod.rs`, "Waiting").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventStreamOptions {
    /// A comment is sent on a stream idle this long.
    pub keep_alive: Duration,
    /// How long a follower waits before reading again when no bell will
    /// tell it of new events: another process writes the run's file (an
    /// `agentgate run`, or a worker on the same SQLite store), or the
    /// PostgreSQL listener is down.
    pub poll: Duration,
    /// How long a follower waits for a bell before looking again anyway,
    /// when one will come (this process writes the run, the PostgreSQL
    /// listener hears the others, or the run has not started): the
    /// fallback for a bell lost or never rung (a job another process
    /// cancels on SQLite).
    pub fallback: Duration,
    /// How often, at most, a polling follower asks the store whether the
    /// run ended (a bell of the job makes it ask at once).
    pub status_every: Duration,
}

impl Default for EventStreamOptions {
    fn default() -> Self {
        EventStreamOptions {
            keep_alive: DEFAULT_KEEP_ALIVE,
            poll: Duration::from_millis(100),
            fallback: Duration::from_secs(1),
            status_every: Duration::from_millis(500),
        }
    }
}

/// Names, in milliseconds, a `poll` and `fallback` for every event stream
/// of the server (read at start): for tests that prove a follower is woken
/// by a bell, not by its poll.
pub const EVENT_POLL_ENV: &str = "AGENTGATE_TEST_EVENT_POLL_MS";

impl EventStreamOptions {
    /// These options with [`EVENT_POLL_ENV`]'s poll, if it is set (a value
    /// that is not a whole number of milliseconds is ignored, with a
    /// warning).
    pub fn with_poll_from_env(self) -> EventStreamOptions {
        let Some(text) = std::env::var_os(EVENT_POLL_ENV) else {
            return self;
        };
        match text.to_str().and_then(|t| t.trim().parse::<u64>().ok()) {
            Some(ms) => EventStreamOptions {
                poll: Duration::from_millis(ms),
                fallback: Duration::from_millis(ms),
                ..self
            },
            None => {
                tracing::warn!("{EVENT_POLL_ENV} is not a number of milliseconds: ignored");
                self
            }
        }
    }
}
