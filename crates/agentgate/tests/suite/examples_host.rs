//! The host the examples run on (see `examples.rs`): the real Claude Code,
//! Codex and Gemini CLI logged in to one `agentgate fake-llm`, stand-ins for
//! the CLIs the examples name that no test can install, and what the
//! example tests read back (envelopes, attempts, notices, models).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use agentgate_fakellm::clients::{self, Cli, ClientOptions};
use serde_json::Value;

use super::run_e2e::last_json;
use super::support::{FakeServer, Run, cli_program, run_bounded, shared_cache, workspace_root};

/// A bound on one command; a chain of three real CLIs included.
pub const LIMIT: Duration = Duration::from_secs(300);

/// One host as a user has it: the real Claude Code, Codex and Gemini CLI
/// on `PATH`, logged in (one home) to one fake-llm; stand-ins for the
/// example CLIs no test can install; a project folder the CLIs trust.
pub struct Host {
    pub server: FakeServer,
    root: tempfile::TempDir,
    env: BTreeMap<String, String>,
}

impl Host {
    pub fn new(script: &str) -> Host {
        let server = FakeServer::start(script);
        let root = tempfile::tempdir().unwrap();
        let mut env = BTreeMap::new();
        let opts = ClientOptions {
            max_retries: 0,
            model: None,
            shared_cache: Some(shared_cache()),
            // The PATH below puts the CLIs' folder (and its node) first.
            bin_dir: None,
        };
        let mut bins = vec![root.path().join("bin")];
        for cli in [Cli::Claude, Cli::Codex, Cli::Gemini] {
            let setup = clients::prepare(cli, &server.url, root.path(), &opts).unwrap();
            env.extend(setup.env);
            bins.push(cli_program(cli).parent().unwrap().to_path_buf());
        }
        bins.push(PathBuf::from("/usr/local/bin:/usr/bin:/bin"));
        let path: Vec<String> = bins.iter().map(|b| b.display().to_string()).collect();
        env.insert("PATH".into(), path.join(":"));
        env.insert(
            "AGENTGATE_HOME".into(),
            root.path().join("data").display().to_string(),
        );
        std::fs::create_dir_all(root.path().join("bin")).unwrap();
        Host { server, root, env }
    }

    /// The project folder (the CLIs' trusted working folder).
    pub fn work(&self) -> PathBuf {
        self.root.path().join("work")
    }

    pub fn root(&self) -> &Path {
        self.root.path()
    }

    /// The variable `name` of this host's environment.
    pub fn var(&self, name: &str) -> Option<&str> {
        self.env.get(name).map(String::as_str)
    }

    /// Every variable of this host's environment.
    pub fn vars(&self) -> impl Iterator<Item = (&String, &String)> {
        self.env.iter()
    }

    /// Copy `examples/NAME` into `dir`.
    pub fn copy_example(&self, name: &str, dir: &Path) -> PathBuf {
        let to = dir.join(Path::new(name).file_name().unwrap());
        std::fs::create_dir_all(dir).unwrap();
        std::fs::copy(workspace_root().join("examples").join(name), &to).unwrap();
        to
    }

    /// A stand-in for the CLI `name`: it writes its arguments, one a line,
    /// to `bin/NAME.args` and prints `answer`.
    pub fn stand_in(&self, name: &str, answer: &str) {
        let path = self.root.path().join("bin").join(name);
        let args = self.root.path().join("bin").join(format!("{name}.args"));
        std::fs::write(
            &path,
            format!(
                "#!/bin/sh\n# A stand-in for `{name}`, which the tests cannot install.\nprintf '%s\\n' \"$@\" > '{}'\nprintf '%s\\n' '{answer}'\n",
                args.display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// The arguments the stand-in `name` was last run with.
    pub fn stand_in_args(&self, name: &str) -> Vec<String> {
        let args = self.root.path().join("bin").join(format!("{name}.args"));
        std::fs::read_to_string(&args)
            .unwrap_or_else(|e| panic!("{name} was not run ({e})"))
            .lines()
            .map(str::to_owned)
            .collect()
    }

    /// `program ARGS` in `cwd` with this host's environment only.
    pub fn command(&self, program: &Path, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(program);
        cmd.args(args)
            .env_clear()
            .envs(&self.env)
            .current_dir(cwd)
            .stdin(Stdio::null());
        cmd
    }

    /// `agentgate ARGS` in `cwd`, bounded.
    pub fn agentgate(&self, cwd: &Path, args: &[&str]) -> Run {
        let program = Path::new(env!("CARGO_BIN_EXE_agentgate"));
        run_bounded(self.command(program, cwd, args), LIMIT)
    }

    /// The models of the model requests made on `api`, in order.
    pub fn models(&self, api: &str) -> Vec<String> {
        self.server
            .turn_requests()
            .iter()
            .filter(|r| r["api"] == api)
            .map(|r| r["model"].as_str().unwrap_or_default().to_owned())
            .collect()
    }
}

/// The envelope `run` printed (its last JSON line); exit 0 expected.
pub fn envelope_ok(what: &str, run: &Run) -> Value {
    assert_eq!(
        (run.code, run.timed_out),
        (Some(0), false),
        "{what}: {}",
        run.all_output()
    );
    last_json(&run.stdout).unwrap_or_else(|| panic!("{what}: no envelope:\n{}", run.all_output()))
}

/// Each attempt's (provider, error type).
pub fn tried(envelope: &Value) -> Vec<(String, Value)> {
    envelope["attempts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["provider"].as_str().unwrap().to_owned(),
                a["error_type"].clone(),
            )
        })
        .collect()
}

/// The `status` notices a stored run emitted (`agentgate runs show --events`).
pub fn notices(host: &Host, cwd: &Path, run_id: &str) -> Vec<String> {
    let shown = host.agentgate(cwd, &["runs", "show", run_id, "--events"]);
    assert_eq!(shown.code, Some(0), "{}", shown.all_output());
    shown
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .filter(|e| e["type"] == "status" && e["kind"] == "notice")
        .map(|e| e["detail"].as_str().unwrap().to_owned())
        .collect()
}
