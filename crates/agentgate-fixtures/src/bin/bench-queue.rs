//! Queue throughput with many workers: jobs claimed and finished per second
//! by 1, 3 and 6 `agentgate worker` processes sharing one store, on SQLite
//! and on PostgreSQL, with `instant-cli` standing in for the agent CLI (it
//! answers at once, so what is measured is agentgate: claims, leases, run
//! records, events, process starts).
//!
//! `bench-queue [--jobs N] [--workers 1,3,6] [--concurrency N] [--postgres
//! URL] [--agentgate PATH] [--instant-cli PATH]`, for each store and each
//! worker count, in a fresh home and a fresh store (a new database on the
//! PostgreSQL server for each):
//!
//! 1. starts `agentgate serve --no-executor` on the store and submits N jobs
//!    over HTTP (not timed: nothing claims them yet);
//! 2. starts the workers at once (`--concurrency N` each) and times from
//!    their start to the moment `GET /v1/queue` counts every job ended;
//!    every job must have succeeded;
//! 3. stops the workers (SIGTERM) and the server.
//!
//! It prints jobs per second side by side, each against one worker on the
//! same store (the baseline, measured in this process) and PostgreSQL
//! against SQLite. A functional failure (a job not succeeding, a process
//! that does not start) exits 1; timings never do.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::Instant;

use agentgate_fixtures::bench::{Serve, terminate, wait_for};
use agentgate_fixtures::database::Database;
use serde_json::json;

const USAGE: &str = "\
usage: bench-queue [--jobs N] [--workers LIST] [--concurrency N] [--postgres URL] [--agentgate PATH] [--instant-cli PATH]

  --jobs N            jobs per measurement (default 300)
  --workers LIST      worker counts, comma-separated (default 1,3,6)
  --concurrency N     jobs each worker runs at once (default 4)
  --postgres URL      a PostgreSQL server where this user may create
                      databases (default: $AGENTGATE_TEST_POSTGRES)
  --agentgate PATH    the agentgate binary (default: next to bench-queue)
  --instant-cli PATH  the stand-in CLI (default: next to bench-queue)

Exits 1 on a functional failure, 2 on bad usage, 0 otherwise.";

struct Options {
    jobs: usize,
    workers: Vec<usize>,
    concurrency: usize,
    postgres: String,
    agentgate: PathBuf,
    instant_cli: PathBuf,
}

#[derive(Clone, Copy, PartialEq)]
enum Backend {
    Sqlite,
    Postgres,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench-queue: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-queue: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let mut o = Options {
        jobs: 300,
        workers: vec![1, 3, 6],
        concurrency: 4,
        postgres: std::env::var("AGENTGATE_TEST_POSTGRES").unwrap_or_default(),
        agentgate: dir.join("agentgate"),
        instant_cli: dir.join("instant-cli"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |v: String| {
            v.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{flag}: `{v}` is not a positive number"))
        };
        match flag.as_str() {
            "--jobs" => o.jobs = number(value()?)?,
            "--concurrency" => o.concurrency = number(value()?)?,
            "--workers" => {
                o.workers = value()?
                    .split(',')
                    .map(|w| number(w.trim().to_owned()))
                    .collect::<Result<_, _>>()?;
            }
            "--postgres" => o.postgres = value()?,
            "--agentgate" => o.agentgate = PathBuf::from(value()?),
            "--instant-cli" => o.instant_cli = PathBuf::from(value()?),
            "--help" | "-h" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    if o.postgres.is_empty() {
        return Err(
            "no PostgreSQL server: give --postgres URL or set AGENTGATE_TEST_POSTGRES".into(),
        );
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), String> {
    println!(
        "queue throughput: {} jobs of instant-cli per run, each worker `--concurrency {}`;",
        o.jobs, o.concurrency
    );
    println!("jobs/s from the workers' start to the last job's end (all must succeed)\n");
    let mut rows = Vec::new();
    for &workers in &o.workers {
        let sqlite = measure(o, Backend::Sqlite, workers)?;
        let postgres = measure(o, Backend::Postgres, workers)?;
        rows.push((workers, sqlite, postgres));
    }
    let (_, base_sqlite, base_pg) = rows.first().copied().ok_or("no worker counts")?;
    println!(
        "{:>7}  {:>14}  {:>11}  {:>14}  {:>11}  {:>10}",
        "workers", "SQLite jobs/s", "vs 1st row", "PG jobs/s", "vs 1st row", "PG/SQLite"
    );
    for (workers, sqlite, postgres) in rows {
        println!(
            "{workers:>7}  {sqlite:>14.1}  {:>10.2}x  {postgres:>14.1}  {:>10.2}x  {:>9.2}x",
            sqlite / base_sqlite.max(1e-9),
            postgres / base_pg.max(1e-9),
            postgres / sqlite.max(1e-9),
        );
    }
    Ok(())
}

/// One measurement: `workers` workers on a fresh store; jobs per second.
fn measure(o: &Options, backend: Backend, workers: usize) -> Result<f64, String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let database = match backend {
        Backend::Sqlite => None,
        Backend::Postgres => Some(Database::create(&o.postgres, "agentgate_bench")?),
    };
    let store = match &database {
        Some(db) => db.url.clone(),
        None => home.path().join("queue.db").display().to_string(),
    };
    let config = home.path().join("agentgate.yaml");
    let max = o.jobs + 10;
    std::fs::write(
        &config,
        format!("version: 1\nqueue:\n  max_running: {max}\n"),
    )
    .map_err(|e| e.to_string())?;
    let command = |args: &[&str]| {
        let mut c = Command::new(&o.agentgate);
        c.arg("--config")
            .arg(&config)
            .args(["--store", &store])
            .args(args)
            .env("AGENTGATE_HOME", home.path().join("data"))
            .env("AGENTGATE_CLAUDE_BIN", &o.instant_cli)
            .env("AGENTGATE_TOKEN", agentgate_fixtures::bench::TOKEN);
        c
    };
    let serve = Serve::start(command(&[
        "serve",
        "--no-executor",
        "--listen",
        "127.0.0.1:0",
    ]))?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    for i in 0..o.jobs {
        let body = json!({
            "prompt": "hello", "providers": ["claude"], "permission_mode": "plan",
            "cwd": work.display().to_string(), "idempotency_key": format!("job-{i}"),
        });
        let (status, answer) = serve.http("POST", "/v1/runs", Some(&body))?;
        if status != 201 {
            return Err(format!("POST /v1/runs answered {status}: {answer}"));
        }
    }
    let started = Instant::now();
    let concurrency = o.concurrency.to_string();
    let mut running: Vec<Child> = Vec::with_capacity(workers);
    for _ in 0..workers {
        let child = command(&["worker", "--concurrency", &concurrency])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("agentgate worker: {e}"))?;
        running.push(child);
    }
    let mut counts = json!({});
    let ended = wait_for("every job to end", || {
        let (_, queue) = serve.http("GET", "/v1/queue", None)?;
        counts = queue["counts"].clone();
        let left = ["queued", "running"]
            .iter()
            .map(|s| counts[s].as_u64().unwrap_or(u64::MAX))
            .sum::<u64>();
        Ok(left == 0)
    });
    let elapsed = started.elapsed();
    for child in &mut running {
        terminate(child);
    }
    drop(serve);
    ended?;
    if counts["succeeded"].as_u64() != Some(o.jobs as u64) {
        return Err(format!(
            "{} workers on {}: not every job succeeded: {counts}",
            workers,
            backend.name()
        ));
    }
    let rate = o.jobs as f64 / elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "  {} workers on {}: {} jobs in {:.2} s",
        workers,
        backend.name(),
        o.jobs,
        elapsed.as_secs_f64()
    );
    Ok(rate)
}

impl Backend {
    fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}
