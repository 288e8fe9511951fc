//! Each real agent CLI against `agentgate fake-llm`: a plain turn, a turn in
//! which the script makes the CLI run a shell command, the request log, and
//! scripted 429 and 401 errors (the CLI's retries bounded by its settings).

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_core::OutputSchema;
use agentgate_fakellm::clients::Cli;
use agentgate_providers::codex::CODEX;
use agentgate_providers::{CliRequest, Provider};
use serde_json::{Value, json};

use super::cli_versions::qwen_api_error_exit;
use super::support::{Client, FakeServer, Run, run_bounded};

/// A generous bound on one CLI run. The slowest case is Qwen Code's 429:
/// it retries a 429 seven times with backoff (about 65 s) whatever its
/// settings say (`maxRetries` bounds only its SDK's retries, and it ignores
/// `retry-after`), so no setting can make that test quicker.
const LIMIT: Duration = Duration::from_secs(240);

/// How a CLI reports a scripted HTTP error, as read off the real CLIs
/// (see ../shared/captures): its exit code and a text in its output.
struct Failure {
    code: i32,
    text: &'static str,
}

fn rate_limited(cli: Cli) -> Failure {
    match cli {
        Cli::Claude => Failure {
            code: 1,
            text: "API Error: Request rejected (429)",
        },
        Cli::Codex => Failure {
            code: 1,
            text: "429 Too Many Requests",
        },
        // Gemini exits with the HTTP status modulo 256.
        Cli::Gemini => Failure {
            code: 429 % 256,
            text: "Please wait and try again later",
        },
        // Qwen exits 0 on API errors up to 0.2x (only the text tells), 1
        // from 0.24.
        Cli::Qwen => Failure {
            code: qwen_api_error_exit(),
            text: "[API Error: 429",
        },
        Cli::Opencode => Failure {
            code: 1,
            text: "\"statusCode\":429",
        },
    }
}

fn unauthorized(cli: Cli) -> Failure {
    match cli {
        Cli::Claude => Failure {
            code: 1,
            text: "Invalid API key",
        },
        Cli::Codex => Failure {
            code: 1,
            text: "401 Unauthorized",
        },
        Cli::Gemini => Failure {
            code: 401 % 256,
            text: "API key not valid",
        },
        Cli::Qwen => Failure {
            code: qwen_api_error_exit(),
            text: "[API Error: 401",
        },
        Cli::Opencode => Failure {
            code: 1,
            text: "\"statusCode\":401",
        },
    }
}

fn assert_ok(cli: Cli, run: &Run) {
    assert!(
        !run.timed_out && run.code == Some(0),
        "{cli} failed (code {:?}, timed out {} after {:?}):\n{}",
        run.code,
        run.timed_out,
        run.elapsed,
        run.all_output()
    );
}

pub fn text_turn(cli: Cli) {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"favourite number\"}\n    text: \"The scripted answer is 42.\"\n",
    );
    let client = Client::new(cli, &server);
    let run = client.run("What is your favourite number?", LIMIT);
    assert_ok(cli, &run);
    assert!(
        run.stdout.contains("The scripted answer is 42."),
        "{cli} did not print the scripted text:\n{}",
        run.all_output()
    );
    let turns = server.turn_requests();
    assert_eq!(
        turns.len(),
        1,
        "{cli} made {} model requests: {turns:#?}",
        turns.len()
    );
    assert_eq!(turns[0]["turn"], "#1");
}

pub fn default_model(cli: Cli) {
    // No script at all: the server answers like a friendly default model.
    let server = FakeServer::start("");
    let client = Client::new(cli, &server);
    let run = client.run("Say something about kiwis.", LIMIT);
    assert_ok(cli, &run);
    assert!(
        run.stdout
            .contains("Hello from agentgate fake-llm. You said:"),
        "{cli} did not print the default answer:\n{}",
        run.all_output()
    );
    assert!(server.turn_requests().iter().all(|r| r["turn"].is_null()));
}

pub fn tool_turn(cli: Cli) {
    let server = FakeServer::start(
        r#"turns:
  - name: run-it
    match: {contains: "create the marker file", tool_result: false}
    thinking: "The user wants a marker file."
    text: "Creating it."
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - name: after-tool
    match: {tool_result: true}
    text: "Marker written."
"#,
    );
    let client = Client::new(cli, &server);
    let run = client.run("Please create the marker file.", LIMIT);
    assert_ok(cli, &run);
    let marker = client.setup.workdir.join("marker.txt");
    let content = std::fs::read_to_string(&marker).unwrap_or_else(|e| {
        panic!(
            "{cli} did not run the scripted command ({e}):\n{}",
            run.all_output()
        )
    });
    assert_eq!(content, "agentgate\n");
    assert!(
        run.stdout.contains("Marker written."),
        "{cli} did not print the final scripted text:\n{}",
        run.all_output()
    );

    // The request log: the model, the declared shell tool, the turns played
    // in order, and the tool result carried back by the second request.
    let turns = server.turn_requests();
    let names: Vec<&str> = turns
        .iter()
        .map(|r| r["turn"].as_str().unwrap_or("default"))
        .collect();
    assert_eq!(names, ["run-it", "after-tool"], "{cli}: {turns:#?}");
    for r in &turns {
        assert_eq!(r["model"], client.setup.model.as_str(), "{cli} model");
        assert_eq!(r["api"], serde_json::to_value(cli.api()).unwrap());
        let tools = r["tools"].as_array().unwrap();
        assert!(
            tools.iter().any(|t| t == cli.shell_tool()),
            "{cli} did not declare {}: {tools:?}",
            cli.shell_tool()
        );
    }
    let second = turns[1]["messages"].as_array().unwrap();
    assert!(
        second.iter().any(|m| m["tool_calls"]
            .as_array()
            .is_some_and(|c| c.iter().any(|n| n == cli.shell_tool()))),
        "{cli}: the second request does not carry the tool call: {second:#?}"
    );
    assert!(
        second
            .iter()
            .any(|m| m["tool_results"].as_u64().unwrap_or(0) > 0 || m["role"] == "tool"),
        "{cli}: the second request does not carry the tool result: {second:#?}"
    );
}

fn error_turn(cli: Cli, kind: &str, expected: Failure) {
    // The recipes bound each CLI's retries through its own settings
    // (Claude CLAUDE_CODE_MAX_RETRIES, Codex request/stream_max_retries,
    // Gemini general.maxAttempts). opencode has no such setting but honours
    // `retry-after`, so the scripted error says `retry_after: 0`.
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"trigger\"}}\n    repeat: true\n    error: {{kind: {kind}, retry_after: 0}}\n"
    ));
    let client = Client::new(cli, &server);
    let run = client.run("trigger the error", LIMIT);
    assert!(
        !run.timed_out,
        "{cli} hung on a scripted {kind} ({:?}):\n{}",
        run.elapsed,
        run.all_output()
    );
    assert_eq!(
        run.code,
        Some(expected.code),
        "{cli} exit code on a scripted {kind}:\n{}",
        run.all_output()
    );
    assert!(
        run.all_output().contains(expected.text),
        "{cli} output on a scripted {kind} lacks {:?}:\n{}",
        expected.text,
        run.all_output()
    );
    let errors = server
        .turn_requests()
        .iter()
        .filter(|r| r["outcome"] == "error")
        .count();
    assert!(errors >= 1, "{cli}: no request was answered with the error");
}

pub fn rate_limit(cli: Cli) {
    error_turn(cli, "rate_limit", rate_limited(cli));
}

pub fn auth(cli: Cli) {
    error_turn(cli, "auth", unauthorized(cli));
}

macro_rules! cli_tests {
    ($($module:ident => $cli:expr),* $(,)?) => {$(
        mod $module {
            use super::*;
            #[test]
            fn plain_turn_returns_the_scripted_text() { text_turn($cli) }
            #[test]
            fn default_model_answers_without_a_script() { default_model($cli) }
            #[test]
            fn scripted_shell_call_runs_and_is_logged() { tool_turn($cli) }
            #[test]
            fn scripted_429_fails_the_cli() { rate_limit($cli) }
            #[test]
            fn scripted_401_fails_the_cli() { auth($cli) }
        }
    )*};
}

cli_tests! {
    claude => Cli::Claude,
    codex => Cli::Codex,
    gemini => Cli::Gemini,
    qwen => Cli::Qwen,
    opencode => Cli::Opencode,
}

/// Runs the Codex adapter's plan for `req` with the recipe's environment:
/// the argv agentgate itself would give the real CLI.
fn run_codex_plan(client: &Client, req: &CliRequest, scratch: &Path) -> Run {
    let plan = CODEX
        .command(req, &client.program, &scratch.into())
        .unwrap();
    let stdin = scratch.join("prompt.txt");
    std::fs::write(&stdin, plan.stdin.as_deref().unwrap_or_default()).unwrap();
    let mut cmd = Command::new(&plan.program);
    cmd.args(&plan.args)
        .env_clear()
        .envs(client.env_pairs())
        .envs(plan.env.iter().map(|(k, v)| (k, v)))
        .current_dir(&plan.cwd)
        .stdin(std::fs::File::open(&stdin).unwrap());
    run_bounded(cmd, LIMIT)
}

/// The `--json` events of a Codex run.
fn codex_events(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// Codex enforces `--output-schema` natively: the adapter's argv, run by the
/// real CLI, sends the schema to the model as a `json_schema` text format
/// (fresh and on resume), Codex prints the scripted JSON answer, and
/// agentgate's own check accepts it.
#[test]
fn codex_output_schema_reaches_the_model_fresh_and_resumed() {
    let server = FakeServer::start(
        r#"turns:
  - match: {contains: "triage"}
    repeat: true
    text: '{"priority": "high"}'
"#,
    );
    let client = Client::new(Cli::Codex, &server);
    let scratch = tempfile::tempdir().unwrap();
    let schema = json!({
        "type": "object",
        "properties": {"priority": {"type": "string", "enum": ["low", "high"]}},
        "required": ["priority"],
        "additionalProperties": false
    });
    let schema_path = scratch.path().join("triage.schema.json");
    std::fs::write(&schema_path, schema.to_string()).unwrap();
    let checker = OutputSchema::load(&schema_path).unwrap();

    let fresh = CliRequest {
        prompt: "Please triage this issue.".into(),
        cwd: client.setup.workdir.clone(),
        output_schema: Some(schema_path.clone()),
        ..CliRequest::default()
    };
    let run = run_codex_plan(&client, &fresh, scratch.path());
    assert_ok(Cli::Codex, &run);
    let events = codex_events(&run);
    let answer = events
        .iter()
        .find(|e| e["type"] == "item.completed" && e["item"]["type"] == "agent_message")
        .unwrap_or_else(|| panic!("codex printed no answer:\n{}", run.all_output()));
    let text = answer["item"]["text"].as_str().unwrap();
    assert_eq!(text, r#"{"priority": "high"}"#);
    assert_eq!(checker.check(text), Ok(json!({"priority": "high"})));
    let thread = events
        .iter()
        .find(|e| e["type"] == "thread.started")
        .and_then(|e| e["thread_id"].as_str())
        .unwrap_or_else(|| panic!("codex printed no thread id:\n{}", run.all_output()))
        .to_owned();

    let resumed = CliRequest {
        prompt: "Now triage it again.".into(),
        resume: Some(thread),
        ..fresh
    };
    let run = run_codex_plan(&client, &resumed, scratch.path());
    assert_ok(Cli::Codex, &run);
    assert!(
        run.stdout.contains(r#"{\"priority\": \"high\"}"#),
        "the resumed codex did not print the answer:\n{}",
        run.all_output()
    );

    let turns = server.turn_requests();
    assert_eq!(turns.len(), 2, "{turns:#?}");
    for (i, turn) in turns.iter().enumerate() {
        let format = &turn["response_format"];
        assert_eq!(format["type"], "json_schema", "request {i}: {format}");
        assert_eq!(format["schema"], schema, "request {i}: {format}");
        assert_eq!(turn["turn"], "#1", "request {i}");
    }
    // The resumed request carries the first exchange.
    let texts: Vec<&str> = turns[1]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["text"].as_str())
        .collect();
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Please triage this issue.")),
        "{texts:#?}"
    );
}
