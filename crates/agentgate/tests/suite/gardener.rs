//! The Gardener's contract (seed 004) with the REAL CLIs against
//! `agentgate fake-llm`: the instruction files in their order (AGENTS.md,
//! then GARDENER.md), the note with its file name, then the output schema
//! with the JSON-only instruction reach the model, for Claude Code and
//! Gemini CLI (which take no schema natively), and the structured answer
//! is checked; an edit agent's summary file says what the run changed; a
//! question to the user fails at once; a served inbox names the note and
//! keeps a failed one. (A permissions file per CLI: `permissions_per_cli.rs`.)

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use agentgate_core::{INSTRUCTIONS_LEAD, SCHEMA_INSTRUCTION, UNATTENDED_INSTRUCTION};
use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_chain::{Chain, attempts};
use super::run_e2e::last_json;
use super::serve_queue_support::QueueHome;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);
const NOTE: &str = "GARDEN-NOTE-4411: plant roses by the fence";
const ANSWER: &str = r#"{"action": "create", "path": "garden/roses.md", "content": "Roses by the fence.", "reasoning": "a new topic"}"#;

fn gardener_action_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "action": {"type": "string", "enum": ["create", "append", "task"]},
            "path": {"type": "string"},
            "content": {"type": "string"},
            "reasoning": {"type": "string"}
        },
        "required": ["action", "path", "content", "reasoning"],
        "additionalProperties": false
    })
}

/// A config folder with AGENTS.md, GARDENER.md, the schema and an agent
/// `gardener` of `cli` (plus `extra` agent keys); returns the config file.
fn gardener_config(dir: &Path, cli: Cli, extra: &str) -> std::path::PathBuf {
    std::fs::write(
        dir.join("AGENTS.md"),
        "AGENTS-RULE-1: keep every note short.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("GARDENER.md"),
        "GARDENER-RULE-2: file notes by topic.\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("gardener.schema.json"),
        gardener_action_schema().to_string(),
    )
    .unwrap();
    let file = dir.join("agentgate.yaml");
    std::fs::write(
        &file,
        format!(
            "version: 1\nagents:\n  gardener:\n    provider: {}\n    instructions: [AGENTS.md, GARDENER.md]\n    output_schema: gardener.schema.json\n{extra}",
            cli.binary()
        ),
    )
    .unwrap();
    file
}

/// `agentgate --config CONFIG run --agent gardener` with the JSON task
/// input `task` on stdin.
fn run_gardener(client: &Client, store: &Path, config: &Path, task: &Value) -> Run {
    let cli = client.setup.cli;
    let input = store.join("task.json");
    std::fs::write(&input, task.to_string()).unwrap();
    let mut cmd = client.agentgate();
    cmd.arg("--config")
        .arg(config)
        .args(["run", "--agent", "gardener", "--yolo", "--compact"])
        .arg("--binary")
        .arg(&client.program);
    if cli != Cli::Codex && cli != Cli::Opencode {
        cmd.args(["--model", &client.setup.model]);
    }
    cmd.env("AGENTGATE_HOME", store)
        .stdin(Stdio::from(std::fs::File::open(&input).unwrap()));
    run_bounded(cmd, LIMIT)
}

/// The user-side texts of every model request fake-llm received.
fn request_texts(server: &FakeServer) -> Vec<String> {
    server
        .turn_requests()
        .iter()
        .flat_map(|r| r["messages"].as_array().cloned().unwrap_or_default())
        .filter_map(|m| m["text"].as_str().map(str::to_owned))
        .collect()
}

/// Where each of `needles` is in `text`, in order, or which is missing or
/// out of order.
fn in_order(text: &str, needles: &[&str]) -> Result<(), String> {
    let mut from = 0;
    for n in needles {
        match text[from..].find(n) {
            Some(i) => from += i + n.len(),
            None => return Err(format!("`{n}` missing or out of order")),
        }
    }
    Ok(())
}

fn the_prompt_carries_instructions_note_name_and_schema(cli: Cli) {
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"GARDEN-NOTE-4411\"}}\n    text: '{ANSWER}'\n  - text: \"The note never arrived.\"\n    repeat: true\n"
    ));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let cfg_dir = tempfile::tempdir().unwrap();
    let config = gardener_config(cfg_dir.path(), cli, "");
    let run = run_gardener(
        &client,
        store.path(),
        &config,
        &json!({"prompt": NOTE, "file_name": "2026-11-29 roses.md"}),
    );
    let env = last_json(&run.stdout)
        .unwrap_or_else(|| panic!("{cli}: no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{cli}: {env:#}\n{}", run.stderr);
    assert_eq!(
        env["structured_output"],
        serde_json::from_str::<Value>(ANSWER).unwrap(),
        "{cli}: {env:#}"
    );
    let texts = request_texts(&server);
    let prompt = texts
        .iter()
        .find(|t| t.contains("GARDEN-NOTE-4411"))
        .unwrap_or_else(|| panic!("{cli}: the note never reached the model: {texts:#?}"));
    let schema = serde_json::to_string_pretty(&gardener_action_schema()).unwrap();
    in_order(
        prompt,
        &[
            INSTRUCTIONS_LEAD,
            "AGENTS-RULE-1",
            "GARDENER-RULE-2",
            "--- task: 2026-11-29 roses.md ---",
            NOTE,
            SCHEMA_INSTRUCTION,
            &schema,
            UNATTENDED_INSTRUCTION,
        ],
    )
    .unwrap_or_else(|e| panic!("{cli}: {e} in the prompt sent:\n{prompt}"));
}

#[test]
fn claude_gets_instructions_note_name_and_schema_in_the_prompt() {
    the_prompt_carries_instructions_note_name_and_schema(Cli::Claude);
}

#[test]
fn gemini_gets_instructions_note_name_and_schema_in_the_prompt() {
    the_prompt_carries_instructions_note_name_and_schema(Cli::Gemini);
}

/// An edit agent's summary file lists the file the run created (observed in
/// the workspace, not claimed) and the answer's reasoning, mode 600.
#[test]
fn an_edit_agents_summary_file_says_what_the_run_changed() {
    let cli = Cli::Claude;
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"GARDEN-NOTE-4411\", tool_result: false}}\n    text: \"Filing it.\"\n    tool_call: {{name: shell, command: \"mkdir -p garden && echo roses > garden/roses.md\"}}\n  - match: {{tool_result: true}}\n    text: '{ANSWER}'\n"
    ));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let cfg_dir = tempfile::tempdir().unwrap();
    let config = gardener_config(
        cfg_dir.path(),
        cli,
        "    mode: edit\n    summary_file: state/last_cli_result.json\n",
    );
    let run = run_gardener(&client, store.path(), &config, &json!({"prompt": NOTE}));
    let env = last_json(&run.stdout)
        .unwrap_or_else(|| panic!("{cli}: no envelope:\n{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{cli}: {env:#}\n{}", run.stderr);
    assert!(client.setup.workdir.join("garden/roses.md").is_file());
    let path = cfg_dir.path().join("state/last_cli_result.json");
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("no summary file {}: {e}", path.display())),
    )
    .unwrap();
    assert_eq!(summary["ok"], true, "{summary:#}");
    assert_eq!(summary["agent"], "gardener", "{summary:#}");
    assert_eq!(summary["provider"], "claude", "{summary:#}");
    assert_eq!(summary["summary"], "a new topic", "{summary:#}");
    assert_eq!(summary["structured_output"]["action"], "create");
    let edited = summary["files_edited"].as_array().unwrap();
    assert!(
        edited
            .iter()
            .any(|f| f["path"] == "garden/roses.md" && f["change"] == "added"),
        "{summary:#}"
    );
    let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
}

/// A model turn that calls Claude Code's `AskUserQuestion` stops the run at
/// once with `user_input_requested` (not a timeout: the agents have 120s
/// ones), and the chain moves on to the next agent, whose answer stands.
#[test]
fn a_question_to_the_user_fails_the_attempt_and_the_chain_moves_on() {
    let chain = Chain::new(
        r#"turns:
  - match: {contains: "GARDEN-ASK-5120", tool_result: false}
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
  - match: {contains: "GARDEN-ASK-5120"}
    text: "Filed under garden."
    repeat: true
"#,
        &[Cli::Claude, Cli::Gemini],
        json!({}),
        json!({"chains": {"gardeners": {"agents": ["claude", "gemini"]}}}),
    );
    let (run, env) = chain.run(&["--chain", "gardeners"], "GARDEN-ASK-5120: file this note");
    let tried = attempts(&env);
    assert_eq!(tried[0]["provider"], "claude", "{env:#}");
    assert_eq!(
        tried[0]["error_type"], "user_input_requested",
        "{env:#}\n{}",
        run.stderr
    );
    let message = tried[0]["error"].as_str().unwrap_or_default();
    assert!(
        message.contains("Which folder should the note go to?"),
        "{env:#}"
    );
    assert_eq!(env["provider"], "gemini", "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "Filed under garden.", "{env:#}");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
}

/// `agentgate serve` watching an inbox with `on_failure: keep`: the note's
/// file name reaches the CLI's prompt (the stand-in Claude answers with the
/// first `tag-...` word of its prompt, here the name on the task's line); a
/// note whose job fails stays in the inbox with its record in `failed/`,
/// and is not taken again while unchanged: a later note is done first, and
/// the kept one still has its one job.
#[test]
fn a_served_inbox_names_the_note_and_keeps_a_failed_one() {
    use agentgate_store::{JobFilter, JobQueue};
    let home = QueueHome::new(
        "watch:\n  inbox:\n    folder: inbox\n    poll: 100ms\n    settle: 200ms\n    on_failure: keep\n    request:\n      providers: [claude]\n      max_provider_retries: 0\n",
    );
    let inbox = home.file("inbox");
    std::fs::create_dir(&inbox).unwrap();
    let server = home.serve(false, &[]);
    std::fs::write(inbox.join("tag-fromname.md"), "a plain note").unwrap();
    std::fs::write(inbox.join("kept.md"), "flaky tag-kept").unwrap();
    wait_until("kept.md's error record", || {
        inbox.join("failed/kept.md.error.json").exists()
    });
    wait_until("tag-fromname.md in done/", || {
        inbox.join("done/tag-fromname.md").exists()
    });
    // A later note, taken and done after the kept one failed.
    std::fs::write(inbox.join("later.md"), "summarise tag-later").unwrap();
    wait_until("later.md in done/", || inbox.join("done/later.md").exists());
    assert!(inbox.join("kept.md").is_file(), "the failed note stays");
    assert!(!inbox.join("failed/kept.md").exists());
    let jobs = home
        .store()
        .list_jobs(&JobFilter::default(), 10, None)
        .unwrap()
        .jobs;
    assert_eq!(jobs.len(), 3, "one job per note: {jobs:#?}");
    let named = jobs
        .iter()
        .find(|j| j.request["prompt"] == "a plain note")
        .unwrap();
    assert_eq!(named.request["file_name"], "tag-fromname.md");
    assert_eq!(
        named.envelope.as_ref().unwrap().response,
        "done tag-fromname"
    );
    let kept: Vec<_> = home
        .cli_runs()
        .into_iter()
        .filter(|r| r.tag == "tag-kept")
        .collect();
    assert_eq!(kept.len(), 1, "the kept note ran once: {kept:?}");
    let (status, _, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));
}

/// Wait (bounded) until `done` holds.
fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = std::time::Instant::now();
    while !done() {
        assert!(start.elapsed() < LIMIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}
