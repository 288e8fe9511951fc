//! Warm sessions through the run engine, against the REAL CLIs and
//! `agentgate fake-llm`: `run()` with a holder ([`WarmSessions`]) and a
//! `--session`, each turn recorded in a real SQLite store like a cold run.
//! One process serves three turns (the envelope's `warm`, the same process
//! group, each turn's usage the script's); a process killed between turns
//! is replaced by resuming the session (the next request carries the
//! earlier turn); a process idle past its time is ended; one killed during
//! a turn fails that turn recoverably (exit 75) and the next turn resumes
//! the session in a new one; an `ask` nobody answers is refused after its
//! timeout, and the turn ends.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use agentgate_core::Config;
use agentgate_core::Settings;
use agentgate_core::TaskInput;
use agentgate_core::warm::desk::ApprovalDesk;
use agentgate_core::warm::sessions::{WarmSessions, WarmSettings};
use agentgate_core::{ApprovalPolicy, Decision};
use agentgate_core::{EventSink, RunOptions, RunOutcome, run};
use agentgate_core::{Plan, RunFlags, plan};
use agentgate_fakellm::clients::Cli;
use agentgate_protocol::Event;
use agentgate_providers::PermissionMode;
use agentgate_store::{RunStore, SqliteStore};
use serde_json::Value;

use super::support::{Client, FakeServer};
use super::warm_real::{THREE_TURNS, carries_the_earlier_turns};

#[derive(Default)]
struct Events(Vec<Value>);

impl EventSink for Events {
    fn emit(&mut self, event: &Event) {
        self.0.push(serde_json::to_value(event).unwrap());
    }
}

/// One CLI against one fake-llm, a holder and a store.
pub(super) struct Bench {
    cli: Cli,
    pub(super) server: FakeServer,
    pub(super) client: Client,
    holder: WarmSessions,
    desk: ApprovalDesk,
    store: SqliteStore,
    pub(super) _db: tempfile::TempDir,
    runtime: tokio::runtime::Runtime,
}

impl Bench {
    pub(super) fn new(cli: Cli, script: &str) -> Bench {
        let server = FakeServer::start(script);
        let client = Client::new(cli, &server);
        let db = tempfile::tempdir().unwrap();
        let store = SqliteStore::open(db.path().join("runs.db")).unwrap();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let holder = runtime.block_on(async {
            let holder = WarmSessions::new(WarmSettings::default());
            holder.watch_idle();
            holder
        });
        Bench {
            cli,
            server,
            client,
            holder,
            desk: ApprovalDesk::new(),
            store,
            _db: db,
            runtime,
        }
    }

    pub(super) fn plan(&self, prompt: &str, mode: PermissionMode, config: &Config) -> Plan {
        let setup = &self.client.setup;
        let model = match self.cli {
            Cli::Codex => Some("agentgate-fake-model".to_owned()),
            Cli::Opencode => Some(format!("fake/{}", setup.model)),
            _ => Some(setup.model.clone()),
        };
        let flags = RunFlags {
            providers: vec![self.cli.binary().to_owned()],
            model,
            session: Some("chat".into()),
            settings: Settings {
                binary: Some(self.client.program.clone()),
                permission_mode: Some(mode),
                cwd: Some(setup.workdir.clone()),
                timeout: Some(Duration::from_secs(120)),
                env: setup.env.clone(),
                ..Settings::default()
            },
            ..RunFlags::default()
        };
        let task = TaskInput {
            prompt: prompt.into(),
            ..TaskInput::default()
        };
        let mut plan = plan(config, &flags, task).unwrap();
        for step in &mut plan.steps {
            step.request.env_clear = true;
        }
        plan
    }

    pub(super) fn turn_with(&self, plan: &Plan) -> (RunOutcome, Vec<Value>) {
        let options = RunOptions {
            keeper: Some(PathBuf::from(env!("CARGO_BIN_EXE_agentgate"))),
            warm: Some(self.holder.clone()),
            approval_desk: Some(self.desk.clone()),
            ..RunOptions::default()
        };
        let mut events = Events::default();
        let (_cancel, rx) = tokio::sync::mpsc::channel(1);
        let store: &dyn RunStore = &self.store;
        let outcome = self
            .runtime
            .block_on(run(plan, &options, Some(store), &mut events, rx));
        (outcome, events.0)
    }

    fn turn(&self, prompt: &str) -> (RunOutcome, Value) {
        let plan = self.plan(prompt, PermissionMode::Bypass, &Config::default());
        let (outcome, _) = self.turn_with(&plan);
        let env = serde_json::to_value(&outcome.envelope).unwrap();
        (outcome, env)
    }
}

impl Drop for Bench {
    fn drop(&mut self) {
        self.runtime.block_on(self.holder.end_all());
    }
}

fn alive(pgid: u32) -> bool {
    // Signal 0 to the group: whether any of it is left.
    std::process::Command::new("kill")
        .args(["-0", "--", &format!("-{pgid}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

fn pgid_of(env: &Value) -> u32 {
    env["warm"]["pgid"].as_u64().expect("a warm process group") as u32
}

fn usage_of(env: &Value) -> (u64, u64) {
    (
        env["tokens_used"]["input_tokens"].as_u64().unwrap_or(0),
        env["tokens_used"]["output_tokens"].as_u64().unwrap_or(0),
    )
}

fn three_turns(cli: Cli) {
    let b = Bench::new(cli, THREE_TURNS);
    let mut envs = Vec::new();
    for prompt in ["turn ONE", "turn TWO", "turn THREE"] {
        let (outcome, env) = b.turn(prompt);
        assert_eq!(outcome.exit_code, 0, "{cli}: {env:#}");
        envs.push(env);
    }
    let answers: Vec<&str> = envs
        .iter()
        .map(|e| e["response"].as_str().unwrap())
        .collect();
    assert_eq!(answers, ["reply-one", "reply-two", "reply-three"], "{cli}");
    let states: Vec<(&str, u64)> = envs
        .iter()
        .map(|e| {
            (
                e["warm"]["process"].as_str().unwrap(),
                e["warm"]["turn"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        states,
        [("started", 1), ("reused", 2), ("reused", 3)],
        "{cli}"
    );
    let groups: Vec<u32> = envs.iter().map(pgid_of).collect();
    assert!(groups.iter().all(|g| *g == groups[0]), "{cli}: {groups:?}");
    let usage: Vec<(u64, u64)> = envs.iter().map(usage_of).collect();
    assert_eq!(
        usage,
        [(100, 10), (200, 20), (300, 30)],
        "{cli}: the script's"
    );
    if cli == Cli::Opencode {
        // Its title agent is off, so no request escapes the envelope's
        // count; ACP reports tokens but no cost.
        let side: Vec<Value> = b
            .server
            .requests()
            .into_iter()
            .filter(|r| r.get("side").is_some())
            .collect();
        assert!(side.is_empty(), "{cli}: {side:?}");
        assert!(
            envs.iter().all(|e| e["tokens_used"]["cost_usd"].is_null()),
            "{cli}"
        );
    }
    // One session id, and each turn a run of its own in the store.
    let sessions: Vec<&Value> = envs.iter().map(|e| &e["session_id"]).collect();
    assert!(
        sessions.iter().all(|s| s.is_string() && *s == sessions[0]),
        "{cli}: {sessions:?}"
    );
    for e in &envs {
        let id = e["run_id"].as_str().unwrap();
        let run = b.store.get_run(id).unwrap().expect("recorded");
        assert_eq!(run.summary.status.to_string(), "succeeded", "{cli}");
    }
    // The model server saw the last turn carry the earlier ones.
    carries_the_earlier_turns(&b.server, &cli.to_string());
}

fn killed_between_turns(cli: Cli) {
    let b = Bench::new(cli, THREE_TURNS);
    let (_, first) = b.turn("turn ONE");
    let pgid = pgid_of(&first);
    assert!(alive(pgid), "{cli}: the warm process lives after its turn");
    // Between turns: Claude Code writes a turn to its transcript a moment
    // after the turn ends (under 300 ms here); a process killed before
    // that loses the turn, and the next one recreates the session.
    std::thread::sleep(Duration::from_secs(2));
    std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pgid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let (outcome, second) = b.turn("turn TWO");
    assert_eq!(outcome.exit_code, 0, "{cli}: {second:#}");
    assert_eq!(second["response"], "reply-two", "{cli}");
    assert_eq!(second["warm"]["process"], "replaced", "{cli}: {second:#}");
    assert_eq!(second["warm"]["turn"], 1, "{cli}");
    assert_eq!(
        second["warm"]["replaced_because"], "its process had ended",
        "{cli}"
    );
    assert_ne!(pgid_of(&second), pgid, "{cli}: a new process");
    assert_eq!(
        second["session_id"], first["session_id"],
        "{cli}: the same session"
    );
    // Resumed: the new process's request carries the first turn.
    let last = b.server.turn_requests().last().unwrap().to_string();
    assert!(
        last.contains("turn ONE") && last.contains("reply-one") && last.contains("turn TWO"),
        "{cli}: {last}"
    );
}

fn idle_end(cli: Cli) {
    let b = Bench::new(cli, THREE_TURNS);
    let mut plan = b.plan("turn ONE", PermissionMode::Bypass, &Config::default());
    plan.warm_idle = Some(Duration::from_secs(1));
    let (outcome, _) = b.turn_with(&plan);
    let env = serde_json::to_value(&outcome.envelope).unwrap();
    assert_eq!(outcome.exit_code, 0, "{cli}: {env:#}");
    let pgid = pgid_of(&env);
    let ended_at = Instant::now();
    let deadline = ended_at + Duration::from_secs(20);
    while alive(pgid) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(
        !alive(pgid),
        "{cli}: still alive 20 s after its 1 s idle time"
    );
    assert!(
        ended_at.elapsed() >= Duration::from_millis(900),
        "{cli}: ended before its idle time"
    );
    assert!(
        b.holder.sessions().is_empty(),
        "{cli}: the holder let it go"
    );
    // The next turn starts a new process that resumes the session.
    let (outcome, next) = b.turn("turn TWO");
    assert_eq!(outcome.exit_code, 0, "{cli}: {next:#}");
    assert_eq!(next["warm"]["process"], "replaced", "{cli}");
    assert_eq!(
        next["warm"]["replaced_because"], "it had been idle past its time",
        "{cli}"
    );
    assert_eq!(next["session_id"], env["session_id"], "{cli}");
}

/// The second turn's model answer comes after 8 s: long enough to kill
/// the process while the turn runs.
const SLOW_SECOND: &str = r#"turns:
  - match: {contains: "turn ONE"}
    text: "reply-one"
  - match: {contains: "turn TWO"}
    delay_ms: 8000
    text: "reply-two"
  - match: {contains: "turn THREE"}
    text: "reply-three"
"#;

fn killed_during_a_turn(cli: Cli) {
    let b = Bench::new(cli, SLOW_SECOND);
    let (_, first) = b.turn("turn ONE");
    let pgid = pgid_of(&first);
    std::thread::sleep(Duration::from_secs(2));
    let (outcome, second) = std::thread::scope(|scope| {
        scope.spawn(|| {
            // Once the model server holds the second turn's request.
            let deadline = Instant::now() + Duration::from_secs(60);
            while Instant::now() < deadline
                && !b
                    .server
                    .turn_requests()
                    .iter()
                    .any(|r| r.to_string().contains("turn TWO"))
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            std::process::Command::new("kill")
                .args(["-KILL", "--", &format!("-{pgid}")])
                .status()
                .unwrap();
        });
        b.turn("turn TWO")
    });
    assert_eq!(outcome.exit_code, 75, "{cli}: {second:#}");
    assert_eq!(second["error_type"], "provider_error", "{cli}: {second:#}");
    assert_eq!(second["recoverable"], true, "{cli}");
    assert!(
        second["error"]
            .as_str()
            .is_some_and(|e| e.contains("ended during the turn")),
        "{cli}: {second:#}"
    );
    assert_eq!(second["warm"]["process"], "reused", "{cli}");
    // The next turn: a new process resuming the session.
    let (outcome, third) = b.turn("turn THREE");
    assert_eq!(outcome.exit_code, 0, "{cli}: {third:#}");
    assert_eq!(third["response"], "reply-three", "{cli}");
    assert_eq!(third["warm"]["process"], "replaced", "{cli}: {third:#}");
    assert_eq!(
        third["warm"]["replaced_because"], "its process ended during the last turn",
        "{cli}"
    );
    assert_ne!(pgid_of(&third), pgid, "{cli}");
    let last = b.server.turn_requests().last().unwrap().to_string();
    assert!(last.contains("reply-one"), "{cli}: resumed: {last}");
}

/// A tool call the policy asks a person about; nobody answers.
fn unanswered_ask(cli: Cli) {
    let target = tempfile::tempdir().unwrap();
    let call = match cli {
        Cli::Claude => format!(
            "{{name: Write, args: {{file_path: \"{}/denied.txt\", content: \"no\"}}}}",
            target.path().display()
        ),
        Cli::Codex => "{name: shell, command: \"echo hi > denied.txt\"}".to_owned(),
        // Gemini refuses paths outside its folder without asking.
        Cli::Gemini => {
            "{name: write_file, args: {file_path: \"denied.txt\", content: \"no\"}}".to_owned()
        }
        // opencode asks about a path outside its folder first, apart.
        Cli::Opencode => {
            "{name: write, args: {filePath: \"denied.txt\", content: \"no\"}}".to_owned()
        }
        _ => format!(
            "{{name: write_file, args: {{file_path: \"{}/denied.txt\", content: \"no\"}}}}",
            target.path().display()
        ),
    };
    let script = format!(
        "turns:\n  - match: {{contains: \"WRITE\"}}\n    tool_call: {call}\n  - match: {{tool_result: true}}\n    text: \"after the write\"\n"
    );
    let b = Bench::new(cli, &script);
    let config = Config {
        approvals: ApprovalPolicy {
            rules: Vec::new(),
            default: Decision::Ask,
            ask_timeout: Duration::from_secs(1),
        },
        ..Config::default()
    };
    let plan = b.plan("please WRITE it", PermissionMode::Ask, &config);
    let started = Instant::now();
    let (outcome, events) = b.turn_with(&plan);
    let env = serde_json::to_value(&outcome.envelope).unwrap();
    let context = format!("{cli}: {env:#}\n{events:#?}");
    assert!(started.elapsed() >= Duration::from_secs(1), "{context}");
    let requests: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "approval_request")
        .collect();
    let decisions: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "approval_decision")
        .collect();
    assert_eq!(requests.len(), 1, "{context}");
    assert_eq!(decisions.len(), 1, "{context}");
    assert_eq!(decisions[0]["decision"], "deny", "{context}");
    assert_eq!(decisions[0]["by"], "timeout", "{context}");
    assert_eq!(
        decisions[0]["request_id"], requests[0]["request_id"],
        "{context}"
    );
    assert_eq!(env["approvals"]["asked"], 1, "{context}");
    assert_eq!(env["approvals"]["timed_out"], 1, "{context}");
    assert!(
        b.desk.pending(env["run_id"].as_str().unwrap()).is_empty(),
        "{context}"
    );
    // The turn ended; nothing was written.
    assert_ne!(outcome.exit_code, 130, "{context}");
    for dir in [target.path(), b.client.setup.workdir.as_path()] {
        assert!(!dir.join("denied.txt").exists(), "{context}");
    }
}

/// A warm turn whose agent calls Claude Code's `AskUserQuestion` fails at
/// once with `user_input_requested` (the turn's timeout is 120 s: a
/// timeout would say `timeout`), in `bypass` and in `ask` mode alike; the
/// turn is interrupted, not the process, so the next turn reuses it, and
/// gets its own answer, not the interrupted turn's late one.
#[test]
fn a_question_to_the_user_fails_a_warm_turn_at_once() {
    // The next turn's rule comes first: Claude sends the interrupted
    // call's tool result in the same user message as the next prompt, so
    // that request also matches `tool_result: true`.
    let script = r#"turns:
  - match: {contains: "AFTER"}
    text: "after the question"
  - match: {contains: "ASK-5121", tool_result: false}
    text: "I need to know one thing."
    tool_call:
      name: AskUserQuestion
      args:
        questions:
          - question: "Which folder should the note go to?"
            header: Folder
            multiSelect: false
            options:
              - {label: garden, description: the garden folder}
              - {label: inbox, description: leave it}
  - match: {tool_result: true}
    text: "Filed it somewhere."
"#;
    for mode in [PermissionMode::Bypass, PermissionMode::Ask] {
        let b = Bench::new(Cli::Claude, script);
        let plan = b.plan("ASK-5121: file this note", mode, &Config::default());
        let (outcome, events) = b.turn_with(&plan);
        let env = serde_json::to_value(&outcome.envelope).unwrap();
        let context = format!("{mode:?}: {env:#}\n{events:#?}");
        assert_eq!(env["error_type"], "user_input_requested", "{context}");
        assert!(
            env["error"]
                .as_str()
                .is_some_and(|e| e.contains("Which folder should the note go to?")),
            "{context}"
        );
        if mode == PermissionMode::Bypass {
            let (next, env) = b.turn("AFTER the question");
            assert_eq!(next.exit_code, 0, "{env:#}");
            assert_eq!(env["response"], "after the question", "{env:#}");
            assert_eq!(env["warm"]["process"], "reused", "{env:#}");
        }
    }
}

/// opencode replaces a model it does not know by another one (perhaps a
/// paid one on the network): its warm process is refused as
/// `invalid_model` before any turn, and the run retries once with the
/// CLI's own default model, as for any invalid model.
#[test]
fn opencode_with_a_model_it_does_not_know_is_refused_before_any_turn() {
    let b = Bench::new(Cli::Opencode, THREE_TURNS);
    let mut plan = b.plan("turn ONE", PermissionMode::Bypass, &Config::default());
    for step in &mut plan.steps {
        step.request.model = Some("fake/no-such-model".into());
    }
    let (outcome, _) = b.turn_with(&plan);
    let env = serde_json::to_value(&outcome.envelope).unwrap();
    let first = &env["attempts"][0];
    assert_eq!(first["error_type"], "invalid_model", "{env:#}");
    let error = first["error"].as_str().unwrap_or("");
    assert!(
        error.contains("`opencode/big-pickle`, not `fake/no-such-model`"),
        "{env:#}"
    );
    assert!(
        env["model_resolution"]
            .as_str()
            .is_some_and(|r| r.contains("rejected as invalid")),
        "{env:#}"
    );
    // The retry with the config's model answered; no request went to the
    // model opencode had chosen instead.
    assert_eq!(env["response"], "reply-one", "{env:#}");
    let requests = b.server.turn_requests();
    assert_eq!(requests.len(), 1, "{env:#}");
    assert_eq!(requests[0]["model"], "fake-model", "{env:#}");
}

macro_rules! per_cli {
    ($($name:ident: $cli:expr),* $(,)?) => {$(
        mod $name {
            use super::*;

            #[test]
            fn serves_three_turns_from_one_process() {
                three_turns($cli);
            }

            #[test]
            fn a_process_killed_between_turns_is_replaced_by_resume() {
                killed_between_turns($cli);
            }

            #[test]
            fn a_process_killed_during_a_turn_fails_it_recoverably() {
                killed_during_a_turn($cli);
            }

            #[test]
            fn an_idle_process_ends_after_its_idle_time() {
                idle_end($cli);
            }

            #[test]
            fn an_unanswered_ask_is_refused_after_its_timeout() {
                unanswered_ask($cli);
            }
        }
    )*};
}

per_cli! {
    claude: Cli::Claude,
    codex: Cli::Codex,
    gemini: Cli::Gemini,
    qwen: Cli::Qwen,
    opencode: Cli::Opencode,
}
