//! `wrap` and `remove` with the real engine: Debian's podman
//! (scripts/install-podman.sh installs it and runc) running the real
//! Claude Code (`AGENTGATE_TEST_CLIS`, else the workspace's `clis/`) in a
//! container against a fake-llm on the host, under the supervisor; and
//! cancel, timeout and `exec` leaving no container and no process.
//!
//! The image is a skeleton (empty folders and the `/bin` links) imported
//! once (`podman import`; there is no image registry here), with the host's
//! `/usr`, `/etc` and the CLIs' folder mounted read-only by the configured
//! `args`, as a user would give them. What this machine's podman needs
//! besides is in [`machine_args`]. A missing podman or CLI fails the test:
//! CI must have them.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use agentgate_fakellm::clients::{self, Cli, ClientOptions};
use agentgate_fakellm::{FakeLlm, Script, ServerConfig};
use agentgate_supervise::{
    Control, EndReason, ExitReport, Invocation, OutputLine, Stream, SupervisorConfig,
    TerminationTable, supervise,
};
use tokio::sync::mpsc;

use super::*;

/// The skeleton image the tests import.
const IMAGE: &str = "localhost/agentgate-test-skeleton:2";

/// A file only the image has (this host has podman's `/run/.containerenv`
/// of its own, so that one tells nothing). The binary's suite
/// (`sandbox_container_e2e.rs`) makes the same image.
const MARKER: &str = "/agentgate-test-skeleton";

/// How long a test waits for a line it expects before failing.
const LINE_WAIT: Duration = Duration::from_secs(120);

fn podman() -> PathBuf {
    let path = std::env::var_os("PATH").unwrap_or_default();
    engine::find_program("podman".as_ref(), &path)
        .expect("podman is not on PATH: scripts/install-podman.sh installs it (the test fails, never skips, without it)")
}

/// `podman ARGS`, which must succeed; its stdout.
fn podman_ok(args: &[&str]) -> String {
    let out = Command::new(podman()).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "podman {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The skeleton image, imported when missing: empty folders a container
/// needs as mount points, and `/bin`, `/lib`, ... as links into `/usr` (as
/// on the host, whose `/usr` the tests mount). Test processes running at
/// once take turns (a file lock), so one imports and the others find it.
fn ensure_image() {
    let lock =
        std::fs::File::create(std::env::temp_dir().join("agentgate-test-skeleton.lock")).unwrap();
    lock.lock().unwrap();
    let exists = Command::new(podman())
        .args(["image", "exists", IMAGE])
        .status()
        .unwrap();
    if exists.success() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    for sub in ["usr", "etc", "proc", "sys", "dev", "tmp", "run", "root"] {
        std::fs::create_dir_all(root.join(sub)).unwrap();
    }
    for link in ["bin", "sbin", "lib", "lib64"] {
        if let Ok(target) = std::fs::read_link(Path::new("/").join(link)) {
            std::os::unix::fs::symlink(target, root.join(link)).unwrap();
        }
    }
    std::fs::write(root.join(MARKER.trim_start_matches('/')), "skeleton\n").unwrap();
    let tar = dir.path().join("skeleton.tar");
    let status = Command::new("tar")
        .arg("-C")
        .arg(&root)
        .arg("-cf")
        .arg(&tar)
        .arg(".")
        .status()
        .unwrap();
    assert!(status.success(), "tar of the skeleton failed");
    podman_ok(&["import", &tar.display().to_string(), IMAGE]);
}

/// A hard limit of this process (`/proc/self/limits`), e.g. `Max open files`.
fn hard_limit(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().nth(1)?.parse().ok()
}

/// What Debian's podman 4.3 needs on this machine, found here (see
/// docs/guide/sandbox.md): crun refuses cgroups v1 with a v2 hierarchy
/// beside it ("hybrid"), runc does not; and without CAP_SYS_RESOURCE a
/// container's limits cannot exceed the hard ones podman runs under
/// (its own process limit lowered to 32768), while podman asks for more by
/// default.
fn machine_args() -> Vec<String> {
    let nofile = hard_limit("Max open files").unwrap_or(1024);
    let nproc = hard_limit("Max processes").unwrap_or(32768).min(32768);
    [
        "--runtime".to_owned(),
        "runc".to_owned(),
        "--ulimit".to_owned(),
        format!("nofile={nofile}:{nofile}"),
        "--ulimit".to_owned(),
        format!("nproc={nproc}:{nproc}"),
    ]
    .into()
}

/// `sandbox.container` for the tests' image: the host's system and CLIs
/// read-only, the host's network (the fake-llm listens on its loopback).
fn image_spec() -> ContainerSpec {
    let clis = clis_dir();
    let clis = clis.display();
    let mut args = machine_args();
    args.extend(
        [
            "-v",
            "/usr:/usr:ro",
            "-v",
            "/etc:/etc:ro",
            "-v",
            &format!("{clis}:{clis}:ro"),
            "--network",
            "host",
        ]
        .map(str::to_owned),
    );
    ContainerSpec {
        engine: Some(podman().display().to_string()),
        image: Some(IMAGE.to_owned()),
        name: None,
        args,
    }
}

fn clis_dir() -> PathBuf {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = clients::test_clis_dir(&workspace);
    dir.canonicalize()
        .unwrap_or_else(|e| panic!("the CLIs' folder {}: {e}", dir.display()))
}

fn claude() -> (PathBuf, PathBuf) {
    let bin_dir = clis_dir().join("node_modules/.bin");
    let program = clients::locate(Cli::Claude, std::slice::from_ref(&bin_dir))
        .expect("Claude Code is not installed: scripts/install-clis.sh (AGENTGATE_TEST_CLIS names another folder)");
    (program, bin_dir)
}

/// Whether a container of that name exists (running or not).
fn container_exists(name: &str) -> bool {
    let filter = format!("name=^{name}$");
    !podman_ok(&["ps", "-a", "--filter", &filter, "--format", "{{.Names}}"])
        .trim()
        .is_empty()
}

/// Whether some process's command line holds `marker`.
fn process_with(marker: &str) -> Option<String> {
    let procs = std::fs::read_dir("/proc").ok()?;
    procs.flatten().find_map(|entry| {
        let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
        let text = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        text.contains(marker)
            .then(|| format!("{}: {text}", entry.path().display()))
    })
}

/// A supervised run of `inv` whose stdout lines are collected, cancelled
/// once a line holds `cancel_when` (a sign that the CLI runs); its stderr
/// is printed for a failing test's reader.
async fn run_supervised(
    inv: Invocation,
    cfg: SupervisorConfig,
    cancel_when: Option<&str>,
) -> (ExitReport, Vec<String>) {
    let (report, stdout, stderr) = run_supervised_both(inv, cfg, cancel_when).await;
    if !stderr.is_empty() {
        eprintln!("stderr of the engine and the CLI:\n{}", stderr.join("\n"));
    }
    (report, stdout)
}

/// [`run_supervised`], with the stderr lines apart.
async fn run_supervised_both(
    inv: Invocation,
    cfg: SupervisorConfig,
    cancel_when: Option<&str>,
) -> (ExitReport, Vec<String>, Vec<String>) {
    let (line_tx, mut line_rx) = mpsc::channel::<OutputLine>(256);
    let (control_tx, control_rx) = mpsc::channel::<Control>(4);
    let task = tokio::spawn(supervise(inv, cfg, line_tx, control_rx));
    let mut lines = Vec::new();
    let mut stderr = Vec::new();
    let mut cancelled = false;
    loop {
        let next = tokio::time::timeout(LINE_WAIT, line_rx.recv())
            .await
            .expect("no line from the CLI within the wait");
        let Some(line) = next else { break };
        if line.stream != Stream::Stdout {
            stderr.push(String::from_utf8_lossy(&line.bytes).into_owned());
            continue;
        }
        let text = String::from_utf8_lossy(&line.bytes).into_owned();
        if let Some(marker) = cancel_when
            && !cancelled
            && text.contains(marker)
        {
            control_tx
                .send(Control::Cancel { immediate: false })
                .await
                .unwrap();
            cancelled = true;
        }
        lines.push(text);
    }
    let report = task.await.unwrap().unwrap();
    (report, lines, stderr)
}

fn quick_grace() -> SupervisorConfig {
    SupervisorConfig {
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(1),
            terminate_grace: Duration::from_secs(1),
        },
        ..SupervisorConfig::default()
    }
}

/// Claude Code pointed at `server` from `root`, prompt on its command line
/// or (`prompt_on_stdin`) on stdin.
fn claude_invocation(
    server: &FakeLlm,
    root: &Path,
    prompt: &str,
    on_stdin: bool,
) -> (Invocation, clients::ClientSetup) {
    let (program, bin_dir) = claude();
    let opts = ClientOptions {
        bin_dir: Some(bin_dir),
        ..ClientOptions::default()
    };
    let setup = clients::prepare(Cli::Claude, &server.url(), root, &opts).unwrap();
    let mut args = setup.args(prompt);
    if on_stdin {
        args.pop();
    }
    let mut inv = Invocation::new(program).args(args);
    inv.env_clear = true;
    inv.env = setup
        .env
        .iter()
        .map(|(k, v)| (k.into(), v.into()))
        .collect();
    inv.cwd = Some(setup.workdir.clone());
    if on_stdin {
        inv.stdin = Some(prompt.as_bytes().to_vec());
    }
    (inv, setup)
}

async fn fake_llm(script: &str) -> FakeLlm {
    let script = Script::parse(script).unwrap();
    FakeLlm::start(
        "127.0.0.1:0".parse().unwrap(),
        ServerConfig {
            script,
            log_path: None,
        },
    )
    .await
    .unwrap()
}

/// The `result` record's text of Claude's stream-json output.
fn result_text(lines: &[String]) -> Option<String> {
    lines.iter().rev().find_map(|l| {
        let v: serde_json::Value = serde_json::from_str(l).ok()?;
        (v["type"] == "result").then(|| v["result"].as_str().unwrap_or_default().to_owned())
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn claude_code_answers_from_a_podman_container_with_the_workspace_and_env_passed() {
    ensure_image();
    assert!(!Path::new(MARKER).exists(), "the host has {MARKER}");
    let script = format!(
        r#"
turns:
  - match: {{tool_result: false}}
    tool_call: {{name: shell, command: "test -f {MARKER} && echo in-container > where.txt; pwd >> where.txt; echo \"$PROBE_VALUE\" >> where.txt"}}
  - match: {{tool_result: true}}
    text: "done in the container"
"#
    );
    let server = fake_llm(&script).await;
    let root = tempfile::tempdir().unwrap();
    let (mut inv, setup) = claude_invocation(&server, root.path(), "write where.txt", false);
    inv.env
        .push(("PROBE_VALUE".into(), "probe-value-5d1".into()));
    let name = attempt_container_name("").unwrap();
    let mounts = [setup.workdir.clone(), setup.home.clone()];
    let (wrapped, run) = wrap(&image_spec(), inv, &name, &mounts).unwrap();
    let argv: Vec<String> = wrapped
        .args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    assert!(argv.contains(&"PROBE_VALUE".to_owned()));
    assert!(
        !argv
            .iter()
            .any(|a| a.contains("probe-value-5d1") || a.contains("fake-llm-key"))
    );
    assert_eq!(
        run.report().by.as_deref().map(|b| b.starts_with("podman ")),
        Some(true)
    );

    let (report, lines) = run_supervised(wrapped, quick_grace(), None).await;
    run.remove().await.unwrap();
    assert_eq!(report.ended_by, EndReason::Exited, "{lines:?}");
    assert_eq!(
        result_text(&lines).as_deref(),
        Some("done in the container"),
        "{lines:?}"
    );
    let written = std::fs::read_to_string(setup.workdir.join("where.txt")).unwrap();
    let expected = format!(
        "in-container\n{}\nprobe-value-5d1\n",
        setup.workdir.display()
    );
    assert_eq!(written, expected);
    assert!(!container_exists(&name));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_on_stdin_reaches_claude_code_in_the_container() {
    ensure_image();
    let script = r#"
on_unmatched: error
turns:
  - match: {contains: "STDIN-PROMPT-7c2"}
    text: "heard it on stdin"
"#;
    let server = fake_llm(script).await;
    let root = tempfile::tempdir().unwrap();
    let (inv, setup) = claude_invocation(&server, root.path(), "say STDIN-PROMPT-7c2", true);
    assert!(
        !inv.args
            .iter()
            .any(|a| a.to_string_lossy().contains("STDIN-PROMPT"))
    );
    let name = attempt_container_name("").unwrap();
    let mounts = [setup.workdir.clone(), setup.home.clone()];
    let (wrapped, run) = wrap(&image_spec(), inv, &name, &mounts).unwrap();
    let (report, lines) = run_supervised(wrapped, quick_grace(), None).await;
    run.remove().await.unwrap();
    assert_eq!(report.ended_by, EndReason::Exited, "{lines:?}");
    assert_eq!(
        result_text(&lines).as_deref(),
        Some("heard it on stdin"),
        "{lines:?}"
    );
    assert!(!container_exists(&name));
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_claude_code_in_a_container_leaves_no_container_and_no_process() {
    ensure_image();
    let server = fake_llm("turns:\n  - match: {contains: HANG}\n    hang: true\n").await;
    let root = tempfile::tempdir().unwrap();
    let name = attempt_container_name("").unwrap();
    // The prompt is on Claude's command line: it marks its process.
    let marker = format!("HANG {name}");
    let (inv, setup) = claude_invocation(&server, root.path(), &marker, false);
    let mounts = [setup.workdir.clone(), setup.home.clone()];
    let (wrapped, run) = wrap(&image_spec(), inv, &name, &mounts).unwrap();
    // Claude's first stream-json record (`system`/`init`) says it runs.
    let (report, lines) = run_supervised(wrapped, quick_grace(), Some("\"init\"")).await;
    assert_eq!(report.ended_by, EndReason::Cancelled, "{lines:?}");
    run.remove().await.unwrap();
    assert!(!container_exists(&name));
    assert_eq!(process_with(&marker), None);
    server.shutdown().await.unwrap();
}

/// A command that ignores SIGINT and SIGTERM (so neither the engine
/// client's signal proxy nor the termination table ends it), with a child
/// that does too, both marked with `marker` on their command lines.
fn stubborn(marker: &str) -> Invocation {
    Invocation::new("/bin/sh").args([
        "-c".to_owned(),
        format!(
            "trap '' INT TERM; /bin/sh -c 'sleep 3600; : {marker}-child' & echo started; wait; : {marker}"
        ),
    ])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_timed_out_attempt_whose_engine_client_was_killed_still_ends_its_container() {
    ensure_image();
    let name = attempt_container_name("").unwrap();
    // Not the bare name: the engine's own processes (conmon) carry it.
    let marker = format!("marker-{name}");
    let (wrapped, run) = wrap(&image_spec(), stubborn(&marker), &name, &[]).unwrap();
    let cfg = SupervisorConfig {
        timeout: Some(Duration::from_secs(10)),
        ..quick_grace()
    };
    let (report, lines) = run_supervised(wrapped, cfg, None).await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    assert_eq!(lines, ["started"], "the container ran before the timeout");
    // The client was killed; the container, deaf to signals, still runs.
    assert!(container_exists(&name));
    assert!(process_with(&format!("{marker}-child")).is_some());
    run.remove().await.unwrap();
    assert!(!container_exists(&name));
    assert_eq!(process_with(&marker), None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_exec_in_a_named_container_is_ended_without_removing_the_container() {
    ensure_image();
    let boxed = format!("{}-box", attempt_container_name("").unwrap());
    let mut start = vec!["run", "-d", "--name", &boxed];
    let spec = image_spec();
    start.extend(spec.args.iter().map(String::as_str));
    start.extend([IMAGE, "sleep", "600"]);
    podman_ok(&start);
    let _box_removal = RemoveOnDrop(boxed.clone());
    let exec_spec = ContainerSpec {
        image: None,
        name: Some(boxed.clone()),
        args: vec![],
        ..spec
    };
    let attempt = attempt_container_name("").unwrap();
    let marker = format!("marker-{attempt}");
    let (wrapped, run) = wrap(&exec_spec, stubborn(&marker), &attempt, &[]).unwrap();
    assert_eq!(
        run.report().state,
        agentgate_protocol::EnforcementState::Partial
    );
    let (report, lines) = run_supervised(wrapped, quick_grace(), Some("started")).await;
    assert_eq!(report.ended_by, EndReason::Cancelled, "{lines:?}");
    // The exec'd shell and its sleep outlive the killed client until removed.
    assert!(process_with(&format!("{marker}-child")).is_some());
    run.remove().await.unwrap();
    assert_eq!(process_with(&marker), None);
    assert!(
        container_exists(&boxed),
        "a named container is not agentgate's to remove"
    );
}

/// A container the test started, removed however the test ends.
struct RemoveOnDrop(String);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        let _ = Command::new(podman())
            .args(["rm", "-f", "-t", "0", &self.0])
            .output();
    }
}
