//! A run's model with the REAL CLIs against `agentgate fake-llm`: the
//! wrappers' `providers.yaml` (named by `AI_CLI_PROVIDERS_CONFIG`, or
//! found near the working folder) gives aliases and the default model
//! before the config, and Gemini's capacity error is retried once with
//! the lighter model (`models.gemini_capacity_fallback`).

use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

fn run(client: &Client, home: &Path, env: &[(&str, &str)], args: &[&str]) -> (Run, Value) {
    let mut cmd = client.agentgate();
    cmd.arg("run")
        .args([
            "--provider",
            client.setup.cli.binary(),
            "--yolo",
            "--compact",
        ])
        .args(args)
        .arg("say hi")
        .envs(env.iter().copied())
        .env("AGENTGATE_HOME", home)
        .env(client.setup.cli.bin_env(), &client.program);
    let run = run_bounded(cmd, LIMIT);
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    (run, env)
}

fn turn_models(server: &FakeServer) -> Vec<String> {
    server
        .turn_requests()
        .iter()
        .map(|r| r["model"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn providers_yaml_discovery_reaches_the_request_model() {
    let server = FakeServer::start("turns:\n  - text: \"aliased\"\n    repeat: true\n");
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();

    // The file AI_CLI_PROVIDERS_CONFIG names: an alias.
    let named = home.path().join("wrappers.yaml");
    std::fs::write(
        &named,
        "providers:\n  claude:\n    models: {quick: claude-haiku-4-5}\n",
    )
    .unwrap();
    let named_s = named.display().to_string();
    let (r, env) = run(
        &client,
        home.path(),
        &[("AI_CLI_PROVIDERS_CONFIG", &named_s)],
        &["--model", "quick"],
    );
    assert_eq!(r.code, Some(0), "{env:#}\n{}", r.stderr);
    assert_eq!(
        env["model_resolution"],
        format!("claude model 'quick' -> 'claude-haiku-4-5' (alias, {named_s})"),
        "{env:#}"
    );
    assert!(
        turn_models(&server).iter().all(|m| m == "claude-haiku-4-5"),
        "{:?}",
        turn_models(&server)
    );

    // A defaults/providers.yaml in the working folder: the default model.
    let nearby = client.setup.workdir.join("defaults/providers.yaml");
    std::fs::create_dir_all(nearby.parent().unwrap()).unwrap();
    std::fs::write(
        &nearby,
        "claude:\n  default_model: big\n  models: {big: claude-opus-4-8}\n",
    )
    .unwrap();
    let before = server.turn_requests().len();
    let (r, env) = run(&client, home.path(), &[], &[]);
    assert_eq!(r.code, Some(0), "{env:#}\n{}", r.stderr);
    let said = env["model_resolution"].as_str().unwrap_or_default();
    assert!(
        said.starts_with("claude model (none requested) -> 'claude-opus-4-8' (default_model, ")
            && said.ends_with("defaults/providers.yaml)"),
        "{env:#}"
    );
    let models = turn_models(&server);
    assert!(models.len() > before);
    assert!(
        models[before..].iter().all(|m| m == "claude-opus-4-8"),
        "{models:?}"
    );
}

#[test]
fn gemini_capacity_fallback_retries_once_with_flash() {
    let server = FakeServer::start(concat!(
        "turns:\n",
        "  - match: {model: \"pro\"}\n",
        "    error: {kind: rate_limit, status: 429, message: \"No capacity available for model gemini-2.5-pro on the server (MODEL_CAPACITY_EXHAUSTED)\"}\n",
        "    repeat: true\n",
        "  - match: {model: \"flash\"}\n",
        "    text: \"flash answered\"\n",
        "    repeat: true\n",
    ));
    let client = Client::new(Cli::Gemini, &server);
    let home = tempfile::tempdir().unwrap();
    let (r, env) = run(&client, home.path(), &[], &["--model", "gemini-2.5-pro"]);
    assert_eq!(r.code, Some(0), "{env:#}\n{}", r.all_output());
    assert_eq!(env["response"], "flash answered", "{env:#}");
    assert_eq!(
        env["model_resolution"],
        "gemini model 'gemini-2.5-pro' -> 'gemini-2.5-flash' (capacity fallback: the model reported no capacity; retried once)",
        "{env:#}"
    );
    let models = turn_models(&server);
    let pro = models.iter().filter(|m| m.contains("pro")).count();
    assert!(pro >= 1, "{models:?}");
    assert_eq!(models.last().map(String::as_str), Some("gemini-2.5-flash"));

    // Off in the config: the capacity error stands.
    let server = FakeServer::start(concat!(
        "turns:\n",
        "  - match: {model: \"pro\"}\n",
        "    error: {kind: rate_limit, status: 429, message: \"No capacity available for model gemini-2.5-pro on the server (MODEL_CAPACITY_EXHAUSTED)\"}\n",
        "    repeat: true\n",
    ));
    let client = Client::new(Cli::Gemini, &server);
    let config = home.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        "version: 1\nmodels:\n  gemini_capacity_fallback: off\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let (r, env) = run(
        &client,
        home.path(),
        &[("AGENTGATE_CONFIG", &config)],
        &["--model", "gemini-2.5-pro"],
    );
    assert_ne!(r.code, Some(0), "{env:#}");
    assert_eq!(env["error_type"], "overloaded", "{env:#}");
    assert!(
        turn_models(&server).iter().all(|m| m == "gemini-2.5-pro"),
        "{:?}",
        turn_models(&server)
    );
}

/// Gemini CLI left to itself retries a capacity error (here up to five
/// attempts); agentgate ends the attempt at its first capacity notice, so
/// the model server sees exactly one request for the first model, then the
/// fallback's.
#[test]
fn gemini_capacity_fallback_starts_at_the_first_capacity_notice() {
    let server = FakeServer::start(concat!(
        "turns:\n",
        "  - match: {model: \"pro\"}\n",
        "    error: {kind: rate_limit, status: 429, message: \"No capacity available for model gemini-2.5-pro on the server (MODEL_CAPACITY_EXHAUSTED)\"}\n",
        "    repeat: true\n",
        "  - match: {model: \"flash\"}\n",
        "    text: \"flash answered\"\n",
        "    repeat: true\n",
    ));
    let client = Client::new(Cli::Gemini, &server);
    let settings_path = client.setup.home.join(".gemini/settings.json");
    let mut settings: Value =
        serde_json::from_str(&std::fs::read_to_string(&settings_path).unwrap()).unwrap();
    settings["general"]["maxAttempts"] = 5.into();
    std::fs::write(&settings_path, settings.to_string()).unwrap();
    let home = tempfile::tempdir().unwrap();
    let (r, env) = run(&client, home.path(), &[], &["--model", "gemini-2.5-pro"]);
    assert_eq!(r.code, Some(0), "{env:#}\n{}", r.all_output());
    assert_eq!(env["response"], "flash answered", "{env:#}");
    let models = turn_models(&server);
    assert_eq!(
        models.iter().filter(|m| m.contains("pro")).count(),
        1,
        "{models:?}\n{}",
        r.all_output()
    );
    assert_eq!(models.first().map(String::as_str), Some("gemini-2.5-pro"));
    assert_eq!(models.last().map(String::as_str), Some("gemini-2.5-flash"));
}
