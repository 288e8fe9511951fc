//! The relays of a [`NetworkRule::Forward`](super::NetworkRule::Forward)
//! sandbox, run by its pid 1: each forwarded port is a listener on
//! `127.0.0.1:PORT` inside the tool's network namespace, and each
//! connection to it is relayed to a Unix socket outside (reached by path:
//! a path-named Unix socket belongs to the filesystem, not to a network
//! namespace).
//!
//! Two steps, because pid 1 must still be single-threaded when it moves
//! into the user namespace that gives the user back their identity
//! (`restore_identity`: `unshare(CLONE_NEWUSER)` refuses a process with
//! threads): [`bind_forwarded_ports`] binds the listeners first (in the
//! new namespace, still with the capabilities), [`start_relays`] starts
//! one accepting thread per listener after it. Each connection gets two
//! threads, one per direction, copying until its source ends (then the
//! other side is told by a half-close) or fails; a connection that cannot
//! reach its socket is closed at once. At most
//! [`MAX_RELAYED_CONNECTIONS`] at a time: one past it is closed. Nothing
//! outlives the tool: pid 1 exits when the tool ends, and the namespace's
//! sockets go with it.

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::unix::net::UnixStream;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::PortForward;

/// Connections relayed at once, at most (each holds two threads).
pub(crate) const MAX_RELAYED_CONNECTIONS: usize = 256;

/// The stack of a relay thread (it holds a copy buffer and little else).
const RELAY_STACK_BYTES: usize = 128 * 1024;

/// The copy buffer of one direction of one connection.
const COPY_BUFFER_BYTES: usize = 16 * 1024;

/// A forwarded port's listener, bound and not yet served.
#[derive(Debug)]
pub(crate) struct BoundPort {
    listener: TcpListener,
    socket: PathBuf,
}

impl BoundPort {
    /// The port bound (the one asked for; the kernel's pick for 0).
    #[cfg(test)]
    fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }
}

/// Bind `127.0.0.1:PORT` for each forward, in this process's network
/// namespace. The error names the port that could not be bound.
pub(crate) fn bind_forwarded_ports(forwards: &[PortForward]) -> Result<Vec<BoundPort>, String> {
    forwards
        .iter()
        .map(|forward| {
            let listener = TcpListener::bind(("127.0.0.1", forward.port)).map_err(|e| {
                format!(
                    "failed to listen on 127.0.0.1:{} in the network namespace: {e}",
                    forward.port
                )
            })?;
            Ok(BoundPort {
                listener,
                socket: forward.socket.clone(),
            })
        })
        .collect()
}

/// Start one accepting thread per bound port. The error says which thread
/// could not be started (the ports already served stay served).
pub(crate) fn start_relays(ports: Vec<BoundPort>) -> Result<(), String> {
    let open = Arc::new(AtomicUsize::new(0));
    for port in ports {
        let open = open.clone();
        let name = format!("relay {}", port.socket.display());
        std::thread::Builder::new()
            .name(name)
            .stack_size(RELAY_STACK_BYTES)
            .spawn(move || accept_loop(port, &open))
            .map_err(|e| format!("failed to start a relay thread: {e}"))?;
    }
    Ok(())
}

/// Accept connections for as long as the process lives.
fn accept_loop(port: BoundPort, open: &Arc<AtomicUsize>) {
    for accepted in port.listener.incoming() {
        let Ok(client) = accepted else {
            // Out of descriptors and the like: this connection is lost,
            // the next may not be.
            continue;
        };
        if open.fetch_add(1, Ordering::SeqCst) >= MAX_RELAYED_CONNECTIONS {
            open.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let guard = OpenConnection(open.clone());
        let Ok(server) = UnixStream::connect(&port.socket) else {
            // The socket's owner is gone: the client sees its connection
            // closed.
            continue;
        };
        let _ = client.set_nodelay(true);
        relay(client, server, guard);
    }
}

/// Counts one open connection until dropped (by the last of its threads).
struct OpenConnection(Arc<AtomicUsize>);

impl Drop for OpenConnection {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Relay `client` and `server` both ways, each direction on a thread.
fn relay(client: TcpStream, server: UnixStream, guard: OpenConnection) {
    let (Ok(client_reader), Ok(server_reader)) = (client.try_clone(), server.try_clone()) else {
        return;
    };
    let guard = Arc::new(guard);
    let upward = guard.clone();
    let started = std::thread::Builder::new()
        .stack_size(RELAY_STACK_BYTES)
        .spawn(move || {
            copy_until_end(client_reader, server, |server| {
                let _ = server.shutdown(Shutdown::Write);
            });
            drop(upward);
        });
    if started.is_err() {
        return;
    }
    let _ = std::thread::Builder::new()
        .stack_size(RELAY_STACK_BYTES)
        .spawn(move || {
            copy_until_end(server_reader, client, |client| {
                let _ = client.shutdown(Shutdown::Write);
            });
            drop(guard);
        });
}

/// Copy `from` to `to` until `from` ends or either fails, then `done(to)`.
fn copy_until_end<R: Read, W: Write>(mut from: R, mut to: W, done: impl FnOnce(&W)) {
    let mut buffer = vec![0u8; COPY_BUFFER_BYTES];
    loop {
        match from.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                if buffer
                    .get(..n)
                    .is_none_or(|chunk| to.write_all(chunk).is_err())
                {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
    done(&to);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A Unix-socket server that answers each connection with `>` and what
    /// it read, once the client has half-closed.
    fn echo_server(dir: &std::path::Path) -> PathBuf {
        let path = dir.join("server.sock");
        let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let mut stream = stream.unwrap();
                std::thread::spawn(move || {
                    let mut text = Vec::new();
                    stream.read_to_end(&mut text).unwrap();
                    stream.write_all(b">").unwrap();
                    stream.write_all(&text).unwrap();
                });
            }
        });
        path
    }

    fn exchange(port: u16, text: &[u8]) -> Vec<u8> {
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        client.write_all(text).unwrap();
        client.shutdown(Shutdown::Write).unwrap();
        let mut answer = Vec::new();
        client.read_to_end(&mut answer).unwrap();
        answer
    }

    #[test]
    fn a_connection_is_relayed_both_ways_with_the_half_close_passed_on() {
        let dir = tempfile::tempdir().unwrap();
        let socket = echo_server(dir.path());
        let bound = bind_forwarded_ports(&[PortForward { port: 0, socket }]).unwrap();
        let port = bound[0].port();
        start_relays(bound).unwrap();
        let big: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        assert_eq!(exchange(port, b"hello"), b">hello");
        let answer = exchange(port, &big);
        assert_eq!(answer.len(), big.len() + 1);
        assert_eq!(&answer[1..], &big[..]);
    }

    #[test]
    fn a_connection_whose_socket_is_gone_is_closed() {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("nobody.sock");
        let bound = bind_forwarded_ports(&[PortForward { port: 0, socket }]).unwrap();
        let port = bound[0].port();
        start_relays(bound).unwrap();
        let mut client = TcpStream::connect(("127.0.0.1", port)).unwrap();
        client
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut answer = Vec::new();
        let read = client.read_to_end(&mut answer);
        assert!(
            matches!(read, Ok(0)) || read.is_err(),
            "the connection was not closed: {read:?}"
        );
        assert!(answer.is_empty());
    }

    #[test]
    fn a_port_already_taken_is_an_error_naming_it() {
        let taken = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = taken.local_addr().unwrap().port();
        let error = bind_forwarded_ports(&[PortForward {
            port,
            socket: PathBuf::from("/nonexistent.sock"),
        }])
        .unwrap_err();
        assert!(error.contains(&format!("127.0.0.1:{port}")), "{error}");
    }
}
