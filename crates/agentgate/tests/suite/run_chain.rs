//! Failover chains, model resolution, quota skipping, workspace checks,
//! structured output, handoff and prompt assembly: `agentgate run` with the
//! REAL Claude Code, Codex and Gemini CLI against one `agentgate fake-llm`,
//! each agent described in a config file with its own home and endpoint.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

pub use super::run_chain_support::{Chain, LIMIT, assert_skipped_first, attempts};

const THREE: [Cli; 3] = [Cli::Claude, Cli::Codex, Cli::Gemini];

fn three_chain() -> Value {
    json!({"chains": {"main": {"agents": ["claude", "codex", "gemini"]}}})
}

/// The done-when case: Claude's 429 and Codex's quota error hand the task
/// on; Gemini answers; three attempts in the envelope and in the store.
#[test]
fn a_chain_fails_over_to_the_provider_that_answers() {
    let chain = Chain::new(
        "turns:\n  \
         - match: {api: anthropic}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n  \
         - match: {api: responses}\n    repeat: true\n    error: {kind: insufficient_quota, retry_after: 0}\n  \
         - match: {api: gemini}\n    text: \"gemini answers\"\n",
        &THREE,
        json!({}),
        three_chain(),
    );
    let (run, env) = chain.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "gemini answers");
    assert_eq!(env["provider"], "gemini");
    assert_eq!(env["agent"], "gemini");
    assert_eq!(env["chain"], "main");
    let a = attempts(&env);
    assert_eq!(a.len(), 3, "{a:#?}");
    assert_eq!(
        (&a[0]["provider"], &a[0]["error_type"]),
        (&json!("claude"), &json!("rate_limit"))
    );
    assert_eq!(
        (&a[1]["provider"], &a[1]["error_type"]),
        (&json!("codex"), &json!("quota"))
    );
    assert_eq!(a[2]["provider"], "gemini");
    assert!(a[2]["error_type"].is_null(), "{a:#?}");
    // The store has the same three attempts.
    let run_id = env["run_id"].as_str().unwrap();
    let shown = agentgate(chain.store(), &["runs", "show", run_id]);
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    let stored: Value = serde_json::from_str(shown.stdout.trim()).unwrap();
    let providers: Vec<&str> = stored["run"]["attempts"]
        .as_array()
        .unwrap_or_else(|| panic!("no attempts: {stored:#}"))
        .iter()
        .map(|a| a["provider"].as_str().unwrap())
        .collect();
    assert_eq!(providers, ["claude", "codex", "gemini"]);
    // Each hand-on is a `failover` status event, with the error that moved
    // the run on.
    let events =
        std::fs::read_to_string(chain.store().join("runs").join(run_id).join("events.jsonl"))
            .unwrap();
    let failovers: Vec<(String, String, String)> = events
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "status" && e["kind"] == "failover")
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or_default().to_owned();
            assert!(!text("message").is_empty(), "{e}");
            (text("from"), text("to"), text("error_type"))
        })
        .collect();
    let expected = [
        ("claude", "codex", "rate_limit"),
        ("codex", "gemini", "quota"),
    ]
    .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()));
    assert_eq!(failovers, expected);
    // The audit line, on stderr and in the audit log.
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("agentgate run="))
        .unwrap_or_else(|| panic!("no audit line: {}", run.stderr));
    for field in [
        "chain=main",
        "agent=gemini",
        "provider=gemini",
        "exit=0",
        "error=-",
        "attempts=3",
    ] {
        assert!(line.contains(field), "{field} missing: {line}");
    }
    let log = std::fs::read_to_string(chain.store().join("audit.log")).unwrap();
    assert!(log.contains(&format!("run={run_id} ")), "{log}");
}

#[test]
fn a_chain_where_every_agent_fails_recoverably_exits_75() {
    let chain = Chain::new(
        "turns:\n  - repeat: true\n    error: {kind: overloaded, retry_after: 0}\n",
        &THREE,
        json!({}),
        three_chain(),
    );
    let (run, env) = chain.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["exit_code"], 75);
    assert_eq!(env["recoverable"], true);
    let a = attempts(&env);
    let providers: Vec<&str> = a.iter().map(|a| a["provider"].as_str().unwrap()).collect();
    assert_eq!(providers, ["claude", "codex", "gemini"], "{a:#?}");
    assert!(a.iter().all(|a| a["recoverable"] == true), "{a:#?}");
}

#[test]
fn a_non_recoverable_error_stops_the_chain() {
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    error: {kind: auth}\n",
        &THREE,
        json!({}),
        three_chain(),
    );
    let (run, env) = chain.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(1), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "auth");
    assert_eq!(attempts(&env).len(), 1);
    assert!(
        chain.apis().iter().all(|a| a == "anthropic"),
        "{:?}",
        chain.apis()
    );
}

#[test]
fn retry_on_limits_which_errors_hand_on() {
    // rate_limit is recoverable, but this chain moves on only for quota.
    let chain = Chain::new(
        "turns:\n  - match: {api: anthropic}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n",
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"], "retry_on": ["quota"]}}}),
    );
    let (run, env) = chain.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "rate_limit");
    assert_eq!(attempts(&env).len(), 1);
    assert!(!chain.apis().iter().any(|a| a == "responses"));

    // --retry-on on the command line wins over the chain's.
    let (run, env) = chain.run(
        &["--agent", "claude,codex", "--retry-on", "rate_limit"],
        "do the task",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["provider"], "codex");
    assert_eq!(attempts(&env).len(), 2);
    let (run, env) = chain.run(
        &[
            "--agent",
            "claude,codex",
            "--retry-on",
            "allowance_exceeded",
        ],
        "do the task",
    );
    assert_eq!(run.code, Some(75), "{env:#}\n{}", run.stderr);
    assert_eq!(attempts(&env).len(), 1);
    let run = run_bounded(
        chain.command(&["--agent", "claude,codex", "--retry-on", "auth"], "x"),
        LIMIT,
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(run.stderr.contains("not recoverable"), "{}", run.stderr);
}

/// A failed attempt that wrote a file stops the chain under the default
/// `on_dirty: stop`; with `stash` the change is stashed and Codex goes on.
#[test]
fn a_dirty_workspace_stops_the_chain_or_is_stashed() {
    let script = "turns:\n  \
         - match: {api: anthropic, tool_result: false}\n    tool_call: {name: shell, command: \"echo draft > half-done.txt\"}\n  \
         - match: {api: anthropic, tool_result: true}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n  \
         - match: {api: responses}\n    repeat: true\n    text: \"codex finished\"\n";
    let chain = Chain::new(
        script,
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"]}}}),
    );
    git(chain.cwd(), &["init", "-q"]);
    git(chain.cwd(), &["add", "-A"]);
    git(
        chain.cwd(),
        &["commit", "-q", "-m", "start", "--allow-empty"],
    );
    let (run, env) = chain.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(1), "{env:#}\n{}", run.stderr);
    assert_eq!(env["error_type"], "rate_limit");
    assert_eq!(env["recoverable"], false);
    let error = env["error"].as_str().unwrap();
    assert!(error.contains("half-done.txt"), "{error}");
    assert!(error.contains("on_dirty: stop"), "{error}");
    assert_eq!(attempts(&env).len(), 1);
    assert!(chain.cwd().join("half-done.txt").exists());
    assert!(!chain.apis().iter().any(|a| a == "responses"));

    // Again, stashing: the file goes to the stash and Codex answers.
    let stashing = Chain::new(
        script,
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"], "on_dirty": "stash"}}}),
    );
    git(stashing.cwd(), &["init", "-q"]);
    git(
        stashing.cwd(),
        &["commit", "-q", "-m", "start", "--allow-empty"],
    );
    let (run, env) = stashing.run(&["--chain", "main"], "do the task");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "codex finished");
    assert!(!stashing.cwd().join("half-done.txt").exists());
    let stashes = git(stashing.cwd(), &["stash", "list"]);
    assert!(stashes.contains("agentgate"), "{stashes}");
    let files = git(
        stashing.cwd(),
        &["show", "--name-only", "--format=", "stash@{0}^3"],
    );
    assert!(files.contains("half-done.txt"), "{files}");
}

/// An invalid model is retried once with the provider's default model, and
/// the envelope says so.
#[test]
fn an_invalid_model_is_retried_once_with_the_default() {
    let server_model = Cli::Claude.default_model();
    let chain = Chain::new(
        "turns:\n  \
         - match: {model: no-such-model}\n    repeat: true\n    error: {kind: invalid_model}\n  \
         - text: \"answered by the default\"\n",
        &[Cli::Claude],
        json!({"claude": {"model": "no-such-model"}}),
        json!({"providers": {"claude": {"default_model": server_model}}}),
    );
    let (run, env) = chain.run(&["--agent", "claude"], "hello");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "answered by the default");
    let a = attempts(&env);
    assert_eq!(a.len(), 2, "{a:#?}");
    assert_eq!(a[0]["error_type"], "invalid_model");
    assert_eq!(a[0]["model"], "no-such-model");
    let note = env["model_resolution"].as_str().unwrap();
    assert!(note.contains("'no-such-model' was rejected"), "{note}");
    assert!(note.contains(server_model), "{note}");
    let models: Vec<String> = chain
        .server
        .turn_requests()
        .iter()
        .map(|r| r["model"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(models.last().unwrap(), server_model, "{models:?}");
}

/// The reset time of [`CLAUDE_OUT_OF_QUOTA`]: 2030-01-01T00:00:00Z.
pub const QUOTA_RESET: &str = "2030-01-01T00:00:00Z";

/// The prompt of the run that exhausts Claude's quota in
/// [`CLAUDE_OUT_OF_QUOTA`].
pub const QUOTA_RUN: &str = "do the task (the quota runs out)";

/// A script where Claude's requests for [`QUOTA_RUN`] hit a usage limit
/// that resets at [`QUOTA_RESET`], its requests for any other prompt answer
/// "claude is back", and Codex answers "codex answers". The prompt decides,
/// not a count of requests: how many requests one turn makes is the CLI's
/// business (Claude Code 2.1.3xx asks up to six times on a 400, dropping
/// newer request features one by one).
pub const CLAUDE_OUT_OF_QUOTA: &str = "turns:\n  \
     - match: {api: anthropic, contains: \"the quota runs out\"}\n    repeat: true\n    error: {kind: insufficient_quota, message: \"Claude AI usage limit reached|1893456000\", retry_after: 0}\n  \
     - match: {api: anthropic}\n    repeat: true\n    text: \"claude is back\"\n  \
     - match: {api: responses}\n    repeat: true\n    text: \"codex answers\"\n";

/// A usage limit with a reset time makes later runs skip Claude until the
/// time passes; the clock is set with AGENTGATE_NOW.
#[test]
fn an_exhausted_quota_is_skipped_until_its_reset_time() {
    let chain = Chain::new(
        CLAUDE_OUT_OF_QUOTA,
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"]}}}),
    );
    let at = |now: &str, prompt: &str| {
        let mut cmd = chain.command(&["--chain", "main"], prompt);
        cmd.env("AGENTGATE_NOW", now);
        let run = run_bounded(cmd, LIMIT);
        let env =
            last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope:\n{}", run.all_output()));
        (run, env)
    };
    let (run, env) = at("2029-12-31T20:00:00Z", QUOTA_RUN);
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "codex answers");
    assert_eq!(attempts(&env)[0]["error_type"], "quota");
    assert_eq!(attempts(&env)[0]["reset_at"], QUOTA_RESET);
    let anthropic_calls = || chain.apis().iter().filter(|a| *a == "anthropic").count();
    let before = anthropic_calls();
    assert!(before >= 1);

    // Before the reset: Claude is not run at all.
    let (run, env) = at("2029-12-31T23:00:00Z", "do the task");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "codex answers");
    let a = attempts(&env);
    assert_eq!(a[0]["skipped"], true, "{a:#?}");
    assert_eq!(a[0]["error_type"], "quota");
    assert_eq!(anthropic_calls(), before, "claude was called");
    // Said by a `skipped` status event with the reset time.
    let skip = assert_skipped_first(chain.store(), &env, "claude", "claude", "quota");
    assert_eq!(skip["reset_at"], QUOTA_RESET, "{skip:#}");
    assert!(
        skip["message"].as_str().unwrap().starts_with(&format!(
            "skipped claude: its quota is exhausted until {QUOTA_RESET}"
        )),
        "{skip:#}"
    );

    // --ignore-quota runs it anyway.
    let mut cmd = chain.command(&["--chain", "main", "--ignore-quota"], "do the task");
    cmd.env("AGENTGATE_NOW", "2029-12-31T23:30:00Z");
    let run = run_bounded(cmd, LIMIT);
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{}", run.all_output()));
    assert_eq!(attempts(&env)[0]["skipped"], false, "{env:#}");
    let after_ignore = anthropic_calls();
    assert!(after_ignore > before, "--ignore-quota did not run claude");
    let before = after_ignore;

    // After it: Claude is tried again.
    let (run, env) = at("2030-01-01T01:00:00Z", "do the task");
    assert!(anthropic_calls() > before, "claude was not tried: {env:#}");
    assert!(
        !attempts(&env)[0]["skipped"].as_bool().unwrap_or(false),
        "{env:#}\n{}",
        run.stderr
    );
}

/// An answer that fails --output-schema is invalid_output, and the chain
/// moves on to an agent whose answer fits.
#[test]
fn an_answer_that_fails_the_schema_hands_on() {
    let chain = Chain::new(
        "turns:\n  \
         - match: {api: anthropic}\n    repeat: true\n    text: \"I think the priority is high.\"\n  \
         - match: {api: responses}\n    repeat: true\n    text: \"{\\\"priority\\\": \\\"high\\\"}\"\n",
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"]}}}),
    );
    let schema = chain.scratch().join("schema.json");
    std::fs::write(
        &schema,
        json!({
            "type": "object",
            "properties": {"priority": {"enum": ["low", "high"]}},
            "required": ["priority"],
            "additionalProperties": false
        })
        .to_string(),
    )
    .unwrap();
    let (run, env) = chain.run(
        &[
            "--chain",
            "main",
            "--output-schema",
            schema.to_str().unwrap(),
        ],
        "classify this ticket",
    );
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["structured_output"], json!({"priority": "high"}));
    let a = attempts(&env);
    assert_eq!(a[0]["error_type"], "invalid_output", "{a:#?}");
    assert_eq!(a[1]["provider"], "codex");
}

/// `--handoff summary` gives the next agent the failed attempt's transcript.
#[test]
fn handoff_summary_reaches_the_next_agent() {
    let chain = Chain::new(
        "turns:\n  \
         - match: {api: anthropic, tool_result: false}\n    text: \"Checking the logs first.\"\n    tool_call: {name: shell, command: \"echo LOG-LINE-4242\"}\n  \
         - match: {api: anthropic, tool_result: true}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n  \
         - match: {api: responses}\n    repeat: true\n    text: \"codex took over\"\n",
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"], "handoff": "summary"}}}),
    );
    let (run, env) = chain.run(&["--chain", "main"], "investigate the outage");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let texts = chain.server.last_turn_texts().join("\n");
    assert!(texts.contains("A previous agent (claude)"), "{texts}");
    assert!(texts.contains("LOG-LINE-4242"), "{texts}");
    assert!(texts.contains("investigate the outage"), "{texts}");
}

/// A `classify` agent that changes files fails with invalid_output.
#[test]
fn a_classify_agent_must_not_edit_files() {
    let chain = Chain::new(
        "turns:\n  \
         - match: {tool_result: false}\n    tool_call: {name: shell, command: \"echo x > edited.txt\"}\n  \
         - match: {tool_result: true}\n    repeat: true\n    text: \"done\"\n",
        &[Cli::Claude],
        json!({"claude": {"mode": "classify", "permission_mode": "bypass"}}),
        json!({}),
    );
    let (run, env) = chain.run(&["--agent", "claude"], "label this");
    assert_eq!(
        env["error_type"], "invalid_output",
        "{env:#}\n{}",
        run.stderr
    );
    let error = env["error"].as_str().unwrap();
    assert!(
        error.contains("edited.txt") && error.contains("classify"),
        "{error}"
    );
}

/// An `edit` agent may change files only under its `allow` paths.
#[test]
fn an_edit_agent_stays_inside_its_allowlist() {
    let edit = |command: &str| {
        let chain = Chain::new(
            &format!(
                "turns:\n  \
                 - match: {{tool_result: false}}\n    tool_call: {{name: shell, command: \"{command}\"}}\n  \
                 - match: {{tool_result: true}}\n    repeat: true\n    text: \"done\"\n"
            ),
            &[Cli::Claude],
            json!({"claude": {"mode": "edit", "allow": ["src"], "permission_mode": "bypass"}}),
            json!({}),
        );
        let (run, env) = chain.run(&["--agent", "claude"], "fix it");
        (chain, run, env)
    };
    let (chain, run, env) = edit("mkdir -p src && echo x > src/fixed.txt");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert!(chain.cwd().join("src/fixed.txt").exists());
    let (_chain, _run, env) = edit("echo x > outside.txt");
    assert_eq!(env["error_type"], "invalid_output", "{env:#}");
    let error = env["error"].as_str().unwrap();
    assert!(
        error.contains("outside.txt") && error.contains("may change only src"),
        "{error}"
    );
}

/// The persona of an agent file is sent on the first turn of a session and
/// not again when it resumes.
#[test]
fn the_persona_is_not_resent_on_resume() {
    let chain = Chain::new("turns: []\n", &[Cli::Claude], json!({}), json!({}));
    let file = chain.scratch().join("agents.md");
    std::fs::write(
        &file,
        "Shared rules: be brief.\n\n## Reviewer: strict\nPERSONA-REVIEWER-77\n\n## Writer\nPERSONA-WRITER-12\n",
    )
    .unwrap();
    let args = [
        "--agent",
        "claude",
        "--agent-file",
        file.to_str().unwrap(),
        "--persona",
        "rev",
        "--session",
        "s1",
    ];
    let (run, env) = chain.run(&args, "first question");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let first = chain.server.last_turn_texts().join("\n");
    assert!(first.contains("PERSONA-REVIEWER-77"), "{first}");
    assert!(!first.contains("PERSONA-WRITER-12"), "{first}");
    assert!(first.contains("Do not ask for user input"), "{first}");
    let (run, env) = chain.run(&args, "second question");
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    let texts = chain.server.last_turn_texts();
    let last = texts.last().unwrap();
    assert!(last.contains("second question"), "{texts:?}");
    assert!(!last.contains("PERSONA-REVIEWER-77"), "{texts:?}");
}

/// Both migration formats load and run: a cli_agents.yaml (its agents make
/// the `default` chain) and a providers.yaml (aliases and default_model).
#[test]
fn the_migration_formats_load_and_run() {
    let server = FakeServer::start(
        "turns:\n  \
         - match: {api: anthropic}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n  \
         - match: {api: responses}\n    repeat: true\n    text: \"second agent answers\"\n",
    );
    let claude = Client::new(Cli::Claude, &server);
    let codex = Client::new(Cli::Codex, &server);
    let dir = tempfile::tempdir().unwrap();
    let env_yaml = |c: &Client| {
        c.setup
            .env
            .iter()
            .map(|(k, v)| format!("      {k}: {}\n", json!(v)))
            .collect::<String>()
    };
    let cli_agents = format!(
        "version: 1\nagents:\n  \
         - name: claude-code\n    provider: claude\n    mode: edit\n    command: [{claude_bin}, \"-p\", \"{{{{prompt}}}}\"]\n    model_thinking: {model}\n    working_dir: {cwd}\n    timeout_s: 120\n    env:\n{claude_env}    retry_on:\n      - rate_limited\n      - allowance_exceeded\n  \
         - name: codex\n    provider: codex\n    mode: edit\n    command: [{codex_bin}, \"exec\", \"{{{{prompt}}}}\"]\n    working_dir: {cwd}\n    timeout_s: 120\n    env:\n{codex_env}",
        claude_bin = json!(claude.program.display().to_string()),
        codex_bin = json!(codex.program.display().to_string()),
        model = json!(claude.setup.model),
        cwd = json!(claude.setup.workdir.display().to_string()),
        claude_env = env_yaml(&claude),
        codex_env = env_yaml(&codex),
    );
    let path = dir.path().join("cli_agents.yaml");
    std::fs::write(&path, &cli_agents).unwrap();
    let store = tempfile::tempdir().unwrap();
    let run = run_bounded(
        plain_run(&path, store.path(), &["--max-provider-retries", "1"]),
        LIMIT,
    );
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "second agent answers");
    assert_eq!(env["chain"], "default");
    let names: Vec<&str> = attempts(&env)
        .iter()
        .map(|a| a["agent"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["claude-code", "codex"]);

    // providers.yaml: `fast` is an alias of the model the fake serves.
    let providers = format!(
        "claude:\n  default_model: {model}\n  models:\n    fast: {model}\n",
        model = claude.setup.model
    );
    let path = dir.path().join("providers.yaml");
    std::fs::write(&path, providers).unwrap();
    let server2 = FakeServer::start("turns:\n  - repeat: true\n    text: \"aliased\"\n");
    let claude2 = Client::new(Cli::Claude, &server2);
    let mut cmd = plain_run(
        &path,
        store.path(),
        &["--provider", "claude", "--model", "fast"],
    );
    cmd.arg("--binary").arg(&claude2.program);
    cmd.envs(claude2.env_pairs());
    cmd.current_dir(&claude2.setup.workdir);
    let run = run_bounded(cmd, LIMIT);
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "aliased");
    assert_eq!(
        env["model_resolution"],
        format!("claude model 'fast' -> '{}' (alias)", claude2.setup.model)
    );
    assert_eq!(
        server2.turn_requests().last().unwrap()["model"],
        claude2.setup.model
    );
}

fn plain_run(config: &Path, store: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.arg("--config")
        .arg(config)
        .args(["run", "--compact", "--yolo"])
        .args(args)
        .arg("do the task")
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", store)
        .env("AGENTGATE_HOME", store)
        .stdin(std::process::Stdio::null());
    cmd
}

fn agentgate(home: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .env("AGENTGATE_HOME", home)
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, Duration::from_secs(60))
}

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@localhost"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
