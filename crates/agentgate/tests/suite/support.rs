//! Shared helpers: a fake-llm subprocess, the real CLIs, bounded runs.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::{self, Cli, ClientOptions, ClientSetup};
use serde_json::Value;

/// The workspace root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The install folder of the real CLIs (`clis/`, or the one
/// `AGENTGATE_TEST_CLIS` names): its `package.json` pins their versions.
pub fn clis_dir() -> PathBuf {
    clients::test_clis_dir(&workspace_root())
}

/// The folder of the real CLIs and the Node.js they run on
/// (`node_modules/.bin` of [`clis_dir`]).
pub fn clis_bin_dir() -> PathBuf {
    clients::test_bin_dir(&workspace_root())
}

/// The real CLI's executable. A missing CLI fails the test: it is never a skip.
pub fn cli_program(cli: Cli) -> PathBuf {
    clients::locate(cli, &[clis_bin_dir()]).unwrap_or_else(|| {
        panic!(
            "the real `{}` CLI is not installed: run scripts/install-clis.sh (or set {})",
            cli.binary(),
            cli.bin_env()
        )
    })
}

/// A cache shared by all opencode homes of a test run (opencode downloads
/// its provider package at first run).
pub fn shared_cache() -> PathBuf {
    let dir = workspace_root().join("target/agentgate-test-cache");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `agentgate fake-llm` running as a subprocess with a script and a log.
pub struct FakeServer {
    pub url: String,
    pub log: PathBuf,
    child: Child,
    _dir: tempfile::TempDir,
}

impl FakeServer {
    pub fn start(script: &str) -> FakeServer {
        FakeServer::start_with(script, &[])
    }

    /// As [`FakeServer::start`], with more arguments (`--tls-cert`, ...).
    pub fn start_with(script: &str, extra: &[&std::ffi::OsStr]) -> FakeServer {
        FakeServer::spawn(Some(script), extra)
    }

    /// fake-llm serving the gateway recording `recording` (`--replay`).
    pub fn replaying(recording: &Path) -> FakeServer {
        FakeServer::spawn(
            None,
            &[std::ffi::OsStr::new("--replay"), recording.as_os_str()],
        )
    }

    fn spawn(script: Option<&str>, extra: &[&std::ffi::OsStr]) -> FakeServer {
        let dir = tempfile::tempdir().unwrap();
        let mut script_args = Vec::new();
        if let Some(script) = script {
            let script_path = dir.path().join("script.yaml");
            std::fs::write(&script_path, script).unwrap();
            script_args.push(std::ffi::OsString::from("--script"));
            script_args.push(script_path.into_os_string());
        }
        let log = dir.path().join("requests.jsonl");
        let mut child = Command::new(env!("CARGO_BIN_EXE_agentgate"))
            .args(["fake-llm", "--max-seconds", "600"])
            .args(&script_args)
            .arg("--log")
            .arg(&log)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("fake-llm printed no URL within 20 s");
        let url = line.trim().to_owned();
        assert!(
            url.starts_with("http://127.0.0.1:") || url.starts_with("https://127.0.0.1:"),
            "unexpected first line {url:?}"
        );
        FakeServer {
            url,
            log,
            child,
            _dir: dir,
        }
    }

    /// The request log so far.
    pub fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The message texts of the last model request (not a side request).
    pub fn last_turn_texts(&self) -> Vec<String> {
        let last = self
            .turn_requests()
            .pop()
            .expect("no model request was made");
        last["messages"]
            .as_array()
            .expect("the log entry has no messages")
            .iter()
            .filter_map(|m| m["text"].as_str().map(str::to_owned))
            .collect()
    }

    /// The model requests (not HEAD/GET, not side requests).
    pub fn turn_requests(&self) -> Vec<Value> {
        self.requests()
            .into_iter()
            .filter(|r| r["method"] == "POST" && r.get("side").is_none() && r.get("api").is_some())
            .collect()
    }
}

impl Drop for FakeServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one CLI run did.
#[derive(Debug)]
pub struct Run {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
    pub elapsed: Duration,
    pub timed_out: bool,
}

impl Run {
    /// Both streams, for error-text assertions and failure messages.
    pub fn all_output(&self) -> String {
        format!("{}\n{}", self.stdout, self.stderr)
    }
}

/// Run a command in its own process group; kill the whole group at `limit`.
pub fn run_bounded(mut cmd: Command, limit: Duration) -> Run {
    cmd.stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let start = Instant::now();
    let child = cmd.spawn().unwrap();
    let pgid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let (out, timed_out) = match rx.recv_timeout(limit) {
        Ok(out) => (out.unwrap(), false),
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pgid}")])
                .status();
            (
                rx.recv_timeout(Duration::from_secs(10))
                    .expect("killed run did not end")
                    .unwrap(),
                true,
            )
        }
    };
    // Whatever the CLI left behind in its group goes too.
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
    Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: start.elapsed(),
        timed_out,
    }
}

/// A real CLI pointed at a fake-llm from a fresh isolated home.
pub struct Client {
    pub setup: ClientSetup,
    pub program: PathBuf,
    _dir: tempfile::TempDir,
}

impl Client {
    pub fn new(cli: Cli, server: &FakeServer) -> Client {
        let program = cli_program(cli);
        let dir = tempfile::tempdir().unwrap();
        let opts = ClientOptions {
            max_retries: 0,
            model: None,
            shared_cache: Some(shared_cache()),
            bin_dir: program.parent().map(Path::to_path_buf),
        };
        let setup = clients::prepare(cli, &server.url, dir.path(), &opts).unwrap();
        Client {
            setup,
            program,
            _dir: dir,
        }
    }

    /// The recipe's environment variables, for `Command::envs`.
    pub fn env_pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// `agentgate` (the binary under test) as a client of this recipe runs
    /// it: only the recipe's environment, in its working folder, with no
    /// stdin. Callers add the arguments and any further variables.
    pub fn agentgate(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.env_clear()
            .envs(self.env_pairs())
            .current_dir(&self.setup.workdir)
            .stdin(Stdio::null());
        cmd
    }

    /// One unattended turn, bounded in time.
    pub fn run(&self, prompt: &str, limit: Duration) -> Run {
        run_bounded(self.setup.command(&self.program, prompt), limit)
    }
}

/// `agentgate ARGS` on the store in `home` (no store or log setting
/// inherited), bounded; it must succeed.
pub fn agentgate_ok(home: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .env("AGENTGATE_HOME", home)
        .env_remove("AGENTGATE_STORE")
        .env_remove("AGENTGATE_LOG")
        .stdin(Stdio::null());
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(
        run.code,
        Some(0),
        "agentgate {args:?}: {}",
        run.all_output()
    );
    run
}
