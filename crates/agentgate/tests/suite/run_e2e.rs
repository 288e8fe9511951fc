//! `agentgate run` with the REAL Claude Code, Codex and Gemini CLI against
//! `agentgate fake-llm`: text, tools, thinking, usage, sessions, the error
//! set, timeouts and cancellation.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// One `agentgate run` of a real CLI, with its own store.
pub struct Gate {
    client: Client,
    store: tempfile::TempDir,
}

impl Gate {
    pub fn new(cli: Cli, server: &FakeServer) -> Gate {
        Gate {
            client: Client::new(cli, server),
            store: tempfile::tempdir().unwrap(),
        }
    }

    pub fn cli(&self) -> Cli {
        self.client.setup.cli
    }

    pub fn command(&self, extra: &[&str], prompt: &str) -> Command {
        let cli = self.cli();
        let mut cmd = self.client.agentgate();
        cmd.args(["run", "--provider", cli.binary(), "--yolo", "--compact"])
            .arg("--binary")
            .arg(&self.client.program);
        // Codex and opencode take their model from the recipe's config.
        if cli != Cli::Codex && cli != Cli::Opencode {
            cmd.args(["--model", &self.client.setup.model]);
        }
        cmd.args(extra)
            .arg(prompt)
            .env("AGENTGATE_HOME", self.store.path());
        cmd
    }

    pub fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let run = run_bounded(self.command(extra, prompt), LIMIT);
        let envelope = last_json(&run.stdout).unwrap_or_else(|| {
            panic!(
                "{}: no envelope on stdout:\n{}",
                self.cli(),
                run.all_output()
            )
        });
        (run, envelope)
    }

    pub fn workdir(&self) -> &Path {
        &self.client.setup.workdir
    }

    /// The run store's folder (`AGENTGATE_HOME`).
    pub fn store_home(&self) -> &Path {
        self.store.path()
    }

    pub fn home(&self) -> &Path {
        &self.client.setup.home
    }
}

pub fn last_json(stdout: &str) -> Option<Value> {
    stdout
        .lines()
        .rev()
        .find_map(|l| serde_json::from_str(l).ok())
}

pub fn ok(cli: Cli, run: &Run, env: &Value) {
    assert_eq!(run.code, Some(0), "{cli}: {env:#}\n{}", run.stderr);
    assert!(env.get("error_type").is_none(), "{cli}: {env:#}");
    assert_eq!(env["provider"], cli.binary());
    assert!(
        env["session_id"].is_string(),
        "{cli}: no session id: {env:#}"
    );
    assert_eq!(env["attempts"].as_array().unwrap().len(), 1);
}

pub fn text(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"capital\"}\n    text: \"Paris is the capital.\"\n",
    );
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&[], "What is the capital of France?");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Paris is the capital.");
    assert_eq!(env["metadata"]["tool_activity"]["call_count"], 0);
}

pub fn tool(cli: Cli) {
    let server = FakeServer::start(
        r#"turns:
  - match: {contains: "marker", tool_result: false}
    text: "Running it."
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - match: {tool_result: true}
    text: "Marker written."
"#,
    );
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&[], "Please create the marker file.");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Marker written.");
    assert_eq!(
        std::fs::read_to_string(gate.workdir().join("marker.txt")).unwrap(),
        "agentgate\n"
    );
    let tools = &env["metadata"]["tool_activity"];
    assert_eq!(tools["call_count"], 1, "{cli}: {tools:#}");
    assert_eq!(
        tools["result_classes"],
        serde_json::json!(["shell"]),
        "{cli}: {tools:#}"
    );
    let names = tools["tool_names"].as_array().unwrap();
    assert_eq!(names.len(), 1, "{cli}: {tools:#}");
    assert!(
        names[0] == cli.shell_tool() || names[0] == "shell",
        "{cli}: tool name {names:?}"
    );
    assert_eq!(tools["activity_class"], "tool_active");
}

/// `--system` reaches the model's system instructions, whatever the CLI
/// calls them.
pub fn system(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {system: \"MARKER-7731\"}\n    text: \"Saw the instructions.\"\n    repeat: true\n",
    );
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&["--system", "Always cite MARKER-7731."], "hello");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Saw the instructions.", "{cli}: {env:#}");
}

pub fn thinking(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"ponder\"}\n    thinking: \"**Weighing** the options carefully.\"\n    text: \"Decided.\"\n",
    );
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&[], "Please ponder this.");
    ok(cli, &run, &env);
    assert_eq!(env["response"], "Decided.");
    assert!(
        env["reasoning"]
            .as_str()
            .unwrap()
            .contains("the options carefully"),
        "{cli}: reasoning {env:#}"
    );
    assert_eq!(env["metadata"]["reasoning_available"], true);
    let source = env["metadata"]["reasoning_source"].as_str().unwrap();
    let want = if cli == Cli::Gemini {
        "session_log"
    } else {
        "raw_output"
    };
    assert_eq!(source, want, "{cli}");
}

pub fn usage(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"count\"}\n    text: \"Counted.\"\n    usage: {input: 1000, output: 50, cache_read: 200, cache_write: 30, reasoning: 7}\n",
    );
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&[], "Please count the tokens.");
    ok(cli, &run, &env);
    let t = &env["tokens_used"];
    assert_eq!(env["metadata"]["token_usage_available"], true);
    // input_tokens counts cached input once: 1000 + 200 + 30 (Gemini and
    // OpenAI have no cache-write figure; it is part of the prompt count).
    assert_eq!(t["input_tokens"], 1230, "{cli}: {t:#}");
    assert_eq!(t["cache_read_input_tokens"], 200, "{cli}: {t:#}");
    assert_eq!(t["output_tokens"], 57, "{cli}: {t:#}");
    assert_eq!(t["total_tokens"], 1287, "{cli}: {t:#}");
    if cli != Cli::Claude {
        // Claude folds thinking into its output count without a breakdown.
        assert_eq!(env["reasoning_tokens"], 7, "{cli}: {env:#}");
    }
}

/// Two runs on one `--session`: the second resumes the first.
pub fn session(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"first\"}\n    text: \"One.\"\n    usage: {input: 100, output: 10}\n  - match: {contains: \"second\"}\n    repeat: true\n    text: \"Two.\"\n    usage: {input: 300, output: 20}\n",
    );
    let gate = Gate::new(cli, &server);
    let (run1, env1) = gate.run(&["--session", "work"], "the first turn");
    ok(cli, &run1, &env1);
    let (run2, env2) = gate.run(&["--session", "work"], "the second turn");
    ok(cli, &run2, &env2);
    assert_eq!(env2["response"], "Two.");
    assert_eq!(
        env1["session_id"], env2["session_id"],
        "{cli}: the session changed"
    );
    assert_eq!(env2["session_recreated"], false);
    // The second request carried the first turn.
    let texts = server.last_turn_texts();
    assert!(
        texts.iter().any(|t| t.contains("the first turn")),
        "{cli}: {texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("One.")), "{cli}: {texts:?}");
    // --resume takes the native id directly.
    let id = env1["session_id"].as_str().unwrap();
    let (run3, env3) = gate.run(&["--resume", id], "the second turn again");
    ok(cli, &run3, &env3);
    assert_eq!(
        env3["session_id"], env1["session_id"],
        "{cli}: --resume changed the session"
    );
    if cli == Cli::Codex {
        // Codex reports thread totals; the second run reports its own turn.
        assert_eq!(env2["tokens_used"]["input_tokens"], 300, "{env2:#}");
        assert_eq!(env2["tokens_used"]["output_tokens"], 20, "{env2:#}");
    }
}

/// `--session X --add-dir D` on every turn, as a caller that always passes
/// its folders does: Codex's first turn takes `--add-dir`; `codex exec
/// resume` has none, so the second turn runs without it (it was refused
/// before) and a `status` notice says what was left out and why.
#[test]
fn codex_resumes_a_session_without_add_dir_and_says_so() {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"first\"}\n    text: \"One.\"\n  - match: {contains: \"second\"}\n    text: \"Two.\"\n",
    );
    let gate = Gate::new(Cli::Codex, &server);
    let extra = tempfile::tempdir().unwrap();
    let dir = extra.path().to_str().unwrap();
    let args = ["--session", "work", "--add-dir", dir, "--stream"];
    let notices = |run: &Run| -> Vec<String> {
        run.stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == "status" && e["kind"] == "notice")
            .map(|e| e["detail"].as_str().unwrap().to_owned())
            .collect()
    };
    // With --stream the last line is the `result` event.
    let (run1, result1) = gate.run(&args, "the first turn");
    assert_eq!(run1.code, Some(0), "{}", run1.all_output());
    assert!(notices(&run1).is_empty(), "{:?}", notices(&run1));
    let (run2, result2) = gate.run(&args, "the second turn");
    assert_eq!(run2.code, Some(0), "{}", run2.all_output());
    let env2 = &result2["envelope"];
    assert_eq!(env2["response"], "Two.", "{env2:#}");
    assert_eq!(env2["session_id"], result1["envelope"]["session_id"]);
    let said = notices(&run2);
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(
        said[0].contains(&format!("--add-dir {dir} left out"))
            && said[0].contains("`codex exec resume` has no --add-dir"),
        "{said:?}"
    );
}

/// The CLI forgot the session: the run starts a new one, once, and says so.
pub fn vanished_session(cli: Cli) {
    let server = FakeServer::start("turns:\n  - text: \"Fresh answer.\"\n    repeat: true\n");
    let gate = Gate::new(cli, &server);
    let (run1, env1) = gate.run(&["--session", "gone"], "hello");
    ok(cli, &run1, &env1);
    // Wipe the CLI's session files.
    for dir in [".claude/projects", ".codex/sessions", ".gemini/tmp"] {
        let _ = std::fs::remove_dir_all(gate.home().join(dir));
    }
    let (run2, env2) = gate.run(&["--session", "gone"], "hello again");
    assert_eq!(run2.code, Some(0), "{cli}: {env2:#}\n{}", run2.stderr);
    assert_eq!(env2["session_recreated"], true, "{cli}: {env2:#}");
    assert_eq!(env2["response"], "Fresh answer.");
    assert_ne!(env1["session_id"], env2["session_id"]);
    let attempts = env2["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{cli}: {attempts:#?}");
    assert_eq!(attempts[0]["error_type"], "invalid_session");
}

pub fn error_case(cli: Cli, script_error: &str, kind: &str, recoverable: bool, exit: i32) {
    let server = FakeServer::start(&format!(
        "turns:\n  - repeat: true\n    error: {{{script_error}, retry_after: 0}}\n"
    ));
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&["--max-provider-retries", "1"], "trigger");
    assert_eq!(
        env["error_type"], kind,
        "{cli} {script_error}: {env:#}\n{}",
        run.stderr
    );
    assert_eq!(
        env["recoverable"], recoverable,
        "{cli} {script_error}: {env:#}"
    );
    assert_eq!(run.code, Some(exit), "{cli} {script_error}: {env:#}");
    assert_eq!(env["exit_code"], exit);
    assert!(env["error"].as_str().is_some_and(|e| !e.is_empty()));
}

pub fn errors(cli: Cli) {
    error_case(cli, "kind: rate_limit", "rate_limit", true, 75);
    error_case(cli, "kind: auth", "auth", false, 1);
    error_case(cli, "kind: overloaded", "overloaded", true, 75);
    error_case(
        cli,
        "kind: invalid_model, status: 400",
        "invalid_model",
        true,
        75,
    );
    error_case(cli, "kind: invalid_model", "invalid_model", true, 75);
    error_case(cli, "kind: insufficient_quota", "quota", true, 75);
}

pub fn timeout(cli: Cli) {
    let server = FakeServer::start("turns:\n  - hang: true\n    repeat: true\n");
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&["--timeout", "4s"], "hang please");
    assert_eq!(run.code, Some(124), "{cli}: {env:#}");
    assert_eq!(env["error_type"], "timeout");
    let (run, env) = gate.run(&["--idle-timeout", "4s"], "hang please");
    assert_eq!(run.code, Some(124), "{cli}: {env:#}");
    assert_eq!(env["error_type"], "idle_timeout");
}

pub fn sigint(cli: Cli) {
    let server = FakeServer::start("turns:\n  - hang: true\n    repeat: true\n");
    let gate = Gate::new(cli, &server);
    let mut cmd = gate.command(&[], "hang please");
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let pid = child.id();
    // Wait until the CLI has reached the model, then interrupt agentgate.
    let start = std::time::Instant::now();
    while server.turn_requests().is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{cli} never reached the model"
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
}

/// The run is in the store: `agentgate runs` lists it and `runs show`
/// prints its events, ending with the result.
pub fn store(cli: Cli) {
    let server = FakeServer::start("turns:\n  - text: \"Stored.\"\n");
    let gate = Gate::new(cli, &server);
    let (run, env) = gate.run(&[], "remember me");
    ok(cli, &run, &env);
    let run_id = env["run_id"].as_str().unwrap();
    let mut list = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    list.args(["runs", "--json"])
        .env("AGENTGATE_HOME", gate.store.path());
    let listed = run_bounded(list, Duration::from_secs(30));
    assert!(listed.stdout.contains(run_id), "{}", listed.all_output());
    let mut show = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    show.args(["runs", "show", &run_id[..12], "--events"])
        .env("AGENTGATE_HOME", gate.store.path());
    let shown = run_bounded(show, Duration::from_secs(30));
    let events: Vec<Value> = shown
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(events.first().unwrap()["type"], "start");
    assert_eq!(events.last().unwrap()["type"], "result");
    assert_eq!(events.last().unwrap()["envelope"]["response"], "Stored.");
    let seqs: Vec<u64> = events.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(
        seqs,
        (0..events.len() as u64).collect::<Vec<_>>(),
        "gap-free seq"
    );
    // Without --events: the record, its attempts and the same events.
    let mut show = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    show.args(["runs", "show", run_id])
        .env("AGENTGATE_HOME", gate.store.path());
    let shown = run_bounded(show, Duration::from_secs(30));
    let detail: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(detail["run"]["envelope"]["response"], "Stored.");
    assert_eq!(detail["run"]["attempts"].as_array().unwrap().len(), 1);
    assert_eq!(detail["events"].as_array().unwrap().len(), events.len());
    assert!(Path::new(detail["stderr_path"].as_str().unwrap()).exists());
}

/// On a terminal, stderr shows a progress line and stdout an indented
/// envelope (run under `script`, which gives the run a pseudo-terminal).
#[test]
fn a_terminal_gets_a_progress_line_and_an_indented_envelope() {
    let server = FakeServer::start("turns:\n  - text: \"Slow answer.\"\n    delay_ms: 1500\n");
    let gate = Gate::new(Cli::Claude, &server);
    let cmd = gate.command(&[], "hello");
    let mut line = format!("{:?}", cmd.get_program());
    // Without --compact, so the terminal gets the indented envelope.
    for a in cmd.get_args().filter(|a| *a != "--compact") {
        line.push(' ');
        line.push_str(&format!("{a:?}"));
    }
    let mut script = Command::new("script");
    script
        .args(["-q", "-e", "-c", &line, "/dev/null"])
        .env_clear()
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .current_dir(gate.workdir());
    let run = run_bounded(script, LIMIT);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let out = &run.stdout;
    assert!(out.contains("\r\x1b[2K"), "no redrawn line: {out:?}");
    assert!(
        out.contains("claude  "),
        "no provider on the progress line: {out:?}"
    );
    assert!(out.contains("tokens"), "{out:?}");
    assert!(out.contains("waiting for the model"), "{out:?}");
    assert!(
        out.contains("\"response\": \"Slow answer.\""),
        "envelope not indented: {out:?}"
    );
}

macro_rules! run_tests {
    ($($module:ident => $cli:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test] fn text_turn() { text($cli) }
            #[test] fn tool_turn_reports_the_shell_tool() { tool($cli) }
            #[test] fn thinking_turn_reports_reasoning() { thinking($cli) }
            #[test] fn system_instructions_reach_the_model() { system($cli) }
            #[test] fn usage_is_what_the_script_declared() { usage($cli) }
            #[test] fn session_resumes_by_name() { session($cli) }
            #[test] fn vanished_session_is_recreated_once() { vanished_session($cli) }
            #[test] fn provider_errors_are_typed() { errors($cli) }
            #[test] fn hangs_end_at_the_timeouts() { timeout($cli) }
            #[test] fn sigint_cancels_with_130() { sigint($cli) }
            #[test] fn the_run_is_stored() { store($cli) }
        }
    )*};
}

run_tests! {
    claude => Cli::Claude,
    codex => Cli::Codex,
    gemini => Cli::Gemini,
}
