//! A store that refuses a run's end, for real: the SQLite store on a small
//! tmpfs (`small_disk.rs`) that the stand-in CLI fills just before it
//! answers, or remounted read-only. A server keeps the result and writes it
//! once space returns (the CLI runs once, the job ends with its first
//! answer, attempts 1); `agentgate run` prints the envelope and exits
//! non-zero unless asked to run without the store.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::serve_support::{get, post_json};
use super::small_disk::SmallDisk;
use super::support::run_bounded;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const TOKEN: &str = "store-full-test-token-0123456789abcdef";
const LIMIT: Duration = Duration::from_secs(60);

/// A home outside the small disk: the config (provider `stand`, leases of
/// 1 s), the stand-in CLI and its stamps. The stand-in stamps each start
/// in `starts`, fills the disk when its prompt says `fill` (once: a later
/// start finds the file `filled` and leaves the disk be), then answers.
struct Home {
    dir: tempfile::TempDir,
    disk: SmallDisk,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let disk = SmallDisk::new("8m");
        let cli = dir.path().join("stand-in");
        let script = format!(
            "#!/bin/sh\nprompt=$(cat)\necho start >> '{starts}'\n\
             case \"$prompt\" in *fill*) [ -e '{filled}' ] || {{ touch '{filled}'; \
             cat /dev/zero > '{filler}' 2>/dev/null; }} ;; esac\n\
             echo '{{\"type\":\"result\",\"result\":\"the first answer\",\"session_id\":\"s1\"}}'\n",
            starts = dir.path().join("starts").display(),
            filler = disk.dir().join("filler").display(),
            filled = dir.path().join("filled").display(),
        );
        std::fs::write(&cli, script).unwrap();
        std::fs::set_permissions(&cli, std::fs::Permissions::from_mode(0o755)).unwrap();
        let config = format!(
            "version: 1\nqueue:\n  lease: 1s\nproviders:\n  stand:\n    command: [{cli:?}]\n    \
             prompt: stdin\n    output: jsonl\n    final: {{type: result}}\n    text: /result\n    \
             session_id: /session_id\n    permission_modes: {{plan: [--plan]}}\n",
            cli = cli.display().to_string(),
        );
        std::fs::write(dir.path().join("agentgate.yaml"), config).unwrap();
        Home { dir, disk }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn db(&self) -> PathBuf {
        self.disk.dir().join("agentgate.db")
    }

    fn starts(&self) -> usize {
        std::fs::read_to_string(self.path().join("starts"))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    }

    /// `agentgate --config C --store DB ARGS`, where it sees the disk.
    fn agentgate(&self, args: &[&str]) -> std::process::Command {
        let mut cmd = self.disk.command(AGENTGATE);
        cmd.arg("--config")
            .arg(self.path().join("agentgate.yaml"))
            .arg("--store")
            .arg(self.db())
            .args(args)
            .env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.path())
            .env("AGENTGATE_HOME", self.path().join("data"))
            .stdin(Stdio::null());
        cmd
    }

    /// `agentgate run -p stand PROMPT ARGS`, bounded.
    fn run(&self, prompt: &str, args: &[&str]) -> super::support::Run {
        let cmd = self.agentgate(&[&["run", "-p", "stand"], args, &[prompt]].concat());
        run_bounded(cmd, LIMIT)
    }
}

/// A `serve` started where it sees the disk; killed when dropped.
struct Serve {
    url: String,
    child: Child,
    stderr: PathBuf,
}

impl Serve {
    fn start(home: &Home) -> Serve {
        let stderr = home.path().join("serve.log");
        let mut child = home
            .agentgate(&["serve", "--listen", "127.0.0.1:0"])
            .env("AGENTGATE_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(
            line.starts_with("http://"),
            "no URL from serve: {line:?}; stderr:\n{}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
        Serve {
            url: line.trim().to_owned(),
            child,
            stderr,
        }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    fn run_view(&self, id: &str) -> Value {
        let response = get(&self.url, &format!("/v1/runs/{id}"), Some(TOKEN));
        assert_eq!(response.status, 200, "{}", response.body);
        response.json()
    }

    /// Poll (every 50 ms, at most 60 s) until `done`.
    fn wait(&self, what: &str, done: impl Fn(&Serve) -> bool) {
        for _ in 0..1200 {
            if done(self) {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("{what}: not within 60 s; serve's log:\n{}", self.log());
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_job_whose_end_the_full_disk_refuses_ends_with_its_first_result_once_space_returns() {
    let home = Home::new();
    let serve = Serve::start(&home);
    let body = r#"{"prompt": "fill the disk, then answer", "providers": ["stand"], "permission_mode": "plan"}"#;
    let accepted = post_json(&serve.url, "/v1/runs", TOKEN, body);
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();
    serve.wait("the store refused the job's end", |s| {
        s.log().lines().any(|l| {
            l.contains("agentgate_executor::executor::job")
                && l.contains("database or disk is full")
        })
    });
    // The outage outlasts several leases and a sweep of expired leases
    // (every 5 s): time for a server that let go of the result to requeue
    // the job and run it again. Nothing asserted here depends on it.
    std::thread::sleep(Duration::from_secs(7));
    let view = serve.run_view(&id);
    assert_eq!(view["status"], "running", "{view}");
    assert_eq!(view["attempts"], 1, "{view}");
    home.disk.free();
    serve.wait("the job ended", |s| s.run_view(&id)["ended_at"].is_string());
    let view = serve.run_view(&id);
    assert_eq!(view["status"], "succeeded", "{view}\n{}", serve.log());
    assert_eq!(view["attempts"], 1, "{view}");
    assert_eq!(view["envelope"]["response"], "the first answer", "{view}");
    assert_eq!(view["envelope"]["run_id"], id.as_str(), "{view}");
    assert_eq!(home.starts(), 1, "the CLI ran once");
}

#[test]
fn run_on_a_full_store_prints_the_envelope_and_exits_non_zero() {
    let home = Home::new();
    // The store exists and works.
    let first = home.run("hello", &[]);
    assert_eq!(first.code, Some(0), "{}", first.all_output());

    let full = home.run("fill the disk, then answer", &[]);
    assert_eq!(full.code, Some(74), "{}", full.all_output());
    let envelope: Value = serde_json::from_str(full.stdout.trim()).unwrap();
    assert_eq!(envelope["response"], "the first answer");
    let run_id = envelope["run_id"].as_str().unwrap();
    assert!(
        full.stderr.contains(&format!(
            "agentgate: error: run {run_id} was not recorded in the run store {}",
            home.db().display()
        )),
        "{}",
        full.stderr
    );
    assert!(full.stderr.contains("full"), "{}", full.stderr);
    assert!(full.stderr.contains("--no-store"), "{}", full.stderr);

    let without = home.run("fill the disk, then answer", &["--no-store"]);
    assert_eq!(without.code, Some(0), "{}", without.all_output());
    assert!(
        !without.stderr.contains("not recorded"),
        "{}",
        without.stderr
    );
    assert_eq!(home.starts(), 3);
}

#[test]
fn run_on_a_read_only_store_prints_the_envelope_and_exits_non_zero() {
    let home = Home::new();
    let first = home.run("hello", &[]);
    assert_eq!(first.code, Some(0), "{}", first.all_output());
    home.disk.read_only();

    let refused = home.run("hello again", &[]);
    assert_eq!(refused.code, Some(74), "{}", refused.all_output());
    let envelope: Value = serde_json::from_str(refused.stdout.trim()).unwrap();
    assert_eq!(envelope["response"], "the first answer");
    assert!(
        refused.stderr.contains("was not recorded in the run store"),
        "{}",
        refused.stderr
    );
    assert!(refused.stderr.contains("readonly"), "{}", refused.stderr);

    let without = home.run("hello again", &["--no-store"]);
    assert_eq!(without.code, Some(0), "{}", without.all_output());
}
