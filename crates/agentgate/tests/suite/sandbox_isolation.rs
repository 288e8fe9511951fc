//! What the sandbox keeps from a tool besides its limits: every other
//! process (a PID namespace with its own `/proc`), and agentgate's own
//! files (carved out of the Landlock rules), run for real, as root (the
//! suite's user) and as an unprivileged user. This machine allows user and
//! PID namespaces: the tests assert enforcement, never skip.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use agentgate_protocol::EnforcementState;
use agentgate_tools::sandbox::{SandboxReport, SandboxSpec, probe, system_read_paths};

use crate::suite::sandbox::{sandbox, spec};
use crate::suite::sandbox_network::wait_bounded;
use crate::suite::support::run_bounded;

const LIMIT: Duration = Duration::from_secs(60);

/// A process of this test's own (as another user's process would be), with
/// a secret in its environment; killed when dropped.
struct Bystander(Child);

impl Bystander {
    fn start() -> Bystander {
        Bystander(
            Command::new("sleep")
                .arg("120")
                .env("AGENTGATE_TOKEN", "bystander-secret-5c1e")
                .spawn()
                .unwrap(),
        )
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }
}

impl Drop for Bystander {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A spec whose script may read the system folders and `/proc`.
fn reading(dir: &Path, script: &str, isolate: bool) -> SandboxSpec {
    let mut spec = spec(dir, "/bin/sh", &["-c", script]);
    spec.restrict_filesystem = true;
    spec.read_paths = system_read_paths(std::env::var_os("PATH").as_deref(), None);
    spec.isolate_processes = isolate;
    spec
}

const PEEK: &str = "echo \"pid=$$\"; cat /proc/$TARGET/environ; ls /proc | grep -c '^[0-9]'";

#[test]
fn another_processs_environment_is_out_of_the_tools_sight() {
    let bystander = Bystander::start();
    let script = PEEK.replace("$TARGET", &bystander.pid().to_string());

    // Without the PID namespace the same-user process is there to read:
    // the hole the namespace closes.
    let dir = tempfile::tempdir().unwrap();
    let (run, report) = sandbox(&reading(dir.path(), &script, false));
    assert!(
        run.stdout.contains("bystander-secret-5c1e"),
        "{}",
        run.all_output()
    );
    assert_eq!(report.processes.state, EnforcementState::NoLimit);

    let dir = tempfile::tempdir().unwrap();
    let (run, report) = sandbox(&reading(dir.path(), &script, true));
    assert!(
        !run.stdout.contains("bystander-secret"),
        "{}",
        run.all_output()
    );
    assert!(run.stderr.contains("No such file"), "{}", run.all_output());
    let mut lines = run.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("pid=2"),
        "the tool is pid 2 of its own namespace"
    );
    let visible: u32 = lines.next().unwrap().trim().parse().unwrap();
    assert!(
        visible <= 4,
        "only pid 1, the tool and its own children: {visible}"
    );
    assert_eq!(
        report.processes.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(
        report.processes.by.as_deref(),
        Some("PID namespace with its own /proc")
    );
    assert_eq!(run.code, Some(0));
    let exit = report.exit.unwrap();
    assert_eq!((exit.code, exit.signal), (Some(0), None));
    assert!(exit.cpu_ms > 0, "the tool's CPU time reaches the report");
}

/// The sandbox run as `nobody` (the suite runs as root): the user namespace
/// path, and the tool keeps its own identity.
#[test]
fn an_unprivileged_user_gets_the_same_isolation_and_keeps_its_uid() {
    let bystander = Bystander::start();
    let dir = tempfile::tempdir().unwrap();
    let open = |p: &Path| {
        std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap()
    };
    open(dir.path());
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(&ws).unwrap();
    open(&ws);
    let script = format!(
        "id -u; {}; echo made > {}/out.txt",
        PEEK.replace("$TARGET", &bystander.pid().to_string()),
        ws.display()
    );
    let mut spec = reading(dir.path(), &script, true);
    spec.run_paths = vec![ws.clone()];
    spec.network = agentgate_tools::sandbox::NetworkRule::None;
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_agentgate"))
        .arg("__sandbox")
        .arg(&spec_path);
    let run = run_bounded(cmd, LIMIT);
    let report = SandboxReport::read(&spec.report_path)
        .unwrap_or_else(|e| panic!("no report ({e}): {}", run.all_output()));
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let mut lines = run.stdout.lines();
    assert_eq!(lines.next(), Some("65534"), "{}", run.all_output());
    assert_eq!(lines.next(), Some("pid=2"), "{}", run.all_output());
    assert!(!run.stdout.contains("bystander-secret"));
    assert_eq!(
        report.processes.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(report.network.by.as_deref(), Some("network namespace"));
    assert!(report.warnings.is_empty(), "{report:?}");
    use std::os::unix::fs::MetadataExt as _;
    let made = std::fs::metadata(ws.join("out.txt")).unwrap();
    assert_eq!(made.uid(), 65534, "the tool's file is the user's");
}

/// The runner's termination table reaches the tool through pid 1, which
/// reports the signal that ended it.
#[test]
fn a_tool_in_its_namespace_is_terminated_by_the_group_signal_and_reported() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "/bin/sh", &["-c", "echo ready; sleep 60"]);
    spec.isolate_processes = true;
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .arg("__sandbox")
        .arg(&spec_path)
        .stdout(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let pgid = child.id();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line, "ready\n");
    Command::new("kill")
        .args(["-TERM", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    let status = wait_bounded(&mut child, LIMIT);
    let _ = Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .stderr(Stdio::null())
        .status();
    assert_eq!(status.code(), Some(128 + 15));
    let report = SandboxReport::read(&spec.report_path).unwrap();
    assert_eq!(report.processes.state, EnforcementState::Enforced);
    let exit = report.exit.unwrap();
    assert_eq!((exit.code, exit.signal.as_deref()), (None, Some("SIGTERM")));
}

/// The data folder of agentgate inside a folder the tool may read: its
/// files are refused, the folder's other entries are not, the run's own
/// folder inside it stays writable, and a read path inside it is not
/// granted (and said).
#[test]
fn agentgate_s_own_files_are_carved_out_of_a_readable_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let home = root.join("home");
    let data = home.join(".local/share/agentgate");
    let ws = data.join("runs/r1/work");
    std::fs::create_dir_all(&ws).unwrap();
    std::fs::write(data.join("token"), "token-7d41e0").unwrap();
    std::fs::write(data.join("agentgate.db"), "db-rows-0b2c").unwrap();
    std::fs::write(home.join("notes.txt"), "notes-ok").unwrap();
    let script = format!(
        "cat {home}/notes.txt; echo; cat {data}/token; cat {data}/agentgate.db; \
         ls {data}/runs; echo kept > {ws}/out.txt && echo wrote",
        home = home.display(),
        data = data.display(),
        ws = ws.display()
    );
    let mut spec = reading(&root, &script, false);
    spec.read_paths.push(home.clone());
    spec.read_paths.push(data.join("runs"));
    spec.run_paths = vec![ws.clone()];
    spec.private_paths = vec![data.clone(), root.join("no-such-token")];
    let (run, report) = sandbox(&spec);
    assert!(run.stdout.starts_with("notes-ok\n"), "{}", run.all_output());
    assert!(!run.stdout.contains("token-7d41e0"), "{}", run.all_output());
    assert!(!run.stdout.contains("db-rows-0b2c"), "{}", run.all_output());
    assert!(run.stdout.ends_with("wrote\n"), "{}", run.all_output());
    assert_eq!(
        run.stderr.matches("Permission denied").count(),
        3,
        "{}",
        run.all_output()
    );
    assert_eq!(
        std::fs::read_to_string(ws.join("out.txt")).unwrap(),
        "kept\n"
    );
    assert_eq!(
        report.private_files.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert!(
        report.private_files.limit.contains("2 paths, 1 existing"),
        "{report:?}"
    );
    assert_eq!(report.warnings.len(), 1, "{report:?}");
    assert!(
        report.warnings[0].contains(&format!("{} is not granted", data.join("runs").display())),
        "{report:?}"
    );
}

#[test]
fn private_files_without_a_restricted_filesystem_are_reported_not_enforced() {
    let dir = tempfile::tempdir().unwrap();
    let mut spec = spec(dir.path(), "/bin/true", &[]);
    spec.private_paths = vec![dir.path().join("token")];
    let (_, report) = sandbox(&spec);
    assert_eq!(report.private_files.state, EnforcementState::NotEnforced);
    assert_eq!(
        report.private_files.note.as_deref(),
        Some("the filesystem is not restricted")
    );
}

#[test]
fn the_probe_finds_pid_namespaces_here() {
    let support = probe(Path::new(env!("CARGO_BIN_EXE_agentgate")));
    assert!(support.pid_namespace, "{support:?}");
    assert_eq!(support.pid_namespace_note, None);
    // Pid namespaces are made per run: a probe leaves no mount behind.
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").unwrap();
    assert_eq!(
        mounts.lines().filter(|l| l.contains(" /proc ")).count(),
        1,
        "{mounts}"
    );
}
