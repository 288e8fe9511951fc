//! The client libraries of `clients/` against a real `agentgate serve`:
//! their own test suites (pytest for clients/python, node's test runner
//! for clients/typescript) run as child processes with the server's URL
//! and token in `AGENTGATE_URL` and `AGENTGATE_TOKEN`, and must pass. The
//! server's config gives them two agents: `quick`, a stand-in for Claude
//! Code (its messages `one` and `two`; with `hold` in the prompt it waits
//! after `one`, so that a run can be cancelled while it runs), and
//! `asker`, the REAL Claude Code against `agentgate fake-llm` in
//! permission mode `ask`, which asks a person before it writes a file
//! (the clients answer `allow`; this test then finds the file written).
//!
//! Also: the generated code is what `scripts/gen-clients.sh` makes of
//! docs/openapi.json now (`--check`), and the clients' versions are the
//! workspace's. What the tools need is installed by
//! `scripts/install-clients.sh`; a missing venv or node_modules fails.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::serve_support::{Serve, serve_with_cli_env};
use super::support::{Client, FakeServer, Run, run_bounded, workspace_root};

const TOKEN: &str = "client-libraries-token-0123456789abcdef";

/// A client suite's bound: its runs include the real Claude Code.
const SUITE_LIMIT: Duration = Duration::from_secs(420);

/// The `quick` agent's CLI: Claude Code's stream-json, without a model.
const STAND_IN: &str = r#"#!/bin/bash
prompt="$(cat) $*"
echo '{"type":"system","subtype":"init","session_id":"sess-1","model":"fake-model"}'
echo '{"type":"assistant","message":{"id":"m1","role":"assistant","model":"fake-model","content":[{"type":"text","text":"one"}]},"session_id":"sess-1"}'
if printf '%s' "$prompt" | grep -q hold; then
  for _ in $(seq 1 600); do sleep 0.1; done
fi
echo '{"type":"assistant","message":{"id":"m2","role":"assistant","model":"fake-model","content":[{"type":"text","text":"two"}]},"session_id":"sess-1"}'
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","session_id":"sess-1","num_turns":1}'
"#;

/// fake-llm's script for `asker`: one write (asked of a person), then done.
fn ask_script(target: &Path) -> String {
    format!(
        "turns:
  - match: {{contains: \"WRITE\"}}
    tool_call: {{name: Write, args: {{file_path: \"{}/allowed.txt\", content: \"yes\"}}}}
  - match: {{tool_result: true}}
    text: \"done\"
",
        target.display()
    )
}

/// A serve with both agents, and what it runs on.
struct Served {
    serve: Serve,
    /// Where `asker` writes its file.
    target: tempfile::TempDir,
    _fake: FakeServer,
    _claude: Client,
    _home: tempfile::TempDir,
}

fn served() -> Served {
    let target = tempfile::tempdir().unwrap();
    let fake = FakeServer::start(&ask_script(target.path()));
    let claude = Client::new(Cli::Claude, &fake);
    let home = tempfile::tempdir().unwrap();
    let stand_in = home.path().join("stand-in-claude");
    std::fs::write(&stand_in, STAND_IN).unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = home.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1
approvals:
  default: ask
  ask_timeout: 2m
agents:
  quick:
    provider: claude
    binary: {stand_in}
  asker:
    provider: claude
    binary: {claude}
    model: {model}
    cwd: {cwd}
    permission_mode: ask
    timeout: 150s
",
            stand_in = stand_in.display(),
            claude = claude.program.display(),
            model = claude.setup.model,
            cwd = claude.setup.workdir.display(),
        ),
    )
    .unwrap();
    let serve = serve_with_cli_env(
        home.path(),
        &claude.setup.env,
        TOKEN,
        &["--config", config.to_str().unwrap()],
    );
    Served {
        serve,
        target,
        _fake: fake,
        _claude: claude,
        _home: home,
    }
}

fn clients_dir(name: &str) -> PathBuf {
    workspace_root().join("clients").join(name)
}

/// `path` must exist: the clients' tools are installed by the project's
/// script, and their absence is a failure, never a skip.
fn installed(path: &Path) {
    assert!(
        path.exists(),
        "{} is missing: run scripts/install-clients.sh",
        path.display()
    );
}

/// Run a client's test command against `served`, bounded; it must pass.
fn run_suite(served: &Served, mut cmd: Command, what: &str) -> Run {
    cmd.env("AGENTGATE_URL", &served.serve.url)
        .env("AGENTGATE_TOKEN", TOKEN)
        .env_remove("AGENTGATE_SERVER");
    let run = run_bounded(cmd, SUITE_LIMIT);
    assert!(
        !run.timed_out && run.code == Some(0),
        "{what} failed (exit {:?}, timed out: {}):\n{}\nserve's log:\n{}",
        run.code,
        run.timed_out,
        run.all_output(),
        served.serve.stderr_so_far()
    );
    // The suite's own report, for the log (nextest shows it on failure
    // or with --no-capture).
    eprintln!("{what}:\n{}", run.all_output());
    run
}

/// The allowed write was made by the real Claude Code.
fn assert_approved_write(served: &Served, output: &str) {
    assert_eq!(
        std::fs::read_to_string(served.target.path().join("allowed.txt"))
            .ok()
            .as_deref(),
        Some("yes"),
        "the approved write is not there:\n{output}"
    );
}

#[test]
fn the_python_client_passes_its_tests_against_a_real_serve() {
    let dir = clients_dir("python");
    let python = dir.join(".venv/bin/python");
    installed(&python);
    let served = served();
    let mut cmd = Command::new(&python);
    cmd.args(["-m", "pytest", "-v", "-p", "no:cacheprovider"])
        .current_dir(&dir)
        .env("PYTHONDONTWRITEBYTECODE", "1");
    let run = run_suite(&served, cmd, "the Python client's tests");
    let output = run.all_output();
    // pytest's summary: tests passed, none skipped or failed.
    assert!(
        output.contains(" passed") && !output.contains(" skipped") && !output.contains(" failed"),
        "{output}"
    );
    assert_approved_write(&served, &output);
}

#[test]
fn the_typescript_client_passes_its_tests_against_a_real_serve() {
    let dir = clients_dir("typescript");
    let tsc = dir.join("node_modules/.bin/tsc");
    installed(&tsc);
    // Compile the client and its tests with the pinned TypeScript.
    let out_dir = tempfile::tempdir().unwrap();
    let mut compile = Command::new(&tsc);
    compile
        .args(["-p", "tsconfig.json", "--outDir"])
        .arg(out_dir.path())
        .current_dir(&dir);
    let compiled = run_bounded(compile, Duration::from_secs(180));
    assert_eq!(compiled.code, Some(0), "tsc:\n{}", compiled.all_output());
    // node resolves the compiled files' imports from the client's
    // node_modules: the output sits beside it.
    let link = out_dir.path().join("node_modules");
    std::os::unix::fs::symlink(dir.join("node_modules"), &link).unwrap();
    std::fs::write(out_dir.path().join("package.json"), r#"{"type": "module"}"#).unwrap();
    let tests: Vec<PathBuf> = std::fs::read_dir(out_dir.path().join("test"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".test.js"))
        .collect();
    assert!(!tests.is_empty(), "no compiled test files");
    let served = served();
    let mut cmd = Command::new("node");
    cmd.arg("--test").args(&tests).current_dir(out_dir.path());
    let run = run_suite(&served, cmd, "the TypeScript client's tests");
    let output = run.all_output();
    // node's summary: `# pass N`, `# fail 0`, `# skipped 0`.
    assert!(output.contains("# fail 0"), "{output}");
    assert!(output.contains("# skipped 0"), "{output}");
    assert!(!output.contains("# pass 0"), "{output}");
    assert_approved_write(&served, &output);
}

#[test]
fn the_generated_clients_are_what_the_document_gives() {
    installed(&clients_dir("python").join(".venv/bin/openapi-python-client"));
    installed(&clients_dir("typescript").join("node_modules/.bin/openapi-typescript"));
    let mut cmd = Command::new(workspace_root().join("scripts/gen-clients.sh"));
    cmd.arg("--check").current_dir(workspace_root());
    let run = run_bounded(cmd, Duration::from_secs(180));
    assert_eq!(
        run.code,
        Some(0),
        "the generated clients are stale (run scripts/gen-clients.sh):\n{}",
        run.all_output()
    );
}

#[test]
fn the_clients_are_versioned_with_the_api() {
    let version = env!("CARGO_PKG_VERSION");
    let root = workspace_root();
    let document: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("docs/openapi.json")).unwrap())
            .unwrap();
    assert_eq!(document["info"]["version"], version);
    let package: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("clients/typescript/package.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(package["version"], version);
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("clients/typescript/package-lock.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(lock["version"], version);
    assert_eq!(lock["packages"][""]["version"], version);
    let pyproject = std::fs::read_to_string(root.join("clients/python/pyproject.toml")).unwrap();
    assert!(
        pyproject
            .lines()
            .any(|l| l == format!("version = \"{version}\"")),
        "clients/python/pyproject.toml does not say version = \"{version}\""
    );
}
