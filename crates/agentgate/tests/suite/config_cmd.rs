//! `agentgate config show|check`: both migration formats load, a typo'd
//! key fails with the key and its line, and every value says where it
//! came from, whichever way the file was found.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::support::{Run, run_bounded, workspace_root};

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const LIMIT: Duration = Duration::from_secs(60);

/// `agentgate ARGS` in `cwd`, from an empty environment plus `vars`.
fn agentgate(cwd: &Path, args: &[&str], vars: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(AGENTGATE);
    cmd.args(args)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", cwd)
        .envs(vars.iter().copied())
        .current_dir(cwd);
    let run = run_bounded(cmd, LIMIT);
    assert!(
        !run.timed_out,
        "agentgate did not finish:\n{}",
        run.all_output()
    );
    run
}

fn show_json(cwd: &Path, args: &[&str], vars: &[(&str, &str)]) -> Value {
    let mut all = args.to_vec();
    all.extend(["config", "show", "--json"]);
    let run = agentgate(cwd, &all, vars);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    serde_json::from_str(&run.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}", run.all_output()))
}

fn entity<'a>(v: &'a Value, section: &str, name: &str) -> &'a Value {
    v[section]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == name)
        .unwrap_or_else(|| panic!("{section} {name} missing from {v}"))
}

fn example(name: &str) -> String {
    workspace_root()
        .join("examples")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn providers_yaml_shows_aliases_with_their_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = example("providers.yaml");
    let v = show_json(dir.path(), &["--config", &file], &[]);
    assert_eq!(v["config"]["format"], "providers.yaml");
    assert_eq!(v["config"]["found_by"], "flag");
    let claude = entity(&v, "providers", "claude");
    assert_eq!(claude["kind"], "builtin");
    let models = claude["fields"]["models"]["value"].as_array().unwrap();
    let sonnet = models.iter().find(|m| m["alias"] == "sonnet").unwrap();
    assert_eq!(sonnet["model"], "claude-sonnet-4-5");
    assert_eq!(sonnet["source"], format!("{file}:8"));
    assert_eq!(claude["fields"]["default_model"]["value"], "sonnet");
    assert_eq!(
        claude["fields"]["default_model"]["source"],
        format!("{file}:6")
    );
    assert_eq!(claude["fields"]["timeout"]["source"], "default");
}

#[test]
fn cli_agents_yaml_shows_agents_and_the_default_chain() {
    let dir = tempfile::tempdir().unwrap();
    let file = example("cli_agents.yaml");
    let v = show_json(dir.path(), &["--config", &file], &[]);
    assert_eq!(v["config"]["format"], "cli_agents.yaml");
    let main = entity(&v, "agents", "claude-main");
    assert_eq!(main["fields"]["provider"]["value"], "claude");
    assert_eq!(main["fields"]["provider"]["source"], format!("{file}:7"));
    assert_eq!(main["fields"]["model"]["value"], "claude-opus-4-8");
    assert_eq!(main["model_choice"]["model"], "claude-opus-4-8");
    assert_eq!(main["model_choice"]["source"], "agent");
    assert_eq!(
        main["fields"]["retry_on"]["value"],
        serde_json::json!(["quota", "rate_limit", "overloaded"])
    );
    let local = entity(&v, "agents", "local-llm");
    assert_eq!(local["fields"]["provider"]["value"], "local-llm");
    let chain = entity(&v, "chains", "default");
    assert_eq!(
        chain["fields"]["agents"]["value"],
        serde_json::json!(["claude-main", "codex-backup", "local-llm"])
    );
    assert_eq!(chain["fields"]["on_dirty"]["value"], "stop");
    assert_eq!(chain["fields"]["on_dirty"]["source"], "default");
    let warnings = v["warnings"].to_string();
    assert!(warnings.contains("not used"), "{warnings}");
    // The text form says the same.
    let run = agentgate(dir.path(), &["--config", &file, "config", "show"], &[]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stdout.contains("format cli_agents.yaml"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains(&format!("provider: claude  [{file}:7]")),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("chain default"), "{}", run.stdout);
}

#[test]
fn a_typo_fails_with_the_key_and_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("agentgate.yaml");
    std::fs::write(
        &file,
        "version: 1\nagents:\n  a:\n    provider: claude\n    modle: opus\n",
    )
    .unwrap();
    for args in [["config", "show"], ["config", "check"]] {
        let run = agentgate(dir.path(), &args, &[]);
        assert_eq!(run.code, Some(2), "{}", run.all_output());
        assert!(
            run.stderr.contains("unknown field `modle`"),
            "{}",
            run.stderr
        );
        assert!(run.stderr.contains("line 5"), "{}", run.stderr);
    }
    // A chain naming an agent that does not exist.
    std::fs::write(
        &file,
        "version: 1\nagents:\n  a:\n    provider: claude\nchains:\n  c:\n    agents: [a, b]\n",
    )
    .unwrap();
    let run = agentgate(dir.path(), &["config", "check"], &[]);
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr.contains("unknown agent `b`") && run.stderr.contains("line 7"),
        "{}",
        run.stderr
    );
}

#[test]
fn sources_follow_how_the_file_was_found() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let deep = root.join("repo/sub");
    std::fs::create_dir_all(&deep).unwrap();
    let project = root.join("repo/agentgate.yaml");
    std::fs::write(
        &project,
        "version: 1\nagents:\n  a:\n    provider: claude\n    model: m1\n",
    )
    .unwrap();
    let other = root.join("other.yaml");
    std::fs::write(
        &other,
        "version: 1\nproviders:\n  codex:\n    default_model: gpt-5\n    account: team-a\nagents:\n  b:\n    provider: codex\n",
    )
    .unwrap();
    let other_s = other.display().to_string();
    let project_s = project.display().to_string();

    // Discovery from a subfolder finds the project file.
    let v = show_json(&deep, &[], &[]);
    assert_eq!(v["config"]["found_by"], "project");
    assert_eq!(v["config"]["path"], project_s.as_str());
    let a = entity(&v, "agents", "a");
    assert_eq!(a["source"], format!("{project_s}:3"));
    assert_eq!(a["fields"]["model"]["source"], format!("{project_s}:5"));
    assert_eq!(a["fields"]["timeout"]["source"], "default");

    // AGENTGATE_CONFIG wins over the project file.
    let v = show_json(&deep, &[], &[("AGENTGATE_CONFIG", &other_s)]);
    assert_eq!(v["config"]["found_by"], "env");
    let b = entity(&v, "agents", "b");
    assert_eq!(b["fields"]["provider"]["source"], format!("{other_s}:8"));
    let codex = entity(&v, "providers", "codex");
    assert_eq!(codex["fields"]["account"]["value"], "team-a", "{codex:#}");
    assert_eq!(codex["fields"]["account"]["source"], format!("{other_s}:5"));
    assert_eq!(b["model_choice"]["source"], "provider_default");
    assert_eq!(
        b["model_choice"]["resolution"],
        "codex model (none requested) -> 'gpt-5' (default_model)"
    );

    // --config wins over both.
    let v = show_json(
        &deep,
        &["--config", &project_s],
        &[("AGENTGATE_CONFIG", &other_s)],
    );
    assert_eq!(v["config"]["found_by"], "flag");
    assert!(
        v["agents"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "a")
    );

    // No file: built-in defaults.
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let v = show_json(&empty, &[], &[]);
    assert_eq!(v["config"]["found_by"], "default");
    assert!(v["config"]["path"].is_null());
    assert!(v["agents"].as_array().unwrap().is_empty());
}

#[test]
fn config_show_hides_secret_flags_and_check_counts_redact_values() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("agentgate.yaml"),
        "version: 1\nproviders:\n  claude:\n    extra_args: [--api-key=sekrit-0123456789, --verbose]\n    env: {GH_TOKEN: ghp-0123456789}\nredact: [db-pass-0123456789]\n",
    )
    .unwrap();
    let v = show_json(dir.path(), &[], &[]);
    let text = v.to_string();
    for secret in ["sekrit-0123456789", "ghp-0123456789", "db-pass-0123456789"] {
        assert!(!text.contains(secret), "{secret} shown: {v:#}");
    }
    let claude = entity(&v, "providers", "claude");
    assert_eq!(
        claude["fields"]["extra_args"]["value"],
        serde_json::json!(["--api-key=[redacted:--api-key]", "--verbose"])
    );
    let check = agentgate(dir.path(), &["config", "check"], &[]);
    assert_eq!(check.code, Some(0), "{}", check.all_output());
    assert!(
        check.stdout.contains("1 values to redact"),
        "{}",
        check.stdout
    );
}
