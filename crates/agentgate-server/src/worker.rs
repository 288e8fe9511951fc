//! `agentgate worker`: the queue's executor without HTTP, on a store
//! shared with `serve` and other workers (PostgreSQL for many hosts; a
//! SQLite file means one host).
//!
//! [`Worker::start`] loads the config, opens the store, starts the one
//! [`Executor`] (the same as `serve`'s, with this worker's
//! [`ExecutorOptions::concurrency`] and [`ExecutorOptions::providers`]) and
//! registers its [`Presence`]. [`Worker::run`] waits for a stop signal,
//! then drains: the row says `draining`, no more claims, running jobs get
//! the grace, then they are cancelled and handed back (queued again, no
//! attempt charged); a second signal hands them back at once. On a clean
//! stop the presence row is removed.
//!
//! With [`WorkerOptions::metrics_listen`], the worker also listens for
//! `GET /metrics` ([`crate::metrics`]), and nothing else: its token is
//! chosen as `serve` chooses its own (`AGENTGATE_TOKEN`, else the token
//! file; a non-loopback address needs an explicit one), before anything
//! is claimed. The listener closes after the drain.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::config::Config;
use agentgate_store::{StoreBackend, StoreLocation, WorkerKind};

use crate::clock::Clock;
use crate::error::ServeError;
use crate::executor::{Executor, ExecutorOptions};
use crate::metrics::listener::MetricsListener;
use crate::presence::{Presence, PresenceInfo};
pub use crate::signals::StopSignals;

/// The most connections a worker keeps to a PostgreSQL store: claims,
/// leases, presence, and the runs' event writers.
pub const WORKER_POOL_SIZE: usize = 8;

/// What `agentgate worker` was asked for.
#[derive(Debug, Clone, Default)]
pub struct WorkerOptions {
    /// `--config`.
    pub config: Option<PathBuf>,
    /// `--store` or `AGENTGATE_STORE` (else the config's, else the default).
    pub store: Option<StoreLocation>,
    /// `--concurrency`: the most jobs this worker runs at once.
    pub concurrency: Option<usize>,
    /// `--providers`: the providers whose jobs it claims; `None`: all.
    pub providers: Option<Vec<String>>,
    /// `--grace`: how long running jobs get to finish after a stop signal.
    pub grace: Duration,
    /// The keeper executable started in front of every CLI.
    pub keeper: Option<PathBuf>,
    /// How the runs' agents get registry tools (see
    /// `agentgate_core::run::RunOptions::tool_server`).
    pub tool_server: Option<agentgate_core::run::ToolServer>,
    /// How workflow jobs run their tool steps (see
    /// [`crate::ServeOptions::tool_runner`]).
    pub tool_runner: Option<agentgate_tools::runner::RunnerSetup>,
    /// `--metrics-listen`: serve `GET /metrics` on this `IP:PORT`; `None`:
    /// no listener.
    pub metrics_listen: Option<String>,
    /// `--token-file`: the metrics listener's token file (as `serve`'s).
    pub token_file: Option<PathBuf>,
}

/// A started worker.
#[derive(Debug)]
pub struct Worker {
    executor: Arc<Executor>,
    presence: Presence,
    grace: Duration,
    store: StoreLocation,
    metrics: Option<MetricsListener>,
    sources: (Arc<dyn StoreBackend>, Arc<dyn Clock>),
}

/// How [`Worker::run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkerStopped {
    /// Every running job ended within the grace.
    Drained,
    /// Jobs were left at the end of the grace, or at a second signal: they
    /// were cancelled and handed back to the queue.
    HandedBack,
}

impl Worker {
    /// Load the config, open the store, start claiming and register.
    pub fn start(options: WorkerOptions) -> Result<Worker, ServeError> {
        let config = Config::load(options.config.as_deref())?;
        let clock = crate::clock::from_env()?;
        let location = agentgate_store::store_choice::choose(options.store, config.store.as_ref())?;
        // Each name checked, as the runs will name it.
        let providers = match &options.providers {
            None => None,
            Some(names) => Some(
                names
                    .iter()
                    .map(|p| Ok(config.resolve_provider(p)?.name().to_owned()))
                    .collect::<Result<Vec<String>, ServeError>>()?,
            ),
        };
        // Before anything is claimed: a refused token or a taken port
        // fails the start.
        let metrics = match &options.metrics_listen {
            Some(listen) => Some(MetricsListener::bind(listen, options.token_file.clone())?),
            None => None,
        };
        let store = agentgate_store::open_store(&location, WORKER_POOL_SIZE)?;
        // A worker opens what a `serve` sealed: it reads the key file, and
        // makes none (an absent file: jobs with secrets wait for a worker
        // that has the key).
        let key_file = agentgate_core::sealed::key_file(config.queue.key_file.as_deref())?;
        let keys = agentgate_core::sealed::KeyRing::load(&key_file)?;
        store.set_event_log_bound(config.event_log.max_bytes);
        crate::signals::raise_open_files_limit();
        let lease = config.queue.lease;
        let executor = Arc::new(
            Executor::start(
                store.clone(),
                config,
                clock.clone(),
                ExecutorOptions {
                    keeper: options.keeper,
                    tool_server: options.tool_server,
                    tool_runner: options.tool_runner,
                    concurrency: options.concurrency,
                    providers: providers.clone(),
                    keys,
                    ..ExecutorOptions::default()
                },
            )
            .map_err(ServeError::Executor)?,
        );
        let info = PresenceInfo {
            kind: WorkerKind::Worker,
            providers: providers.unwrap_or_default(),
            concurrency: options.concurrency,
        };
        let presence = Presence::start(store.clone(), executor.clone(), lease, info)?;
        Ok(Worker {
            executor,
            presence,
            grace: options.grace,
            store: location,
            metrics,
            sources: (store, clock),
        })
    }

    /// This worker's id in the store (`GET /v1/workers`).
    pub fn worker_id(&self) -> &str {
        self.presence.worker_id()
    }

    /// The store it claims from (a URL without its password).
    pub fn store(&self) -> &StoreLocation {
        &self.store
    }

    /// The metrics listener's address and where its token came from, with
    /// `--metrics-listen`.
    pub fn metrics_listener(&self) -> Option<&MetricsListener> {
        self.metrics.as_ref()
    }

    /// Serve the metrics (with `--metrics-listen`) and run until the first
    /// stop signal, then drain (see the module notes); a second signal cuts
    /// the grace short.
    pub async fn run(mut self, signals: StopSignals) -> Result<WorkerStopped, ServeError> {
        let (store, clock) = self.sources.clone();
        let serving = match self.metrics.take() {
            Some(listener) => Some(listener.serve(store, clock, self.executor.clone())?),
            None => None,
        };
        let stopped = self.drain_at_signal(signals).await;
        if let Some(serving) = serving {
            serving.stop().await;
        }
        Ok(stopped)
    }

    async fn drain_at_signal(self, mut signals: StopSignals) -> WorkerStopped {
        signals.next().await;
        tracing::info!(
            grace_s = self.grace.as_secs_f64(),
            "stopping: no more claims; running jobs may finish within the grace"
        );
        self.presence.draining();
        let executor = self.executor.clone();
        let grace = self.grace;
        let mut draining = tokio::task::spawn_blocking(move || executor.drain(grace));
        tokio::select! {
            _ = &mut draining => {}
            () = signals.next() => {
                tracing::info!("second stop signal: handing the running jobs back now");
                self.executor.hurry();
                let _ = draining.await;
            }
        }
        let stopped = if self.executor.handed_back() {
            WorkerStopped::HandedBack
        } else {
            WorkerStopped::Drained
        };
        let presence = self.presence;
        let _ = tokio::task::spawn_blocking(move || presence.stop()).await;
        stopped
    }
}
