//! `agentgate worker`: the flags, the start-up lines, and the exit code.
//! Everything else is `agentgate_executor::Worker`; with `--metrics-listen`,
//! the listener is `agentgate_server::MetricsListener` (the
//! executor crate has no HTTP).

use std::path::Path;
use std::process::ExitCode;
use std::time::Duration;

use agentgate_executor::{StopSignals, Worker, WorkerOptions, WorkerStopped};
use agentgate_server::MetricsListener;
use agentgate_server::TokenSource;
use anyhow::Context;

use crate::output::{Stdout, note};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The most jobs this worker runs at once. The config's `queue:` limits
    /// (max_running, per provider, per session) still hold across every
    /// worker of the store. Default: only those limits.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=10_000))]
    concurrency: Option<u32>,
    /// The providers whose jobs this worker claims, comma-separated (the
    /// CLIs this host has). A job is claimed only when the provider the
    /// limits choose for it is one of them, and its failover chain tries
    /// only these. Default: every provider.
    #[arg(long, value_name = "A,B", value_delimiter = ',', num_args = 1..)]
    providers: Option<Vec<String>>,
    /// Seconds that running jobs get to finish after SIGTERM or SIGINT;
    /// then they are cancelled and handed back to the queue.
    #[arg(long, value_name = "SECS", default_value_t = agentgate_server::DEFAULT_GRACE.as_secs())]
    grace: u64,
    /// Serve `GET /metrics` (the Prometheus text format) on IP:PORT, behind
    /// the API's bearer token, as `serve` does. Default: no listener. A
    /// non-loopback address needs an explicit token (AGENTGATE_TOKEN, or
    /// an existing --token-file).
    #[arg(long, value_name = "IP:PORT")]
    metrics_listen: Option<String>,
    /// With --metrics-listen: the token file, read or (on a loopback
    /// address) created as `serve --token-file` does. Default: `token` in
    /// agentgate's data folder, the one `serve` uses.
    #[arg(long, value_name = "PATH", requires = "metrics_listen")]
    token_file: Option<std::path::PathBuf>,
}

pub const AFTER_HELP: &str = "\
STORE
  A worker claims jobs from the store's queue (--store, AGENTGATE_STORE, or
  the config's store:). Jobs are submitted to an `agentgate serve` on the
  same store (with --no-executor it runs none itself). A PostgreSQL store is
  shared by workers on many hosts; a SQLite file only by processes of one
  host.

SECRETS
  Queued requests keep their env values sealed: the worker opens them with
  the queue key file ($AGENTGATE_QUEUE_KEY_FILE, else the config's
  queue.key_file, else queue.key in the data folder), a copy of the one of
  the `serve` that queued them. It never creates one: a job sealed with a
  key it lacks stays queued for a worker that has it (logged once). No
  CLI it runs gets AGENTGATE_* variables or the store's URL.

WEBHOOKS
  With the config's webhooks: secret, the worker writes its jobs' messages
  (run.ended, job.waiting, approval.requested, budget.warning) to the
  store's outbox and delivers due ones, as serve does: each delivery is
  sent by one process of any on the store.

PRESENCE
  The worker registers in the store at start (stdout's first line is its
  id), heartbeats, and is listed by `GET /v1/workers` with its host, pid,
  providers, concurrency and running jobs; one silent for three heartbeats
  is shown as lost.

SHUTDOWN
  SIGTERM or SIGINT: no more claims; running jobs get --grace to finish,
  then they are cancelled and handed back (queued again, no attempt
  charged) for another worker; exit 0. A second signal hands them back at
  once. A worker killed outright loses its leases: after they expire
  another worker runs its jobs again (the config's queue.on_lease_expiry),
  and its CLIs die with it.

METRICS
  --metrics-listen 127.0.0.1:9700 serves GET /metrics and nothing else:
  the store's queue and workers, and this worker's counters (claims,
  lease losses, runs by provider and outcome, durations, tokens, cost).
  Prometheus scrapes it with the same bearer token as `serve`'s API.

EXAMPLE
  agentgate worker --store postgres://agentgate@db/agentgate \\
      --providers claude,codex --concurrency 4";

pub fn run(args: Args, config: Option<&Path>, store: Option<&str>) -> anyhow::Result<ExitCode> {
    crate::service_runtime::block_on(work(args, config, store))
}

async fn work(args: Args, config: Option<&Path>, store: Option<&str>) -> anyhow::Result<ExitCode> {
    // Installed before the id is printed: a stop sent as soon as the id is
    // read is a clean drain.
    let signals = StopSignals::install()?;
    // Its relay runs the agents' tool calls as long as this works.
    let tool_server =
        crate::tool_cmd::service_tool_server(config, store, args.token_file.as_deref())?;
    let tool_runner =
        crate::tool_cmd::service_tool_runner(config, store, args.token_file.as_deref())?;
    let options = WorkerOptions {
        config: config.map(Path::to_path_buf),
        store: agentgate_store::store_choice::given(store)?,
        concurrency: args.concurrency.map(|n| n as usize),
        providers: args.providers,
        grace: Duration::from_secs(args.grace),
        keeper: crate::cli_process::keeper_path(),
        tool_server: tool_server.as_ref().map(|(server, _)| server.clone()),
        tool_runner,
    };
    let bind_metrics = args.metrics_listen.map(|listen| {
        let token_file = args.token_file;
        move || MetricsListener::bind(&listen, token_file)
    });
    let worker = tokio::task::spawn_blocking(move || Worker::start(options, bind_metrics))
        .await
        .context("the worker failed to start")??;
    Stdout::new().line(worker.worker_id())?;
    note!(
        "agentgate: worker on {} (pid {})",
        worker.store(),
        std::process::id()
    );
    if let Some(metrics) = worker.metrics_listener() {
        note!(
            "agentgate: metrics on http://{}/metrics",
            metrics.local_addr()
        );
        match metrics.token_source() {
            TokenSource::Env => note!("agentgate: token: from AGENTGATE_TOKEN"),
            TokenSource::File(p) => note!("agentgate: token file: {}", p.display()),
            TokenSource::Created(p) => {
                note!("agentgate: token file: {} (created)", p.display());
            }
        }
    }
    let cfg = agentgate_core::Config::load(config);
    // The webhook messages its jobs write are sent by this worker too (a
    // delivery is claimed by one process of any on the store), so a
    // worker-only deployment delivers them.
    let webhooks = match &cfg {
        Ok(cfg) => {
            let (executor, store, clock) = worker.parts();
            agentgate_server::start_webhooks(cfg, store, clock, Some(executor))?
        }
        Err(_) => None,
    };
    if webhooks.is_some() {
        note!("agentgate: webhooks: delivering the store's outbox");
    }
    // The catalogs its runs check models against, kept fresh while it
    // works (the worker loads the same config file).
    let catalogs = match (cfg, std::env::current_dir()) {
        (Ok(cfg), Ok(cwd)) => agentgate_core::CatalogRefresher::start(cfg, cwd),
        _ => None,
    };
    let stopped = worker.run(signals).await;
    drop(catalogs);
    drop(webhooks);
    match stopped? {
        WorkerStopped::Drained => {}
        WorkerStopped::HandedBack => {
            note!("agentgate: jobs still running were handed back to the queue");
        }
    }
    Ok(ExitCode::SUCCESS)
}
