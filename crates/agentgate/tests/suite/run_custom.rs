//! A provider described purely in the config file: Claude Code, run for
//! real against `agentgate fake-llm`, must give the same envelope as the
//! built-in claude adapter on the same scripted turn (text, tool, resume,
//! errors). Also: config errors, discovery, and `agentgate providers`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::{Gate, last_json};
use super::support::{Client, FakeServer, Run, cli_program, run_bounded};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(180);
const NAME: &str = "claude-cfg";

/// Claude Code, described in config. `binary` is the `binary:` line (the
/// command's first element, `claude`, when `None`).
fn claude_config(binary: Option<&Path>) -> String {
    let mut yaml = format!(
        r#"version: 1
providers:
  {NAME}:
    command: [claude, -p, --output-format, stream-json, --verbose, [--model, "{{model}}"], [--append-system-prompt, "{{system}}"]]
    prompt: stdin
    resume: [--resume, "{{session}}"]
    permission_modes:
      default: [--permission-mode, default]
      plan: [--permission-mode, plan]
      accept_edits: [--permission-mode, acceptEdits]
      bypass: [--permission-mode, bypassPermissions]
    output: jsonl
    final: {{type: result}}
    text: /result
    message: {{match: {{type: assistant}}, text: /message/content/0/text}}
    session_id: /session_id
    usage:
      input_tokens: [/usage/input_tokens, /usage/cache_read_input_tokens, /usage/cache_creation_input_tokens]
      output_tokens: /usage/output_tokens
      cache_read_input_tokens: /usage/cache_read_input_tokens
      cache_creation_input_tokens: /usage/cache_creation_input_tokens
      cost_usd: /total_cost_usd
    error: {{message: /result, status: /api_error_status, is_error: /is_error}}
    tool_use:
      match: {{type: assistant, /message/content/0/type: tool_use}}
      id: /message/content/0/id
      name: /message/content/0/name
      input: /message/content/0/input
    tool_result:
      match: {{type: user, /message/content/0/type: tool_result}}
      id: /message/content/0/tool_use_id
      output: /message/content/0/content
      is_error: /message/content/0/is_error
    env: {{IS_SANDBOX: "1"}}
"#
    );
    if let Some(b) = binary {
        yaml.push_str(&format!("    binary: {}\n", b.display()));
    }
    yaml
}

/// `agentgate run --provider claude-cfg --config FILE` of the real Claude
/// Code pointed at a fake-llm, with its own store.
struct Custom {
    client: Client,
    store: tempfile::TempDir,
    config: PathBuf,
    _dir: tempfile::TempDir,
}

impl Custom {
    fn new(server: &FakeServer, yaml: &str) -> Custom {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("agentgate.yaml");
        std::fs::write(&config, yaml).unwrap();
        Custom {
            client: Client::new(Cli::Claude, server),
            store: tempfile::tempdir().unwrap(),
            config,
            _dir: dir,
        }
    }

    fn command(&self, extra: &[&str], prompt: &str) -> Command {
        let mut cmd = self.client.agentgate();
        cmd.args(["run", "--provider", NAME, "--yolo", "--compact"])
            .arg("--config")
            .arg(&self.config)
            .args(["--model", &self.client.setup.model])
            .args(extra)
            .arg(prompt)
            .env("AGENTGATE_HOME", self.store.path());
        cmd
    }

    fn run(&self, extra: &[&str], prompt: &str) -> (Run, Value) {
        let run = run_bounded(self.command(extra, prompt), LIMIT);
        let envelope = last_json(&run.stdout)
            .unwrap_or_else(|| panic!("no envelope on stdout:\n{}", run.all_output()));
        (run, envelope)
    }
}

fn ok(run: &Run, env: &Value) {
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert!(env.get("error_type").is_none(), "{env:#}");
    assert_eq!(env["provider"], NAME);
    assert!(env["session_id"].is_string(), "no session id: {env:#}");
    assert_eq!(env["attempts"].as_array().unwrap().len(), 1);
}

/// The same scripted turn through the built-in adapter and through the
/// config description, each against its own fresh server.
fn both(script: &str, extra: &[&str], prompt: &str) -> ((Run, Value), (Run, Value)) {
    let server = FakeServer::start(script);
    let builtin = Gate::new(Cli::Claude, &server).run(extra, prompt);
    let server = FakeServer::start(script);
    let custom =
        Custom::new(&server, &claude_config(Some(&cli_program(Cli::Claude)))).run(extra, prompt);
    (builtin, custom)
}

/// The envelope fields that must agree between the two adapters.
fn same_envelope(builtin: &Value, custom: &Value) {
    assert_eq!(custom["response"], builtin["response"], "{custom:#}");
    assert_eq!(
        custom["session_id"].is_string(),
        builtin["session_id"].is_string()
    );
    for key in [
        "input_tokens",
        "output_tokens",
        "total_tokens",
        "cache_read_input_tokens",
        "cache_creation_input_tokens",
        "cost_usd",
    ] {
        assert_eq!(
            custom["tokens_used"][key], builtin["tokens_used"][key],
            "tokens_used.{key}: builtin {builtin:#}\ncustom {custom:#}"
        );
    }
    assert_eq!(
        custom["metadata"]["token_usage_available"],
        builtin["metadata"]["token_usage_available"]
    );
    let (c, b) = (
        &custom["metadata"]["tool_activity"],
        &builtin["metadata"]["tool_activity"],
    );
    for key in [
        "call_count",
        "write_count",
        "error_count",
        "tool_names",
        "result_classes",
        "activity_class",
    ] {
        assert_eq!(c[key], b[key], "tool_activity.{key}: {custom:#}");
    }
    for key in ["error_type", "recoverable", "exit_code"] {
        assert_eq!(custom.get(key), builtin.get(key), "{key}: {custom:#}");
    }
}

#[test]
fn text_turn_matches_the_builtin_adapter() {
    let script = "turns:\n  - match: {contains: \"capital\"}\n    text: \"Paris is the capital.\"\n    usage: {input: 1000, output: 50, cache_read: 200, cache_write: 30}\n";
    let ((_, builtin), (run, custom)) = both(script, &[], "What is the capital of France?");
    ok(&run, &custom);
    assert_eq!(custom["response"], "Paris is the capital.");
    assert_eq!(custom["tokens_used"]["input_tokens"], 1230, "{custom:#}");
    assert_eq!(custom["tokens_used"]["output_tokens"], 50, "{custom:#}");
    same_envelope(&builtin, &custom);
    // The model comes from --model, since the description reports none.
    assert_eq!(custom["model"], builtin["model"]);
    assert_eq!(
        custom["metadata"]["reasoning_absent_reason"], "not_exposed",
        "{custom:#}"
    );
}

#[test]
fn tool_turn_runs_the_tool_and_answers_with_the_final_text() {
    let script = r#"turns:
  - match: {contains: "marker", tool_result: false}
    text: "Running it."
    tool_call: {name: shell, command: "echo agentgate > marker.txt"}
  - match: {tool_result: true}
    text: "Marker written."
"#;
    let server = FakeServer::start(script);
    let builtin = Gate::new(Cli::Claude, &server).run(&[], "Please create the marker file.");
    let server = FakeServer::start(script);
    // No `binary:` in the config: --binary names the executable.
    let custom = Custom::new(&server, &claude_config(None));
    let program = cli_program(Cli::Claude);
    let (run, env) = custom.run(
        &["--binary", program.to_str().unwrap()],
        "Please create the marker file.",
    );
    ok(&run, &env);
    assert_eq!(env["response"], "Marker written.");
    assert_eq!(
        std::fs::read_to_string(custom.client.setup.workdir.join("marker.txt")).unwrap(),
        "agentgate\n"
    );
    same_envelope(&builtin.1, &env);
    assert_eq!(env["metadata"]["tool_activity"]["call_count"], 1, "{env:#}");
    assert_eq!(
        env["metadata"]["tool_activity"]["tool_names"],
        serde_json::json!(["Bash"])
    );
    // The run's events streamed both messages, as `message` events.
    let run_id = env["run_id"].as_str().unwrap();
    let mut show = Command::new(AGENTGATE);
    show.args(["runs", "show", run_id, "--events"])
        .env("AGENTGATE_HOME", custom.store.path());
    let shown = run_bounded(show, Duration::from_secs(30));
    let messages: Vec<String> = shown
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "message")
        .map(|e| e["text"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        messages,
        ["Running it.", "Marker written."],
        "{}",
        shown.stdout
    );
}

#[test]
fn session_resumes_by_name_and_by_id() {
    let server = FakeServer::start(
        "turns:\n  - match: {contains: \"first\"}\n    text: \"One.\"\n    usage: {input: 100, output: 10}\n  - match: {contains: \"second\"}\n    repeat: true\n    text: \"Two.\"\n    usage: {input: 300, output: 20}\n",
    );
    let custom = Custom::new(&server, &claude_config(Some(&cli_program(Cli::Claude))));
    let (run1, env1) = custom.run(&["--session", "work"], "the first turn");
    ok(&run1, &env1);
    let (run2, env2) = custom.run(&["--session", "work"], "the second turn");
    ok(&run2, &env2);
    assert_eq!(env2["response"], "Two.");
    assert_eq!(
        env1["session_id"], env2["session_id"],
        "the session changed"
    );
    assert_eq!(env2["session_recreated"], false);
    // The second request carried the first turn.
    let texts = server.last_turn_texts();
    assert!(
        texts.iter().any(|t| t.contains("the first turn")),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t.contains("One.")), "{texts:?}");
    // --resume takes the native id directly.
    let id = env1["session_id"].as_str().unwrap();
    let (run3, env3) = custom.run(&["--resume", id], "the second turn again");
    ok(&run3, &env3);
    assert_eq!(env3["session_id"], env1["session_id"]);
    assert_eq!(server.turn_requests().len(), 3);
}

#[test]
fn scripted_errors_are_typed_like_the_builtin_adapter() {
    for (error, kind, recoverable, exit) in [
        ("kind: rate_limit", "rate_limit", true, 75),
        ("kind: auth", "auth", false, 1),
    ] {
        let script = format!("turns:\n  - repeat: true\n    error: {{{error}, retry_after: 0}}\n");
        let ((_, builtin), (run, custom)) = both(&script, &[], "trigger");
        assert_eq!(
            custom["error_type"], kind,
            "{error}: {custom:#}\n{}",
            run.stderr
        );
        assert_eq!(custom["recoverable"], recoverable, "{custom:#}");
        assert_eq!(run.code, Some(exit), "{custom:#}");
        assert_eq!(custom["exit_code"], exit);
        assert!(custom["error"].as_str().is_some_and(|e| !e.is_empty()));
        same_envelope(&builtin, &custom);
    }
}

/// `agentgate` with a cleared environment, in `cwd`.
fn agentgate(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(args)
        .env_clear()
        .envs(env.iter().copied())
        .current_dir(cwd)
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, Duration::from_secs(60))
}

#[test]
fn a_typo_in_the_config_fails_the_run_naming_the_key_and_the_line() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agentgate.yaml");
    let yaml = claude_config(None).replace("    output: jsonl\n", "    ouptut: jsonl\n");
    let line = yaml.lines().position(|l| l.contains("ouptut")).unwrap() + 1;
    std::fs::write(&config, &yaml).unwrap();
    let home = dir.path().to_str().unwrap();
    let run = agentgate(
        &[
            "run",
            "--provider",
            NAME,
            "--config",
            config.to_str().unwrap(),
            "hello",
        ],
        dir.path(),
        &[("HOME", home)],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("unknown field `ouptut`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&format!("line {line} column 5")),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(config.to_str().unwrap()),
        "{}",
        run.stderr
    );
    // Found by discovery (no --config), the same file fails the same way,
    // whatever provider is asked for.
    let run = agentgate(
        &["run", "--provider", "claude", "hello"],
        dir.path(),
        &[("HOME", home)],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("unknown field `ouptut`"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_missing_config_file_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().to_str().unwrap();
    let missing = dir.path().join("nope.yaml");
    let run = agentgate(
        &[
            "run",
            "--provider",
            NAME,
            "--config",
            missing.to_str().unwrap(),
            "hello",
        ],
        dir.path(),
        &[("HOME", home)],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains(&format!(
            "the config file {} given by --config does not exist",
            missing.display()
        )),
        "{}",
        run.stderr
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let run = agentgate(
        &["providers"],
        dir.path(),
        &[
            ("HOME", home),
            ("AGENTGATE_CONFIG", missing.to_str().unwrap()),
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("given by AGENTGATE_CONFIG"),
        "{}",
        run.stderr
    );
    // An unknown provider names what the config describes.
    let run = agentgate(
        &["run", "--provider", "nonesuch", "hello"],
        dir.path(),
        &[("HOME", home)],
    );
    assert_eq!(run.code, Some(2));
    assert!(
        run.stderr.contains("unknown provider `nonesuch`"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("no config file was found"),
        "{}",
        run.stderr
    );
}

fn listing(run: &Run) -> Value {
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    serde_json::from_str(&run.stdout).unwrap()
}

fn entry<'a>(list: &'a Value, name: &str) -> &'a Value {
    list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("{name} not listed: {list:#}"))
}

#[test]
fn providers_lists_builtins_and_config_providers() {
    let dir = tempfile::tempdir().unwrap();
    let claude = cli_program(Cli::Claude);
    let yaml = format!(
        "{}  ghost:\n    command: [agentgate-no-such-cli, \"{{prompt}}\"]\n",
        claude_config(Some(&claude))
    );
    // Found by discovery: agentgate.yaml in an ancestor of the working dir.
    std::fs::write(dir.path().join("agentgate.yaml"), &yaml).unwrap();
    let sub = dir.path().join("sub");
    std::fs::create_dir(&sub).unwrap();
    let empty_path = dir.path().join("empty-bin");
    std::fs::create_dir(&empty_path).unwrap();
    let env = [
        ("HOME", dir.path().to_str().unwrap()),
        ("PATH", empty_path.to_str().unwrap()),
    ];
    let list = listing(&agentgate(&["providers", "--json"], &sub, &env));
    assert_eq!(list["config"]["found_by"], "project", "{list:#}");
    assert_eq!(
        list["config"]["path"],
        dir.path().join("agentgate.yaml").to_str().unwrap()
    );
    let names: Vec<&str> = list["providers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        [
            "claude", "codex", "gemini", "qwen", "opencode", "cursor", "agy", NAME, "ghost"
        ]
    );
    let builtin = entry(&list, "claude");
    assert_eq!(builtin["adapter_kind"], "builtin");
    assert_eq!(builtin["verification"], "live CLI");
    assert_eq!(builtin["features"]["reasoning"], true);
    // PATH has no claude: the built-in's binary is not found.
    assert_eq!(builtin["binary_found"], false);
    assert_eq!(builtin["binary"], Value::Null);
    let custom = entry(&list, NAME);
    assert_eq!(custom["adapter_kind"], "config");
    assert_eq!(custom["verification"], "described in config");
    assert_eq!(custom["binary_found"], true);
    assert_eq!(custom["binary"], claude.to_str().unwrap());
    assert_eq!(custom["binary_env"], "AGENTGATE_CLAUDE_CFG_BIN");
    assert_eq!(
        custom["features"],
        serde_json::json!({"streaming": true, "resume": true, "reasoning": false,
                           "usage": true, "cost": true, "permission_modes": true})
    );
    let ghost = entry(&list, "ghost");
    assert_eq!(ghost["binary_found"], false);
    assert_eq!(ghost["binary_name"], "agentgate-no-such-cli");
    assert_eq!(ghost["features"]["streaming"], false);
    // The table says the same for people.
    let table = agentgate(&["providers"], &sub, &env);
    assert_eq!(table.code, Some(0), "{}", table.all_output());
    let ghost_row = table
        .stdout
        .lines()
        .find(|l| l.starts_with("ghost "))
        .unwrap_or_else(|| panic!("{}", table.stdout));
    assert!(ghost_row.contains("config"), "{ghost_row}");
    assert!(ghost_row.contains("not found"), "{ghost_row}");
    assert!(ghost_row.contains("described in config"), "{ghost_row}");
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.starts_with("claude ") && l.contains("builtin"))
    );
    // The variable wins over discovery; --config over both.
    let other = dir.path().join("other.yaml");
    std::fs::write(&other, "version: 1\n").unwrap();
    let by_env = [
        env[0],
        env[1],
        ("AGENTGATE_CONFIG", other.to_str().unwrap()),
    ];
    let list = listing(&agentgate(&["providers", "--json"], &sub, &by_env));
    assert_eq!(list["config"]["found_by"], "env");
    assert_eq!(list["providers"].as_array().unwrap().len(), 7);
    let list = listing(&agentgate(
        &[
            "--config",
            dir.path().join("agentgate.yaml").to_str().unwrap(),
            "providers",
            "--json",
        ],
        &sub,
        &by_env,
    ));
    assert_eq!(list["config"]["found_by"], "flag");
    assert_eq!(list["providers"].as_array().unwrap().len(), 9);
}

/// A text CLI with the prompt in argv: the whole stdout is the answer, and
/// a failure is classified from its exit status and output.
#[test]
fn a_text_cli_with_the_prompt_in_argv() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        r#"version: 1
providers:
  echoer:
    command: [sh, -c, 'printf "You said: %s\n\n(%s)\n" "$1" "$2"', sh, "{prompt}", [--model, "{model}"]]
  limited:
    command: [sh, -c, 'echo "Error: 429 Too Many Requests" >&2; exit 1', sh, "{prompt}"]
"#,
    )
    .unwrap();
    let env = [
        ("HOME", dir.path().to_str().unwrap()),
        ("PATH", "/usr/bin:/bin"),
        ("AGENTGATE_HOME", dir.path().to_str().unwrap()),
    ];
    let cfg = config.to_str().unwrap();
    let run = agentgate(
        &[
            "run",
            "--config",
            cfg,
            "-p",
            "echoer",
            "--compact",
            "-m",
            "m1",
            "--no-unattended-instruction",
            "hello there",
        ],
        dir.path(),
        &env,
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let env_ok = last_json(&run.stdout).unwrap();
    assert_eq!(env_ok["response"], "You said: hello there\n\n(--model)");
    assert_eq!(env_ok["metadata"]["token_usage_available"], false);
    assert!(
        env_ok["tokens_used"]["estimated_output_tokens"]
            .as_u64()
            .unwrap()
            > 0
    );
    let run = agentgate(
        &["run", "--config", cfg, "-p", "limited", "--compact", "hi"],
        dir.path(),
        &env,
    );
    let failed = last_json(&run.stdout).unwrap();
    assert_eq!(failed["error_type"], "rate_limit", "{failed:#}");
    assert_eq!(run.code, Some(75), "{failed:#}");
    assert!(
        failed["stderr_tail"]
            .as_str()
            .unwrap()
            .contains("Too Many Requests")
    );
    // What the description cannot do is refused before anything runs.
    let run = agentgate(
        &[
            "run",
            "--config",
            cfg,
            "-p",
            "limited",
            "--compact",
            "--resume",
            "S1",
            "hi",
        ],
        dir.path(),
        &env,
    );
    let refused = last_json(&run.stdout).unwrap();
    assert_eq!(run.code, Some(2), "{refused:#}");
    assert_eq!(refused["error_type"], "invalid_input");
    assert!(
        refused["error"]
            .as_str()
            .unwrap()
            .contains("limited cannot resume a session"),
        "{refused:#}"
    );
}

/// `agentgate parse` decodes a saved capture through the description, as
/// the docs' step-by-step recipe says.
#[test]
fn parse_decodes_a_capture_through_the_description() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("agentgate.yaml");
    std::fs::write(&config, claude_config(None)).unwrap();
    let capture = super::support::workspace_root()
        .join("crates/agentgate-providers/tests/fixtures/decode/claude/err_401_stream_json.stdout");
    let run = agentgate(
        &[
            "--config",
            config.to_str().unwrap(),
            "parse",
            "--provider",
            NAME,
            "--exit-code",
            "1",
            capture.to_str().unwrap(),
        ],
        dir.path(),
        &[("HOME", dir.path().to_str().unwrap())],
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let env: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(env["provider"], NAME);
    assert_eq!(env["error_type"], "auth", "{env:#}");
    assert_eq!(env["exit_code"], 1);
    assert_eq!(env["session_id"], "293ddc6e-9450-4e9e-9ae6-dfd7c60d0df5");
}
