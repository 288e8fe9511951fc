//! Model catalogs with the REAL CLIs against `agentgate fake-llm`:
//! `agentgate models` reads opencode's `opencode models` and Codex's
//! app-server `model/list` (bundled, or from fake-llm's catalog through
//! the provider's `model_catalog_url`), caches them in the data folder,
//! and a run's model is checked against the cached catalog before the CLI
//! starts: a tail alias normalised (`gpt-5.1` -> `fake/gpt-5.1`), a stale
//! configured default replaced by the catalog's, an absent model refused
//! under `models.validate: strict` with no request made.

use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// `agentgate ARGS` in the recipe's environment and working folder, on the
/// data folder `home`.
fn agentgate(client: &Client, home: &Path, args: &[&str]) -> Run {
    let mut cmd = client.agentgate();
    let bin = client.setup.cli.bin_env();
    cmd.args(args)
        .env("AGENTGATE_HOME", home)
        .env(bin, &client.program);
    run_bounded(cmd, LIMIT)
}

/// `agentgate models --provider P --json ...`: the provider's object.
fn models(client: &Client, home: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["models", "--provider", client.setup.cli.binary(), "--json"];
    args.extend_from_slice(extra);
    let run = agentgate(client, home, &args);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let all: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.all_output()));
    all[0].clone()
}

fn ids(catalog: &Value) -> Vec<String> {
    catalog["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect()
}

/// The opencode recipe with a second model, `gpt-5.1`, in its provider.
fn opencode_with_two_models(server: &FakeServer) -> Client {
    let client = Client::new(Cli::Opencode, server);
    let file = client.setup.home.join(".config/opencode/opencode.json");
    let file = if file.is_file() {
        file
    } else {
        let xdg = client
            .setup
            .env
            .iter()
            .find(|(k, _)| k == "XDG_CONFIG_HOME")
            .map(|(_, v)| v.clone())
            .unwrap();
        Path::new(&xdg).join("opencode/opencode.json")
    };
    let mut config: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    config["provider"]["fake"]["models"]["gpt-5.1"] = serde_json::json!({"name": "gpt-5.1"});
    std::fs::write(&file, config.to_string()).unwrap();
    client
}

#[test]
fn models_opencode_lists_the_cli_catalog_and_caches_it() {
    let server = FakeServer::start("");
    let client = opencode_with_two_models(&server);
    let home = tempfile::tempdir().unwrap();
    let first = models(&client, home.path(), &[]);
    assert_eq!(first["source"], "cli", "{first:#}");
    assert_eq!(first["cached"], false, "{first:#}");
    let listed = ids(&first);
    for id in ["fake/fake-model", "fake/gpt-5.1"] {
        assert!(listed.iter().any(|m| m == id), "{id} missing: {listed:?}");
    }
    // The cache file is private.
    let file = home.path().join("catalogs/opencode.json");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // The second call is answered from the cache: same fetch, no CLI.
    let second = models(&client, home.path(), &[]);
    assert_eq!(second["cached"], true, "{second:#}");
    assert_eq!(second["fetched_at"], first["fetched_at"]);
    assert_eq!(ids(&second), listed);
    // --refresh asks again.
    let third = models(&client, home.path(), &["--refresh"]);
    assert_eq!(third["cached"], false, "{third:#}");
    assert_ne!(third["fetched_at"], first["fetched_at"]);
    // opencode's listing asks no model.
    assert!(server.turn_requests().is_empty(), "{:?}", server.requests());
}

#[test]
fn model_tail_alias_opencode_runs_the_full_id() {
    let server = FakeServer::start("turns:\n  - text: \"tail ok\"\n    repeat: true\n");
    let client = opencode_with_two_models(&server);
    let home = tempfile::tempdir().unwrap();
    models(&client, home.path(), &[]);
    let run = agentgate(
        &client,
        home.path(),
        &[
            "run",
            "--provider",
            "opencode",
            "--yolo",
            "--compact",
            "--model",
            "gpt-5.1",
            "say hi",
        ],
    );
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "tail ok", "{env:#}");
    assert_eq!(
        env["model_resolution"], "opencode model 'gpt-5.1' -> 'fake/gpt-5.1' (catalog)",
        "{env:#}"
    );
    // opencode sent the model of its provider `fake`.
    let turns = server.turn_requests();
    assert!(!turns.is_empty());
    assert!(turns.iter().all(|r| r["model"] == "gpt-5.1"), "{turns:#?}");
}

/// Codex's recipe with its provider's catalog served by fake-llm.
fn codex_with_catalog(server: &FakeServer) -> Client {
    let client = Client::new(Cli::Codex, server);
    let file = client.setup.home.join(".codex/config.toml");
    let mut config = std::fs::read_to_string(&file).unwrap();
    // The recipe's file ends in `[model_providers.fake]`.
    config.push_str(&format!(
        "model_catalog_url = \"{}/v1/models\"\n",
        server.url
    ));
    std::fs::write(&file, config).unwrap();
    client
}

#[test]
fn models_codex_app_server_reads_model_list() {
    // The bundled list (no catalog settings): efforts per model.
    let server = FakeServer::start("");
    let client = Client::new(Cli::Codex, &server);
    let home = tempfile::tempdir().unwrap();
    let bundled = models(&client, home.path(), &[]);
    assert_eq!(bundled["source"], "cli", "{bundled:#}");
    let gpt55 = bundled["models"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == "gpt-5.5")
        .unwrap_or_else(|| panic!("no gpt-5.5: {bundled:#}"));
    assert_eq!(
        gpt55["efforts"],
        serde_json::json!(["low", "medium", "high", "xhigh"])
    );
    assert_eq!(
        bundled["models"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["default"] == true)
            .count(),
        1,
        "{bundled:#}"
    );

    // The provider's catalog: exactly fake-llm's list, asked for with
    // Codex's client_version.
    let server = FakeServer::start("models: [fake-model, gpt-5.5]\n");
    let client = codex_with_catalog(&server);
    let home = tempfile::tempdir().unwrap();
    let served = models(&client, home.path(), &[]);
    assert_eq!(ids(&served), ["fake-model", "gpt-5.5"], "{served:#}");
    assert_eq!(served["models"][0]["default"], true);
    assert_eq!(
        served["models"][1]["efforts"],
        serde_json::json!(["low", "medium", "high", "xhigh"])
    );
    let asked = server.requests().iter().any(|r| {
        r["method"] == "GET"
            && r["path"]
                .as_str()
                .is_some_and(|p| p.starts_with("/v1/models?client_version="))
    });
    assert!(asked, "{:#?}", server.requests());
}

#[test]
fn stale_default_falls_back_to_the_catalog_default() {
    let server = FakeServer::start(
        "models: [fake-model, gpt-5.5]\nturns:\n  - text: \"fell back\"\n    repeat: true\n",
    );
    let client = codex_with_catalog(&server);
    let home = tempfile::tempdir().unwrap();
    models(&client, home.path(), &[]);
    let config = home.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        "version: 1\nproviders:\n  codex:\n    default_model: gone-model\n",
    )
    .unwrap();
    let config = config.display().to_string();
    let run = agentgate(
        &client,
        home.path(),
        &[
            "--config",
            &config,
            "run",
            "--provider",
            "codex",
            "--yolo",
            "--compact",
            "say hi",
        ],
    );
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["response"], "fell back", "{env:#}");
    let said = env["model_resolution"].as_str().unwrap_or_default();
    assert!(
        said.ends_with(
            "'gone-model' is not in its catalog -> 'fake-model' (stale default -> catalog default)"
        ),
        "{env:#}"
    );
    let turns = server.turn_requests();
    assert!(!turns.is_empty());
    assert!(
        turns.iter().all(|r| r["model"] == "fake-model"),
        "{turns:#?}"
    );
}

#[test]
fn strict_validation_refuses_an_absent_model_before_the_cli_starts() {
    let server = FakeServer::start("models: [fake-model, gpt-5.5]\n");
    let client = codex_with_catalog(&server);
    let home = tempfile::tempdir().unwrap();
    models(&client, home.path(), &[]);
    let before = server.requests().len();
    let config = home.path().join("agentgate.yaml");
    std::fs::write(&config, "version: 1\nmodels:\n  validate: strict\n").unwrap();
    let config = config.display().to_string();
    let run = agentgate(
        &client,
        home.path(),
        &[
            "--config",
            &config,
            "run",
            "--provider",
            "codex",
            "--yolo",
            "--model",
            "no-such-model",
            "say hi",
        ],
    );
    assert_eq!(run.code, Some(2), "{}", run.all_output());
    assert!(
        run.stderr
            .contains("invalid_model: codex has no model `no-such-model` in its catalog"),
        "{}",
        run.stderr
    );
    // Codex never started: fake-llm heard nothing more.
    assert_eq!(server.requests().len(), before, "{:#?}", server.requests());
}

#[test]
fn codex_effort_is_fitted_to_the_catalogs_levels() {
    // fake-model's cached levels are low, medium and high: `max` is more
    // than it takes, so the planner clamps it to the highest it has.
    let server =
        FakeServer::start("models: [fake-model]\nturns:\n  - text: \"fitted\"\n    repeat: true\n");
    let client = codex_with_catalog(&server);
    let home = tempfile::tempdir().unwrap();
    let listed = models(&client, home.path(), &[]);
    let levels = listed["models"][0]["efforts"].clone();
    assert_eq!(
        levels,
        serde_json::json!(["low", "medium", "high"]),
        "{listed:#}"
    );
    let run = agentgate(
        &client,
        home.path(),
        &[
            "run",
            "--provider",
            "codex",
            "--yolo",
            "--compact",
            "--model",
            "fake-model",
            "--reasoning-effort",
            "max",
            "say hi",
        ],
    );
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    assert_eq!(run.code, Some(0), "{env:#}\n{}", run.stderr);
    assert_eq!(env["effort"]["requested"], "max", "{env:#}");
    assert_eq!(env["effort"]["applied"], "high", "{env:#}");
    let turns = server.turn_requests();
    assert!(!turns.is_empty());
    assert!(
        // The log keeps the request's reasoning fields as sent: Responses'
        // `reasoning` object.
        turns
            .iter()
            .all(|r| r["reasoning"]["reasoning"]["effort"] == "high"),
        "{turns:#?}"
    );

    // Without the cache, nothing is known of the model: passed as asked.
    let bare = tempfile::tempdir().unwrap();
    let run = agentgate(
        &client,
        bare.path(),
        &[
            "run",
            "--provider",
            "codex",
            "--yolo",
            "--compact",
            "--model",
            "fake-model",
            "--reasoning-effort",
            "max",
            "say hi",
        ],
    );
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {}", run.all_output()));
    assert_eq!(env["effort"]["applied"], "max", "{env:#}");
}
