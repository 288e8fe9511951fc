//! Output that cannot be written: every printing command with stdout a
//! pipe whose reader is gone (exit 141, nothing on stderr but what the
//! command prints there anyway) and with stdout on a full disk
//! (`/dev/full`: one line on stderr, exit 74). A run is recorded in the
//! store with its real outcome either way.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::Value;

use super::support::workspace_root;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(60);
const CLOSED: i32 = 141;
const FAILED: i32 = 74;

/// Where stdout goes.
#[derive(Debug, Clone, Copy)]
enum Sink {
    /// A pipe whose read end was closed before the command started.
    ClosedPipe,
    /// `/dev/full`: every write fails with ENOSPC.
    Full,
}

/// A finished command: its exit code and stderr.
#[derive(Debug)]
struct Ended {
    code: Option<i32>,
    stderr: String,
}

/// Run `cmd` with stdout on `sink`, bounded in time.
fn run_into(mut cmd: Command, sink: Sink) -> Ended {
    match sink {
        Sink::ClosedPipe => {
            let (reader, writer) = std::io::pipe().unwrap();
            drop(reader);
            cmd.stdout(writer);
        }
        Sink::Full => {
            cmd.stdout(
                std::fs::OpenOptions::new()
                    .write(true)
                    .open("/dev/full")
                    .unwrap(),
            );
        }
    }
    cmd.stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        let _ = tx.send(text);
    });
    let stderr = match rx.recv_timeout(LIMIT) {
        Ok(text) => text,
        Err(_) => {
            let _ = child.kill();
            panic!("{cmd:?} did not end within {LIMIT:?}");
        }
    };
    let status = child.wait().unwrap();
    Ended {
        code: status.code(),
        stderr,
    }
}

/// Nothing on stderr that a write failure would add: no panic, no
/// "Broken pipe", no usage-error message.
fn assert_no_noise(ended: &Ended, what: &str) {
    let s = &ended.stderr;
    assert!(!s.contains("panicked"), "{what}: {s}");
    assert!(!s.to_lowercase().contains("broken pipe"), "{what}: {s}");
    assert!(!s.contains("failed printing"), "{what}: {s}");
}

/// A store and a cursor CLI played by `replay-cli`.
struct Runner {
    store: tempfile::TempDir,
    home: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        Runner {
            store: tempfile::tempdir().unwrap(),
            home: tempfile::tempdir().unwrap(),
        }
    }

    fn agentgate(&self, args: &[&str]) -> Command {
        let mut cmd = Command::new(AGENTGATE);
        cmd.args(args)
            .env_clear()
            .env("HOME", self.home.path())
            .env("PATH", "/usr/bin:/bin")
            .env("AGENTGATE_HOME", self.store.path())
            .env(
                "REPLAY_DIR",
                workspace_root().join("crates/agentgate-fixtures/transcripts/cursor"),
            )
            .current_dir(self.home.path())
            .stdin(Stdio::null());
        cmd
    }

    /// `agentgate run` of one text turn of the replayed cursor CLI.
    fn run(&self, extra: &[&str]) -> Command {
        let replay = Path::new(AGENTGATE).with_file_name("replay-cli");
        assert!(
            replay.is_file(),
            "{} is missing: run `cargo build -p agentgate-fixtures --bin replay-cli`",
            replay.display()
        );
        let mut cmd = self.agentgate(&["run", "--provider", "cursor", "--compact"]);
        cmd.arg("--no-unattended-instruction")
            .arg("--binary")
            .arg(replay)
            .args(extra)
            .arg("What is the capital of France?");
        cmd
    }

    /// The stored runs, newest first.
    fn stored_runs(&self) -> Vec<Value> {
        let out = self
            .agentgate(&["runs", "--json"])
            .stderr(Stdio::inherit())
            .output()
            .unwrap();
        assert!(out.status.success(), "agentgate runs failed");
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }
}

/// The run ended, exited `code` for its output, printed its audit line
/// with the run's own exit (0), and is stored as a success.
fn assert_run_recorded(r: &Runner, ended: &Ended, code: i32, what: &str) {
    assert_eq!(ended.code, Some(code), "{what}: {}", ended.stderr);
    assert!(
        ended.stderr.contains("agentgate run=") && ended.stderr.contains(" exit=0 "),
        "{what}: no audit line of a successful run: {}",
        ended.stderr
    );
    let runs = r.stored_runs();
    assert_eq!(runs.len(), 1, "{what}: {runs:?}");
    assert_eq!(runs[0]["status"], "succeeded", "{what}: {:#}", runs[0]);
}

#[test]
fn a_run_into_a_closed_pipe_ends_quietly_and_is_recorded() {
    for extra in [&[][..], &["--stream"][..]] {
        let what = format!("run {extra:?} | (closed)");
        let r = Runner::new();
        let ended = run_into(r.run(extra), Sink::ClosedPipe);
        assert_no_noise(&ended, &what);
        assert_run_recorded(&r, &ended, CLOSED, &what);
        // Nothing but the audit line: the closed pipe is not reported.
        assert_eq!(ended.stderr.lines().count(), 1, "{what}: {}", ended.stderr);
    }
}

#[test]
fn a_run_onto_a_full_disk_says_so_in_one_line_and_is_recorded() {
    for extra in [&[][..], &["--stream"][..]] {
        let what = format!("run {extra:?} > /dev/full");
        let r = Runner::new();
        let ended = run_into(r.run(extra), Sink::Full);
        assert_no_noise(&ended, &what);
        assert_run_recorded(&r, &ended, FAILED, &what);
        let errors: Vec<&str> = ended
            .stderr
            .lines()
            .filter(|l| !l.starts_with("agentgate run="))
            .collect();
        assert_eq!(
            errors,
            [
                "agentgate: failed to write the output to stdout: No space left on device (os error 28)"
            ],
            "{what}"
        );
    }
}

#[test]
fn every_printing_command_ends_quietly_on_a_closed_pipe_and_clearly_on_a_full_disk() {
    let r = Runner::new();
    // One stored run, so that `runs` has something to print.
    let stored = r
        .run(&[])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    assert!(stored.unwrap().success());
    let run_id = r.stored_runs()[0]["record"]["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let capture = workspace_root().join("crates/agentgate-fixtures/transcripts/cursor/text/stdout");
    let capture = capture.to_str().unwrap();
    let commands: Vec<Vec<&str>> = vec![
        vec!["runs"],
        vec!["runs", "--json"],
        vec!["runs", "show", &run_id],
        vec!["runs", "show", &run_id, "--events"],
        vec!["config", "show"],
        vec!["config", "show", "--json"],
        vec!["config", "check"],
        vec!["providers"],
        vec!["providers", "--json"],
        vec!["quota"],
        vec!["quota", "--json"],
        vec!["parse", "-p", "cursor", capture],
        vec!["parse", "-p", "cursor", "--events", capture],
        vec!["run", "-p", "claude", "--dry-run", "hi"],
    ];
    for args in &commands {
        let what = format!("agentgate {}", args.join(" "));
        let ended = run_into(r.agentgate(args), Sink::ClosedPipe);
        assert_no_noise(&ended, &what);
        assert_eq!(
            ended.code,
            Some(CLOSED),
            "{what} | (closed): {}",
            ended.stderr
        );
        assert_eq!(ended.stderr, "", "{what} | (closed)");
        let ended = run_into(r.agentgate(args), Sink::Full);
        assert_no_noise(&ended, &what);
        assert_eq!(
            ended.code,
            Some(FAILED),
            "{what} > /dev/full: {}",
            ended.stderr
        );
        assert_eq!(
            ended.stderr,
            "agentgate: failed to write the output to stdout: No space left on device (os error 28)\n",
            "{what} > /dev/full"
        );
    }
}
