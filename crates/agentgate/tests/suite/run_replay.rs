//! `agentgate run` with cursor-agent and Antigravity `agy` played by
//! `replay-cli` from transcripts written after their documented formats
//! (`crates/agentgate-fixtures/transcripts/`): neither CLI can be installed
//! here. The same matrix as the real CLIs: text, tool, thinking, system
//! instructions, model, usage, sessions, a vanished session, the error set,
//! timeouts and cancellation.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Run, run_bounded, workspace_root};

const LIMIT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cli {
    Cursor,
    Agy,
}

impl Cli {
    fn provider(self) -> &'static str {
        match self {
            Cli::Cursor => "cursor",
            Cli::Agy => "agy",
        }
    }

    /// The argument that asks the CLI to resume `id`.
    fn resume_args(self, id: &str) -> Vec<String> {
        match self {
            Cli::Cursor => vec!["--resume".into(), id.into()],
            Cli::Agy => vec![format!("--conversation={id}")],
        }
    }

    /// The CLI's session store under its home, wiped to make sessions vanish.
    fn session_dirs(self) -> &'static [&'static str] {
        match self {
            Cli::Cursor => &[".cursor"],
            Cli::Agy => &[
                ".gemini/antigravity-cli/conversations",
                ".gemini/antigravity-cli/brain",
            ],
        }
    }
}

impl std::fmt::Display for Cli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.provider())
    }
}

/// `replay-cli`, built by `cargo test --workspace` next to `agentgate`.
fn replay_cli() -> PathBuf {
    let agentgate = Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let path = agentgate
        .parent()
        .map(|d| d.join("replay-cli"))
        .unwrap_or_default();
    assert!(
        path.is_file(),
        "{} is missing: the replay tests need the fixture program replay-cli; run `cargo test --workspace`, or `cargo build -p agentgate-fixtures --bin replay-cli` first",
        path.display()
    );
    path
}

/// One CLI replayed from its own home folder, working folder and store.
struct Replay {
    cli: Cli,
    program: PathBuf,
    home: tempfile::TempDir,
    work: PathBuf,
    store: tempfile::TempDir,
}

impl Replay {
    fn new(cli: Cli) -> Replay {
        let home = tempfile::tempdir().unwrap();
        let work = home.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        Replay {
            cli,
            program: replay_cli(),
            work: work.canonicalize().unwrap(),
            home,
            store: tempfile::tempdir().unwrap(),
        }
    }

    fn command(&self, extra: &[&str], prompt: &str) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        // The transcripts were recorded for the bare prompts.
        cmd.args(["run", "--provider", self.cli.provider(), "--compact"])
            .arg("--no-unattended-instruction")
            .arg("--binary")
            .arg(&self.program)
            .args(extra)
            .arg(prompt)
            .env_clear()
            .env("HOME", self.home.path())
            .env("PATH", "/usr/bin:/bin")
            .env("AGENTGATE_HOME", self.store.path())
            .env(
                "REPLAY_DIR",
                workspace_root()
                    .join("crates/agentgate-fixtures/transcripts")
                    .join(self.cli.provider()),
            )
            .current_dir(&self.work)
            .stdin(Stdio::null());
        cmd
    }

    /// One run, bounded in time, and its envelope (the last JSON line).
    fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let run = run_bounded(self.command(extra, prompt), LIMIT);
        let envelope = last_json(&run.stdout)
            .map(|v| v.get("envelope").cloned().unwrap_or(v))
            .unwrap_or_else(|| panic!("{}: no envelope:\n{}", self.cli, run.all_output()));
        (run, envelope)
    }

    /// What replay-cli logged of each invocation, in order.
    fn invocations(&self) -> Vec<Value> {
        std::fs::read_to_string(self.home.path().join(".replay/invocations.jsonl"))
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    fn last_argv(&self) -> Vec<String> {
        let inv = self.invocations();
        let last = inv
            .last()
            .unwrap_or_else(|| panic!("{}: replay-cli never ran", self.cli));
        last["argv"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect()
    }
}

fn ok(cli: Cli, run: &Run, env: &Value) {
    assert_eq!(run.code, Some(0), "{cli}: {env:#}\n{}", run.stderr);
    assert!(env.get("error_type").is_none(), "{cli}: {env:#}");
    assert_eq!(env["provider"], cli.provider());
    assert!(
        env["session_id"].is_string(),
        "{cli}: no session id: {env:#}"
    );
    assert_eq!(
        env["attempts"].as_array().unwrap().len(),
        1,
        "{cli}: {env:#}"
    );
}

fn text(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&[], "What is the capital of France?");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Paris is the capital.");
    assert_eq!(env["metadata"]["tool_activity"]["call_count"], 0);
    let argv = r.last_argv();
    match cli {
        Cli::Cursor => {
            let work = r.work.to_string_lossy().into_owned();
            assert_eq!(
                argv[..6],
                [
                    "--print",
                    "--output-format",
                    "stream-json",
                    "--workspace",
                    work.as_str(),
                    "--trust"
                ]
            );
            assert_eq!(argv.last().unwrap(), "What is the capital of France?");
        }
        Cli::Agy => assert_eq!(
            argv,
            [
                "--print=What is the capital of France?",
                "--print-timeout=86400s"
            ]
        ),
    }
}

fn tool(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&["--yolo"], "Please create the marker file.");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Marker written.");
    assert_eq!(
        std::fs::read_to_string(r.work.join("marker.txt")).unwrap(),
        "agentgate\n"
    );
    let tools = &env["metadata"]["tool_activity"];
    assert_eq!(tools["call_count"], 1, "{cli}: {tools:#}");
    assert_eq!(tools["result_classes"], serde_json::json!(["shell"]));
    let name = match cli {
        Cli::Cursor => "shell",
        Cli::Agy => "run_command",
    };
    assert_eq!(tools["tool_names"], serde_json::json!([name]));
    assert_eq!(tools["activity_class"], "tool_active");
    let bypass = match cli {
        Cli::Cursor => "--force",
        Cli::Agy => "--dangerously-skip-permissions",
    };
    assert!(
        r.last_argv().iter().any(|a| a == bypass),
        "{cli}: {:?}",
        r.last_argv()
    );
}

fn thinking(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&[], "Please ponder this.");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Decided.");
    assert_eq!(env["reasoning"], "**Weighing** the options carefully.");
    assert_eq!(env["metadata"]["reasoning_available"], true);
    let source = match cli {
        Cli::Cursor => "raw_output",
        Cli::Agy => "session_log",
    };
    assert_eq!(env["metadata"]["reasoning_source"], source, "{cli}");
}

/// Neither CLI has a system-prompt flag: the instructions come first in the
/// prompt, which is how the replay finds them.
fn system(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&["--system", "Always cite MARKER-7731."], "hello");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Saw the instructions.", "{cli}: {env:#}");
    let argv = r.last_argv();
    let prompt = match cli {
        Cli::Cursor => argv.last().unwrap().clone(),
        Cli::Agy => argv[0].strip_prefix("--print=").unwrap().to_owned(),
    };
    assert_eq!(prompt, "Always cite MARKER-7731.\n\nhello");
}

fn model(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&["--model", "sonnet-4.5"], "What is the capital of France?");
    ok(cli, &run, &env);
    assert_eq!(env["model"], "sonnet-4.5", "{cli}: {env:#}");
    let argv = r.last_argv().join(" ");
    let flag = match cli {
        Cli::Cursor => "--model sonnet-4.5",
        Cli::Agy => "--model=sonnet-4.5",
    };
    assert!(argv.contains(flag), "{cli}: {argv}");
}

fn usage(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&[], "Please count the tokens.");
    ok(cli, &run, &env);
    let t = &env["tokens_used"];
    match cli {
        Cli::Cursor => {
            // Cursor's inputTokens leaves out cache reads (200) and writes
            // (30); agentgate's input_tokens counts them.
            assert_eq!(env["metadata"]["token_usage_available"], true);
            assert_eq!(t["estimated"], false, "{t:#}");
            assert_eq!(t["input_tokens"], 1230, "{t:#}");
            assert_eq!(t["cache_read_input_tokens"], 200, "{t:#}");
            assert_eq!(t["cache_creation_input_tokens"], 30, "{t:#}");
            assert_eq!(t["output_tokens"], 57, "{t:#}");
            assert_eq!(t["total_tokens"], 1287, "{t:#}");
        }
        Cli::Agy => {
            // agy reports nothing: estimates (characters / 4) of the prompt
            // and answer its transcript shows.
            assert_eq!(t["estimated"], true, "{t:#}");
            assert_eq!(env["metadata"]["token_usage_available"], false, "{env:#}");
            assert_eq!(t["input_tokens"], 6, "{t:#}");
            assert_eq!(t["output_tokens"], 2, "{t:#}");
            assert_eq!(t["total_tokens"], 8, "{t:#}");
            // Recent agy versions write token counts in the transcript:
            // those are reported as they are.
            let (run, env) = r.run(&[], "Please tally the tokens.");
            ok(cli, &run, &env);
            let t = &env["tokens_used"];
            assert_eq!(t["estimated"], false, "{t:#}");
            assert_eq!(env["metadata"]["token_usage_available"], true);
            assert_eq!(t["input_tokens"], 1200, "{t:#}");
            assert_eq!(t["cache_read_input_tokens"], 200, "{t:#}");
            assert_eq!(t["output_tokens"], 57, "{t:#}");
            assert_eq!(env["context_tokens"], 1257, "{env:#}");
        }
    }
}

/// Two runs on one `--session`: the second resumes the first; `--resume`
/// takes the native id directly.
fn session(cli: Cli) {
    let r = Replay::new(cli);
    let (run1, env1) = r.run(&["--session", "work"], "the first turn");
    ok(cli, &run1, &env1);
    let id = env1["session_id"].as_str().unwrap().to_owned();
    let (run2, env2) = r.run(&["--session", "work"], "the second turn");
    ok(cli, &run2, &env2);
    assert_eq!(env2["response"], "Two.");
    assert_eq!(
        env2["session_id"],
        id.as_str(),
        "{cli}: the session changed"
    );
    assert_eq!(env2["session_recreated"], false);
    let inv = r.invocations();
    assert_eq!(
        inv[0]["session"],
        id.as_str(),
        "{cli}: the envelope names the CLI's session"
    );
    assert_eq!(inv[1]["resumed"], true, "{cli}: {:#}", inv[1]);
    let argv = r.last_argv();
    for a in cli.resume_args(&id) {
        assert!(argv.contains(&a), "{cli}: {argv:?}");
    }
    let (run3, env3) = r.run(&["--resume", &id], "the second turn again");
    ok(cli, &run3, &env3);
    assert_eq!(env3["session_id"], id.as_str());
    assert_eq!(r.invocations()[2]["resumed"], true);
    if cli == Cli::Cursor {
        // Usage is per invocation, not cumulative over the session.
        assert_eq!(env2["tokens_used"]["input_tokens"], 300, "{env2:#}");
    }
}

/// The CLI forgot the session. cursor-agent fails: the run starts a new one,
/// once, and says so. agy warns and starts a new conversation itself: the
/// run succeeds on it, and the session name follows the new conversation.
fn vanished_session(cli: Cli) {
    let r = Replay::new(cli);
    let (run1, env1) = r.run(&["--session", "gone"], "hello");
    ok(cli, &run1, &env1);
    let old = env1["session_id"].as_str().unwrap().to_owned();
    for dir in cli.session_dirs() {
        std::fs::remove_dir_all(r.home.path().join(dir)).unwrap();
    }
    let (run2, env2) = r.run(&["--session", "gone", "--stream"], "hello again");
    assert_eq!(run2.code, Some(0), "{cli}: {env2:#}\n{}", run2.stderr);
    assert_eq!(env2["response"], "Fresh answer.");
    let new = env2["session_id"].as_str().unwrap().to_owned();
    assert_ne!(new, old, "{cli}");
    let attempts = env2["attempts"].as_array().unwrap();
    match cli {
        Cli::Cursor => {
            assert_eq!(env2["session_recreated"], true, "{env2:#}");
            assert_eq!(attempts.len(), 2, "{attempts:#?}");
            assert_eq!(attempts[0]["error_type"], "invalid_session");
        }
        Cli::Agy => {
            assert_eq!(attempts.len(), 1, "{attempts:#?}");
            let notice = run2.stdout.lines().any(|l| {
                let e: Value = serde_json::from_str(l).unwrap_or_default();
                e["type"] == "status"
                    && e["kind"] == "notice"
                    && e["detail"].as_str().is_some_and(|d| d.contains(&old))
            });
            assert!(
                notice,
                "{cli}: no notice of the lost conversation:\n{}",
                run2.stdout
            );
        }
    }
    // The name now maps to the new session.
    let (run3, env3) = r.run(&["--session", "gone"], "hello");
    ok(cli, &run3, &env3);
    assert_eq!(env3["session_id"], new.as_str());
    assert_eq!(r.invocations().last().unwrap()["resumed"], true);
}

fn error_case(cli: Cli, prompt: &str, kind: &str, recoverable: bool, exit: i32) -> Value {
    let r = Replay::new(cli);
    let (run, env) = r.run(&["--model", "gpt-9"], prompt);
    assert_eq!(
        env["error_type"], kind,
        "{cli} {prompt}: {env:#}\n{}",
        run.stderr
    );
    assert_eq!(env["recoverable"], recoverable, "{cli} {prompt}: {env:#}");
    assert_eq!(run.code, Some(exit), "{cli} {prompt}: {env:#}");
    assert_eq!(env["exit_code"], exit);
    assert!(env["error"].as_str().is_some_and(|e| !e.is_empty()));
    env
}

fn errors(cli: Cli) {
    error_case(cli, "TRIGGER-LOGIN", "credential_unavailable", true, 75);
    error_case(cli, "TRIGGER-AUTH", "auth", false, 1);
    error_case(cli, "TRIGGER-OVERLOAD", "overloaded", true, 75);
    // Rejected, then retried once without a model, which this transcript
    // rejects too.
    let env = error_case(cli, "TRIGGER-MODEL", "invalid_model", true, 75);
    let first = &env["attempts"][0];
    assert!(
        first["error"].as_str().unwrap().contains("gpt-9"),
        "{env:#}"
    );
    assert_eq!(env["attempts"].as_array().unwrap().len(), 2, "{env:#}");
    assert!(env["model"].is_null(), "{env:#}");
    let rate = error_case(cli, "TRIGGER-RATE", "rate_limit", true, 75);
    let quota = error_case(cli, "TRIGGER-QUOTA", "quota", true, 75);
    match cli {
        Cli::Cursor => {
            assert_eq!(rate["retry_after_s"], 42, "{rate:#}");
            assert!(rate["reset_at"].is_string(), "{rate:#}");
        }
        Cli::Agy => {
            // agy exits 0 here: the words on stderr are the only evidence.
            assert_eq!(quota["attempts"][0]["exit_code"], 0, "{quota:#}");
            assert_eq!(
                quota["retry_after_s"],
                141 * 3600 + 28 * 60 + 14,
                "{quota:#}"
            );
            assert!(quota["reset_at"].is_string(), "{quota:#}");
            let clock = error_case(cli, "TRIGGER-RESUME-AT", "quota", true, 75);
            assert!(clock["reset_at"].is_string(), "{clock:#}");
        }
    }
}

/// Whether process `pid` still exists (a zombie counts as gone).
fn alive(pid: u64) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|s| {
            s.rsplit_once(')')
                .map(|(_, rest)| !rest.trim_start().starts_with('Z'))
        })
        .unwrap_or(false)
}

/// Every replay-cli the runs started has exited.
fn assert_all_gone(r: &Replay) {
    let start = Instant::now();
    for inv in r.invocations() {
        let pid = inv["pid"].as_u64().unwrap();
        while alive(pid) {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "{}: replay-cli {pid} survived the run",
                r.cli
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

fn timeout(cli: Cli) {
    let r = Replay::new(cli);
    let (run, env) = r.run(&["--timeout", "2s"], "hang please");
    assert_eq!(run.code, Some(124), "{cli}: {env:#}");
    assert_eq!(env["error_type"], "timeout");
    let (run, env) = r.run(&["--idle-timeout", "2s"], "hang please");
    assert_eq!(run.code, Some(124), "{cli}: {env:#}");
    assert_eq!(env["error_type"], "idle_timeout");
    assert_eq!(r.invocations().len(), 2);
    assert_all_gone(&r);
}

fn sigint(cli: Cli) {
    let r = Replay::new(cli);
    let mut cmd = r.command(&[], "hang please");
    cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    // Wait until the CLI has started, then interrupt agentgate.
    let start = Instant::now();
    while r.invocations().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "{cli}: replay-cli never started"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Command::new("kill")
        .args(["-INT", &pid.to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let env = last_json(&stdout).unwrap_or_else(|| panic!("{cli}: no envelope: {stdout}"));
    assert_eq!(out.status.code(), Some(130), "{cli}: {env:#}");
    assert_eq!(env["error_type"], "cancelled");
    assert_all_gone(&r);
}

macro_rules! replay_tests {
    ($($module:ident => $cli:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test] fn text_turn() { text($cli) }
            #[test] fn tool_turn_reports_the_shell_tool() { tool($cli) }
            #[test] fn thinking_turn_reports_reasoning() { thinking($cli) }
            #[test] fn system_instructions_reach_the_cli() { system($cli) }
            #[test] fn the_model_reaches_the_cli() { model($cli) }
            #[test] fn usage_is_reported_or_estimated() { usage($cli) }
            #[test] fn session_resumes_by_name() { session($cli) }
            #[test] fn vanished_session_is_replaced() { vanished_session($cli) }
            #[test] fn provider_errors_are_typed() { errors($cli) }
            #[test] fn hangs_end_at_the_timeouts() { timeout($cli) }
            #[test] fn sigint_cancels_with_130() { sigint($cli) }
        }
    )*};
}

replay_tests! {
    cursor => Cli::Cursor,
    agy => Cli::Agy,
}
