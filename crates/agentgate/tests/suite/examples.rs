//! Every file of `examples/` (and every library example of a crate), used
//! the way its comments and the docs say: the config files run their agents
//! with the REAL Claude Code, Codex and Gemini CLI against `agentgate
//! fake-llm`, and with stand-ins (on `PATH`) for the CLIs the examples name
//! that no test can install (`mycli`, `ollama`); the tool registry is
//! listed, checked and run as the tools guide (`docs/guide/tools.md`) shows; the library example is
//! compiled by cargo and run as its doc comment says. The systemd units are
//! `examples_systemd.rs`'s; the host they run on, `examples_host.rs`'s. A
//! file added to `examples/` without a test here fails
//! `every_example_has_a_test`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::examples_host::{Host, LIMIT, envelope_ok, notices, tried};
use super::support::{run_bounded, workspace_root};

/// The examples and what covers each (a test of this file, or of
/// `examples_systemd.rs`).
const COVERED: &[(&str, &str)] = &[
    (
        "examples/agentgate.yaml",
        "agentgate_yaml_runs_every_agent_and_its_documented_commands",
    ),
    (
        "examples/cli_agents.yaml",
        "cli_agents_yaml_runs_by_a_relative_name_as_its_comment_says",
    ),
    (
        "examples/providers.yaml",
        "providers_yaml_resolves_each_providers_aliases",
    ),
    (
        "examples/tools/word_count/cli.sh",
        "the_tool_registry_runs_as_the_readme_shows",
    ),
    (
        "examples/tools/registry/word_count/tool.yaml",
        "the_tool_registry_runs_as_the_readme_shows",
    ),
    (
        "examples/tools/registry/error_codes.yaml",
        "the_tool_registry_runs_as_the_readme_shows",
    ),
    (
        "examples/systemd/agentgate-serve.service",
        "examples_systemd::the_units_run_serve_and_a_worker_on_one_queue",
    ),
    (
        "examples/systemd/agentgate-worker.service",
        "examples_systemd::the_units_run_serve_and_a_worker_on_one_queue",
    ),
    (
        "crates/agentgate-core/examples/run_chain.rs",
        "the_library_example_is_compiled_and_runs_a_chain",
    ),
];

#[test]
fn every_example_has_a_test() {
    let root = workspace_root();
    let mut found = Vec::new();
    walk(&root.join("examples"), &root, &mut found);
    for krate in std::fs::read_dir(root.join("crates")).unwrap() {
        let dir = krate.unwrap().path().join("examples");
        if dir.is_dir() {
            walk(&dir, &root, &mut found);
        }
    }
    found.sort();
    let mut covered: Vec<String> = COVERED.iter().map(|(f, _)| (*f).to_owned()).collect();
    covered.sort();
    assert_eq!(
        found, covered,
        "every example needs a test that uses it as its comments say: add it to COVERED with its test"
    );
}

fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            walk(&path, root, out);
        } else {
            out.push(path.strip_prefix(root).unwrap().display().to_string());
        }
    }
}

const AGENTGATE_YAML_SCRIPT: &str = r#"turns:
  - match: {api: anthropic, contains: "Fix the failing test"}
    repeat: true
    error: {kind: rate_limit, retry_after: 0}
  - match: {api: responses}
    repeat: true
    error: {kind: rate_limit, retry_after: 0}
  - match: {api: gemini}
    text: "gemini-fixer fixed it"
  - match: {api: anthropic, contains: "Triage this issue"}
    text: "triage: a bug in the parser"
"#;

/// "Put it at agentgate.yaml in your project": found by discovery; `config
/// check` and docs/config.md's `config show`; the chain `fix` fails over
/// from Claude (fixer) and Codex (codex-fixer) to Gemini (gemini-fixer);
/// the chain `triage` answers from Claude in plan mode; the agent `local`
/// runs `mycli` as its description says. Every model is the one the
/// file's aliases name.
#[test]
fn agentgate_yaml_runs_every_agent_and_its_documented_commands() {
    let host = Host::new(AGENTGATE_YAML_SCRIPT);
    host.stand_in("mycli", "mycli summarised it");
    let work = host.work();
    host.copy_example("agentgate.yaml", &work);
    // gemini's `extra_args: [--include-directories, ../shared]`.
    std::fs::create_dir_all(host.root().join("shared")).unwrap();
    let sub = work.join("src");
    std::fs::create_dir_all(&sub).unwrap();

    let check = host.agentgate(&sub, &["config", "check"]);
    assert_eq!(check.code, Some(0), "{}", check.all_output());
    let file = work.join("agentgate.yaml");
    assert!(
        check.stdout.starts_with(&format!(
            "ok: {} (native, found by project)",
            file.display()
        )),
        "{}",
        check.stdout
    );
    config_show_is_as_documented(&host);

    let fix = host.agentgate(&work, &["run", "--chain", "fix", "Fix the failing test"]);
    let env = envelope_ok("chain fix", &fix);
    assert_eq!(env["response"], "gemini-fixer fixed it", "{env:#}");
    assert_eq!(
        (&env["chain"], &env["agent"]),
        (&Value::from("fix"), &Value::from("gemini-fixer"))
    );
    let rate_limit = Value::from("rate_limit");
    assert_eq!(
        tried(&env),
        [
            ("claude".to_owned(), rate_limit.clone()),
            ("codex".to_owned(), rate_limit),
            ("gemini".to_owned(), Value::Null),
        ]
    );
    // Aliases: fixer's `model_thinking: opus`, codex's `default_model: gpt`.
    // The model a CLI requests is the one the file names: Claude Code
    // replaces a retired id with its successor (it sent claude-opus-4-8 for
    // the claude-opus-4-1 these examples named).
    assert!(
        host.models("anthropic")
            .iter()
            .all(|m| m == "claude-opus-4-8"),
        "{:?}",
        host.models("anthropic")
    );
    assert!(
        host.models("responses").iter().all(|m| m == "gpt-5-codex"),
        "{:?}",
        host.models("responses")
    );
    assert_eq!(host.models("gemini"), ["gemini-2.5-pro"]);

    let triage = host.agentgate(&work, &["run", "--chain", "triage", "Triage this issue"]);
    let env = envelope_ok("chain triage", &triage);
    assert_eq!(env["response"], "triage: a bug in the parser", "{env:#}");
    assert_eq!(env["agent"], "triage");
    assert_eq!(env["model"], "claude-haiku-4-5");

    let local = host.agentgate(&work, &["run", "--agent", "local", "Summarise the notes"]);
    let env = envelope_ok("agent local", &local);
    assert_eq!(env["response"], "mycli summarised it", "{env:#}");
    let args = host.stand_in_args("mycli");
    assert_eq!(
        args[..3],
        ["--print", "--model", "mycli-fast-1"],
        "{args:?}"
    );
    assert!(args[3].starts_with("Summarise the notes"), "{args:?}");
}

/// docs/config.md's `config show` block, run as written from the
/// repository's root: each line it shows (not the `...`) is a line of the
/// output, `/repo` being the root.
fn config_show_is_as_documented(host: &Host) {
    let root = workspace_root();
    let doc = std::fs::read_to_string(root.join("docs/config.md")).unwrap();
    let block = doc
        .split("```\n$ cd /repo && agentgate --config examples/agentgate.yaml config show\n")
        .nth(1)
        .and_then(|rest| rest.split("\n```").next())
        .expect("docs/config.md shows `config show` on examples/agentgate.yaml");
    let shown = host.agentgate(
        &root,
        &["--config", "examples/agentgate.yaml", "config", "show"],
    );
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    let root_text = root.display().to_string();
    for line in block.lines().filter(|l| *l != "...") {
        let want = line.replace("/repo", &root_text);
        assert!(
            shown.stdout.lines().any(|l| l == want),
            "docs/config.md shows {want:?}, `config show` printed:\n{}",
            shown.stdout
        );
    }
}

const CLI_AGENTS_SCRIPT: &str = r#"turns:
  - match: {api: anthropic}
    repeat: true
    error: {kind: rate_limit, retry_after: 0}
  - match: {api: responses}
    repeat: true
    error: {kind: rate_limit, retry_after: 0}
"#;

/// "Use it with `agentgate --config cli_agents.yaml`", from the file's own
/// folder: the chain `default` tries claude-main (its `working_dir: .` is
/// that folder), codex-backup, then local-llm (`ollama`, a stand-in), whose
/// `mode: classify` runs without a permission flag and says so.
#[test]
fn cli_agents_yaml_runs_by_a_relative_name_as_its_comment_says() {
    let host = Host::new(CLI_AGENTS_SCRIPT);
    host.stand_in("ollama", "ollama answered");
    let work = host.work();
    host.copy_example("cli_agents.yaml", &work);
    // The example's permissions_file: Claude Code's own settings.
    std::fs::create_dir_all(work.join(".claude")).unwrap();
    std::fs::write(
        work.join(".claude/settings.json"),
        r#"{"permissions": {"deny": ["WebFetch"]}}"#,
    )
    .unwrap();

    let run = host.agentgate(
        &work,
        &["--config", "cli_agents.yaml", "run", "Fix the failing test"],
    );
    let env = envelope_ok("cli_agents.yaml", &run);
    assert_eq!(env["response"], "ollama answered", "{env:#}");
    assert_eq!(
        (&env["chain"], &env["agent"]),
        (&Value::from("default"), &Value::from("local-llm"))
    );
    let rate_limit = Value::from("rate_limit");
    assert_eq!(
        tried(&env),
        [
            ("claude".to_owned(), rate_limit.clone()),
            ("codex".to_owned(), rate_limit),
            ("local-llm".to_owned(), Value::Null),
        ]
    );
    assert!(
        host.models("anthropic")
            .iter()
            .all(|m| m == "claude-opus-4-8")
    );
    assert!(host.models("responses").iter().all(|m| m == "gpt-5-codex"));
    let args = host.stand_in_args("ollama");
    assert_eq!(args[..2], ["run", "qwen3:32b"], "{args:?}");
    assert!(args[2].starts_with("Fix the failing test"), "{args:?}");
    // The mode is mapped, never silently: a warning and a status notice.
    let mapped = "agent `local-llm` has mode classify, which asks for permission mode plan; `local-llm` declares no `permission_modes.plan`";
    assert!(
        run.stderr
            .contains(&format!("agentgate: warning: {mapped}")),
        "{}",
        run.stderr
    );
    let said = notices(&host, &work, env["run_id"].as_str().unwrap());
    assert!(said.iter().any(|n| n.starts_with(mapped)), "{said:?}");

    // The fast tier.
    let fast = host.agentgate(
        &work,
        &[
            "--config",
            "cli_agents.yaml",
            "run",
            "--agent",
            "local-llm",
            "--tier",
            "fast",
            "Quick one",
        ],
    );
    envelope_ok("local-llm --tier fast", &fast);
    assert_eq!(host.stand_in_args("ollama")[1], "qwen3:8b");

    // However the file is named, `working_dir: .` is its folder.
    let sub = work.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let dry = |cwd: &Path, args: &[&str], var: Option<&str>| {
        let mut cmd = host.command(Path::new(env!("CARGO_BIN_EXE_agentgate")), cwd, args);
        if let Some(v) = var {
            cmd.env("AGENTGATE_CONFIG", v);
        }
        let run = run_bounded(cmd, LIMIT);
        envelope_ok("dry run", &run)
    };
    let plan = ["run", "--agent", "claude-main", "--dry-run", "hi"];
    for (cwd, args, var) in [
        (
            &work,
            [&["--config", "cli_agents.yaml"][..], &plan].concat(),
            None,
        ),
        (
            &sub,
            [&["--config", "../cli_agents.yaml"][..], &plan].concat(),
            None,
        ),
        (&sub, plan.to_vec(), Some("../cli_agents.yaml")),
    ] {
        let report = dry(cwd, &args, var);
        assert_eq!(
            report["cwd"],
            work.display().to_string(),
            "{args:?}: {report:#}"
        );
        assert_eq!(report["permission_mode"], "acceptEdits");
    }
}

const PROVIDERS_SCRIPT: &str = r#"turns:
  - match: {api: anthropic}
    text: "claude answered"
  - match: {api: responses}
    text: "codex answered"
  - match: {api: gemini}
    text: "gemini answered"
"#;

/// "Use it with `agentgate --config providers.yaml ...`": each provider's
/// `default_model` and aliases reach its real CLI.
#[test]
fn providers_yaml_resolves_each_providers_aliases() {
    let host = Host::new(PROVIDERS_SCRIPT);
    let work = host.work();
    host.copy_example("providers.yaml", &work);
    for (args, api, model, answer) in [
        (
            vec!["-p", "claude"],
            "anthropic",
            "claude-sonnet-4-5",
            "claude answered",
        ),
        (
            vec!["-p", "codex", "--model", "gpt5"],
            "responses",
            "gpt-5",
            "codex answered",
        ),
        (
            vec!["-p", "gemini", "--model", "flash"],
            "gemini",
            "gemini-2.5-flash",
            "gemini answered",
        ),
    ] {
        let run = host.agentgate(
            &work,
            &[
                &["--config", "providers.yaml", "run"][..],
                &args,
                &["Say hello"],
            ]
            .concat(),
        );
        let env = envelope_ok(api, &run);
        assert_eq!(env["response"], answer, "{env:#}");
        assert_eq!(env["model"], model, "{env:#}");
        assert_eq!(host.models(api), [model], "{api}");
    }
}

/// The tool commands of the tools guide (`docs/guide/tools.md`, the book's
/// page that the README links for tools), run as written from a copy of `examples/`
/// (`cd examples && agentgate tools list && agentgate tools check
/// word_count`, then `agentgate tool --copy-in notes.txt word_count ...`).
#[test]
fn the_tool_registry_runs_as_the_readme_shows() {
    let host = Host::new("");
    let examples = host.root().join("examples");
    let copied = run_bounded(
        {
            let mut cp = Command::new("cp");
            cp.arg("-r")
                .arg(workspace_root().join("examples"))
                .arg(&examples);
            cp
        },
        LIMIT,
    );
    assert_eq!(copied.code, Some(0), "{}", copied.all_output());
    let readme = std::fs::read_to_string(workspace_root().join("docs/guide/tools.md")).unwrap();
    let shown = "cd examples && agentgate tools list && agentgate tools check word_count";
    assert!(
        readme.contains(shown),
        "docs/guide/tools.md no longer shows {shown:?}"
    );

    let list = host.agentgate(&examples, &["tools", "list"]);
    assert_eq!(list.code, Some(0), "{}", list.all_output());
    assert!(
        list.stdout.lines().any(|l| l.starts_with("word_count")),
        "{}",
        list.stdout
    );
    let check = host.agentgate(&examples, &["tools", "check", "word_count"]);
    assert_eq!(check.code, Some(0), "{}", check.all_output());

    std::fs::write(
        examples.join("notes.txt"),
        "one two three\nfour five six seven\n",
    )
    .unwrap();
    for command in readme_tool_commands(&readme) {
        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
        let run = host.agentgate(&examples, &args);
        let last = envelope_ok(&command, &run);
        // The tool's envelope; with --stream, inside the `result` event.
        let tool = match last["type"].as_str() {
            Some("result") => &last["envelope"]["tool"],
            _ => &last,
        };
        assert_eq!(tool["status"], "ok", "{command}: {last:#}");
        assert_eq!(tool["metrics"]["words"], 7, "{command}: {last:#}");
    }
}

/// The `agentgate tool ...` lines of the tools guide.
fn readme_tool_commands(readme: &str) -> Vec<String> {
    let commands: Vec<String> = readme
        .lines()
        .filter(|l| l.starts_with("agentgate tool ") && l.contains("word_count"))
        .map(str::to_owned)
        .collect();
    assert!(
        commands.len() >= 2,
        "docs/guide/tools.md shows no `agentgate tool` line: {commands:?}"
    );
    commands
}

/// `cargo run -p agentgate-core --example run_chain -- agentgate.yaml
/// [--chain NAME] PROMPT`: cargo builds the example, and it runs the
/// shipped config's chain `triage` from the project folder with the real
/// Claude Code, printing the envelope.
#[test]
fn the_library_example_is_compiled_and_runs_a_chain() {
    let host =
        Host::new("turns:\n  - match: {api: anthropic}\n    text: \"triaged by the library\"\n");
    let work = host.work();
    host.copy_example("agentgate.yaml", &work);
    let program = build_example("agentgate-core", "run_chain");
    let run = run_bounded(
        host.command(
            &program,
            &work,
            &["agentgate.yaml", "--chain", "triage", "Triage this issue"],
        ),
        LIMIT,
    );
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let env: Value = serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not one JSON envelope ({e}):\n{}", run.all_output()));
    assert_eq!(env["response"], "triaged by the library", "{env:#}");
    assert_eq!(
        (&env["chain"], &env["agent"]),
        (&Value::from("triage"), &Value::from("triage"))
    );
    assert_eq!(host.models("anthropic"), ["claude-haiku-4-5"]);
}

/// The executable of the example `NAME` of `package`, built by the cargo
/// and with the settings this test runs under. `--workspace` resolves
/// features as `cargo test --workspace` (CI's) does, so there it is
/// already built; run alone, the first build takes a minute or two.
fn build_example(package: &str, name: &str) -> PathBuf {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build
        .args([
            "build",
            "--locked",
            "--message-format=json-render-diagnostics",
        ])
        .args(["--workspace", "--example", name])
        .current_dir(workspace_root())
        .stdin(Stdio::null());
    let built = run_bounded(build, Duration::from_secs(1200));
    assert_eq!(
        built.code,
        Some(0),
        "cargo build --example {name}: {}",
        built.stderr
    );
    built
        .stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == name)
        .filter(|m| {
            m["package_id"]
                .as_str()
                .is_some_and(|p| p.contains(package))
        })
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .unwrap_or_else(|| panic!("cargo built no executable for the example {name}"))
}
