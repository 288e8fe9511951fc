//! `--session` under concurrency: runs of one session name take turns, so
//! the first creates exactly one native session and every turn is counted;
//! `--session-busy fail` refuses a busy session with `session_busy`, exit
//! 75; a holder that dies (SIGKILL) leaves the session free.
//!
//! The CLI is a stand-in Claude Code (a bash script passed with
//! `--binary`): asked to `--resume ID` it continues that session, else it
//! makes up a new session id and lists it in a file, so the test counts
//! the native sessions created.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_store::{RunStore, Store};
use serde_json::Value;

use agentgate_fakellm::clients::Cli;

use super::run_e2e::Gate;
use super::support::{FakeServer, Run, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const RUNS: usize = 40;

/// `$1` of the script's folder: `created` lists new session ids, `started`
/// one line per run; a run waits (bounded) for the file `release` when
/// `hold` exists.
const STAND_IN: &str = r#"#!/bin/bash
dir="$(dirname "$0")"
id=""
prev=""
for a in "$@"; do
  [ "$prev" = "--resume" ] && id="$a"
  prev="$a"
done
cat > /dev/null
# Whether to hold is read before `started` is written: the test removes
# `hold` as soon as it sees `started`.
held=""
[ -e "$dir/hold" ] && held=1
echo "$$" >> "$dir/started"
if [ -z "$id" ]; then
  id="sess-$$-$RANDOM"
  echo "$id" >> "$dir/created"
fi
if [ -n "$held" ]; then
  for _ in $(seq 1 600); do
    [ -e "$dir/release" ] && break
    sleep 0.1
  done
fi
echo '{"type":"system","subtype":"init","session_id":"'"$id"'","model":"fake-model"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"'"$id"'","num_turns":1}'
"#;

struct Setup {
    dir: tempfile::TempDir,
    home: tempfile::TempDir,
    script: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let home = tempfile::tempdir().unwrap();
        let script = dir.path().join("claude");
        std::fs::write(&script, STAND_IN).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        Setup { dir, home, script }
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn lines(&self, name: &str) -> Vec<String> {
        std::fs::read_to_string(self.file(name))
            .unwrap_or_default()
            .lines()
            .map(str::to_owned)
            .collect()
    }

    fn command(&self, session: &str, extra: &[&str]) -> Command {
        let mut cmd = Command::new(AGENTGATE);
        cmd.args(["run", "--provider", "claude", "--compact", "--binary"])
            .arg(&self.script)
            .args(["--session", session])
            .args(extra)
            .arg("one more turn")
            .env("AGENTGATE_HOME", self.home.path())
            .env_remove("AGENTGATE_LOG")
            .current_dir(self.dir.path())
            .stdin(Stdio::null());
        cmd
    }

    fn run(&self, session: &str, extra: &[&str]) -> Run {
        run_bounded(self.command(session, extra), Duration::from_secs(120))
    }

    /// A run that holds `session` until the file `release` exists.
    fn holder(&self, session: &str) -> Child {
        std::fs::write(self.file("hold"), "").unwrap();
        let _ = std::fs::remove_file(self.file("release"));
        let before = self.lines("started").len();
        let child = self
            .command(session, &[])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .unwrap();
        let start = Instant::now();
        while self.lines("started").len() == before {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "the holding run's CLI did not start within 60 s"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::fs::remove_file(self.file("hold")).unwrap();
        child
    }

    fn turns(&self, session: &str) -> u64 {
        let store = Store::open(self.home.path().join("agentgate.db")).unwrap();
        store
            .get_session(session, "claude")
            .unwrap()
            .map_or(0, |s| s.turns)
    }
}

fn envelope(run: &Run) -> Value {
    run.stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()))
}

#[test]
fn forty_concurrent_runs_of_one_session_share_one_native_session_and_count_every_turn() {
    let setup = Setup::new();
    let runs: Vec<Run> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..RUNS)
            .map(|_| scope.spawn(|| setup.run("same", &[])))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let created = setup.lines("created");
    assert_eq!(created.len(), 1, "native sessions created: {created:?}");
    for run in &runs {
        assert_eq!(run.code, Some(0), "{}", run.all_output());
        assert_eq!(envelope(run)["session_id"], created[0].as_str());
    }
    assert_eq!(setup.lines("started").len(), RUNS);
    assert_eq!(setup.turns("same"), RUNS as u64);
}

#[test]
fn a_busy_session_is_refused_with_fail_and_waited_for_at_most_the_timeout() {
    let setup = Setup::new();
    let mut holder = setup.holder("busy");

    let refused = setup.run("busy", &["--session-busy", "fail"]);
    assert_eq!(refused.code, Some(75), "{}", refused.all_output());
    let env = envelope(&refused);
    assert_eq!(env["error_type"], "session_busy", "{env}");
    let message = env["error"].as_str().unwrap();
    assert!(
        message.contains("session `busy` is in use by another run"),
        "{message}"
    );
    assert_eq!(env["attempts"], serde_json::json!([]));

    // Waiting is bounded by the run's timeout.
    let waited = setup.run("busy", &["--timeout", "1s"]);
    assert_eq!(waited.code, Some(75), "{}", waited.all_output());
    let env = envelope(&waited);
    assert_eq!(env["error_type"], "session_busy", "{env}");
    assert!(
        env["error"].as_str().unwrap().contains("whole timeout"),
        "{env}"
    );
    // Neither started the CLI.
    assert_eq!(setup.lines("started").len(), 1);

    std::fs::write(setup.file("release"), "").unwrap();
    assert!(holder.wait().unwrap().success());
    let after = setup.run("busy", &["--session-busy", "fail"]);
    assert_eq!(after.code, Some(0), "{}", after.all_output());
    assert_eq!(setup.turns("busy"), 2);
}

#[test]
fn sigint_ends_a_run_waiting_for_its_session_as_cancelled() {
    let setup = Setup::new();
    let mut holder = setup.holder("wait");
    let waiter = setup
        .command("wait", &[])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    // The waiter has recorded its run (listed as running) before it waits.
    let start = Instant::now();
    loop {
        let listed = run_bounded(
            {
                let mut cmd = Command::new(AGENTGATE);
                cmd.args(["runs", "--json"])
                    .env("AGENTGATE_HOME", setup.home.path());
                cmd
            },
            Duration::from_secs(30),
        );
        if listed.stdout.lines().count() >= 2 {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the waiting run was not recorded within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = Command::new("kill")
        .args(["-INT", &waiter.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let out = waiter.wait_with_output().unwrap();
    let run = Run {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        elapsed: Duration::ZERO,
        timed_out: false,
    };
    assert_eq!(run.code, Some(130), "{}", run.all_output());
    let env = envelope(&run);
    assert_eq!(env["error_type"], "cancelled", "{env}");
    assert!(
        env["error"]
            .as_str()
            .unwrap()
            .contains("waiting for session `wait`"),
        "{env}"
    );
    std::fs::write(setup.file("release"), "").unwrap();
    assert!(holder.wait().unwrap().success());
    assert_eq!(setup.lines("started").len(), 1);
}

#[test]
fn a_sigkilled_holder_leaves_the_session_free() {
    let setup = Setup::new();
    let mut holder = setup.holder("crash");
    let refused = setup.run("crash", &["--session-busy", "fail"]);
    assert_eq!(refused.code, Some(75), "{}", refused.all_output());
    holder.kill().unwrap();
    holder.wait().unwrap();

    let next = setup.run("crash", &["--session-busy", "fail"]);
    assert_eq!(next.code, Some(0), "{}", next.all_output());
    // The held CLI is the keeper's to end; the file releases it in any case.
    std::fs::write(setup.file("release"), "").unwrap();
}

#[test]
fn session_busy_needs_a_session() {
    let run = run_bounded(
        {
            let mut cmd = Command::new(AGENTGATE);
            cmd.args([
                "run",
                "-p",
                "claude",
                "--session-busy",
                "fail",
                "--dry-run",
                "hi",
            ]);
            cmd
        },
        Duration::from_secs(30),
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr
            .contains("the following required arguments were not provided:\n  --session"),
        "{}",
        run.stderr
    );
}

/// Real Claude Code against fake-llm: concurrent runs of one session
/// resume one native session, and the last request carries every turn.
#[test]
fn concurrent_real_claude_runs_of_one_session_keep_one_session_and_every_turn() {
    const REAL_RUNS: usize = 6;
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"turn-\"}\n    repeat: true\n    text: \"Noted.\"\n",
    );
    let gate = Gate::new(Cli::Claude, &server);
    let runs: Vec<(Run, Value)> = std::thread::scope(|scope| {
        let gate = &gate;
        let handles: Vec<_> = (0..REAL_RUNS)
            .map(|i| scope.spawn(move || gate.run(&["--session", "shared"], &format!("turn-{i}"))))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let first = runs[0].1["session_id"].clone();
    assert!(first.is_string(), "{}", runs[0].1);
    for (run, env) in &runs {
        assert_eq!(run.code, Some(0), "{}", run.all_output());
        assert_eq!(env["session_id"], first, "{env}");
    }
    // The last model request holds all turns: none was lost to a second
    // session.
    let longest = server
        .turn_requests()
        .iter()
        .map(|r| {
            (0..REAL_RUNS)
                .filter(|i| r.to_string().contains(&format!("turn-{i}")))
                .count()
        })
        .max()
        .unwrap();
    assert_eq!(longest, REAL_RUNS);
    let store = Store::open(gate.store_home().join("agentgate.db")).unwrap();
    let session = store.get_session("shared", "claude").unwrap().unwrap();
    assert_eq!(session.turns, REAL_RUNS as u64);
}
