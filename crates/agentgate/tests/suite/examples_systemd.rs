//! `examples/systemd/`: the two units, checked by systemd's own parser
//! (`systemd-analyze verify`), then run as systemd would run them on one
//! host, with this machine's paths: `serve --no-executor` and a `worker`
//! on one PostgreSQL store (a fresh database of AGENTGATE_TEST_POSTGRES),
//! their `EnvironmentFile`, `Environment` and `WorkingDirectory`, the
//! shipped `examples/agentgate.yaml` as /etc/agentgate/agentgate.yaml, and
//! the REAL Claude Code against `agentgate fake-llm` as the worker's CLI.
//! A run sent with `agentgate submit --wait` is run by the worker; the
//! worker's metrics answer the token; `KillSignal` stops each before its
//! `TimeoutStopSec`.
//!
//! What differs from a host under systemd, and why: the processes run as
//! this test's user, not `User=agentgate`; each address the units listen on
//! (`0.0.0.0:7700`, `0.0.0.0:9464`) becomes `127.0.0.1:0`, a free loopback
//! port, so parallel tests never collide and nothing listens beyond this
//! machine.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::examples_host::{Host, envelope_ok};
use super::serve_queue_support::wait_until;
use super::serve_support::get;
use super::store_postgres::fresh_database;
use super::support::{Run, run_bounded, workspace_root};

const TOKEN: &str = "examples-systemd-token-0123456789abcdef";
const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// The `[Service]` settings of a unit file, in order.
struct Unit {
    name: String,
    service: Vec<(String, String)>,
}

impl Unit {
    fn read(name: &str) -> Unit {
        let text =
            std::fs::read_to_string(workspace_root().join("examples/systemd").join(name)).unwrap();
        let mut section = String::new();
        let mut service = Vec::new();
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
                section = s.to_owned();
            } else if section == "Service" {
                let (k, v) = line.split_once('=').unwrap();
                service.push((k.trim().to_owned(), v.trim().to_owned()));
            }
        }
        Unit {
            name: name.to_owned(),
            service,
        }
    }

    fn get(&self, key: &str) -> &str {
        self.service
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .unwrap_or_else(|| panic!("{} has no {key}=", self.name))
    }

    fn all(&self, key: &str) -> Vec<&str> {
        self.service
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// `TimeoutStopSec` (whole seconds, as the units give it).
    fn stop_timeout(&self) -> Duration {
        Duration::from_secs(self.get("TimeoutStopSec").parse().unwrap())
    }
}

/// This machine's paths for the units' own.
struct Paths {
    etc: PathBuf,
    var: PathBuf,
}

impl Paths {
    fn map(&self, text: &str) -> String {
        text.replace("/usr/local/bin/agentgate", AGENTGATE)
            .replace("/etc/agentgate", &self.etc.display().to_string())
            .replace("/var/lib/agentgate", &self.var.display().to_string())
    }
}

/// `systemd-analyze verify` on the unit, its executable made this build's:
/// systemd parses every key and value, and says nothing when all are good.
fn verify(unit: &str) {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(workspace_root().join("examples/systemd").join(unit))
        .unwrap()
        .replace("/usr/local/bin/agentgate", AGENTGATE);
    let copy = dir.path().join(unit);
    std::fs::write(&copy, text).unwrap();
    let mut cmd = Command::new("systemd-analyze");
    cmd.arg("verify").arg(&copy).env("SYSTEMD_LOG_COLOR", "0");
    let checked = match cmd.output() {
        Ok(out) => out,
        Err(e) => {
            panic!("systemd-analyze is not installed ({e}): scripts/install-systemd.sh installs it")
        }
    };
    let said = String::from_utf8_lossy(&checked.stderr);
    assert!(
        checked.status.success() && said.trim().is_empty(),
        "{unit}: systemd-analyze verify: {}\n{said}",
        checked.status
    );
}

/// A unit's main process, started as systemd starts it.
struct Service {
    child: Child,
    /// Its first line on stdout (serve's URL, the worker's id).
    first_line: String,
    stderr: PathBuf,
}

impl Service {
    fn start(unit: &Unit, paths: &Paths, host: &Host) -> Service {
        let mut argv: Vec<String> = unit
            .get("ExecStart")
            .split_whitespace()
            .map(|a| paths.map(a))
            .collect();
        for a in &mut argv {
            if a.starts_with("0.0.0.0:") {
                *a = "127.0.0.1:0".to_owned();
            }
        }
        let mut cmd = Command::new(&argv[0]);
        cmd.args(&argv[1..])
            .env_clear()
            // The host's user: its PATH (where the CLIs are) and home.
            .env("PATH", host_var(host, "PATH"))
            .env("HOME", host_var(host, "HOME"));
        for assignment in unit.all("Environment") {
            let (k, v) = assignment.split_once('=').unwrap();
            cmd.env(k, paths.map(v));
        }
        let file = PathBuf::from(paths.map(unit.get("EnvironmentFile")));
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            if let Some((k, v)) = line.split_once('=') {
                cmd.env(k, v);
            }
        }
        let stderr = paths.var.join(format!("{}.stderr", unit.name));
        let mut child = cmd
            .current_dir(paths.map(unit.get("WorkingDirectory")))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let first_line = rx
            .recv_timeout(Duration::from_secs(120))
            .unwrap_or_default();
        assert!(
            first_line.ends_with('\n'),
            "{} printed nothing on stdout; stderr:\n{}",
            unit.name,
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
        Service {
            child,
            first_line: first_line.trim_end().to_owned(),
            stderr,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// `systemctl stop`: `KillSignal` to the main process (both units'
    /// `KillMode` signal the main process first), then its exit, which
    /// must come before `TimeoutStopSec` (systemd would SIGKILL it then).
    fn stop(mut self, unit: &Unit) -> ExitStatus {
        let signal = unit.get("KillSignal").trim_start_matches("SIG");
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let deadline = Instant::now() + unit.stop_timeout();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status;
            }
            assert!(
                Instant::now() < deadline,
                "{} did not stop within TimeoutStopSec; stderr:\n{}",
                unit.name,
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn host_var(host: &Host, name: &str) -> String {
    host.var(name)
        .unwrap_or_else(|| panic!("the host has no {name}"))
        .to_owned()
}

#[test]
fn the_units_run_serve_and_a_worker_on_one_queue() {
    verify("agentgate-serve.service");
    verify("agentgate-worker.service");
    let serve_unit = Unit::read("agentgate-serve.service");
    let worker_unit = Unit::read("agentgate-worker.service");
    // The worker's drain (--grace) ends before systemd's patience does.
    let grace: u64 = worker_unit
        .get("ExecStart")
        .split_whitespace()
        .skip_while(|a| *a != "--grace")
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    assert!(Duration::from_secs(grace) < worker_unit.stop_timeout());

    let host = Host::new("turns:\n  - match: {api: anthropic}\n    text: \"done by the worker\"\n");
    let paths = Paths {
        etc: host.root().join("etc"),
        var: host.root().join("var"),
    };
    std::fs::create_dir_all(&paths.etc).unwrap();
    std::fs::create_dir_all(&paths.var).unwrap();
    std::fs::copy(
        workspace_root().join("examples/agentgate.yaml"),
        paths.etc.join("agentgate.yaml"),
    )
    .unwrap();
    // The units' EnvironmentFile: the store, the token, the account, and
    // what the CLIs of this host need to reach their (fake) model.
    let store = fresh_database();
    let mut env = format!(
        "AGENTGATE_STORE={store}\nAGENTGATE_TOKEN={TOKEN}\nAGENTGATE_CLAUDE_ACCOUNT=team-a\n"
    );
    for (k, v) in host.vars() {
        if !["PATH", "HOME", "AGENTGATE_HOME"].contains(&k.as_str()) {
            env.push_str(&format!("{k}={v}\n"));
        }
    }
    let env_file = paths.etc.join("env");
    std::fs::write(&env_file, env).unwrap();
    std::fs::set_permissions(&env_file, std::fs::Permissions::from_mode(0o600)).unwrap();

    let serve = Service::start(&serve_unit, &paths, &host);
    let url = serve.first_line.clone();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let worker = Service::start(&worker_unit, &paths, &host);
    let metrics = wait_until("the worker's metrics address", || {
        worker
            .log()
            .split_inclusive('\n')
            // Only a whole line: the log is read while the worker writes it.
            .filter_map(|l| l.strip_suffix('\n'))
            .find_map(|l| l.strip_prefix("agentgate: metrics on "))
            .map(str::to_owned)
    });

    // A run sent to the API is run by the worker (serve runs none).
    let submitted = submit(&host, &url);
    let envelope = envelope_ok("submit --wait", &submitted);
    assert_eq!(envelope["response"], "done by the worker", "{envelope:#}");
    assert_eq!(host.models("anthropic"), ["claude-sonnet-4-5"]);
    let workers = get(&url, "/v1/workers", Some(TOKEN));
    assert_eq!(workers.status, 200, "{}", workers.body);
    let listed: Value = workers.json();
    assert!(
        workers.body.contains(&worker.first_line),
        "{worker_id} is not listed: {listed:#}",
        worker_id = worker.first_line
    );

    // Prometheus scrapes the worker with the token.
    let base = metrics.trim_end_matches("/metrics");
    assert_eq!(get(base, "/metrics", None).status, 401);
    let scraped = get(base, "/metrics", Some(TOKEN));
    assert_eq!(scraped.status, 200, "{}", scraped.body);
    assert!(scraped.body.contains("agentgate_"), "{}", scraped.body);

    let status = worker.stop(&worker_unit);
    assert!(status.success(), "worker: {status}");
    let status = serve.stop(&serve_unit);
    assert!(status.success(), "serve: {status}");
}

/// `agentgate submit --wait -p claude PROMPT` from the project folder, as
/// a client of this host (the token in its environment).
fn submit(host: &Host, url: &str) -> Run {
    let mut cmd = host.command(
        Path::new(AGENTGATE),
        &host.work(),
        &[
            "submit",
            "--server",
            url,
            "--wait",
            "-p",
            "claude",
            "Check the deployment",
        ],
    );
    cmd.env("AGENTGATE_TOKEN", TOKEN);
    run_bounded(cmd, Duration::from_secs(300))
}
