//! The queue's own cost, with instant stand-in CLIs (`instant-cli` answers
//! at once, so what is measured is agentgate: submits, claims, leases, run
//! records, events, process starts), on SQLite and on PostgreSQL side by
//! side, each figure against a baseline measured in this process:
//!
//! - **workers** (`workers.rs`): N jobs queued, then 1, 3 and 6 `agentgate
//!   worker` processes drain them; jobs per second, against one worker on
//!   the same store and PostgreSQL against SQLite; and where the CPU went
//!   (`cpu.rs`: ms per job of the workers with their CLIs, of `serve`, of
//!   the PostgreSQL server, and of the whole machine);
//! - **backlog** (`backlog.rs`): 300, 10,000 and 100,000 jobs queued, one
//!   worker drains the first 1,000; jobs per second against the smallest
//!   backlog, the submit latency at that depth, serve's and the worker's
//!   peak RSS.
//!
//! `bench-queue [--jobs N] [--workers LIST] [--backlogs LIST] [--drain N]
//! [--concurrency N] [--only SECTIONS] [--postgres URL] [--agentgate PATH]
//! [--instant-cli PATH]`; every world (data folder, store: a new database
//! on the PostgreSQL server for each) is fresh. A functional failure (a job
//! not succeeding, a process that does not start) exits 1; timings never
//! do.

mod backlog;
mod cpu;
mod setup;
mod workers;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use setup::Backend;

const USAGE: &str = "\
usage: bench-queue [--jobs N] [--workers LIST] [--backlogs LIST] [--drain N] [--probes N]
                   [--concurrency N] [--only SECTIONS] [--postgres URL] [--agentgate PATH]
                   [--instant-cli PATH]

  --jobs N            jobs per workers measurement (default 300)
  --workers LIST      worker counts, comma-separated (default 1,3,6)
  --backlogs LIST     queue depths, comma-separated (default 300,10000,100000)
  --drain N           jobs drained at each depth (default 1000)
  --probes N          submits timed at each depth (default 100)
  --concurrency N     jobs each worker runs at once (default 4)
  --only SECTIONS     comma-separated: workers, backlog (default: all)
  --postgres URL      a PostgreSQL server where this user may create
                      databases (default: $AGENTGATE_TEST_POSTGRES)
  --agentgate PATH    the agentgate binary (default: next to bench-queue)
  --instant-cli PATH  the stand-in CLI (default: next to bench-queue)

Exits 1 on a functional failure, 2 on bad usage, 0 otherwise.";

/// The parsed flags.
#[derive(Debug)]
pub struct Options {
    pub jobs: usize,
    pub workers: Vec<usize>,
    pub backlogs: Vec<usize>,
    pub drain: usize,
    pub probes: usize,
    pub concurrency: usize,
    pub sections: Vec<String>,
    pub postgres: String,
    pub agentgate: PathBuf,
    pub instant_cli: PathBuf,
    /// Connections that queue a backlog at once.
    pub submitters: usize,
}

const SECTIONS: [&str; 2] = ["workers", "backlog"];

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
        backlogs: vec![300, 10_000, 100_000],
        drain: 1000,
        probes: 100,
        concurrency: 4,
        sections: SECTIONS.iter().map(|s| (*s).to_owned()).collect(),
        postgres: std::env::var("AGENTGATE_TEST_POSTGRES").unwrap_or_default(),
        agentgate: dir.join("agentgate"),
        instant_cli: dir.join("instant-cli"),
        submitters: 4,
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
        let list = |v: String| -> Result<Vec<usize>, String> {
            v.split(',').map(|w| number(w.trim().to_owned())).collect()
        };
        match flag.as_str() {
            "--jobs" => o.jobs = number(value()?)?,
            "--concurrency" => o.concurrency = number(value()?)?,
            "--drain" => o.drain = number(value()?)?,
            "--probes" => o.probes = number(value()?)?,
            "--workers" => o.workers = list(value()?)?,
            "--backlogs" => o.backlogs = list(value()?)?,
            "--only" => {
                o.sections = value()?.split(',').map(|s| s.trim().to_owned()).collect();
                if let Some(bad) = o.sections.iter().find(|s| !SECTIONS.contains(&s.as_str())) {
                    return Err(format!("--only: unknown section `{bad}`"));
                }
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
    println!("machine: {}", agentgate_fixtures::bench::machine());
    let wants = |s: &str| o.sections.iter().any(|x| x == s);
    if wants("workers") {
        workers_table(o)?;
    }
    if wants("backlog") {
        backlog_table(o)?;
    }
    println!(
        "load average at the end: {}",
        agentgate_fixtures::bench::load_average()
    );
    Ok(())
}

fn workers_table(o: &Options) -> Result<(), String> {
    println!(
        "\nqueue throughput: {} jobs of instant-cli per run, each worker `--concurrency {}`;",
        o.jobs, o.concurrency
    );
    println!("jobs/s from the workers' start to the last job's end (all must succeed)\n");
    let mut rows = Vec::new();
    for &workers in &o.workers {
        let sqlite = workers::measure(o, Backend::Sqlite, workers)?;
        let postgres = workers::measure(o, Backend::Postgres, workers)?;
        rows.push((workers, sqlite, postgres));
    }
    let (_, base_sqlite, base_pg) = rows.first().copied().ok_or("no worker counts")?;
    println!(
        "{:>7}  {:>14}  {:>11}  {:>14}  {:>11}  {:>10}",
        "workers", "SQLite jobs/s", "vs 1st row", "PG jobs/s", "vs 1st row", "PG/SQLite"
    );
    for &(workers, (sqlite, _), (postgres, _)) in &rows {
        println!(
            "{workers:>7}  {sqlite:>14.1}  {:>10.2}x  {postgres:>14.1}  {:>10.2}x  {:>9.2}x",
            sqlite / base_sqlite.0.max(1e-9),
            postgres / base_pg.0.max(1e-9),
            postgres / sqlite.max(1e-9),
        );
    }
    println!(
        "\nwhere the CPU went, ms per job: the workers (with their keepers and CLIs), \
         serve (answering the bench's polls),"
    );
    println!(
        "the PostgreSQL server, and the whole machine busy (everything: the gap is this \
         bench and other programs); cores = machine busy / wall time\n"
    );
    println!(
        "{:<13}  {:>8}  {:>8}  {:>9}  {:>8}  {:>6}",
        "store/workers", "workers", "serve", "database", "machine", "cores"
    );
    for &(workers, sqlite, postgres) in &rows {
        for (name, (rate, used)) in [("SQLite", sqlite), ("PostgreSQL", postgres)] {
            let per = used.per_job(o.jobs as u64);
            let wall_ms = 1000.0 / rate.max(1e-9);
            let row = format!("{name}/{workers}");
            println!(
                "{row:<13}  {:>8.2}  {:>8.2}  {:>9.2}  {:>8.2}  {:>6.2}",
                per.workers,
                per.serve,
                per.database,
                per.machine,
                per.machine / wall_ms,
            );
        }
    }
    Ok(())
}

fn backlog_table(o: &Options) -> Result<(), String> {
    println!(
        "\nqueue depth: one worker `--concurrency {}` drains the first {} jobs of a backlog;",
        o.concurrency, o.drain
    );
    println!(
        "submit: {} more POST /v1/runs one by one at that depth; RSS: peak (VmHWM)\n",
        o.probes
    );
    println!(
        "{:<10}  {:>8}  {:>8}  {:>11}  {:>13}  {:>10}  {:>10}  {:>11}",
        "store",
        "queued",
        "jobs/s",
        "vs 1st row",
        "submit median",
        "submit p90",
        "serve RSS",
        "worker RSS"
    );
    for backend in [Backend::Sqlite, Backend::Postgres] {
        let mut base: Option<f64> = None;
        for &queued in &o.backlogs {
            let d = backlog::measure(o, backend, queued)?;
            let first = *base.get_or_insert(d.rate);
            println!(
                "{:<10}  {:>8}  {:>8.1}  {:>10.2}x  {:>10.2} ms  {:>7.2} ms  {:>6.1} MiB  {:>7.1} MiB",
                backend.name(),
                d.queued,
                d.rate,
                d.rate / first.max(1e-9),
                d.submit_ns.0 as f64 / 1e6,
                d.submit_ns.1 as f64 / 1e6,
                d.serve_kib as f64 / 1024.0,
                d.worker_kib as f64 / 1024.0,
            );
        }
    }
    Ok(())
}
