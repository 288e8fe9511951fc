//! The processes under test: a fresh PostgreSQL database, the config with
//! the three described stand-in providers and the schedule, one `agentgate
//! serve --no-executor` on a clock file, and the `agentgate worker`s.

use std::io::{BufRead as _, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use crate::http::TOKEN;
pub use agentgate_fixtures::database::Database;

/// How long a started process gets to print its first line.
const START_LIMIT: Duration = Duration::from_secs(60);

/// The workers' lease, in seconds.
pub const LEASE_SECS: u64 = 5;

/// The schedule's name in the config.
pub const SCHEDULE: &str = "drill-tick";

/// The drill's config: providers `drill-a` (at most 2 at once), `drill-b`
/// (at most 1 at once, see docs/operating/fault-drill.md), `drill-c` (no limit
/// of its own), each able to resume a session (`--resume ID`, which
/// drill-cli ignores) and to run in `plan` or `accept_edits` mode (the
/// burst's writers, one at a time per folder); leases of 5 s (the least
/// docs/config.md advises) requeued when lost; a schedule on every minute
/// of the serve's clock, each fire a job on `drill-c`.
pub fn write_config(
    home: &Path,
    cli: &Path,
    cli_dir: &Path,
    work: &Path,
) -> Result<PathBuf, String> {
    let mut text = format!(
        "version: 1\nqueue:\n  max_running: 100\n  providers: {{drill-a: 2, drill-b: 1}}\n  \
         lease: {LEASE_SECS}s\n  on_lease_expiry: requeue\n  max_attempts: 1\nproviders:\n",
    );
    // `drill-q`: the partition drill's probe, served by its first worker
    // alone (`partition.rs`).
    for letter in ["a", "b", "c", "q"] {
        text.push_str(&format!(
            "  drill-{letter}:\n    command: [{cli:?}, {letter}, {cli_dir:?}]\n    prompt: stdin\n    \
             permission_modes: {{plan: [--plan], accept_edits: [--edit]}}\n    \
             resume: [--resume, \"{{session}}\"]\n    output: jsonl\n    final: {{type: result}}\n    \
             text: /result\n    session_id: /session_id\n    error: {{message: /result, is_error: /is_error}}\n",
            cli = cli.display().to_string(),
            cli_dir = cli_dir.display().to_string(),
        ));
    }
    text.push_str(&format!(
        "schedules:\n  {SCHEDULE}:\n    cron: \"* * * * *\"\n    overlap: queue\n    request:\n      \
         prompt: scheduled drill job\n      providers: [drill-c]\n      permission_mode: plan\n      \
         cwd: {:?}\n",
        work.display().to_string()
    ));
    let path = home.join("agentgate.yaml");
    std::fs::write(&path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

/// What every agentgate process of the drill shares.
#[derive(Debug, Clone)]
pub struct Setup {
    pub agentgate: PathBuf,
    pub home: PathBuf,
    pub config: PathBuf,
    pub store: String,
    pub seed: u64,
    /// The partition drill's hosts: the workers run in them, on the store
    /// at `worker_store`.
    pub net: Option<std::sync::Arc<crate::netns::Network>>,
    pub worker_store: String,
}

impl Setup {
    fn command(&self, args: &[&str], log: &str, host: Option<usize>) -> Result<Command, String> {
        let log = self.home.join(log);
        let log = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut cmd = match (host, &self.net) {
            (Some(n), Some(net)) => net.command_on(n, &self.agentgate)?,
            _ => Command::new(&self.agentgate),
        };
        cmd.args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", &self.home)
            .env("AGENTGATE_HOME", self.home.join("data"))
            .env("AGENTGATE_CONFIG", &self.config)
            .env("AGENTGATE_STORE", &self.store)
            .env("AGENTGATE_LOG", "info")
            .env("DRILL_SEED", self.seed.to_string())
            .current_dir(&self.home)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log);
        Ok(cmd)
    }
}

/// A started agentgate process and the first line it printed.
#[derive(Debug)]
pub struct Process {
    pub child: Child,
    pub first_line: String,
}

impl Process {
    fn start(mut cmd: Command, what: &str) -> Result<Process, String> {
        let mut child = cmd.spawn().map_err(|e| format!("starting {what}: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = tx.send(line);
            // Keep reading so that the process never blocks on a full pipe.
            let _ = std::io::copy(&mut reader, &mut std::io::sink());
        });
        match rx.recv_timeout(START_LIMIT) {
            Ok(line) if !line.trim().is_empty() => Ok(Process {
                child,
                first_line: line.trim().to_owned(),
            }),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!("{what} printed nothing (see its log)"))
            }
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `signal` (e.g. `"TERM"`, `"KILL"`) with kill(1).
    pub fn signal(&self, signal: &str) -> Result<(), String> {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid().to_string())
            .status()
            .map_err(|e| format!("kill: {e}"))?;
        if sent.success() {
            Ok(())
        } else {
            Err(format!("kill -{signal} {} failed", self.pid()))
        }
    }

    /// Wait at most `limit` for the exit; `true` if it exited.
    pub fn wait_exit(&mut self, limit: Duration) -> bool {
        let start = std::time::Instant::now();
        while start.elapsed() < limit {
            if matches!(self.child.try_wait(), Ok(Some(_)) | Err(_)) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// `agentgate serve --no-executor` on the clock file; its URL.
pub fn start_serve(setup: &Setup, clock: &Path) -> Result<(Process, String), String> {
    let mut cmd = setup.command(
        &["serve", "--no-executor", "--listen", "127.0.0.1:0"],
        "serve.log",
        None,
    )?;
    cmd.env("AGENTGATE_TOKEN", TOKEN)
        .env("AGENTGATE_TEST_CLOCK_FILE", clock);
    let serve = Process::start(cmd, "agentgate serve")?;
    let url = serve.first_line.clone();
    if !url.starts_with("http://") {
        return Err(format!("serve printed {url:?}, not its URL"));
    }
    Ok((serve, url))
}

/// `agentgate worker --concurrency N` number `n` (for its log's name); in
/// the partition drill, on host `n`, with the probe's provider for the
/// first.
pub fn start_worker(setup: &Setup, n: usize, concurrency: usize) -> Result<Process, String> {
    let concurrency = concurrency.to_string();
    let mut args = vec!["worker", "--concurrency", &concurrency, "--grace", "30"];
    let host = setup.net.as_ref().map(|_| n);
    if host.is_some() {
        args.push("--providers");
        args.push(if n == 0 {
            "drill-a,drill-b,drill-c,drill-q"
        } else {
            "drill-a,drill-b,drill-c"
        });
    }
    let mut cmd = setup.command(&args, &format!("worker-{n}.log"), host)?;
    if host.is_some() {
        cmd.env("AGENTGATE_STORE", &setup.worker_store);
    }
    Process::start(cmd, &format!("agentgate worker #{n}"))
}
