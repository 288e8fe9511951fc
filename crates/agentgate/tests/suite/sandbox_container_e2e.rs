//! `agentgate run --sandbox container` with the REAL Claude Code in a
//! podman container (Debian's podman with runc: scripts/install-podman.sh),
//! against `agentgate fake-llm` on the host: the run answers, the CLI's
//! shell tool ran inside the container (it sees a file only the image
//! has) and wrote into the mounted workspace,
//! the envelope's `sandbox.container` is enforced by podman; a timeout and
//! a cancel leave no process and no container behind.
//!
//! The image is a skeleton (empty folders, `/bin` links into `/usr`)
//! imported once; the host's `/usr`, `/etc` and the CLIs' folder are
//! mounted read-only by `sandbox.container.args`, as a user would. A
//! missing podman fails the test: CI installs it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use agentgate_fakellm::clients::Cli;

use super::sandbox_e2e::{envelope, finding, interrupt, leaves_nothing, run, script};
use super::support::{Client, FakeServer, clis_dir};

const IMAGE: &str = "localhost/agentgate-test-skeleton:2";

/// A file only the image has (this host has podman's `/run/.containerenv`
/// of its own, so that one tells nothing).
pub(super) const MARKER: &str = "/agentgate-test-skeleton";

fn podman() -> &'static str {
    "podman"
}

/// The skeleton image, imported when missing; test processes take turns
/// through a file lock.
fn ensure_image() {
    let lock =
        std::fs::File::create(std::env::temp_dir().join("agentgate-test-skeleton.lock")).unwrap();
    lock.lock().unwrap();
    let exists = Command::new(podman())
        .args(["image", "exists", IMAGE])
        .status()
        .expect("podman is not on PATH: scripts/install-podman.sh installs it");
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
    let tarred = Command::new("tar")
        .arg("-C")
        .arg(&root)
        .arg("-cf")
        .arg(&tar)
        .arg(".")
        .status()
        .unwrap();
    assert!(tarred.success());
    let imported = Command::new(podman())
        .arg("import")
        .arg(&tar)
        .arg(IMAGE)
        .output()
        .unwrap();
    assert!(
        imported.status.success(),
        "podman import: {}",
        String::from_utf8_lossy(&imported.stderr)
    );
}

/// A hard limit of this process (`/proc/self/limits`).
fn hard_limit(name: &str) -> Option<u64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    line[name.len()..].split_whitespace().nth(1)?.parse().ok()
}

/// A config whose `sandbox.container` runs the skeleton image with what
/// this machine's podman needs (runc; limits within the hard ones: see
/// docs/guide/sandbox.md) and the host's network (fake-llm listens on its
/// loopback).
pub(super) fn container_config(dir: &Path) -> PathBuf {
    ensure_image();
    let nofile = hard_limit("Max open files").unwrap_or(1024);
    let nproc = hard_limit("Max processes").unwrap_or(32768).min(32768);
    let clis = clis_dir().canonicalize().unwrap();
    let clis = clis.display();
    let args = [
        "--runtime".to_owned(),
        "runc".to_owned(),
        "--ulimit".to_owned(),
        format!("nofile={nofile}:{nofile}"),
        "--ulimit".to_owned(),
        format!("nproc={nproc}:{nproc}"),
        "-v".to_owned(),
        "/usr:/usr:ro".to_owned(),
        "-v".to_owned(),
        "/etc:/etc:ro".to_owned(),
        "-v".to_owned(),
        format!("{clis}:{clis}:ro"),
        "--network".to_owned(),
        "host".to_owned(),
    ];
    let args: Vec<String> = args.iter().map(|a| format!("\"{a}\"")).collect();
    let path = dir.join("agentgate.yaml");
    std::fs::write(
        &path,
        format!(
            "version: 1\nsandbox:\n  container:\n    engine: podman\n    image: \"{IMAGE}\"\n    args: [{}]\n",
            args.join(", ")
        ),
    )
    .unwrap();
    path
}

#[test]
fn claude_answers_from_a_container() {
    let cli = Cli::Claude;
    let command =
        format!("if test -e {MARKER}; then echo container; else echo host; fi > where.txt");
    assert!(!Path::new(MARKER).exists(), "the host has {MARKER}");
    let server = FakeServer::start(&script(cli, &command));
    let client = Client::new(cli, &server);
    let store = tempfile::tempdir().unwrap();
    let config = container_config(store.path());
    let run = run(
        &client,
        store.path(),
        &[
            OsStr::new("--sandbox"),
            OsStr::new("container"),
            OsStr::new("--config"),
            config.as_os_str(),
        ],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{all}");
    let env = envelope(&run);
    assert_eq!(env["response"], super::sandbox_e2e::ANSWER, "{env:#}");
    assert_eq!(
        finding(&client.setup.workdir, "where.txt", &all),
        "container",
        "the tool call ran on the host"
    );
    let sandbox = &env["sandbox"];
    assert_eq!(sandbox["level"], "container", "{sandbox:#}");
    assert_eq!(sandbox["container"]["state"], "enforced", "{sandbox:#}");
    assert!(
        sandbox["container"]["by"]
            .as_str()
            .is_some_and(|b| b.starts_with("podman ")),
        "{sandbox:#}"
    );
}

/// The run's containers (named `agentgate-<run id>-<hex>`) that exist.
pub(super) fn containers_of(env: &serde_json::Value) -> Vec<String> {
    let run: String = env["run_id"]
        .as_str()
        .unwrap_or_else(|| panic!("no run_id: {env:#}"))
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .take(32)
        .collect();
    existing_containers()
        .into_iter()
        .filter(|l| l.starts_with(&format!("agentgate-{run}-")))
        .collect()
}

/// The names of the containers that exist, running or not.
pub(super) fn existing_containers() -> Vec<String> {
    let out = Command::new(podman())
        .args(["ps", "-a", "--format", "{{.Names}}"])
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_timeout_leaves_no_container_and_no_process() {
    let store = tempfile::tempdir().unwrap();
    let config = container_config(store.path());
    let config = config.display().to_string();
    let env = leaves_nothing(
        &|_| {},
        &[
            "--sandbox",
            "container",
            "--config",
            &config,
            "--timeout",
            "8s",
        ],
        124,
        "timeout",
    );
    assert_eq!(env["sandbox"]["level"], "container", "{env:#}");
    assert_eq!(containers_of(&env), Vec::<String>::new());
}

#[test]
fn a_cancel_leaves_no_container_and_no_process() {
    let store = tempfile::tempdir().unwrap();
    let config = container_config(store.path());
    let config = config.display().to_string();
    let env = leaves_nothing(
        &interrupt,
        &["--sandbox", "container", "--config", &config],
        130,
        "cancelled",
    );
    assert_eq!(env["sandbox"]["level"], "container", "{env:#}");
    assert_eq!(containers_of(&env), Vec::<String>::new());
}
