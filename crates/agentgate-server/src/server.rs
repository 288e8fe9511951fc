//! Starting and stopping the server.
//!
//! [`Server::bind`] does everything that can fail before a request is
//! served, in this order: parse the address, pick the token (refusing a
//! non-loopback address without an explicit token *before* creating any
//! file or socket), load the config, open the store, bind. The caller then prints
//! [`Server::url`] and calls [`Server::run`] with a shutdown future
//! ([`agentgate_executor::shutdown_signal`] for SIGTERM and SIGINT).
//!
//! Connections are accepted by the server's own loop ([`crate::conn`]):
//! a header-read timeout, an idle timeout and a connection limit
//! ([`ConnLimits`], kept under the open-files limit the server raises).
//!
//! Shutdown order in [`Server::run`]: the signal arrives; the listener stops
//! accepting and connections without a request under way are closed, event
//! streams end; requests in flight get up to the grace to finish, then
//! whatever is left is dropped. At the same time the job executor stops claiming and gives its
//! running jobs the same grace; then it cancels them and puts them back in
//! the queue for the next start ([`agentgate_executor::Executor::drain`]).
//! This is the one place where stopping happens. The schedules and watched
//! folders ([`agentgate_executor::Automation`]) start after the bind and stop when `run`
//! returns. The model catalogs' background refresh
//! ([`agentgate_core::CatalogRefresher`]) starts after the bind too and
//! stops at the signal (a CLI listing its models is killed).
//!
//! [`Server::bind`] also opens the store (the same as `agentgate run`'s),
//! picks the executor's clock ([`agentgate_executor::clock_from_env`]) and starts the
//! executor: jobs left by a previous server are taken back at once. The
//! executor registers its presence ([`agentgate_executor::Presence`], kind `serve`),
//! marked draining at the stop signal and removed when `run` returns.
//! `--no-executor` ([`ServeOptions::executor`] false) starts neither: the
//! server is a pure API over a store that workers run the jobs of.

use std::future::Future;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::Config;
use agentgate_store::JobQueue;
use tokio::net::TcpListener;

use crate::conn::ConnLimits;
use crate::error::ServeError;
use crate::listen::{is_loopback, parse_listen};
use crate::router::router;
use crate::state::{AppState, EventStreamOptions};
use crate::token::{self, TokenSource};
use agentgate_executor::Automation;
use agentgate_executor::Clock;
use agentgate_executor::Metrics;
use agentgate_executor::{Executor, ExecutorOptions};
use agentgate_executor::{Presence, PresenceInfo};

/// The address `serve` listens on without `--listen`.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:7700";

/// How long requests in flight may take to finish after a stop signal.
pub const DEFAULT_GRACE: Duration = Duration::from_secs(10);

/// The most connections a server keeps to a PostgreSQL store: the request
/// handlers' reads, the executor's claims and heartbeats, and the runs'
/// event writers share them.
pub const STORE_POOL_SIZE: usize = 16;

/// What `agentgate serve` was asked for.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// `IP:PORT` (`localhost:PORT` is 127.0.0.1); port 0 picks a free port.
    pub listen: String,
    /// `--token-file`: the token file to read, or create when missing.
    pub token_file: Option<PathBuf>,
    /// `--config`: the config file (else discovered as for every command).
    pub config: Option<PathBuf>,
    /// `--store` or `AGENTGATE_STORE`: the store, else the config's
    /// `store:`, else the default SQLite file.
    pub store: Option<agentgate_store::StoreLocation>,
    /// How long requests in flight, and running jobs, may take to finish
    /// at shutdown.
    pub grace: Duration,
    /// The keeper executable started in front of every CLI (the agentgate
    /// binary): with it, the CLIs die with the server even on SIGKILL.
    pub keeper: Option<PathBuf>,
    /// How the runs' agents get registry tools (see
    /// `agentgate_core::RunOptions::tool_server`).
    pub tool_server: Option<agentgate_core::ToolServer>,
    /// How workflow jobs run their tool steps (the agentgate binary as
    /// the tools' sandbox); `None`: their tool steps fail.
    pub tool_runner: Option<agentgate_tools::runner::RunnerSetup>,
    /// How often an idle event stream gets a keep-alive comment.
    pub keep_alive: Duration,
    /// Run the queue's executor (the default); `false` (`--no-executor`):
    /// claim nothing, the workers sharing the store run the jobs.
    pub executor: bool,
    /// The connections' timeouts and limit.
    pub limits: ConnLimits,
}

impl Default for ServeOptions {
    fn default() -> Self {
        ServeOptions {
            listen: DEFAULT_LISTEN.to_owned(),
            token_file: None,
            config: None,
            store: None,
            grace: DEFAULT_GRACE,
            keeper: None,
            tool_server: None,
            tool_runner: None,
            keep_alive: crate::state::DEFAULT_KEEP_ALIVE,
            executor: true,
            limits: ConnLimits::default(),
        }
    }
}

/// A bound server, not yet serving.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    token_source: TokenSource,
    /// The queue key file, and whether this start created it.
    queue_key: (PathBuf, bool),
    state: Arc<AppState>,
    grace: Duration,
    /// The connections' timeouts and limit.
    limits: ConnLimits,
    /// The schedules and watched folders, stopped when `run` returns.
    automation: Option<Automation>,
    /// The executor's presence in the store, if it runs and registered.
    presence: Option<Presence>,
    /// Rings the event streams' bells for other processes' writes (a
    /// PostgreSQL store), until `run` returns.
    bells: Option<agentgate_store::bells::BellListener>,
    /// The model catalogs' background refresh, stopped at the stop signal.
    catalogs: Option<agentgate_core::CatalogRefresher>,
    /// The webhook delivery worker, stopped when `run` returns.
    webhooks: Option<crate::webhooks::Webhooks>,
}

/// How [`Server::run`] ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stopped {
    /// Every request in flight finished within the grace.
    Drained,
    /// The grace ran out; the requests still open were dropped.
    GraceExpired,
}

impl Server {
    /// Parse, pick the token, load the config and bind (see the module notes).
    pub async fn bind(options: ServeOptions) -> Result<Server, ServeError> {
        let addr = parse_listen(&options.listen)?;
        let (token, token_source) =
            token::choose(addr, is_loopback(addr.ip()), options.token_file.clone())?;
        let config = Config::load(options.config.as_deref())?;
        let open_files = agentgate_executor::raise_open_files_limit();
        let mut limits = options.limits;
        limits.max_connections =
            crate::conn::connections_within(limits.max_connections, open_files);
        if limits.max_connections < options.limits.max_connections {
            tracing::warn!(
                "serving at most {} connections at once, not {}: the open-files limit is {}",
                limits.max_connections,
                options.limits.max_connections,
                open_files.unwrap_or_default()
            );
        }
        let clock = agentgate_executor::clock_from_env()?;
        let location =
            agentgate_store::store_choice::choose(options.store.clone(), config.store.as_ref())?;
        let store = agentgate_store::open_store(&location, STORE_POOL_SIZE)?;
        // This server seals what it queues: the key file is made if missing.
        let key_file = agentgate_core::sealed::key_file(config.queue.key_file.as_deref())?;
        let (keys, created) = agentgate_core::sealed::KeyRing::load_or_create(&key_file)?;
        let queue_key = (key_file, created);
        store.set_event_log_bound(config.event_log.max_bytes);
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| ServeError::Bind { addr, source })?;
        let addr = listener
            .local_addr()
            .map_err(|source| ServeError::Bind { addr, source })?;
        // The process's counters: the executor feeds them (its observer),
        // `GET /metrics` reads them; all zero without an executor.
        let metrics = Arc::new(Metrics::default());
        let (executor, presence) = if options.executor {
            let executor = Arc::new(
                Executor::start(
                    store.clone(),
                    config.clone(),
                    clock.clone(),
                    ExecutorOptions {
                        keeper: options.keeper.clone(),
                        tool_server: options.tool_server.clone(),
                        tool_runner: options.tool_runner.clone(),
                        keys: keys.clone(),
                        observer: Some(metrics.clone()),
                        hidden: hidden_files(&token_source, &queue_key.0),
                        ..ExecutorOptions::default()
                    },
                )
                .map_err(ServeError::Executor)?,
            );
            let info = PresenceInfo {
                kind: agentgate_store::WorkerKind::Serve,
                providers: Vec::new(),
                concurrency: None,
            };
            let presence = agentgate_executor::Presence::start_or_warn(
                store.clone(),
                executor.clone(),
                config.queue.lease,
                info,
            );
            (Some(executor), presence)
        } else {
            tracing::info!("no executor: the workers sharing the store run the jobs");
            (None, None)
        };
        let automation = start_automation(&config, store.clone(), clock.clone(), &keys)?;
        let webhooks =
            crate::webhooks::start(&config, store.clone(), clock.clone(), executor.as_ref())
                .map_err(|e| ServeError::Webhooks {
                    reason: e.to_string(),
                })?;
        let bells = listen_for_bells(store.as_ref());
        // The CLIs are asked in the folder the server runs in, as
        // `GET /v1/models` asks them.
        let catalogs = match std::env::current_dir() {
            Ok(cwd) => agentgate_core::CatalogRefresher::start(config.clone(), cwd),
            Err(e) => {
                tracing::warn!("model catalogs are not refreshed: no working folder ({e})");
                None
            }
        };
        Ok(Server {
            listener,
            addr,
            token_source,
            queue_key,
            state: Arc::new(AppState {
                event_streams: EventStreamOptions {
                    keep_alive: options.keep_alive,
                    ..EventStreamOptions::default()
                }
                .with_poll_from_env(),
                keys,
                metrics,
                ..AppState::new(token, config, store, clock, executor)
            }),
            grace: options.grace,
            limits,
            automation,
            presence,
            bells,
            catalogs,
            webhooks,
        })
    }

    /// The base URL actually bound, e.g. `http://127.0.0.1:43211`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The address actually bound.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Where the token came from (its path, never its value).
    pub fn token_source(&self) -> &TokenSource {
        &self.token_source
    }

    /// The key file that seals the secrets of queued requests, and whether
    /// this start created it (workers on other hosts need a copy).
    pub fn queue_key_file(&self) -> (&std::path::Path, bool) {
        (&self.queue_key.0, self.queue_key.1)
    }

    /// Serve until `shutdown` completes, then stop (see the module notes).
    pub async fn run<S>(self, shutdown: S) -> Result<Stopped, ServeError>
    where
        S: Future<Output = ()> + Send,
    {
        let executor = self.state.queue.clone();
        let state = Arc::clone(&self.state);
        // Dropped (stopped, its threads joined) when `run` returns.
        let _automation = self.automation;
        let _bells = self.bells;
        let _webhooks = self.webhooks;
        let _queue_history = crate::queue_history::start(
            Arc::clone(&self.state.queue_history),
            Arc::clone(&self.state.store),
            Arc::clone(&self.state.clock),
        );
        let presence = self.presence;
        let catalogs = self.catalogs;
        let stop = state.stopping.subscribe();
        let app = router(self.state);
        let mut serving = tokio::spawn(crate::conn::serve(self.listener, app, self.limits, stop));
        tokio::select! {
            () = shutdown => {}
            ended = &mut serving => return match ended {
                Ok(()) => Ok(Stopped::Drained),
                Err(e) => Err(ServeError::Io(std::io::Error::other(e))),
            },
        }
        tracing::info!(
            "stopping: no new connections; requests in flight and running jobs may finish"
        );
        // No CLI is asked for its models from now on.
        drop(catalogs);
        // The listener closes, and event streams end (they would otherwise
        // hold their connections to the grace).
        state.stopping.send_replace(true);
        let grace = self.grace;
        if let Some(p) = &presence {
            p.draining();
        }
        let draining = tokio::task::spawn_blocking(move || {
            if let Some(executor) = executor {
                executor.drain(grace);
            }
            if let Some(p) = presence {
                p.stop();
            }
        });
        let http = tokio::time::timeout(self.grace, &mut serving).await;
        let _ = draining.await;
        match http {
            Ok(Ok(())) => Ok(Stopped::Drained),
            Ok(Err(e)) => Err(ServeError::Io(std::io::Error::other(e))),
            Err(_) => {
                serving.abort();
                Ok(Stopped::GraceExpired)
            }
        }
    }
}

/// The listener of other processes' event writes and job changes, if the
/// store has one (PostgreSQL); without it (or when it cannot start) the
/// event streams of runs other processes write poll.
fn listen_for_bells(
    store: &dyn agentgate_store::StoreBackend,
) -> Option<agentgate_store::bells::BellListener> {
    match store.listen_for_bells() {
        Ok(listener) => listener,
        Err(e) => {
            tracing::warn!(
                "event streams will poll for other processes' events: cannot listen for them ({e})"
            );
            None
        }
    }
}

/// The schedules and watched folders, on the server's store and clock.
fn start_automation(
    config: &Config,
    store: Arc<dyn agentgate_store::StoreBackend>,
    clock: Arc<dyn Clock>,
    keys: &agentgate_core::sealed::KeyRing,
) -> Result<Option<Automation>, ServeError> {
    if config.schedules.is_empty() && config.watches.is_empty() {
        return Ok(None);
    }
    let queue: Arc<dyn JobQueue> = store;
    Ok(Automation::start(config, queue, clock, keys)?)
}

/// The files of this server no sandboxed CLI may read, wherever they lie:
/// its token file (when the token came from one) and the queue's key file.
fn hidden_files(token: &TokenSource, key_file: &std::path::Path) -> Vec<PathBuf> {
    let mut hidden = vec![key_file.to_path_buf()];
    if let TokenSource::File(p) | TokenSource::Created(p) = token {
        hidden.push(p.clone());
    }
    hidden
}
