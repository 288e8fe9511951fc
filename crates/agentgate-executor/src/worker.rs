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
//! With `--metrics-listen`, the worker also listens for `GET /metrics`
//! (the page of [`crate::metrics`]), and nothing else. This crate has no
//! HTTP: the caller hands [`Worker::start`] a binder that makes the
//! listener (a [`MetricsExport`]; `agentgate_server::MetricsListener`,
//! whose token is chosen as `serve` chooses its own), called at start
//! before anything is claimed. The listener closes after the drain.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::Config;
use agentgate_store::{StoreBackend, StoreLocation, WorkerKind};

use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::StartError;
use crate::clock::Clock;
use crate::executor::{Executor, ExecutorOptions};
use crate::metrics::Metrics;
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
    /// `agentgate_core::RunOptions::tool_server`).
    pub tool_server: Option<agentgate_core::ToolServer>,
    /// How workflow jobs run their tool steps (see
    /// `agentgate_server::ServeOptions::tool_runner`).
    pub tool_runner: Option<agentgate_tools::runner::RunnerSetup>,
}

/// What a worker's metrics page reads: its store, its clock, its executor
/// and the counters the executor feeds.
#[derive(Debug, Clone)]
pub struct MetricsSource {
    /// The store whose queue and workers the page counts.
    pub store: Arc<dyn StoreBackend>,
    /// The worker's clock.
    pub clock: Arc<dyn Clock>,
    /// The worker's executor.
    pub executor: Arc<Executor>,
    /// The worker's counters (its executor's observer).
    pub metrics: Arc<Metrics>,
}

/// A bound `GET /metrics` listener (`agentgate worker --metrics-listen`),
/// not yet serving. Implemented by the HTTP side
/// (`agentgate_server::MetricsListener`): this crate has none.
pub trait MetricsExport: Send + 'static {
    /// Serve the page of `source` on the current tokio runtime until `stop`
    /// turns true (a scrape in flight is answered first); the task ends
    /// then.
    fn serve(
        self,
        source: MetricsSource,
        stop: watch::Receiver<bool>,
    ) -> Result<JoinHandle<()>, Box<dyn std::error::Error + Send + Sync>>;
}

/// No metrics listener: the type of a worker started without one.
#[derive(Debug, Clone, Copy)]
pub enum NoMetrics {}

impl MetricsExport for NoMetrics {
    fn serve(
        self,
        _: MetricsSource,
        _: watch::Receiver<bool>,
    ) -> Result<JoinHandle<()>, Box<dyn std::error::Error + Send + Sync>> {
        match self {}
    }
}

/// A started worker, with its metrics listener `M` if it has one.
#[derive(Debug)]
pub struct Worker<M = NoMetrics> {
    executor: Arc<Executor>,
    presence: Presence,
    grace: Duration,
    store: StoreLocation,
    metrics: Option<M>,
    sources: (Arc<dyn StoreBackend>, Arc<dyn Clock>, Arc<Metrics>),
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

impl<M: MetricsExport> Worker<M> {
    /// Load the config, open the store, start claiming and register. With
    /// `bind_metrics` (`--metrics-listen`), the metrics listener is bound
    /// by it once the config and the providers are checked, before the
    /// store is opened: a refused token or a taken port fails the start.
    pub fn start<B, E>(
        options: WorkerOptions,
        bind_metrics: Option<B>,
    ) -> Result<Worker<M>, StartError>
    where
        B: FnOnce() -> Result<M, E>,
        E: Into<Box<dyn std::error::Error + Send + Sync>>,
    {
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
                    .collect::<Result<Vec<String>, StartError>>()?,
            ),
        };
        // Before anything is claimed: a refused token or a taken port
        // fails the start.
        let metrics = match bind_metrics {
            Some(bind) => Some(bind().map_err(|e| StartError::Metrics(e.into()))?),
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
        let counters = Arc::new(Metrics::default());
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
                    observer: Some(counters.clone()),
                    // The key opens what the queue sealed: no sandboxed
                    // CLI reads it, wherever it lies.
                    hidden: vec![key_file],
                },
            )
            .map_err(StartError::Executor)?,
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
            sources: (store, clock, counters),
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

    /// Its executor, its store and its clock: what a webhook delivery
    /// worker beside it needs (the binary's `worker` starts one).
    pub fn parts(&self) -> (&Arc<Executor>, Arc<dyn StoreBackend>, Arc<dyn Clock>) {
        (
            &self.executor,
            self.sources.0.clone(),
            self.sources.1.clone(),
        )
    }

    /// The metrics listener (its address and where its token came from),
    /// with `--metrics-listen`.
    pub fn metrics_listener(&self) -> Option<&M> {
        self.metrics.as_ref()
    }

    /// Serve the metrics (with `--metrics-listen`) and run until the first
    /// stop signal, then drain (see the module notes); a second signal cuts
    /// the grace short.
    pub async fn run(mut self, signals: StopSignals) -> Result<WorkerStopped, StartError> {
        let (store, clock, metrics) = self.sources.clone();
        let serving = match self.metrics.take() {
            Some(listener) => {
                let source = MetricsSource {
                    store,
                    clock,
                    executor: self.executor.clone(),
                    metrics,
                };
                let (stop, stopped) = watch::channel(false);
                let task = listener
                    .serve(source, stopped)
                    .map_err(StartError::Metrics)?;
                Some((stop, task))
            }
            None => None,
        };
        let stopped = self.drain_at_signal(signals).await;
        if let Some((stop, task)) = serving {
            stop.send_replace(true);
            if let Err(e) = task.await {
                tracing::warn!("the metrics listener failed: {e}");
            }
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
