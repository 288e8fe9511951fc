//! `agentgate serve`: the flags, the two start-up lines, and the exit code.
//! Everything else is `agentgate_server`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use agentgate_server::TokenSource;
use agentgate_server::{ServeOptions, Server, Stopped};

use crate::output::{Stdout, note};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The address to listen on, IP:PORT (port 0 picks a free one). The URL
    /// actually bound is the first line of stdout. A non-loopback address
    /// needs an explicit token: AGENTGATE_TOKEN, or an existing --token-file.
    #[arg(long, value_name = "ADDR", default_value = agentgate_server::DEFAULT_LISTEN)]
    listen: String,
    /// The token file: read, or created (mode 0600, a random token) when
    /// missing. Default: `token` in agentgate's data folder, next to the
    /// store ($AGENTGATE_HOME, else $XDG_DATA_HOME/agentgate, else
    /// ~/.local/share/agentgate). Ignored when AGENTGATE_TOKEN is set.
    #[arg(long, value_name = "PATH")]
    token_file: Option<PathBuf>,
    /// Seconds that requests in flight and running jobs get to finish after
    /// SIGTERM or SIGINT (then the jobs are cancelled and requeued).
    #[arg(long, value_name = "SECS", default_value_t = agentgate_server::DEFAULT_GRACE.as_secs())]
    grace: u64,
    /// Seconds between keep-alive comments on an idle event stream
    /// (`GET /v1/runs/{id}/events`); fractions allowed.
    #[arg(long, value_name = "SECS", default_value_t = agentgate_server::DEFAULT_KEEP_ALIVE.as_secs_f64(), value_parser = parse_seconds)]
    sse_keep_alive: f64,
    /// Run no executor: a pure API over the store (submit, list, cancel,
    /// events, dashboard); `agentgate worker` processes sharing the store
    /// run the jobs. GET /v1/queue then says `"executor": false`.
    #[arg(long)]
    no_executor: bool,
    /// Seconds a request's head (request line and headers) may take to
    /// arrive, from the connection's start or, on a kept-alive one, from
    /// the first byte of the next request; then the connection is closed.
    /// Fractions allowed.
    #[arg(long, value_name = "SECS", default_value_t = agentgate_server::DEFAULT_HEADER_READ_TIMEOUT.as_secs_f64(), value_parser = parse_seconds)]
    header_timeout: f64,
    /// Seconds a kept-alive connection may stay idle (no request under
    /// way, none arriving) before it is closed. An event stream is not
    /// idle. Fractions allowed.
    #[arg(long, value_name = "SECS", default_value_t = agentgate_server::DEFAULT_IDLE_TIMEOUT.as_secs_f64(), value_parser = parse_seconds)]
    idle_timeout: f64,
    /// The most connections served at once; past it a new connection gets
    /// 503 and is closed. Kept under the open-files limit (less 256).
    #[arg(long, value_name = "N", default_value_t = agentgate_server::DEFAULT_MAX_CONNECTIONS as u32, value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: u32,
}

fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(secs) if secs.is_finite() && (0.01..=86_400.0).contains(&secs) => Ok(secs),
        _ => Err(format!(
            "`{text}` is not a number of seconds from 0.01 to 86400"
        )),
    }
}

pub const AFTER_HELP: &str = "\
ROUTES
  GET /healthz                 open: {\"ok\": true, \"version\": \"...\"}
  GET /v1/health               what `agentgate health --json` prints (cached 10 s)
  POST /v1/runs                queue a run (the JSON of `agentgate run`'s flags, plus
                               priority, idempotency_key, not_before): 201, or 200 for a
                               repeated idempotency_key; 400 not JSON, 422 refused (the
                               `field` is named)
  POST /v1/runs/{id}/cancel    a queued run: cancelled (200); a running one: stopped
                               (202); ended: 409 (200 if it was cancelled); unknown: 404
  GET|POST /v1/runs/{id}/approvals[/{request_id}]
                               what an `ask` run waits on; a person's allow or deny
  GET /v1/runs                 runs, newest first (?status=&provider=&session=&limit=&cursor=)
  GET /v1/runs/{id}            one run, with its envelope once it ended
  GET /v1/runs/{id}/events     its events as Server-Sent Events (Last-Event-ID), live
  GET /v1/queue                runs per state and per provider
  GET /v1/sessions             the logical sessions; DELETE /v1/sessions/{name}
  GET /v1/quota                what `agentgate quota --json` prints
  GET /v1/providers            what `agentgate providers --json` prints
  GET /v1/workers              the workers sharing the store (host, pid, providers,
                               concurrency, running jobs, last heartbeat, state)
  GET /v1/openapi.json         the OpenAPI 3.1 document
  GET /metrics                 Prometheus text format: the store's queue and workers,
                               this process's claims, runs, durations, tokens, cost
  GET /v1/whoami               the token's name, team and scopes
  GET|POST /v1/tokens, DELETE /v1/tokens/{name}
                               API tokens (admin): list, make (shown once), revoke
  GET /                        the dashboard (open; it asks for the token)
  /metrics and every /v1 route need `Authorization: Bearer TOKEN`; without it, or with a
  wrong token: 401, from the headers alone (the body is never read; the connection is
  closed). After 30 such requests in a minute, an address gets 429 (Retry-After) for the
  rest of the minute. Bodies over 1 MiB: 413. Errors are JSON:
  {\"error\": {\"type\": \"...\", \"message\": \"...\"}}.

CONNECTIONS
  A request head must arrive within --header-timeout (10 s), a kept-alive connection
  idle longer than --idle-timeout (60 s) is closed, and at most --max-connections (1024)
  are served at once: more get 503 and are closed. Request heads over 64 KiB: 431.

EVENTS
  No event line is longer than 32 MiB (a longer one is cut, and says so). Each
  run's event log is bounded by the config's event_log.max_bytes (256MiB): past
  it, only the events that frame the run and its result are kept, after a note.
  A Last-Event-ID that is not a whole number is 400.

TOKEN
  $AGENTGATE_TOKEN when set, else the token file (see --token-file). Its
  path is printed on stderr at start, never the token. A token file that
  the group or others can access is refused: chmod 600 it. A token under
  32 characters is refused (the one serve makes has 64 hex digits). No
  agent CLI or tool gets the token, AGENTGATE_* or the store's URL; an
  approval answer sent from a run's own processes is refused (403).
  That token is an admin. API tokens (`agentgate token create`) carry
  scopes (read, read:all, submit, cancel, approve, admin; a route outside
  them: 403) and a team (its read sees its team's runs only); a revoked or
  expired one is 401 at its next request.

SECRETS
  The env values (and secret flags) of queued requests are stored sealed
  with the queue key file: $AGENTGATE_QUEUE_KEY_FILE, else the config's
  queue.key_file, else queue.key in the data folder (created at the first
  start, mode 0600; its path is printed on stderr). Workers on other hosts
  need the same file.

QUEUE
  Runs are executed within the config's `queue:` limits (max_running, per
  provider, one per session, one writer per folder), wait for exhausted
  quotas, and are retried per `max_attempts` (see docs/config.md). With
  --no-executor this server runs none: `agentgate worker` processes on the
  same store do (see `agentgate worker --help`).

TRACES
  With OTEL_EXPORTER_OTLP_ENDPOINT (and OTEL_EXPORTER_OTLP_PROTOCOL
  http/protobuf or grpc, OTEL_EXPORTER_OTLP_HEADERS, OTEL_SERVICE_NAME)
  each job's run is exported as OpenTelemetry spans; a submit's
  `traceparent` header is the job span's parent (see
  docs/operating/tracing.md). Off without them.

SHUTDOWN
  SIGTERM or SIGINT: stop accepting and claiming, let requests in flight and
  running jobs finish (up to --grace), then cancel the jobs and put them back
  in the queue for the next start; exit 0.

EXAMPLE
  agentgate serve --listen 127.0.0.1:7700 &
  curl -H \"Authorization: Bearer $(cat ~/.local/share/agentgate/token)\" \\
       http://127.0.0.1:7700/v1/health";

pub fn run(args: Args, config: Option<&Path>, store: Option<&str>) -> anyhow::Result<ExitCode> {
    crate::service_runtime::block_on(serve(args, config, store))
}

async fn serve(args: Args, config: Option<&Path>, store: Option<&str>) -> anyhow::Result<ExitCode> {
    // Installed before the URL is printed: a stop sent as soon as the URL is
    // read is a clean shutdown.
    let stop = agentgate_server::shutdown_signal()?;
    // Its relay runs the agents' tool calls as long as this serves.
    let tool_server =
        crate::tool_cmd::service_tool_server(config, store, args.token_file.as_deref())?;
    let tool_runner =
        crate::tool_cmd::service_tool_runner(config, store, args.token_file.as_deref())?;
    let server = Server::bind(ServeOptions {
        listen: args.listen,
        token_file: args.token_file,
        config: config.map(Path::to_path_buf),
        store: agentgate_store::store_choice::given(store)?,
        grace: Duration::from_secs(args.grace),
        keeper: crate::cli_process::keeper_path(),
        tool_server: tool_server.as_ref().map(|(server, _)| server.clone()),
        tool_runner,
        keep_alive: Duration::from_secs_f64(args.sse_keep_alive),
        executor: !args.no_executor,
        limits: agentgate_server::ConnLimits {
            header_read_timeout: Duration::from_secs_f64(args.header_timeout),
            idle_timeout: Duration::from_secs_f64(args.idle_timeout),
            max_connections: usize::try_from(args.max_connections).unwrap_or(usize::MAX),
        },
    })
    .await?;
    Stdout::new().line(server.url())?;
    match server.token_source() {
        TokenSource::Env => note!("agentgate: token: from AGENTGATE_TOKEN"),
        TokenSource::File(p) => note!("agentgate: token file: {}", p.display()),
        TokenSource::Created(p) => {
            note!("agentgate: token file: {} (created)", p.display());
        }
    }
    match server.queue_key_file() {
        (p, true) => note!(
            "agentgate: queue key file: {} (created; workers on other hosts need a copy)",
            p.display()
        ),
        (p, false) => note!("agentgate: queue key file: {}", p.display()),
    }
    match server.run(stop).await? {
        Stopped::Drained => {}
        Stopped::GraceExpired => {
            note!("agentgate: requests still open after the grace were dropped");
        }
    }
    Ok(ExitCode::SUCCESS)
}
