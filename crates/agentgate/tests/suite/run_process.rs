//! `agentgate run`'s process handling, end to end: no process of a run
//! outlives it however it ends (agentgate SIGKILLed, `--timeout`, SIGINT,
//! SIGTERM, a clean exit with a lingering grandchild, a result followed by a
//! hang), not even a daemon that left the group and session (`setsid`),
//! huge and non-UTF-8 output lines are kept verbatim, `--max-provider-retries`
//! stops a retrying real CLI early, and `agentgate parse` decodes captures.
//!
//! The process tests use a fake Claude Code: a bash script written at test
//! time, passed with `--binary`, that starts grandchildren and lists every
//! pid of the run (the keeper's too) in a file.

use std::io::{BufRead, BufReader};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use agentgate_protocol::{Event, EventBody, MAX_LINE_BYTES, RawStream};
use serde_json::Value;

use super::support::{Client, FakeServer, Run, run_bounded, workspace_root};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// How long every process of a run may take to be gone once the run ended
/// (the keeper's orphan path waits 2 s between SIGTERM and SIGKILL).
const GONE_WITHIN: Duration = Duration::from_secs(15);

/// The roles the fake CLI's `tree` writes to its pid file.
const TREE_ROLES: [&str; 6] = [
    "keeper",
    "cli",
    "sleeper",
    "stubborn",
    "stubborn-child",
    "escapee",
];

/// Shell functions every fake CLI script starts with.
///
/// `tree` lists the keeper (the CLI's parent) and the CLI, then starts two
/// grandchildren that keep the CLI's stdout and stderr open: a plain
/// `sleep`, and a bash that ignores SIGTERM (and, being a background job of
/// a script, SIGINT) with a `sleep` child of its own that inherits both;
/// then a daemon, double forked out of the group and session (`setsid`),
/// deaf to SIGTERM and SIGINT, with nothing of the CLI's open.
/// It returns once all six pids are listed, then writes `ready`.
const PRELUDE: &str = r#"
tree() {
  echo "keeper $PPID" >> "$pids"
  echo "cli $$" >> "$pids"
  sleep 1000 &
  echo "sleeper $!" >> "$pids"
  bash -c 'trap "" TERM; sleep 1000 & echo "stubborn-child $!" >> "$1"; echo "stubborn $$" >> "$1"; wait' _ "$pids" &
  ( setsid bash -c 'trap "" TERM INT; echo "escapee $$" >> "$1"; exec sleep 1000' _ "$pids" </dev/null >/dev/null 2>&1 & )
  for _ in $(seq 1 600); do
    [ "$(grep -c '^stubborn' "$pids")" -ge 2 ] && grep -q '^escapee' "$pids" && break
    sleep 0.05
  done
  echo ready >> "$pids"
}
init() {
  echo '{"type":"system","subtype":"init","session_id":"sess-fake","model":"fake-model"}'
}
result() {
  echo '{"type":"result","subtype":"success","is_error":false,"result":"'"$1"'","session_id":"sess-fake","num_turns":1}'
}
"#;

/// A fake `claude` script in a temporary folder, with its own run store.
struct FakeCli {
    dir: tempfile::TempDir,
    store: tempfile::TempDir,
    script: PathBuf,
    pids: PathBuf,
}

impl FakeCli {
    /// `body` runs after [`PRELUDE`], with `$pids` naming the pid file.
    fn new(body: &str) -> FakeCli {
        let dir = tempfile::tempdir().unwrap();
        let store = tempfile::tempdir().unwrap();
        let script = dir.path().join("claude");
        let pids = dir.path().join("pids");
        let text = format!(
            "#!/bin/bash\npids={}\n{PRELUDE}\n{body}\n",
            shell_quote(&pids.display().to_string())
        );
        std::fs::write(&script, text).unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        FakeCli {
            dir,
            store,
            script,
            pids,
        }
    }

    /// `agentgate run --provider claude --binary <script>`, own store.
    fn command(&self, extra: &[&str]) -> Command {
        self.command_of(Path::new(AGENTGATE), extra)
    }

    /// [`FakeCli::command`] with another `agentgate` executable.
    fn command_of(&self, agentgate: &Path, extra: &[&str]) -> Command {
        let mut cmd = Command::new(agentgate);
        cmd.args(["run", "--provider", "claude", "--compact", "--binary"])
            .arg(&self.script)
            .args(extra)
            .arg("do the thing")
            .env("AGENTGATE_HOME", self.store.path())
            .env_remove("AGENTGATE_LOG")
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Away from the test harness's group: a signal meant for
            // agentgate reaches only agentgate.
            .process_group(0);
        cmd
    }

    /// The pid file: (role, pid) pairs, and whether `tree` finished.
    fn listed(&self) -> (Vec<(String, u32)>, bool) {
        let text = std::fs::read_to_string(&self.pids).unwrap_or_default();
        let mut pids = Vec::new();
        let mut ready = false;
        // Never panics: it also runs in `Drop`. A line that does not parse
        // leaves its role missing, which `assert_tree` reports.
        for line in text.lines() {
            if line == "ready" {
                ready = true;
            } else if let Some((role, Ok(pid))) = line
                .split_once(' ')
                .map(|(role, pid)| (role, pid.trim().parse::<u32>()))
            {
                pids.push((role.to_owned(), pid));
            }
        }
        (pids, ready)
    }

    /// Waits (bounded) until `tree` has listed every pid.
    fn wait_ready(&self, agentgate: &Running) -> Vec<(String, u32)> {
        let start = Instant::now();
        loop {
            let (pids, ready) = self.listed();
            if ready {
                assert_tree(&pids);
                // Proves the liveness check sees them before the run ends.
                let dead: Vec<_> = pids.iter().filter(|(_, p)| !is_alive(*p)).collect();
                assert!(dead.is_empty(), "not running at the start: {dead:?}");
                return pids;
            }
            assert!(
                start.elapsed() < Duration::from_secs(30),
                "the fake CLI did not list its processes within 30 s: {pids:?}"
            );
            assert!(
                is_alive(agentgate.pid),
                "agentgate ended before the fake CLI was ready"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The pids of a finished run, which must have completed its tree.
    fn tree_of_finished_run(&self, out: &Output) -> Vec<(String, u32)> {
        let (pids, ready) = self.listed();
        assert!(
            ready,
            "the fake CLI never finished listing its processes: {pids:?}\n{}",
            describe(out)
        );
        assert_tree(&pids);
        pids
    }
}

impl Drop for FakeCli {
    /// A failed test must not leave sleepers behind.
    fn drop(&mut self) {
        for (_, pid) in self.listed().0 {
            if is_alive(pid) {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .stderr(Stdio::null())
                    .status();
            }
        }
    }
}

fn assert_tree(pids: &[(String, u32)]) {
    for role in TREE_ROLES {
        assert!(
            pids.iter().any(|(r, _)| r == role),
            "no `{role}` in the pid file: {pids:?}"
        );
    }
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A spawned agentgate whose output is collected on a thread.
struct Running {
    pid: u32,
    rx: mpsc::Receiver<std::io::Result<Output>>,
}

impl Running {
    fn spawn(mut cmd: Command) -> Running {
        let child = cmd.spawn().unwrap();
        let pid = child.id();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let _ = tx.send(child.wait_with_output());
        });
        Running { pid, rx }
    }

    fn signal(&self, name: &str) {
        let status = Command::new("kill")
            .args([&format!("-{name}"), &self.pid.to_string()])
            .status()
            .unwrap();
        assert!(status.success(), "kill -{name} {} failed", self.pid);
    }

    /// Waits for agentgate to end; kills it (and fails) past `limit`.
    fn finish(self, limit: Duration) -> Output {
        match self.rx.recv_timeout(limit) {
            Ok(out) => out.unwrap(),
            Err(_) => {
                let _ = Command::new("kill")
                    .args(["-KILL", &self.pid.to_string()])
                    .status();
                panic!("agentgate did not end within {limit:?}");
            }
        }
    }
}

/// Whether a process exists and is not a zombie.
fn is_alive(pid: u32) -> bool {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return false;
    };
    // The state follows the command name, which is in parentheses and may
    // itself contain any character.
    let state = stat
        .rfind(')')
        .and_then(|i| stat[i + 1..].split_whitespace().next());
    !matches!(state, None | Some("Z" | "X"))
}

/// Polls (bounded) until every listed process is gone.
fn assert_all_gone(pids: &[(String, u32)], what: &str) {
    let start = Instant::now();
    loop {
        let alive: Vec<&(String, u32)> = pids.iter().filter(|(_, p)| is_alive(*p)).collect();
        if alive.is_empty() {
            return;
        }
        assert!(
            start.elapsed() < GONE_WITHIN,
            "{what}: still running {:?} after the run ended",
            alive
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn envelope(out: &Output) -> Value {
    let stdout = String::from_utf8_lossy(&out.stdout);
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("no envelope on stdout:\n{}", describe(out)))
}

fn describe(out: &Output) -> String {
    format!(
        "status {:?}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The fake CLI builds its tree, reports a session, then hangs.
const TREE_THEN_HANG: &str = "tree\ninit\nexec sleep 1000";

#[test]
fn sigkill_of_agentgate_leaves_no_process_of_the_run() {
    let cli = FakeCli::new(TREE_THEN_HANG);
    let running = Running::spawn(cli.command(&[]));
    let pids = cli.wait_ready(&running);
    // The CLI's parent is the keeper, which is what survives agentgate.
    let keeper = pids.iter().find(|(r, _)| r == "keeper").unwrap().1;
    let cmdline = std::fs::read(format!("/proc/{keeper}/cmdline")).unwrap();
    assert!(
        String::from_utf8_lossy(&cmdline).contains("__keeper"),
        "the CLI's parent is not the keeper: {:?}",
        String::from_utf8_lossy(&cmdline)
    );
    // It was started warm, ahead of the CLI (its arguments: the parent pid
    // and `--warm`; the CLI's command came over its stdin).
    let args: Vec<String> = cmdline
        .split(|b| *b == 0)
        .map(|a| String::from_utf8_lossy(a).into_owned())
        .collect();
    assert_eq!(args.get(3).map(String::as_str), Some("--warm"), "{args:?}");
    // ... and it is the keeper-only binary installed next to agentgate, not
    // agentgate itself (which starts much slower).
    let exe = std::fs::read_link(format!("/proc/{keeper}/exe")).unwrap();
    assert_eq!(
        exe.file_name().and_then(|n| n.to_str()),
        Some("agentgate-keeper"),
        "the keeper runs as {}",
        exe.display()
    );
    running.signal("KILL");
    let out = running.finish(Duration::from_secs(10));
    assert_eq!(out.status.signal(), Some(9), "{}", describe(&out));
    assert_all_gone(&pids, "after SIGKILL of agentgate");
}

#[test]
fn timeout_leaves_no_process_of_the_run() {
    let cli = FakeCli::new(TREE_THEN_HANG);
    let out = Running::spawn(cli.command(&["--timeout", "2s"])).finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(124), "{}", describe(&out));
    assert_eq!(env["error_type"], "timeout", "{env:#}");
    assert_eq!(env["exit_code"], 124);
    assert_eq!(
        env["attempts"][0]["survivors"],
        serde_json::json!([]),
        "{env:#}"
    );
    let pids = cli.tree_of_finished_run(&out);
    assert_all_gone(&pids, "after --timeout");
}

#[test]
fn sigint_leaves_no_process_of_the_run() {
    let cli = FakeCli::new(TREE_THEN_HANG);
    let running = Running::spawn(cli.command(&[]));
    let pids = cli.wait_ready(&running);
    running.signal("INT");
    let out = running.finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    assert_eq!(env["error_type"], "cancelled", "{env:#}");
    assert_all_gone(&pids, "after SIGINT to agentgate");
}

#[test]
fn sigterm_leaves_no_process_of_the_run() {
    let cli = FakeCli::new(TREE_THEN_HANG);
    let running = Running::spawn(cli.command(&[]));
    let pids = cli.wait_ready(&running);
    running.signal("TERM");
    let out = running.finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(130), "{}", describe(&out));
    assert_eq!(env["error_type"], "cancelled", "{env:#}");
    assert_all_gone(&pids, "after SIGTERM to agentgate");
}

#[test]
fn a_clean_exit_takes_its_lingering_grandchildren_along() {
    // The grandchildren keep stdout open after the CLI exited.
    let cli = FakeCli::new("tree\ninit\nresult done\nexit 0");
    let out = Running::spawn(cli.command(&[])).finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(env["response"], "done", "{env:#}");
    assert!(env.get("error_type").is_none(), "{env:#}");
    assert_eq!(env["session_id"], "sess-fake");
    let pids = cli.tree_of_finished_run(&out);
    assert_all_gone(&pids, "after a clean exit");
}

#[test]
fn a_cancel_after_the_result_leaves_the_run_succeeded() {
    // The answer is out, then the CLI takes a second to exit (deaf to
    // SIGINT and SIGTERM, as one busy saving its session): the cancel
    // that comes meanwhile changes nothing, whether agentgate read the
    // result before it (no signal is sent) or after (the CLI still exits
    // 0 by itself).
    let cli = FakeCli::new(
        "init\nresult 'answered before the cancel'\ntrap '' INT TERM\ntree\nsleep 1\nexit 0",
    );
    let running = Running::spawn(cli.command(&[]));
    let pids = cli.wait_ready(&running);
    running.signal("INT");
    let out = running.finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(env["response"], "answered before the cancel", "{env:#}");
    assert!(env.get("error_type").is_none(), "{env:#}");
    assert_all_gone(&pids, "after a cancel that came after the result");
}

#[test]
fn a_result_then_a_hang_is_a_success_and_the_process_goes() {
    // Deaf to SIGINT and SIGTERM: only the table's SIGKILL ends it.
    let cli =
        FakeCli::new("tree\ninit\nresult 'answered, then hung'\ntrap '' INT TERM\nexec sleep 1000");
    let out = Running::spawn(cli.command(&[])).finish(Duration::from_secs(60));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(env["response"], "answered, then hung", "{env:#}");
    assert!(env.get("error_type").is_none(), "{env:#}");
    let pids = cli.tree_of_finished_run(&out);
    assert_all_gone(&pids, "after a result then a hang");
}

#[test]
fn without_the_keeper_binary_beside_it_agentgate_is_its_own_keeper() {
    // agentgate alone in a folder (a hard link: /proc/self/exe then names
    // the link, as it would a copy), so no `agentgate-keeper` is beside it.
    let alone = tempfile::tempdir_in(Path::new(AGENTGATE).parent().unwrap()).unwrap();
    let agentgate = alone.path().join("agentgate");
    std::fs::hard_link(AGENTGATE, &agentgate).unwrap();
    let cli = FakeCli::new(
        "readlink /proc/$PPID/exe > \"$pids.keeper\"\ntr '\\0' ' ' < /proc/$PPID/cmdline >> \"$pids.keeper\"\ninit\nresult done",
    );
    let out = Running::spawn(cli.command_of(&agentgate, &[])).finish(Duration::from_secs(60));
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    let keeper = std::fs::read_to_string(cli.pids.with_extension("keeper")).unwrap();
    let mut lines = keeper.lines();
    assert_eq!(lines.next(), Some(agentgate.to_str().unwrap()), "{keeper}");
    assert!(
        lines.next().is_some_and(|l| l.contains(" __keeper ")),
        "{keeper}"
    );
}

const BIG_LINE: usize = 64 * 1024 * 1024;
const BAD_BYTES: &[u8] = b"\xff\xfe bad";

#[test]
fn a_line_over_the_limit_is_cut_visibly_and_invalid_utf8_kept_verbatim() {
    let cli = FakeCli::new(
        r#"init
head -c 67108864 /dev/zero | tr '\0' 'a'
echo
printf '\xff\xfe bad\n'
result 'survived the flood'
exit 0"#,
    );
    let out = Running::spawn(cli.command(&[])).finish(Duration::from_secs(300));
    let env = envelope(&out);
    assert_eq!(out.status.code(), Some(0), "{}", describe(&out));
    assert_eq!(env["response"], "survived the flood", "{env:#}");
    let run_id = env["run_id"].as_str().unwrap();

    // `runs show` names the run's events.jsonl.
    let mut show = Command::new(AGENTGATE);
    show.args(["runs", "show", run_id])
        .env("AGENTGATE_HOME", cli.store.path());
    let shown = run_bounded(show, Duration::from_secs(30));
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    let record: Value = serde_json::from_str(&shown.stdout).unwrap();
    let events_path = PathBuf::from(record["events_path"].as_str().unwrap());

    // One line at a time, none over the limit; the big line is a `raw`
    // event that says it was cut and from what.
    let mut reader = BufReader::new(std::fs::File::open(&events_path).unwrap());
    let mut line = String::new();
    let (mut big, mut bad, mut last) = (0, 0, None);
    while reader.read_line(&mut line).unwrap() > 0 {
        assert!(line.len() <= MAX_LINE_BYTES + 1, "a line of {}", line.len());
        let event: Event = serde_json::from_str(&line).unwrap();
        if let EventBody::Raw(raw) = &event.body {
            assert_eq!(raw.stream, RawStream::Stdout, "raw event on stderr");
            if raw.truncated {
                assert_eq!(raw.original_bytes, Some(BIG_LINE as u64));
                assert!(raw.line.len() > MAX_LINE_BYTES / 2, "{}", raw.line.len());
                assert!(raw.line.bytes().all(|b| b == b'a'), "the big line changed");
                assert!(raw.bytes_base64.is_none());
                big += 1;
            } else if raw.bytes_base64.is_some() {
                assert_eq!(raw.bytes().unwrap(), BAD_BYTES, "raw bytes of the bad line");
                assert_eq!(raw.line, "\u{fffd}\u{fffd} bad");
                bad += 1;
            }
        }
        last = Some(event.body);
        line.clear();
    }
    assert_eq!(big, 1, "raw events holding the cut 64 MiB line");
    assert_eq!(bad, 1, "raw events holding the invalid UTF-8 line");
    assert!(
        matches!(last, Some(EventBody::Result(_))),
        "the events do not end with the result"
    );
}

/// `agentgate run` of a real CLI against `server`, with its own store; the
/// same command as `run_e2e`'s, plus `extra`. Returns the stored events too.
fn real_run(client: &Client, extra: &[&str], limit: Duration) -> (Run, Value, Vec<Value>) {
    let cli = client.setup.cli;
    let store = tempfile::tempdir().unwrap();
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", cli.binary(), "--yolo", "--compact"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model])
        .args(extra)
        .arg("trigger the retries")
        .env("AGENTGATE_HOME", store.path());
    let run = run_bounded(cmd, limit);
    let env: Value = run
        .stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
        .unwrap_or_else(|| panic!("{cli}: no envelope:\n{}", run.all_output()));
    let mut show = Command::new(AGENTGATE);
    show.args(["runs", "show", env["run_id"].as_str().unwrap(), "--events"])
        .env("AGENTGATE_HOME", store.path());
    let shown = run_bounded(show, Duration::from_secs(30));
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    let events = shown
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (run, env, events)
}

/// The `status` retry events of a run.
fn retries(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "status" && e["kind"] == "retry")
        .collect()
}

/// A CLI retrying for minutes is stopped after its third retry notice.
fn assert_stopped_early(cli: Cli, run: &Run, env: &Value, events: &[Value], kind: &str) {
    let notices = retries(events);
    assert!(
        notices.len() >= 3,
        "{cli}: only {} retry notices: {notices:#?}\n{}",
        notices.len(),
        run.stderr
    );
    assert!(!run.timed_out, "{cli}: agentgate never stopped it");
    assert!(
        run.elapsed < Duration::from_secs(90),
        "{cli}: stopped only after {:?}: {env:#}",
        run.elapsed
    );
    assert_eq!(env["error_type"], kind, "{cli}: {env:#}\n{}", run.stderr);
    assert_eq!(env["recoverable"], true, "{cli}: {env:#}");
    assert_eq!(run.code, Some(75), "{cli}: {env:#}");
    assert_eq!(env["exit_code"], 75);
    let error = env["error"].as_str().unwrap();
    assert!(
        error.contains("after 3 retries") && error.contains("--max-provider-retries 2"),
        "{cli}: the error does not say it was stopped for retries: {error}"
    );
}

#[test]
fn claude_retrying_a_rate_limit_is_stopped_after_the_allowed_retries() {
    let server = FakeServer::start("turns:\n  - repeat: true\n    error: {kind: rate_limit}\n");
    let mut client = Client::new(Cli::Claude, &server);
    // Claude on its own would retry ten times, for about three minutes.
    for (k, v) in &mut client.setup.env {
        if k == "CLAUDE_CODE_MAX_RETRIES" {
            *v = "10".into();
        }
    }
    let (run, env, events) = real_run(
        &client,
        &[
            "--max-provider-retries",
            "2",
            // Overrides the CLAUDE_CODE_MAX_RETRIES=2 the flag sets.
            "--env",
            "CLAUDE_CODE_MAX_RETRIES=10",
        ],
        Duration::from_secs(240),
    );
    assert_stopped_early(Cli::Claude, &run, &env, &events, "rate_limit");
    // Claude was told it may retry ten times: the stop was agentgate's.
    for notice in retries(&events) {
        assert_eq!(notice["max_retries"], 10, "{notice:#}");
    }
    assert!(
        run.elapsed < Duration::from_secs(60),
        "claude: stopped only after {:?}",
        run.elapsed
    );
    let requests = server.turn_requests().len();
    assert!(
        (3..=5).contains(&requests),
        "claude: {requests} model requests (three failures, then the stop)"
    );
}

#[test]
fn gemini_retrying_an_overload_is_stopped_after_the_allowed_retries() {
    let server = FakeServer::start("turns:\n  - repeat: true\n    error: {kind: overloaded}\n");
    let client = Client::new(Cli::Gemini, &server);
    // Gemini on its own would try ten times, for minutes.
    let settings_path = client.setup.home.join(".gemini/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_path).unwrap()).unwrap();
    settings["general"]["maxAttempts"] = 10.into();
    std::fs::write(&settings_path, settings.to_string()).unwrap();
    let (run, env, events) = real_run(
        &client,
        &["--max-provider-retries", "2"],
        Duration::from_secs(400),
    );
    assert_stopped_early(Cli::Gemini, &run, &env, &events, "overloaded");
}

/// `--max-provider-retries` bounds the retries of ONE failed model request
/// (the flag's help; agentgate hands the same N to Claude as
/// CLAUDE_CODE_MAX_RETRIES, which is per request). A run whose requests each
/// got through within N retries is not stopped, however many retries it
/// made in total: here one retry of the first request, two of the second.
#[test]
fn max_provider_retries_bounds_each_request_not_the_whole_run() {
    let server = FakeServer::start(
        r#"turns:
  - match: {tool_result: false}
    error: {kind: overloaded, retry_after: 0}
  - match: {tool_result: false}
    text: "Running it."
    tool_call: {name: shell, command: "echo one > one.txt"}
  - match: {tool_result: true}
    times: 2
    error: {kind: overloaded, retry_after: 0}
  - match: {tool_result: true}
    text: "Both requests got through."
"#,
    );
    let client = Client::new(Cli::Claude, &server);
    let (run, env, events) = real_run(
        &client,
        &["--max-provider-retries", "2"],
        Duration::from_secs(180),
    );
    // The CLI's side: three retry notices, no request retried more than twice.
    let notices = retries(&events);
    let attempts: Vec<&Value> = notices.iter().map(|n| &n["retry_attempt"]).collect();
    assert_eq!(
        attempts,
        [&Value::from(1), &Value::from(1), &Value::from(2)],
        "the script should cause retries 1, then 1 and 2: {notices:#?}"
    );
    assert_eq!(
        run.code,
        Some(0),
        "a run whose every request got through within --max-provider-retries 2 was stopped: {env:#}"
    );
    assert_eq!(env["response"], "Both requests got through.", "{env:#}");
}

/// A capture shipped with the decoder tests (the same bytes as in the
/// shared captures).
fn fixture(path: &str) -> PathBuf {
    workspace_root()
        .join("crates/agentgate-providers/tests/fixtures")
        .join(path)
}

fn parse(args: &[&str], capture: &Path, events: bool) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(["parse"]).args(args).arg(capture);
    if events {
        cmd.arg("--events");
    }
    let run = run_bounded(cmd, Duration::from_secs(30));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    run
}

/// The envelope, and the same envelope as the last of the `--events` lines.
fn parse_both(provider: &str, args: &[&str], capture: &Path) -> Value {
    let mut all = vec!["--provider", provider];
    all.extend_from_slice(args);
    let env: Value = serde_json::from_str(&parse(&all, capture, false).stdout).unwrap();
    let events: Vec<Value> = parse(&all, capture, true)
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result", "{provider}: {events:#?}");
    assert_eq!(
        last["envelope"], env,
        "{provider}: the result event differs"
    );
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, (0..events.len() as u64).collect::<Vec<_>>());
    env
}

#[test]
fn parse_decodes_a_claude_tool_capture() {
    let env = parse_both(
        "claude",
        &[],
        &fixture("decode/claude/tool_stream_json.stdout"),
    );
    assert_eq!(env["response"], "done", "{env:#}");
    assert!(env.get("error_type").is_none(), "{env:#}");
    assert_eq!(env["metadata"]["tool_activity"]["call_count"], 1);
    assert_eq!(
        env["metadata"]["tool_activity"]["tool_names"],
        serde_json::json!(["Bash"])
    );
}

#[test]
fn parse_classifies_a_codex_rate_limit() {
    let env = parse_both(
        "codex",
        &["--exit-code", "1"],
        &fixture("classify/codex/err_429_json.stdout"),
    );
    assert_eq!(env["error_type"], "rate_limit", "{env:#}");
    assert_eq!(env["recoverable"], true);
    assert_eq!(env["exit_code"], 75);
}

#[test]
fn parse_classifies_a_gemini_auth_failure_from_stderr() {
    let stderr = fixture("classify/gemini/err_401_json.stderr");
    let stderr = stderr.to_str().unwrap();
    let env = parse_both(
        "gemini",
        &["--stderr", stderr, "--exit-code", "145"],
        &fixture("classify/gemini/err_401_json.stdout"),
    );
    assert_eq!(env["error_type"], "auth", "{env:#}");
    assert_eq!(env["recoverable"], false);
    assert_eq!(env["exit_code"], 1);
    assert!(
        env["error"].as_str().unwrap().contains("API key not valid"),
        "{env:#}"
    );
}
