//! What the failover chain tests share (`run_chain.rs` and the suites
//! that build on it): a [`Chain`] of the REAL Claude Code, Codex and Gemini
//! CLI against one `agentgate fake-llm`, each agent in a config file with
//! its own home and endpoint; an envelope's attempts; a run's stored
//! events; and the check that a step was skipped before it started.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::run_e2e::last_json;
use super::support::{Client, FakeServer, Run, run_bounded};

pub const LIMIT: Duration = Duration::from_secs(300);

/// A fake-llm, one isolated client per CLI, a store, and a config file
/// with one agent per CLI (named after it).
pub struct Chain {
    pub server: FakeServer,
    _clients: Vec<Client>,
    store: tempfile::TempDir,
    dir: tempfile::TempDir,
    pub config: PathBuf,
    cwd: PathBuf,
}

impl Chain {
    /// `agents` extends each agent's config (by CLI name); `extra` holds
    /// more top-level sections (chains, providers).
    pub fn new(script: &str, clis: &[Cli], agents: Value, extra: Value) -> Chain {
        let server = FakeServer::start(script);
        let clients: Vec<Client> = clis.iter().map(|c| Client::new(*c, &server)).collect();
        let dir = tempfile::tempdir().unwrap();
        // Gemini CLI works only in a folder it trusts: its recipe's.
        let cwd = clients
            .iter()
            .find(|c| c.setup.cli == Cli::Gemini)
            .unwrap_or(&clients[0])
            .setup
            .workdir
            .clone();
        let mut agent_map = serde_json::Map::new();
        for c in &clients {
            let name = c.setup.cli.binary();
            let env: serde_json::Map<String, Value> = c
                .setup
                .env
                .iter()
                .map(|(k, v)| (k.clone(), json!(v)))
                .collect();
            let mut a = json!({
                "provider": name,
                "binary": c.program.display().to_string(),
                "env": env,
                "max_provider_retries": 1,
                "timeout": "120s",
            });
            // Codex takes its model from the recipe's config.
            if c.setup.cli != Cli::Codex {
                a["model"] = json!(c.setup.model);
            }
            if let Some(Value::Object(more)) = agents.get(name) {
                for (k, v) in more {
                    a[k] = v.clone();
                }
            }
            agent_map.insert(name.to_owned(), a);
        }
        let mut config = json!({"version": 1, "agents": agent_map});
        if let Value::Object(extra) = extra {
            for (k, v) in extra {
                config[k] = v;
            }
        }
        // JSON is YAML.
        let path = dir.path().join("agentgate.yaml");
        std::fs::write(&path, serde_json::to_string_pretty(&config).unwrap()).unwrap();
        Chain {
            server,
            _clients: clients,
            store: tempfile::tempdir().unwrap(),
            dir,
            config: path,
            cwd,
        }
    }

    pub fn cwd(&self) -> &Path {
        &self.cwd
    }

    /// The real CLI `cli` as the chain's agent of that name runs it (its
    /// home, environment and working folder), to run it directly.
    pub fn client(&self, cli: Cli) -> &Client {
        self._clients
            .iter()
            .find(|c| c.setup.cli == cli)
            .unwrap_or_else(|| panic!("no {cli:?} in this chain"))
    }

    pub fn scratch(&self) -> &Path {
        self.dir.path()
    }

    pub fn store(&self) -> &Path {
        self.store.path()
    }

    pub fn command(&self, args: &[&str], prompt: &str) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.arg("--config")
            .arg(&self.config)
            .arg("run")
            .args(["--compact", "--yolo"])
            .args(args)
            .arg(prompt)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("AGENTGATE_HOME", self.store.path())
            .current_dir(&self.cwd)
            .stdin(std::process::Stdio::null());
        cmd
    }

    pub fn run(&self, args: &[&str], prompt: &str) -> (Run, Value) {
        let run = run_bounded(self.command(args, prompt), LIMIT);
        let env = last_json(&run.stdout)
            .unwrap_or_else(|| panic!("no envelope on stdout:\n{}", run.all_output()));
        (run, env)
    }

    /// The APIs of the model requests so far, in order.
    pub fn apis(&self) -> Vec<String> {
        self.server
            .turn_requests()
            .iter()
            .map(|r| r["api"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

pub fn attempts(env: &Value) -> &Vec<Value> {
    env["attempts"].as_array().unwrap()
}

/// The events of the run `run_id` in the store of `home`, as written.
pub fn stored_events(home: &Path, run_id: &str) -> Vec<Value> {
    let path = home.join("runs").join(run_id).join("events.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect()
}

/// A run's skip of its first step, told by agentgate's `skipped` status
/// (never a notice's text): its step, error type and reset time, with the
/// header of the attempt it takes (attempt 1, `provider`) and the message
/// the envelope's skipped attempt gives as its `error`.
pub fn assert_skipped_first(
    home: &Path,
    env: &Value,
    provider: &str,
    step: &str,
    error_type: &str,
) -> Value {
    let events = stored_events(home, env["run_id"].as_str().unwrap());
    let skips: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "status" && e["kind"] == "skipped")
        .collect();
    assert_eq!(skips.len(), 1, "{skips:#?}");
    let skip = skips[0];
    let first = &attempts(env)[0];
    assert_eq!(skip["step"], step, "{skip:#}");
    assert_eq!(skip["error_type"], error_type, "{skip:#}");
    assert_eq!(skip["reset_at"], first["reset_at"], "{skip:#}\n{env:#}");
    assert_eq!(skip["message"], first["error"], "{skip:#}\n{env:#}");
    assert_eq!(
        (&skip["attempt"], &skip["provider"]),
        (&json!(1), &json!(provider)),
        "{skip:#}"
    );
    // Before the next attempt's start, and no notice says it in words.
    let start = events.iter().position(|e| e["type"] == "start").unwrap();
    assert!(
        skip["seq"].as_u64().unwrap() < events[start]["seq"].as_u64().unwrap(),
        "{events:#?}"
    );
    assert_eq!(events[start]["attempt"], 2, "{events:#?}");
    assert!(
        !events.iter().any(|e| e["kind"] == "notice"
            && e["detail"]
                .as_str()
                .is_some_and(|d| d.starts_with("skipped "))),
        "{events:#?}"
    );
    skip.clone()
}
