//! The network rule of `agentgate __sandbox`: no network at all (an empty
//! network namespace: loopback unreachable too), any, or TCP ports
//! (Landlock).

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, ExitStatus};
use std::time::{Duration, Instant};

use agentgate_protocol::EnforcementState;
use agentgate_tools::sandbox::NetworkRule;

use crate::suite::sandbox::{python, sandbox, spec};
use crate::suite::support::run_bounded;
use agentgate_tools::sandbox::SandboxReport;

/// Wait for `child` at most `limit` (then kill it and fail).
pub fn wait_bounded(child: &mut Child, limit: Duration) -> ExitStatus {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            panic!("the process did not end within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A python script that connects to 127.0.0.1 on each port given, and
/// prints `connected PORT` or `refused PORT: ERROR`.
const CONNECT: &str = "
import socket, sys
for port in sys.argv[1:]:
    try:
        socket.create_connection(('127.0.0.1', int(port)), timeout=5).close()
        print('connected', port)
    except OSError as e:
        print('refused', port + ':', e)
";

/// A listener on 127.0.0.1 that the test's own thread never connects to.
fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// Whether a connection is waiting on `listener`.
fn was_connected(listener: &TcpListener) -> bool {
    listener.accept().is_ok()
}

#[test]
fn no_network_means_not_even_loopback_while_any_reaches_it() {
    let dir = tempfile::tempdir().unwrap();
    let (listener, port) = listener();
    let port_arg = port.to_string();
    let mut none = spec(dir.path(), python(), &["-c", CONNECT, &port_arg]);
    none.network = NetworkRule::None;
    let (run, report) = sandbox(&none);
    assert!(
        run.stdout.starts_with(&format!("refused {port}:")),
        "{}",
        run.all_output()
    );
    assert!(!was_connected(&listener), "the listener saw a connection");
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(report.network.limit, "no network");
    assert_eq!(report.network.by.as_deref(), Some("network namespace"));
    assert_eq!(report.exit.unwrap().code, Some(0));

    let mut any = spec(dir.path(), python(), &["-c", CONNECT, &port_arg]);
    any.network = NetworkRule::Any;
    let (run, report) = sandbox(&any);
    assert_eq!(
        run.stdout,
        format!("connected {port}\n"),
        "{}",
        run.all_output()
    );
    assert!(was_connected(&listener), "the listener saw no connection");
    assert_eq!(report.network.state, EnforcementState::NoLimit);
}

#[test]
fn allowed_destinations_limit_tcp_connect_to_their_ports() {
    let dir = tempfile::tempdir().unwrap();
    let (allowed, allowed_port) = listener();
    let (other, other_port) = listener();
    let (a, o) = (allowed_port.to_string(), other_port.to_string());
    let mut spec = spec(dir.path(), python(), &["-c", CONNECT, &a, &o]);
    spec.network = NetworkRule::Allow(vec![format!("127.0.0.1:{allowed_port}")]);
    let (run, report) = sandbox(&spec);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some(format!("connected {a}").as_str())
    );
    assert!(
        lines
            .get(1)
            .is_some_and(|l| l.starts_with(&format!("refused {o}:"))),
        "{}",
        run.all_output()
    );
    assert!(was_connected(&allowed));
    assert!(
        !was_connected(&other),
        "the other listener saw a connection"
    );
    assert_eq!(
        report.network.state,
        EnforcementState::Partial,
        "{report:?}"
    );
    assert!(report.network.by.unwrap().starts_with("Landlock ABI "));
    assert!(
        report
            .network
            .note
            .unwrap()
            .starts_with("ports enforced, hosts not")
    );
    assert_eq!(
        report.network.limit,
        format!("egress to 127.0.0.1:{allowed_port}")
    );
}

/// `agentgate ARGS` in a user namespace where no network namespace may be
/// made (`max_net_namespaces` 0, as in a container that refuses them).
fn without_network_namespaces(args: &[&Path]) -> crate::suite::support::Run {
    let mut cmd = Command::new("unshare");
    cmd.args(["--user", "--map-root-user", "sh", "-c"])
        .arg("echo 0 > /proc/sys/user/max_net_namespaces && exec \"$@\"")
        .arg("sh")
        .arg(env!("CARGO_BIN_EXE_agentgate"))
        .args(args);
    run_bounded(cmd, Duration::from_secs(60))
}

#[test]
fn where_no_network_namespace_can_be_made_landlock_refuses_tcp() {
    let dir = tempfile::tempdir().unwrap();
    let probe = without_network_namespaces(&[Path::new("__sandbox"), Path::new("--probe")]);
    assert!(
        probe.stdout.contains(r#""network_namespace":false"#),
        "{}",
        probe.all_output()
    );
    let (listener, port) = listener();
    let port_arg = port.to_string();
    let mut none = spec(dir.path(), python(), &["-c", CONNECT, &port_arg]);
    none.network = NetworkRule::None;
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&none).unwrap()).unwrap();
    let run = without_network_namespaces(&[Path::new("__sandbox"), &spec_path]);
    assert!(
        run.stdout.starts_with(&format!("refused {port}:")),
        "{}",
        run.all_output()
    );
    assert!(!was_connected(&listener), "the listener saw a connection");
    let report = SandboxReport::read(&none.report_path).unwrap();
    assert_eq!(
        report.network.state,
        EnforcementState::Partial,
        "{report:?}"
    );
    assert!(report.network.by.unwrap().starts_with("Landlock ABI "));
    let note = report.network.note.unwrap();
    assert!(note.contains("unshare(CLONE_NEWNET) was refused"), "{note}");
    assert!(
        note.ends_with("TCP connect and bind refused by Landlock, UDP not restricted"),
        "{note}"
    );
}
