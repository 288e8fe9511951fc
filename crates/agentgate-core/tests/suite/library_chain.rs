//! The library on its own, without the binary: a config file with two
//! agents (the REAL Claude Code and Codex, pointed at an in-process
//! `agentgate fake-llm`) and a chain, planned and run by the example
//! program `examples/run_chain.rs`, whose code this test compiles in.
//! Claude hits a rate limit; the chain hands the task to Codex, which
//! answers. The same entry point ([`Engine`]) also runs a chain of a CLI
//! the config describes (a shell script), blocking and inside tokio.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

#[path = "../../examples/run_chain.rs"]
#[expect(dead_code, reason = "the example's `main` is not called here")]
mod example;

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use agentgate_core::{Engine, EngineError, RunRequest};

use agentgate_fakellm::clients::{self, Cli, ClientOptions};
use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
use agentgate_protocol::ErrorKind;
use serde_json::{Value, json};

const SCRIPT: &str = "turns:
  - match: {api: anthropic}
    repeat: true
    error: {kind: rate_limit, retry_after: 0}
  - match: {api: responses}
    text: codex answers
";

/// The folder of the real CLIs and the Node.js they run on.
fn bin_dir() -> PathBuf {
    clients::test_bin_dir(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

fn cli(cli: Cli) -> PathBuf {
    clients::locate(cli, &[bin_dir()]).unwrap_or_else(|| {
        panic!(
            "the real `{}` CLI is not installed: run scripts/install-clis.sh (or set {})",
            cli.binary(),
            cli.bin_env()
        )
    })
}

/// A fake-llm on its own thread and runtime, until `stop` is sent.
fn fake_llm(script: &str, stop: mpsc::Receiver<()>) -> String {
    let (url_tx, url_rx) = mpsc::channel();
    let script = Script::parse(script).unwrap();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let config = ServerConfig {
                script,
                log_path: None,
            };
            let server = FakeLlm::start("127.0.0.1:0".parse().unwrap(), config)
                .await
                .unwrap();
            url_tx.send(server.url()).unwrap();
            let _ = tokio::task::spawn_blocking(move || stop.recv()).await;
            server.shutdown().await.unwrap();
        });
    });
    url_rx
        .recv_timeout(std::time::Duration::from_secs(20))
        .unwrap()
}

#[test]
fn a_two_agent_chain_from_a_config_file_fails_over_through_the_library() {
    let (stop_tx, stop_rx) = mpsc::channel();
    let url = fake_llm(SCRIPT, stop_rx);
    let dir = tempfile::tempdir().unwrap();
    let mut agents = serde_json::Map::new();
    for c in [Cli::Claude, Cli::Codex] {
        let opts = ClientOptions {
            bin_dir: Some(bin_dir()),
            ..ClientOptions::default()
        };
        let setup = clients::prepare(c, &url, &dir.path().join(c.binary()), &opts).unwrap();
        let env: serde_json::Map<String, Value> = setup
            .env
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        let mut agent = json!({
            "provider": c.binary(),
            "binary": cli(c).display().to_string(),
            "env": env,
            "cwd": setup.workdir.display().to_string(),
            "permission_mode": "bypass",
            "max_provider_retries": 0,
            "timeout": "120s",
        });
        // Codex takes its model from the recipe's config.
        if c != Cli::Codex {
            agent["model"] = json!(setup.model);
        }
        agents.insert(c.binary().to_owned(), agent);
    }
    let config = json!({
        "version": 1,
        "agents": agents,
        "chains": {"default": {"agents": ["claude", "codex"], "retry_on": ["rate_limit"]}},
    });
    // JSON is YAML.
    let path = dir.path().join("agentgate.yaml");
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();

    let outcome = example::run_chain(&path, None, "do the task").unwrap();
    let _ = stop_tx.send(());
    let env = &outcome.envelope;
    assert_eq!(outcome.exit_code, 0, "{env:#?}");
    assert_eq!(env.response, "codex answers");
    assert_eq!(
        (
            env.provider.as_deref(),
            env.agent.as_deref(),
            env.chain.as_deref()
        ),
        (Some("codex"), Some("codex"), Some("default"))
    );
    let tried: Vec<(&str, Option<ErrorKind>)> = env
        .attempts
        .iter()
        .map(|a| (a.provider.as_str(), a.error_type))
        .collect();
    assert_eq!(
        tried,
        [("claude", Some(ErrorKind::RateLimit)), ("codex", None)]
    );
}

/// A config whose chain `default` is one agent of a described CLI: a shell
/// script that keeps its stdin (the prompt) in `prompt.txt` beside it and
/// prints one JSON result line.
fn scripted_config(dir: &Path) -> PathBuf {
    let script = dir.join("cli.sh");
    let prompt = dir.join("prompt.txt");
    std::fs::write(
        &script,
        format!(
            "cat > '{}'\necho '{{\"type\":\"result\",\"result\":\"scripted answer\"}}'\n",
            prompt.display()
        ),
    )
    .unwrap();
    let config = json!({
        "version": 1,
        "providers": {"scripted": {
            "command": ["scripted", script.display().to_string()],
            "output": "jsonl",
            "final": {"type": "result"},
            "text": "/result",
        }},
        // `sh` reads the script: nothing is executed from a file just written.
        "agents": {"solo": {"provider": "scripted", "binary": "/bin/sh", "timeout": "60s"}},
        "chains": {"default": {"agents": ["solo"]}},
    });
    let path = dir.join("agentgate.yaml");
    std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
    path
}

#[test]
fn the_examples_entry_point_runs_a_chain_of_a_described_cli() {
    let dir = tempfile::tempdir().unwrap();
    let path = scripted_config(dir.path());

    let outcome = example::run_chain(&path, Some("default"), "say hi").unwrap();
    let env = &outcome.envelope;
    assert_eq!(outcome.exit_code, 0, "{env:#?}");
    assert_eq!(env.response, "scripted answer");
    assert_eq!(
        (
            env.provider.as_deref(),
            env.agent.as_deref(),
            env.chain.as_deref()
        ),
        (Some("scripted"), Some("solo"), Some("default"))
    );
    let prompt = std::fs::read_to_string(dir.path().join("prompt.txt")).unwrap();
    assert!(prompt.contains("say hi"), "{prompt}");

    // A chain the config lacks is refused before anything runs.
    let err = example::run_chain(&path, Some("nonesuch"), "say hi").unwrap_err();
    assert!(matches!(err, EngineError::Plan(_)), "{err}");
}

#[test]
fn inside_tokio_the_engine_runs_async_and_refuses_to_block() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::from_config_file(scripted_config(dir.path())).unwrap();
    let request = RunRequest {
        prompt: Some("say hi".into()),
        ..RunRequest::default()
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let blocked = engine.run(&request);
        assert!(
            matches!(blocked, Err(EngineError::InsideRuntime)),
            "{blocked:?}"
        );
        engine.run_async(&request).await.unwrap()
    });
    assert_eq!(outcome.exit_code, 0, "{:#?}", outcome.envelope);
    assert_eq!(outcome.envelope.response, "scripted answer");
    assert_eq!(outcome.envelope.chain.as_deref(), Some("default"));
}
