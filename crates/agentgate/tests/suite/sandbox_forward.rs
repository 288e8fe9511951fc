//! `agentgate __sandbox` with `network: forward`: the tool's own network
//! namespace, loopback up, where only the forwarded ports answer, each
//! relayed by the sandbox's pid 1 to a Unix socket the test serves. The
//! host's loopback services (on another port, and on the very port
//! forwarded), outside addresses and DNS are out of reach.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, UdpSocket};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use agentgate_protocol::EnforcementState;
use agentgate_tools::sandbox::{NetworkRule, PortForward, SandboxReport, SandboxSpec};

use crate::suite::sandbox::{python, sandbox, spec};
use crate::suite::support::run_bounded;

/// The longest the test's servers wait for one thing.
const WAIT: Duration = Duration::from_secs(20);

/// A spec for `python3 -c SCRIPT ARGS` with `port` forwarded to `socket`,
/// in the PID namespace the relays need.
fn forward_spec(
    dir: &Path,
    script: &str,
    args: &[&str],
    forwards: Vec<PortForward>,
) -> SandboxSpec {
    let mut python_args = vec!["-c", script];
    python_args.extend_from_slice(args);
    let mut spec = spec(dir, python(), &python_args);
    spec.isolate_processes = true;
    spec.network = NetworkRule::Forward(forwards);
    spec
}

/// A Unix-socket server that answers each connection's first line with
/// `socket says: LINE` and closes it.
fn answering_server(path: &Path) {
    let listener = UnixListener::bind(path).unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let _ = stream.set_read_timeout(Some(WAIT));
                let mut line = String::new();
                let mut reader = BufReader::new(&stream);
                if reader.read_line(&mut line).is_ok() {
                    let _ = (&stream).write_all(format!("socket says: {line}").as_bytes());
                }
            });
        }
    });
}

/// A TCP listener on the host's 127.0.0.1 (`port` 0: any).
fn host_listener(port: u16) -> (TcpListener, u16) {
    let listener = TcpListener::bind(("127.0.0.1", port)).unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// What the tool tries, one line each: the forwarded port (a line sent,
/// the answer printed), the host's loopback listener on another port, a
/// UDP datagram to the host's "resolver", an outside address (only when
/// the host's loopback was out of reach: a broken namespace sends nothing
/// outside), and a DNS lookup.
const PROBE: &str = r#"
import socket, sys
forwarded, other, udp = (int(a) for a in sys.argv[1:4])
s = socket.create_connection(('127.0.0.1', forwarded), timeout=10)
s.sendall(b'hello from inside\n')
print('forwarded:', s.makefile().readline().strip())
s.close()
host_reached = False
try:
    socket.create_connection(('127.0.0.1', other), timeout=5).close()
    host_reached = True
    print('host loopback: connected')
except OSError as e:
    print('host loopback: refused', e)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.settimeout(2)
try:
    u.sendto(b'query', ('127.0.0.1', udp))
    u.recvfrom(100)
    print('udp: answered')
except OSError as e:
    print('udp: no answer', e)
if host_reached:
    print('outside: not tried')
else:
    try:
        socket.create_connection(('192.0.2.1', 80), timeout=5).close()
        print('outside: connected')
    except OSError as e:
        print('outside: refused', e)
try:
    socket.getaddrinfo('example.com', 443)
    print('dns: resolved')
except OSError as e:
    print('dns: failed', e)
"#;

#[test]
fn only_the_forwarded_port_answers_and_it_reaches_the_unix_socket() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("gateway.sock");
    answering_server(&socket);
    // A host server on the very port forwarded inside, and one on another.
    let (same_port, forwarded) = host_listener(0);
    let (other, other_port) = host_listener(0);
    let resolver = UdpSocket::bind("127.0.0.1:0").unwrap();
    resolver.set_nonblocking(true).unwrap();
    let udp_port = resolver.local_addr().unwrap().port();
    let args = [
        forwarded.to_string(),
        other_port.to_string(),
        udp_port.to_string(),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let spec = forward_spec(
        dir.path(),
        PROBE,
        &args,
        vec![PortForward {
            port: forwarded,
            socket,
        }],
    );
    let (run, report) = sandbox(&spec);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let out = run.all_output();
    assert_eq!(
        lines.first().copied(),
        Some("forwarded: socket says: hello from inside"),
        "{out}"
    );
    assert!(lines[1].starts_with("host loopback: refused"), "{out}");
    assert!(lines[2].starts_with("udp: no answer"), "{out}");
    assert!(lines[3].starts_with("outside: refused"), "{out}");
    assert!(lines[4].starts_with("dns: failed"), "{out}");
    assert!(
        same_port.accept().is_err(),
        "the host's server on the forwarded port saw a connection"
    );
    assert!(
        other.accept().is_err(),
        "the host's other server saw a connection"
    );
    assert!(
        resolver.recv_from(&mut [0u8; 100]).is_err(),
        "the host's UDP server got a datagram"
    );
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(
        report.network.limit,
        format!("only loopback ports {forwarded} (relayed)")
    );
    assert_eq!(report.network.by.as_deref(), Some("network namespace"));
    assert_eq!(report.exit.unwrap().code, Some(0));
}

/// A Unix-socket server that answers a connection's line only once
/// `together` connections are open at the same time (or after [`WAIT`],
/// with `alone`), and tells `closed` of each connection's end (`true`: the
/// other side closed it; `false`: still open after [`WAIT`]).
fn together_server(path: &Path, together: usize, closed: mpsc::Sender<bool>) {
    let listener = UnixListener::bind(path).unwrap();
    let open = Arc::new((Mutex::new(0usize), Condvar::new()));
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let open = open.clone();
            let closed = closed.clone();
            std::thread::spawn(move || serve_together(stream, together, &open, &closed));
        }
    });
}

fn serve_together(
    stream: UnixStream,
    together: usize,
    open: &(Mutex<usize>, Condvar),
    closed: &mpsc::Sender<bool>,
) {
    let _ = stream.set_read_timeout(Some(WAIT));
    let mut reader = BufReader::new(&stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_ok() && !line.is_empty() {
        let (count, changed) = open;
        let mut count = count.lock().unwrap();
        *count += 1;
        changed.notify_all();
        let (count, waited) = changed
            .wait_timeout_while(count, WAIT, |n| *n < together)
            .unwrap();
        let how = if waited.timed_out() {
            "alone"
        } else {
            "together"
        };
        drop(count);
        let _ = (&stream).write_all(format!("{how}: {line}").as_bytes());
    }
    // Held until the other side goes away: end of file, not the read
    // timeout.
    let mut rest = Vec::new();
    let ended = reader.read_to_end(&mut rest).is_ok();
    let _ = closed.send(ended);
}

/// Three connections open at once, each answered; a fourth handed to a
/// process the tool leaves behind, which the end of the tool ends too.
const SEVERAL: &str = r#"
import socket, subprocess, sys
port = int(sys.argv[1])
conns = [socket.create_connection(('127.0.0.1', port), timeout=30) for _ in range(3)]
for i, c in enumerate(conns):
    c.sendall(b'line %d\n' % i)
for c in conns:
    print(c.makefile().readline().strip())
    c.close()
kept = socket.create_connection(('127.0.0.1', port), timeout=30)
kept.sendall(b'kept\n')
subprocess.Popen(['sleep', '600'], pass_fds=[kept.fileno()], start_new_session=True,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print('left behind')
"#;

#[test]
fn the_relay_serves_connections_at_once_and_nothing_is_left_when_the_tool_ends() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("gateway.sock");
    let (closed_tx, closed) = mpsc::channel();
    together_server(&socket, 3, closed_tx);
    let (_free, port) = host_listener(0);
    let spec = forward_spec(
        dir.path(),
        SEVERAL,
        &[&port.to_string()],
        vec![PortForward { port, socket }],
    );
    let (run, report) = sandbox(&spec);
    assert_eq!(
        run.stdout,
        "together: line 0\ntogether: line 1\ntogether: line 2\nleft behind\n",
        "{}",
        run.all_output()
    );
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    // All four connections ended on the socket's side: the three the tool
    // closed, and the one its leftover process held, closed when the tool's
    // end ended the namespace (its pid 1, the relays, the leftover).
    for n in 0..4 {
        let ended = closed
            .recv_timeout(WAIT * 2)
            .unwrap_or_else(|e| panic!("connection {n}: no word from the server: {e}"));
        assert!(ended, "connection {n} still open on the socket's side");
    }
}

/// The sandbox run as `nobody` (the suite runs as root): pid 1 is root of
/// a user namespace, makes the network namespace there, and must move into
/// the namespace that gives the user back their uid before it starts the
/// relays' threads (a process with threads cannot); the tool runs as
/// `nobody` and its port is relayed all the same.
#[test]
fn an_unprivileged_user_gets_the_relay_and_keeps_its_uid() {
    let dir = tempfile::tempdir().unwrap();
    let open = |p: &Path| {
        std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap()
    };
    open(dir.path());
    let socket = dir.path().join("gateway.sock");
    answering_server(&socket);
    open(&socket);
    let (_host, port) = host_listener(0);
    // bash, not python: the suite's python may live in root's home.
    let script = "id -u; exec 3<>/dev/tcp/127.0.0.1/$1; printf 'as nobody\\n' >&3; read -r line <&3; echo \"$line\"";
    let mut spec = spec(
        dir.path(),
        "/bin/bash",
        &["-c", script, "bash", &port.to_string()],
    );
    spec.isolate_processes = true;
    spec.network = NetworkRule::Forward(vec![PortForward { port, socket }]);
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    let mut cmd = Command::new("setpriv");
    cmd.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(env!("CARGO_BIN_EXE_agentgate"))
        .arg("__sandbox")
        .arg(&spec_path);
    let run = run_bounded(cmd, Duration::from_secs(60));
    assert_eq!(
        run.stdout,
        "65534\nsocket says: as nobody\n",
        "{}",
        run.all_output()
    );
    let report = SandboxReport::read(&spec.report_path).unwrap();
    assert_eq!(
        report.network.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert_eq!(
        report.processes.state,
        EnforcementState::Enforced,
        "{report:?}"
    );
    assert!(report.warnings.is_empty(), "{report:?}");
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
fn where_no_network_namespace_can_be_made_the_report_says_not_enforced_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let socket: PathBuf = dir.path().join("gateway.sock");
    let spec = forward_spec(
        dir.path(),
        "print('ran')",
        &[],
        vec![PortForward { port: 4000, socket }],
    );
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    let run = without_network_namespaces(&[Path::new("__sandbox"), &spec_path]);
    assert_eq!(run.stdout, "ran\n", "{}", run.all_output());
    let report = SandboxReport::read(&spec.report_path).unwrap();
    assert_eq!(
        report.network.state,
        EnforcementState::NotEnforced,
        "{report:?}"
    );
    assert_eq!(report.network.limit, "only loopback ports 4000 (relayed)");
    let note = report.network.note.unwrap_or_default();
    assert!(note.contains("unshare(CLONE_NEWNET) was refused"), "{note}");
}

#[test]
fn a_spec_that_forwards_a_port_twice_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("a.sock");
    let spec = forward_spec(
        dir.path(),
        "print('ran')",
        &[],
        vec![
            PortForward {
                port: 4000,
                socket: socket.clone(),
            },
            PortForward { port: 4000, socket },
        ],
    );
    let spec_path = dir.path().join("spec.json");
    std::fs::write(&spec_path, serde_json::to_vec(&spec).unwrap()).unwrap();
    let error = SandboxSpec::read(&spec_path).unwrap_err().to_string();
    assert!(error.contains("port 4000 is forwarded twice"), "{error}");
}
