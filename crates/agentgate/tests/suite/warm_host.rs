//! `agentgate run --warm --session NAME` across separate invocations, with
//! the REAL Claude Code, Codex, Gemini CLI, Qwen Code and opencode against
//! `agentgate fake-llm`: the first
//! run starts the session host, the second run's turn goes to the same
//! living process, `kill -9` of the host leaves no CLI behind, the next run
//! starts a new host whose process resumes the session, and a host with
//! nothing left to hold exits by itself.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::serve_queue_support::process_alive;
use super::support::{Client, FakeServer, run_bounded};
use super::warm_real::{THREE_TURNS, carries_the_earlier_turns};

/// One CLI, one fake-llm, one data folder (the host's).
struct HostBench {
    cli: Cli,
    server: FakeServer,
    client: Client,
    home: tempfile::TempDir,
}

impl HostBench {
    fn new(cli: Cli) -> HostBench {
        HostBench::with_script(cli, THREE_TURNS)
    }

    fn with_script(cli: Cli, script: &str) -> HostBench {
        let server = FakeServer::start(script);
        let client = Client::new(cli, &server);
        // A short folder: the host's socket lives in it.
        let home = tempfile::Builder::new().prefix("agh").tempdir().unwrap();
        HostBench {
            cli,
            server,
            client,
            home,
        }
    }

    /// `agentgate run --warm --session chat PROMPT`: its envelope and its
    /// whole output.
    fn turn(&self, prompt: &str, idle: &str) -> (Value, String) {
        let run = run_bounded(self.command(prompt, idle), Duration::from_secs(180));
        let all = format!("{}: {}", self.cli, run.all_output());
        assert_eq!(run.code, Some(0), "{all}");
        let env: Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("not an envelope ({e}): {all}"));
        (env, all)
    }

    /// The command of one turn.
    fn command(&self, prompt: &str, idle: &str) -> Command {
        let setup = &self.client.setup;
        let model = match self.cli {
            Cli::Codex => "agentgate-fake-model".to_owned(),
            Cli::Opencode => format!("fake/{}", setup.model),
            _ => setup.model.clone(),
        };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["run", "--warm", "--session", "chat", "--warm-idle", idle])
            .args(["--provider", self.cli.binary(), "--model", &model])
            .args(["--timeout", "120s", "--yolo"])
            .arg("--binary")
            .arg(&self.client.program)
            .arg(prompt)
            .env_clear()
            .envs(setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("AGENTGATE_HOME", self.home.path())
            .current_dir(&setup.workdir)
            .stdin(Stdio::null());
        cmd
    }

    /// The status of every run in the store (`agentgate runs --json`).
    fn run_statuses(&self) -> Vec<String> {
        let out = Command::new(env!("CARGO_BIN_EXE_agentgate"))
            .args(["runs", "--json"])
            .env("AGENTGATE_HOME", self.home.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .map(|r| r["status"].as_str().unwrap_or("").to_owned())
            .collect()
    }

    fn host_files(&self, ext: &str) -> Vec<PathBuf> {
        let dir = self.home.path().join("warm");
        std::fs::read_dir(&dir)
            .map(|d| {
                d.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == ext))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether the CLI's session history (under its home) holds the reply
    /// `text`: for Qwen Code, on an assistant record of its chat file (its
    /// telemetry record of the model's response, written first, quotes the
    /// text too); for the others, anywhere.
    fn cli_wrote_reply(&self, text: &str) -> bool {
        let needles: Vec<&[u8]> = match self.cli {
            Cli::Qwen => vec![br#""type":"assistant""#, text.as_bytes()],
            _ => vec![text.as_bytes()],
        };
        let home = self.client.setup.env.iter().find(|(k, _)| k == "HOME");
        home.is_some_and(|(_, home)| tree_has_line(Path::new(home), &needles, 6))
    }

    /// The running host's pid, from its pid file.
    fn host_pid(&self) -> Option<u32> {
        let files = self.host_files("pid");
        let text = std::fs::read_to_string(files.first()?).ok()?;
        text.trim().parse().ok()
    }
}

impl Drop for HostBench {
    fn drop(&mut self) {
        if let Some(pid) = self.host_pid() {
            signal("-TERM", &pid.to_string());
        }
    }
}

/// Whether a regular file under `dir` (at most `depth` folders down) has
/// a line holding every one of `needles`.
fn tree_has_line(dir: &Path, needles: &[&[u8]], depth: usize) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    let holds = |line: &[u8], needle: &[u8]| line.windows(needle.len()).any(|w| w == needle);
    entries.filter_map(Result::ok).any(|e| {
        let path = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => depth > 0 && tree_has_line(&path, needles, depth - 1),
            Ok(t) if t.is_file() => std::fs::read(&path).is_ok_and(|bytes| {
                bytes
                    .split(|b| *b == b'\n')
                    .any(|line| needles.iter().all(|n| holds(line, n)))
            }),
            _ => false,
        }
    })
}

fn signal(sig: &str, target: &str) -> bool {
    Command::new("kill")
        .args([sig, "--", target])
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn group_alive(pgid: u64) -> bool {
    signal("-0", &format!("-{pgid}"))
}

fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

fn warm(env: &Value) -> (&str, u64, u64) {
    let w = &env["warm"];
    (
        w["process"].as_str().unwrap_or(""),
        w["pgid"].as_u64().unwrap_or(0),
        w["turn"].as_u64().unwrap_or(0),
    )
}

fn across_invocations(cli: Cli) {
    let b = HostBench::new(cli);
    let (first, all) = b.turn("turn ONE", "60s");
    assert_eq!(first["response"], "reply-one", "{all}");
    let (process, pgid, turn) = warm(&first);
    assert_eq!((process, turn), ("started", 1), "{all}");
    let host = b
        .host_pid()
        .unwrap_or_else(|| panic!("no host pid file: {all}"));
    assert!(process_alive(host), "{all}");
    assert!(
        group_alive(pgid),
        "{cli}: the CLI lives after the run ended: {all}"
    );

    // A second invocation: the same process answers, in the same session.
    let (second, all) = b.turn("turn TWO", "60s");
    assert_eq!(second["response"], "reply-two", "{all}");
    assert_eq!(warm(&second), ("reused", pgid, 2), "{all}");
    assert_eq!(second["session_id"], first["session_id"], "{all}");
    assert_eq!(
        b.host_pid(),
        Some(host),
        "{cli}: one host served both: {all}"
    );
    let sock: Vec<PathBuf> = b.host_files("sock");
    assert_eq!(sock.len(), 1, "{all}");
    assert_private(&sock[0], 0o600);
    assert_private(&b.home.path().join("warm"), 0o700);

    // A CLI writes its session history after it reports the turn (Qwen
    // Code's write comes when its response stream is next read): a host
    // killed in that moment loses the turn from the history, as
    // docs/guide/sessions.md says. The crash comes once the CLI has written the second reply.
    assert!(
        wait_until(Duration::from_secs(30), || b.cli_wrote_reply("reply-two")),
        "{cli}: the CLI never wrote the second reply to its session: {all}"
    );
    // kill -9 of the host: its keeper ends the CLI's whole group.
    assert!(signal("-KILL", &host.to_string()));
    assert!(
        wait_until(Duration::from_secs(15), || !group_alive(pgid)),
        "{cli}: the warm CLI (group {pgid}) survived kill -9 of its host"
    );

    // The next invocation starts a new host; its process resumes the
    // session: the request carries the earlier turns.
    let (third, all) = b.turn("turn THREE", "1s");
    assert_eq!(third["response"], "reply-three", "{all}");
    let (process, new_pgid, _) = warm(&third);
    assert_eq!(process, "started", "{all}");
    assert_ne!(new_pgid, pgid, "{all}");
    assert_eq!(third["session_id"], first["session_id"], "{all}");
    carries_the_earlier_turns(&b.server, &all);
    let new_host = b.host_pid().unwrap_or_else(|| panic!("no new host: {all}"));
    assert_ne!(new_host, host, "{all}");

    // Idle 1 s, then the host's linger: the CLI and the host end, and the
    // host's socket and pid file are gone.
    assert!(
        wait_until(Duration::from_secs(40), || !process_alive(new_host)),
        "{cli}: the host did not exit with nothing to hold"
    );
    assert!(
        !group_alive(new_pgid),
        "{cli}: the CLI outlived its idle time"
    );
    assert!(b.host_files("sock").is_empty() && b.host_files("pid").is_empty());
}

fn assert_private(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let got = std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    assert_eq!(got, mode, "{}", path.display());
}

#[test]
fn claude_turns_of_separate_runs_share_the_hosts_warm_process() {
    across_invocations(Cli::Claude);
}

#[test]
fn codex_turns_of_separate_runs_share_the_hosts_warm_process() {
    across_invocations(Cli::Codex);
}

/// `agentgate --config agentgate.yaml run --warm ...`: the session host
/// runs in its own folder, yet reads the config the client named by a
/// relative path (discovery hands it the absolute one), so the config's
/// alias resolves there too.
#[test]
fn a_relative_config_reaches_the_session_host() {
    let b = HostBench::new(Cli::Claude);
    let setup = &b.client.setup;
    std::fs::write(
        setup.workdir.join("agentgate.yaml"),
        format!(
            "version: 1\nproviders:\n  claude:\n    models: {{chatty: {}}}\n",
            setup.model
        ),
    )
    .unwrap();
    let cmd = b.command("turn ONE", "60s");
    let args: Vec<std::ffi::OsString> = cmd.get_args().map(ToOwned::to_owned).collect();
    let mut relative = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    relative.args(["--config", "agentgate.yaml"]);
    let mut rest = args.into_iter();
    while let Some(a) = rest.next() {
        if a == "--model" {
            relative.args(["--model", "chatty"]);
            rest.next();
        } else {
            relative.arg(a);
        }
    }
    relative
        .env_clear()
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(&setup.workdir)
        .stdin(Stdio::null());
    let run = run_bounded(relative, Duration::from_secs(180));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let env: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(env["response"], "reply-one", "{env:#}");
    assert_eq!(env["model"], setup.model.as_str(), "{env:#}");
    assert!(
        env["model_resolution"]
            .as_str()
            .is_some_and(|r| r.contains("'chatty'")),
        "{env:#}"
    );
}

#[test]
fn a_warm_run_without_a_session_is_refused_before_any_host_starts() {
    let home = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["run", "--warm", "--provider", "claude", "hello"])
        .env("AGENTGATE_HOME", home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("--session"), "{err}");
    assert!(!home.path().join("warm").exists(), "no host was started");
}

#[test]
fn gemini_turns_of_separate_runs_share_the_hosts_warm_process() {
    // The third turn's new host knows the session's birth only from the
    // store: it waits for a later minute before loading it.
    across_invocations(Cli::Gemini);
}

#[test]
fn qwen_turns_of_separate_runs_share_the_hosts_warm_process() {
    across_invocations(Cli::Qwen);
}

#[test]
fn opencode_turns_of_separate_runs_share_the_hosts_warm_process() {
    across_invocations(Cli::Opencode);
}

/// Every "turn TWO" is answered after 8 s: long enough to cancel the turn
/// while the model holds it (a turn answered instead would be recorded
/// `succeeded`).
const SLOW_SECOND: &str = r#"turns:
  - match: {contains: "turn ONE"}
    text: "reply-one"
  - match: {contains: "turn THREE"}
    text: "reply-three"
  - match: {contains: "turn TWO"}
    repeat: true
    delay_ms: 8000
    text: "reply-two"
"#;

/// Ctrl-C of a client, and a client killed outright, each cancel its turn
/// only: the host interrupts the CLI, which answers the session's next
/// turn from the same process.
#[test]
fn a_clients_ctrl_c_or_death_cancels_its_turn_and_the_process_lives_on() {
    let b = HostBench::with_script(Cli::Claude, SLOW_SECOND);
    let (first, all) = b.turn("turn ONE", "60s");
    let (_, pgid, _) = warm(&first);
    let held = |n: usize| {
        wait_until(Duration::from_secs(60), || {
            b.server
                .turn_requests()
                .iter()
                .filter(|r| r.to_string().contains("turn TWO"))
                .count()
                >= n
        })
    };
    let spawn = || {
        b.command("turn TWO", "60s")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };

    // Ctrl-C: the client ends with 130 and the envelope says cancelled.
    let client = spawn();
    assert!(held(1), "the second turn never reached the model: {all}");
    assert!(signal("-INT", &client.id().to_string()));
    let out = client.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let context = format!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.status.code(), Some(130), "{context}");
    let cancelled: Value =
        serde_json::from_str(&stdout).unwrap_or_else(|e| panic!("{e}: {context}"));
    assert_eq!(cancelled["error_type"], "cancelled", "{context}");
    assert!(
        group_alive(pgid),
        "the process was killed, not interrupted: {context}"
    );

    // A client killed outright: its turn is cancelled as well.
    let mut client = spawn();
    assert!(held(2), "the retried turn never reached the model");
    assert!(signal("-KILL", &client.id().to_string()));
    let _ = client.wait();
    // Its run ends cancelled (not answered 8 s later): two cancelled runs.
    let statuses = || b.run_statuses();
    assert!(
        wait_until(Duration::from_secs(60), || !statuses()
            .iter()
            .any(|s| s == "running")),
        "a run still runs: {:?}",
        statuses()
    );
    let statuses = statuses();
    assert_eq!(
        statuses.iter().filter(|s| *s == "cancelled").count(),
        2,
        "{statuses:?}"
    );

    // The next turn: the same process answers.
    let (third, all) = b.turn("turn THREE", "60s");
    assert_eq!(third["response"], "reply-three", "{all}");
    assert_eq!(warm(&third).0, "reused", "{all}");
    assert_eq!(warm(&third).1, pgid, "{all}");
}
