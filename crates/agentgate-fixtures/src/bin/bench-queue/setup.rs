//! One measurement's world: a fresh data folder, a fresh store (a SQLite
//! file, or a new database on the PostgreSQL server), a config, the
//! `agentgate` commands that use them, and jobs queued over HTTP.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentgate_fixtures::bench::Serve;
use agentgate_fixtures::database::Database;
use serde_json::{Value, json};

use crate::Options;

/// Which store a measurement uses.
#[derive(Clone, Copy, PartialEq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

impl Backend {
    pub fn name(self) -> &'static str {
        match self {
            Backend::Sqlite => "SQLite",
            Backend::Postgres => "PostgreSQL",
        }
    }
}

/// A fresh home and store; both removed when dropped.
pub struct Setup {
    home: tempfile::TempDir,
    // Dropped after the processes that use it (fields drop in order, and
    // the callers drop their processes first).
    _database: Option<Database>,
    store: String,
    config: PathBuf,
    agentgate: PathBuf,
    instant_cli: PathBuf,
    /// The folder the jobs run in.
    pub work: PathBuf,
}

impl Setup {
    /// A fresh world on `backend` whose config allows `max_running` jobs
    /// at once.
    pub fn new(o: &Options, backend: Backend, max_running: usize) -> Result<Setup, String> {
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
        std::fs::write(
            &config,
            format!("version: 1\nqueue:\n  max_running: {max_running}\n"),
        )
        .map_err(|e| e.to_string())?;
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
        Ok(Setup {
            home,
            _database: database,
            store,
            config,
            agentgate: o.agentgate.clone(),
            instant_cli: o.instant_cli.clone(),
            work,
        })
    }

    /// `agentgate ARGS` on this world, with `instant-cli` as Claude Code.
    pub fn command(&self, args: &[&str]) -> Command {
        let mut c = Command::new(&self.agentgate);
        c.arg("--config")
            .arg(&self.config)
            .args(["--store", &self.store])
            .args(args)
            .env("AGENTGATE_HOME", self.home.path().join("data"))
            .env("AGENTGATE_CLAUDE_BIN", &self.instant_cli)
            .env("AGENTGATE_TOKEN", agentgate_fixtures::bench::TOKEN);
        c
    }

    /// `agentgate serve --no-executor` on this world (the API only).
    pub fn serve_api(&self) -> Result<Serve, String> {
        Serve::start(self.command(&["serve", "--no-executor", "--listen", "127.0.0.1:0"]))
    }

    /// The body of job number `i`: one instant run.
    pub fn job(&self, i: usize) -> Value {
        json!({
            "prompt": "hello", "providers": ["claude"], "permission_mode": "plan",
            "cwd": self.work.display().to_string(), "idempotency_key": format!("job-{i}"),
        })
    }
}

/// Queue jobs `from..to` through `serve`, on `threads` connections at
/// once (each request its own connection); every answer must be 201.
pub fn submit(
    serve: &Serve,
    setup: &Setup,
    (from, to): (usize, usize),
    threads: usize,
) -> Result<(), String> {
    let next = AtomicUsize::new(from);
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|_| {
                scope.spawn(|| -> Result<(), String> {
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= to {
                            return Ok(());
                        }
                        let (status, answer) =
                            serve.http("POST", "/v1/runs", Some(&setup.job(i)))?;
                        if status != 201 {
                            return Err(format!("POST /v1/runs answered {status}: {answer}"));
                        }
                    }
                })
            })
            .collect();
        handles.into_iter().try_for_each(|h| {
            h.join()
                .unwrap_or_else(|_| Err("a submit thread panicked".into()))
        })
    })
}

/// The counts of `GET /v1/queue` by state.
pub fn queue_counts(serve: &Serve) -> Result<Value, String> {
    let (status, queue) = serve.http("GET", "/v1/queue", None)?;
    if status != 200 {
        return Err(format!("GET /v1/queue answered {status}: {queue}"));
    }
    Ok(queue["counts"].clone())
}

/// The jobs that ended, by the counts of `GET /v1/queue`.
pub fn ended(counts: &Value) -> u64 {
    ["succeeded", "failed", "cancelled", "abandoned"]
        .iter()
        .map(|s| counts[s].as_u64().unwrap_or(0))
        .sum()
}

/// VmHWM (the peak resident set) of a process, KiB.
pub fn peak_rss_kib(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmHWM for {pid}"))
}
