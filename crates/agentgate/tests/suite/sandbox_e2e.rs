//! `--sandbox workspace` with the REAL Claude Code, Codex, Gemini CLI, Qwen
//! Code and opencode against
//! `agentgate fake-llm`: the model has the CLI's shell tool run one probe
//! that dumps the environment, reads `~/.ssh/id_ed25519` (a key the test
//! puts there), writes outside the workspace and inside it, and connects
//! to a loopback server the test runs; each finding goes to a file in the
//! workspace. Checked: the environment holds the allowlist and not the
//! variables the test set for agentgate (an AWS key, a GitHub token), the
//! key cannot be read, the outside write is refused (EACCES, in the run's
//! events as the tool's result) while the inside one lands, the loopback
//! server is reached (the network is as it is), the run answers, and the
//! envelope's `sandbox` says it was enforced. `off` is as without the
//! flag: every probe gets through and the envelope has no `sandbox`.
//! Classify mode refuses a write in the workspace as it happens. A warm
//! turn runs its long-lived process inside the same sandbox.

use std::ffi::OsStr;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::Value;

use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(240);

/// Set in agentgate's environment: a sandboxed CLI must not see them.
pub const HOST_SECRETS: [(&str, &str); 2] = [
    ("AWS_SECRET_ACCESS_KEY", "aws-secret-sandbox-e2e"),
    ("GITHUB_TOKEN", "ghp_sandbox_e2e_token"),
];
/// The private key the test puts in the CLI's `~/.ssh`.
pub const SSH_KEY: &str = "-----BEGIN OPENSSH PRIVATE KEY----- sandbox-e2e";

/// The answer after the probe.
pub const ANSWER: &str = "Probed the sandbox.";

/// What a probe needs: a folder outside the workspace, a loopback server.
pub struct Probe {
    pub outside: tempfile::TempDir,
    pub loopback: TcpListener,
}

impl Probe {
    pub fn new() -> Probe {
        Probe {
            outside: tempfile::tempdir().unwrap(),
            loopback: TcpListener::bind("127.0.0.1:0").unwrap(),
        }
    }

    /// The shell command of the probe (no double quotes, no backslashes:
    /// it sits in a double-quoted YAML string). `extra_connect` is a
    /// further `host:port` to try (an outside address).
    pub fn command(&self, extra_connect: Option<&str>) -> String {
        let port = self.loopback.local_addr().unwrap().port();
        let outside = self.outside.path().display();
        let connect = |target: &str, file: &str| {
            let (host, port) = target.rsplit_once(':').unwrap();
            format!(
                "if timeout 5 bash -c 'exec 3<>/dev/tcp/{host}/{port}' 2>/dev/null; then echo reached > {file}; else echo refused > {file}; fi"
            )
        };
        let mut cmd = format!(
            "env > env-dump.txt; \
             if cat $HOME/.ssh/id_ed25519 > /dev/null; then echo read > ssh.txt; else echo refused > ssh.txt; fi; \
             if echo x > {outside}/escape.txt; then echo wrote > outside.txt; else echo refused > outside.txt; fi; \
             echo inside > inside.txt; cat /proc/1/comm > pid1.txt; {}",
            connect(&format!("127.0.0.1:{port}"), "loopback.txt")
        );
        if let Some(target) = extra_connect {
            cmd.push_str("; ");
            cmd.push_str(&connect(target, "remote.txt"));
        }
        cmd
    }
}

/// `cli`'s shell tool call running `command`, in fake-llm's script.
pub fn shell_call(cli: Cli, command: &str) -> String {
    match cli {
        Cli::Codex => format!(r#"{{name: exec_command, args: {{cmd: "{command}"}}}}"#),
        Cli::Opencode => format!(
            r#"{{name: bash, args: {{command: "{command}", description: "probe the sandbox"}}}}"#
        ),
        _ => format!(r#"{{name: {}, command: "{command}"}}"#, cli.shell_tool()),
    }
}

/// A script: the probe, then [`ANSWER`].
pub fn script(cli: Cli, command: &str) -> String {
    format!(
        "turns:\n  - match: {{tool_result: false}}\n    repeat: true\n    text: \"Probing.\"\n    tool_call: {call}\n  - match: {{tool_result: true}}\n    repeat: true\n    text: \"{ANSWER}\"\n",
        call = shell_call(cli, command),
    )
}

/// `client`'s home with a private key in `~/.ssh`.
pub fn plant_ssh_key(client: &Client) {
    let ssh = client.setup.home.join(".ssh");
    std::fs::create_dir_all(&ssh).unwrap();
    std::fs::write(ssh.join("id_ed25519"), SSH_KEY).unwrap();
}

/// `agentgate run` of `client`'s CLI, streamed, with the host's secrets in
/// agentgate's environment.
pub fn run(client: &Client, store: &Path, extra: &[&OsStr]) -> Run {
    let cli = client.setup.cli;
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", cli.binary(), "--yolo", "--stream"])
        .arg("--binary")
        .arg(&client.program);
    if cli != Cli::Opencode && cli != Cli::Codex {
        cmd.args(["--model", &client.setup.model]);
    }
    // Codex's recipe (and opencode's, through a gateway) names its key
    // variable in its config: the run's env passes it (a sandbox keeps
    // what the run sets explicitly).
    if let Some((k, v)) = client
        .setup
        .env
        .iter()
        .find(|(k, _)| k == "FAKE_LLM_API_KEY")
    {
        cmd.arg("--env").arg(format!("{k}={v}"));
    }
    cmd.args(extra)
        .arg("Probe the sandbox, please.")
        .env("AGENTGATE_HOME", store)
        .envs(HOST_SECRETS);
    run_bounded(cmd, LIMIT)
}

pub fn events(run: &Run) -> Vec<Value> {
    run.stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect()
}

pub fn envelope(run: &Run) -> Value {
    events(run)
        .last()
        .map(|e| e["envelope"].clone())
        .unwrap_or_default()
}

/// The probe's finding in `file` of the workspace.
pub fn finding(workdir: &Path, file: &str, all: &str) -> String {
    std::fs::read_to_string(workdir.join(file))
        .unwrap_or_else(|e| panic!("no {file} in the workspace ({e}): {all}"))
        .trim()
        .to_owned()
}

/// The variable names of the probe's environment dump.
pub fn dumped_names(workdir: &Path, all: &str) -> Vec<String> {
    finding(workdir, "env-dump.txt", all)
        .lines()
        .filter_map(|l| l.split_once('=').map(|(k, _)| k.to_owned()))
        .collect()
}

/// The checks every sandboxed level shares: the environment, the key, the
/// writes, the answer, the tool result that shows the refusal.
pub fn confined(cli: Cli, client: &Client, probe: &Probe, run: &Run) -> Value {
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{cli}: {all}");
    let env = envelope(run);
    assert_eq!(env["response"], ANSWER, "{cli}: {env:#}");
    let work = &client.setup.workdir;
    let names = dumped_names(work, &all);
    for (secret, value) in HOST_SECRETS {
        assert!(
            !names.iter().any(|n| n == secret),
            "{cli}: {secret} reached the CLI: {names:?}"
        );
        assert!(!all.contains(value) || !finding(work, "env-dump.txt", &all).contains(value));
    }
    for kept in ["PATH", "HOME"] {
        assert!(
            names.iter().any(|n| n == kept),
            "{cli}: no {kept}: {names:?}"
        );
    }
    assert!(
        !names.iter().any(|n| n.starts_with("AGENTGATE_")),
        "{cli}: {names:?}"
    );
    assert_eq!(
        finding(work, "ssh.txt", &all),
        "refused",
        "{cli}: ~/.ssh was readable"
    );
    assert_eq!(
        finding(work, "outside.txt", &all),
        "refused",
        "{cli}: wrote outside"
    );
    assert!(!probe.outside.path().join("escape.txt").exists(), "{cli}");
    assert_eq!(finding(work, "inside.txt", &all), "inside", "{cli}");
    // The refusal, as the shell said it, is in the tool's result.
    let refused = events(run)
        .iter()
        .any(|e| e["type"] == "tool_result" && e.to_string().contains("Permission denied"));
    assert!(refused, "{cli}: no tool_result with the refusal: {all}");
    let sandbox = &env["sandbox"];
    assert_eq!(sandbox["state"], "enforced", "{cli}: {sandbox:#}");
    assert_eq!(
        sandbox["filesystem"]["state"], "enforced",
        "{cli}: {sandbox:#}"
    );
    assert_eq!(
        sandbox["environment"]["state"], "enforced",
        "{cli}: {sandbox:#}"
    );
    assert_eq!(
        sandbox["processes"]["state"], "enforced",
        "{cli}: {sandbox:#}"
    );
    // Its pid 1 is the sandbox's: the machine's processes are not there.
    assert_eq!(
        finding(work, "pid1.txt", &all),
        "agentgate",
        "{cli}: the CLI sees the machine's processes"
    );
    let notice = events(run).iter().any(|e| {
        e["type"] == "status"
            && e.to_string().contains("sandbox ")
            && e.to_string().contains(".ssh")
    });
    assert!(notice, "{cli}: no notice of what is confined: {all}");
    env
}

fn workspace(cli: Cli) {
    let probe = Probe::new();
    let server = FakeServer::start(&script(cli, &probe.command(None)));
    let client = Client::new(cli, &server);
    plant_ssh_key(&client);
    let store = tempfile::tempdir().unwrap();
    let run = run(
        &client,
        store.path(),
        &[OsStr::new("--sandbox"), OsStr::new("workspace")],
    );
    let env = confined(cli, &client, &probe, &run);
    assert_eq!(env["sandbox"]["level"], "workspace");
    assert_eq!(env["sandbox"]["network"]["state"], "none", "{env:#}");
    let all = run.all_output();
    assert_eq!(
        finding(&client.setup.workdir, "loopback.txt", &all),
        "reached",
        "{cli}: workspace leaves the network as it is"
    );
}

fn off(cli: Cli) {
    let probe = Probe::new();
    let server = FakeServer::start(&script(cli, &probe.command(None)));
    let client = Client::new(cli, &server);
    plant_ssh_key(&client);
    let store = tempfile::tempdir().unwrap();
    let run = run(
        &client,
        store.path(),
        &[OsStr::new("--sandbox"), OsStr::new("off")],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{cli}: {all}");
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{cli}: {env:#}");
    assert!(env.get("sandbox").is_none(), "{cli}: {env:#}");
    let work = &client.setup.workdir;
    let names = dumped_names(work, &all);
    assert!(
        names.iter().any(|n| n == "AWS_SECRET_ACCESS_KEY"),
        "{cli}: {names:?}"
    );
    assert_eq!(finding(work, "ssh.txt", &all), "read");
    assert_eq!(finding(work, "outside.txt", &all), "wrote");
    assert_eq!(finding(work, "loopback.txt", &all), "reached");
    assert_ne!(finding(work, "pid1.txt", &all), "agentgate", "{cli}");
}

#[test]
fn claude_in_workspace() {
    workspace(Cli::Claude);
}

#[test]
fn codex_in_workspace() {
    workspace(Cli::Codex);
}

#[test]
fn gemini_in_workspace() {
    workspace(Cli::Gemini);
}

#[test]
fn qwen_in_workspace() {
    workspace(Cli::Qwen);
}

#[test]
fn opencode_in_workspace() {
    workspace(Cli::Opencode);
}

#[test]
fn claude_off_is_as_today() {
    off(Cli::Claude);
}

#[test]
fn codex_off_is_as_today() {
    off(Cli::Codex);
}

/// A `mode: classify` agent: its write in the workspace is refused as it
/// happens, and the refusal is the tool's result in the run's events.
#[test]
fn classify_mode_refuses_a_write_in_the_workspace() {
    let cli = Cli::Claude;
    let server = FakeServer::start(&script(cli, "echo changed > classified.txt"));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let config: PathBuf = store.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  triage:\n    provider: claude\n    model: {}\n    mode: classify\n",
            client.setup.model
        ),
    )
    .unwrap();
    let mut cmd = client.agentgate();
    cmd.arg("--config")
        .arg(&config)
        .args([
            "run",
            "--agent",
            "triage",
            "--yolo",
            "--stream",
            "--sandbox",
            "workspace",
        ])
        .arg("--binary")
        .arg(&client.program)
        .arg("Classify this, please.")
        .env("AGENTGATE_HOME", store.path());
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{all}");
    assert!(
        !client.setup.workdir.join("classified.txt").exists(),
        "the classify agent wrote in the workspace: {all}"
    );
    let refused = events(&run)
        .iter()
        .any(|e| e["type"] == "tool_result" && e.to_string().contains("Permission denied"));
    assert!(refused, "no tool_result with the refusal: {all}");
    assert_eq!(env["sandbox"]["state"], "enforced", "{env:#}");
}

/// A warm session's turns under `workspace` (through the run engine with a
/// holder, as `serve` and the session host run them): the long-lived
/// process starts inside the sandbox, and a second turn, served by the
/// same process, is still in it.
#[test]
fn warm_turns_run_in_the_sandbox() {
    use agentgate_core::{Config, StepSandbox};
    use agentgate_protocol::SandboxLevel;
    use agentgate_providers::PermissionMode;

    let cli = Cli::Claude;
    let probe = Probe::new();
    let bench = super::warm_run::Bench::new(cli, &script(cli, &probe.command(None)));
    plant_ssh_key(&bench.client);
    let work = bench.client.setup.workdir.clone();
    let turn = |prompt: &str| {
        let mut plan = bench.plan(prompt, PermissionMode::Bypass, &Config::default());
        for step in &mut plan.steps {
            step.sandbox = Some(StepSandbox::at(SandboxLevel::Workspace));
        }
        let (outcome, events) = bench.turn_with(&plan);
        (serde_json::to_value(&outcome.envelope).unwrap(), events)
    };
    let (first, events) = turn("Probe the sandbox, please.");
    let all = format!("{first:#}\n{events:#?}");
    assert_eq!(first["response"], ANSWER, "{all}");
    assert_eq!(first["warm"]["process"], "started", "{all}");
    assert_eq!(first["sandbox"]["state"], "enforced", "{all}");
    assert_eq!(first["sandbox"]["filesystem"]["state"], "enforced", "{all}");
    assert_eq!(finding(&work, "ssh.txt", &all), "refused");
    assert_eq!(finding(&work, "outside.txt", &all), "refused");
    assert_eq!(finding(&work, "inside.txt", &all), "inside");
    assert!(!probe.outside.path().join("escape.txt").exists());
    let refused = events
        .iter()
        .any(|e| e["type"] == "tool_result" && e.to_string().contains("Permission denied"));
    assert!(refused, "no tool_result with the refusal: {all}");

    let (second, _) = turn("Once more, please.");
    assert_eq!(second["warm"]["process"], "reused", "{second:#}");
    assert_eq!(
        second["warm"]["pgid"], first["warm"]["pgid"],
        "the same process: {second:#}"
    );
    assert_eq!(second["sandbox"]["state"], "enforced", "{second:#}");
}

/// A `mode: edit` agent allowed `src`: its write there lands, its write
/// beside it is refused as it happens.
#[test]
fn edit_mode_writes_only_under_its_allowed_paths() {
    let cli = Cli::Claude;
    let server = FakeServer::start(&script(
        cli,
        "echo kept > src/allowed.txt; echo refused > notes.txt",
    ));
    let client = Client::new(cli, &server);
    std::fs::create_dir_all(client.setup.workdir.join("src")).unwrap();
    let store = tempfile::tempdir().unwrap();
    let config: PathBuf = store.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\nagents:\n  fixer:\n    provider: claude\n    model: {}\n    mode: edit\n    allow: [src]\n",
            client.setup.model
        ),
    )
    .unwrap();
    let mut cmd = client.agentgate();
    cmd.arg("--config")
        .arg(&config)
        .args([
            "run",
            "--agent",
            "fixer",
            "--yolo",
            "--stream",
            "--sandbox",
            "workspace",
        ])
        .arg("--binary")
        .arg(&client.program)
        .arg("Fix this, please.")
        .env("AGENTGATE_HOME", store.path());
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{all}");
    let work = &client.setup.workdir;
    assert_eq!(finding(work, "src/allowed.txt", &all), "kept");
    assert!(
        !work.join("notes.txt").exists(),
        "wrote outside its allowlist: {all}"
    );
    let refused = events(&run)
        .iter()
        .any(|e| e["type"] == "tool_result" && e.to_string().contains("Permission denied"));
    assert!(refused, "no tool_result with the refusal: {all}");
}

/// `--workspace worktree`: the run's worktree lies in its run folder,
/// inside agentgate's own (hidden) folders; the CLI still works in it.
#[test]
fn a_runs_worktree_is_its_workspace_in_the_sandbox() {
    let cli = Cli::Claude;
    let server = FakeServer::start(&script(cli, "echo made > made.txt; cat tracked.txt"));
    let client = Client::new(cli, &server);
    let work = &client.setup.workdir;
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .arg("-C")
            .arg(work)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
    };
    git(&["init", "-q"]);
    git(&["config", "user.name", "Test"]);
    git(&["config", "user.email", "test@example.com"]);
    std::fs::write(work.join("tracked.txt"), "one\n").unwrap();
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "initial"]);
    let store = tempfile::tempdir().unwrap();
    let run = run(
        &client,
        store.path(),
        &[
            OsStr::new("--workspace"),
            OsStr::new("worktree"),
            OsStr::new("--sandbox"),
            OsStr::new("workspace"),
        ],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{all}");
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{all}");
    assert_eq!(env["sandbox"]["state"], "enforced", "{env:#}");
    let ws = &env["workspace"];
    assert_eq!(ws["kept"], true, "{ws:#}");
    assert!(ws.to_string().contains("made.txt"), "{ws:#}");
    assert!(!work.join("made.txt").exists(), "the main tree was changed");
}

/// `agentgate run --warm --sandbox workspace`: the session host starts the
/// warm process inside the sandbox the client asked for.
#[test]
fn a_session_hosts_warm_process_runs_in_the_clients_sandbox() {
    let cli = Cli::Claude;
    let probe = Probe::new();
    let server = FakeServer::start(&script(cli, &probe.command(None)));
    let client = Client::new(cli, &server);
    plant_ssh_key(&client);
    // A short folder: the host's socket lives in it.
    let home = tempfile::Builder::new().prefix("agh").tempdir().unwrap();
    let setup = &client.setup;
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(["run", "--warm", "--session", "chat", "--warm-idle", "3s"])
        .args(["--provider", "claude", "--model", &setup.model])
        .args(["--timeout", "120s", "--yolo", "--sandbox", "workspace"])
        .arg("--binary")
        .arg(&client.program)
        .arg("Probe the sandbox, please.")
        .env_clear()
        .envs(setup.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .env("AGENTGATE_HOME", home.path())
        .current_dir(&setup.workdir)
        .stdin(std::process::Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    // The host ends itself once idle; ended here in any case.
    for pid_file in std::fs::read_dir(home.path().join("warm"))
        .into_iter()
        .flatten()
        .flatten()
    {
        if pid_file.path().extension().is_some_and(|x| x == "pid")
            && let Ok(pid) = std::fs::read_to_string(pid_file.path())
        {
            let _ = std::process::Command::new("kill")
                .args(["-TERM", pid.trim()])
                .status();
        }
    }
    assert_eq!(run.code, Some(0), "{all}");
    let env: Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {all}"));
    assert_eq!(env["response"], ANSWER, "{all}");
    assert_eq!(env["warm"]["process"], "started", "{env:#}");
    assert_eq!(env["sandbox"]["state"], "enforced", "{env:#}");
    let work = &setup.workdir;
    assert_eq!(finding(work, "ssh.txt", &all), "refused");
    assert_eq!(finding(work, "outside.txt", &all), "refused");
    assert_eq!(finding(work, "inside.txt", &all), "inside");
}

/// The processes whose command line is `sleep SECONDS`.
fn sleeping(seconds: u32) -> Vec<u32> {
    let want = format!("sleep\0{seconds}\0");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline"))
            && cmdline.ends_with(want.as_bytes())
        {
            found.push(pid);
        }
    }
    found
}

/// Waits (bounded) until `done` holds; false if it never did.
fn within(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    done()
}

/// A sandboxed Claude whose tool call leaves a daemon (`setsid`, out of
/// the process group) and blocks; `stop` ends the run. Nothing of it is
/// left after agentgate returns: the sandbox's PID namespace ends it.
pub fn leaves_nothing(
    stop: &dyn Fn(&std::process::Child),
    extra: &[&str],
    code: i32,
    error: &str,
) -> Value {
    let cli = Cli::Claude;
    // Numbers of this test's own: no other process sleeps that long.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let (daemon, blocker) = (700_000 + u32::from(port), 800_000 + u32::from(port));
    let command = format!("echo started > started.txt; (setsid sleep {daemon} &); sleep {blocker}");
    let server = FakeServer::start(&script(cli, &command));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", "claude", "--yolo", "--stream"])
        .args(["--model", &client.setup.model])
        .args(extra)
        .arg("--binary")
        .arg(&client.program)
        .arg("Sleep, please.")
        .env("AGENTGATE_HOME", store.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    assert!(
        within(Duration::from_secs(90), || !sleeping(daemon).is_empty()
            && !sleeping(blocker).is_empty()),
        "the tool call never started its sleeps"
    );
    stop(&child);
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let env = super::run_e2e::last_json(&stdout)
        .map(|e| e["envelope"].clone())
        .unwrap_or_else(|| panic!("no envelope: {stdout}"));
    assert_eq!(out.status.code(), Some(code), "{env:#}");
    assert_eq!(env["error_type"], error, "{env:#}");
    assert!(client.setup.workdir.join("started.txt").exists());
    assert!(
        within(Duration::from_secs(10), || sleeping(daemon).is_empty()
            && sleeping(blocker).is_empty()),
        "left behind: {:?} {:?}",
        sleeping(daemon),
        sleeping(blocker)
    );
    env
}

#[test]
fn a_timeout_leaves_nothing_of_a_sandboxed_cli() {
    leaves_nothing(
        &|_| {},
        &["--sandbox", "workspace", "--timeout", "8s"],
        124,
        "timeout",
    );
}

/// SIGINT to agentgate, as a user's Ctrl-C.
pub fn interrupt(child: &std::process::Child) {
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
}

#[test]
fn a_cancel_leaves_nothing_of_a_sandboxed_cli() {
    leaves_nothing(&interrupt, &["--sandbox", "workspace"], 130, "cancelled");
}

/// Registry tools under `workspace`: the CLI starts agentgate's MCP server
/// (`agentgate mcp --relay`, readable in the sandbox as an MCP server's
/// program), which relays the call to the run; the answer carries the
/// tool's result (see `run_tools.rs`).
#[test]
fn a_registry_tool_is_called_from_the_sandbox() {
    super::run_tools::tools_for_an_agent_run(
        Cli::Claude,
        &[
            "--provider",
            "claude",
            "--tools",
            "lookup",
            "--sandbox",
            "workspace",
        ],
    );
}
