//! What every handler shares: the token, the config, the store, the
//! executor, the health cache.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_core::config::Config;
use agentgate_core::health::HealthReport;
use agentgate_store::Store;
use tokio::sync::Mutex;

use crate::executor::Executor;

use crate::token::Token;

/// The state behind every route.
#[derive(Debug)]
pub struct AppState {
    /// The API token.
    pub token: Token,
    /// The config loaded at start (providers, agents, chains).
    pub config: Config,
    /// The store: runs and the job queue.
    pub store: Arc<Store>,
    /// The queue's executor (woken on enqueue, told of cancels).
    pub queue: Arc<Executor>,
    /// `HOME`, where the CLIs keep their logins (read at start).
    pub home: Option<PathBuf>,
    /// The last health report and when it was made; the lock also makes
    /// concurrent requests share one probe.
    pub health: Mutex<Option<(Instant, Arc<HealthReport>)>>,
    /// How long a health report is served before the CLIs are probed again.
    pub health_ttl: Duration,
    /// The bound on each CLI's `--version` probe.
    pub probe_timeout: Duration,
}

impl AppState {
    /// The state for `token` and `config`, with the default health cache.
    pub fn new(token: Token, config: Config, store: Arc<Store>, queue: Arc<Executor>) -> AppState {
        AppState {
            token,
            config,
            store,
            queue,
            home: std::env::var_os("HOME").map(PathBuf::from),
            health: Mutex::new(None),
            health_ttl: HEALTH_TTL,
            probe_timeout: agentgate_core::health::DEFAULT_PROBE_TIMEOUT,
        }
    }
}

/// How long `GET /v1/health` reuses its last report.
pub const HEALTH_TTL: Duration = Duration::from_secs(10);
