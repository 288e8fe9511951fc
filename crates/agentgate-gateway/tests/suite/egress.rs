//! The egress proxy (`EgressProxy`): CONNECT tunnels to the allowed
//! `host:port` destinations only, over real sockets: a TCP echo server the
//! test runs on 127.0.0.1 (allowed as `localhost:PORT`, which the proxy
//! resolves), counting the connections it sees.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentgate_gateway::{EgressNotice, EgressProxy, EgressRefusal, GatewayError};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, UnixStream};

use super::support::WAIT;

/// A TCP echo server on 127.0.0.1: its port and how many connections it
/// has accepted.
async fn echo_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let count = accepted.clone();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            count.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let (mut read, mut write) = stream.split();
                let _ = tokio::io::copy(&mut read, &mut write).await;
            });
        }
    });
    (port, accepted)
}

async fn start(allow: &[String], dir: &Path) -> EgressProxy {
    EgressProxy::start(allow, &dir.join("egress.sock"))
        .await
        .unwrap()
}

/// Send `request` on a new connection; the connection and the answer's
/// head (through its blank line).
async fn ask(proxy: &EgressProxy, request: &[u8]) -> (UnixStream, String) {
    let mut stream = UnixStream::connect(proxy.socket()).await.unwrap();
    stream.write_all(request).await.unwrap();
    let head = tokio::time::timeout(WAIT, read_head(&mut stream))
        .await
        .expect("an answer in time");
    (stream, head)
}

async fn read_head(stream: &mut UnixStream) -> String {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match stream.read(&mut byte).await.unwrap() {
            0 => break,
            _ => head.push(byte[0]),
        }
    }
    String::from_utf8(head).unwrap()
}

/// The rest of the answer, to its end.
async fn read_rest(stream: &mut UnixStream) -> String {
    let mut rest = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut rest))
        .await
        .expect("the end in time")
        .unwrap();
    String::from_utf8(rest).unwrap()
}

fn connect(authority: &str) -> Vec<u8> {
    format!("CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n\r\n").into_bytes()
}

#[tokio::test]
async fn an_allowed_host_is_tunnelled_both_ways() {
    let (port, accepted) = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    let proxy = start(&[format!("localhost:{port}")], dir.path()).await;
    let mode = std::fs::metadata(proxy.socket())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    // Case and a trailing dot do not matter; bytes sent with the head go
    // through too.
    let mut request = connect(&format!("LocalHost.:{port}"));
    request.extend_from_slice(b"early ");
    let (mut tunnel, head) = ask(&proxy, &request).await;
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    let big: Vec<u8> = (0..100_000u32).map(|i| (i % 253) as u8).collect();
    tunnel.write_all(&big).await.unwrap();
    let mut echoed = vec![0u8; 6 + big.len()];
    tokio::time::timeout(WAIT, tunnel.read_exact(&mut echoed))
        .await
        .expect("the echo in time")
        .unwrap();
    assert_eq!(&echoed[..6], b"early ");
    assert_eq!(&echoed[6..], &big[..]);
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    assert_eq!(proxy.summary().tunnels, 1);

    // Shutdown closes the tunnel, idle as it is, and removes the socket.
    let socket = proxy.socket().to_path_buf();
    proxy.shutdown().await;
    let mut rest = Vec::new();
    let read = tokio::time::timeout(WAIT, tunnel.read_to_end(&mut rest))
        .await
        .expect("the tunnel closed in time");
    assert!(matches!(read, Ok(0)) || read.is_err(), "{read:?}");
    assert!(!socket.exists());
}

#[tokio::test]
async fn other_hosts_ports_and_addresses_get_403_and_are_never_connected() {
    let (port, accepted) = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = start(&[format!("localhost:{port}")], dir.path()).await;
    let mut notices = proxy.notices().unwrap();
    assert!(proxy.notices().is_none(), "taken once");

    let cases = [
        // The address the allowed name resolves to: an address literal
        // matches only an address entry.
        (format!("127.0.0.1:{port}"), EgressRefusal::HostNotAllowed),
        (
            format!("other.example:{port}"),
            EgressRefusal::HostNotAllowed,
        ),
        (
            format!("localhost:{}", port ^ 1),
            EgressRefusal::PortNotAllowed,
        ),
    ];
    for (authority, reason) in &cases {
        let (mut stream, head) = ask(&proxy, &connect(authority)).await;
        assert!(head.starts_with("HTTP/1.1 403 "), "{authority}: {head}");
        let body = read_rest(&mut stream).await;
        assert!(body.contains(&reason.to_string()), "{authority}: {body}");
        let notice = tokio::time::timeout(WAIT, notices.recv())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            notice,
            EgressNotice::Refused {
                destination: authority.clone(),
                reason: *reason,
            }
        );
    }
    assert_eq!(
        accepted.load(Ordering::SeqCst),
        0,
        "the server saw a connection"
    );
    let summary = proxy.summary();
    assert_eq!((summary.tunnels, summary.refused), (0, 3));
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_wildcard_allows_subdomains_but_not_the_apex() {
    let (port, accepted) = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    let proxy = start(&[format!("*.localhost:{port}")], dir.path()).await;
    let (_, head) = ask(&proxy, &connect(&format!("localhost:{port}"))).await;
    assert!(head.starts_with("HTTP/1.1 403 "), "{head}");
    // A subdomain is allowed: the proxy goes on to resolve it (whether
    // the resolver knows `*.localhost` or not, the answer is not a 403).
    let (_, head) = ask(&proxy, &connect(&format!("api.localhost:{port}"))).await;
    assert!(
        head.starts_with("HTTP/1.1 200 ") || head.starts_with("HTTP/1.1 502 "),
        "{head}"
    );
    assert_eq!(proxy.summary().refused, 1);
    assert!(accepted.load(Ordering::SeqCst) <= 1);
    proxy.shutdown().await;
}

#[tokio::test]
async fn garbage_gets_400_plain_http_gets_405_and_the_proxy_goes_on() {
    let (port, accepted) = echo_server().await;
    let dir = tempfile::tempdir().unwrap();
    let mut proxy = start(&[format!("localhost:{port}")], dir.path()).await;
    let mut notices = proxy.notices().unwrap();

    let (mut stream, head) = ask(&proxy, b"\x16\x03\x01\x02\x00 not http\r\n\r\n").await;
    assert!(head.starts_with("HTTP/1.1 400 "), "{head}");
    read_rest(&mut stream).await;
    let (_, head) = ask(&proxy, &connect("localhost:notaport")).await;
    assert!(head.starts_with("HTTP/1.1 400 "), "{head}");
    let huge = format!(
        "CONNECT localhost:{port} HTTP/1.1\r\nX: {}\r\n\r\n",
        "a".repeat(20_000)
    );
    let (_, head) = ask(&proxy, huge.as_bytes()).await;
    assert!(head.starts_with("HTTP/1.1 431 "), "{head}");

    // Plain HTTP is refused even to an allowed host, and reported.
    let get = format!("GET http://localhost:{port}/x HTTP/1.1\r\nHost: localhost\r\n\r\n");
    let (_, head) = ask(&proxy, get.as_bytes()).await;
    assert!(head.starts_with("HTTP/1.1 405 "), "{head}");
    assert!(
        head.to_ascii_lowercase().contains("allow: connect"),
        "{head}"
    );
    assert_eq!(
        notices.recv().await.unwrap(),
        EgressNotice::Refused {
            destination: format!("localhost:{port}"),
            reason: EgressRefusal::PlainHttp,
        }
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 0);

    // Still serving.
    let (mut tunnel, head) = ask(&proxy, &connect(&format!("localhost:{port}"))).await;
    assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
    tunnel.write_all(b"ping").await.unwrap();
    let mut pong = [0u8; 4];
    tokio::time::timeout(WAIT, tunnel.read_exact(&mut pong))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&pong, b"ping");
    proxy.shutdown().await;
}

#[tokio::test]
async fn a_bad_allow_entry_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let error = EgressProxy::start(&["github.com".to_owned()], &dir.path().join("e.sock"))
        .await
        .unwrap_err();
    assert!(matches!(error, GatewayError::EgressAllow(_)), "{error}");
    assert!(error.to_string().contains("`github.com`"), "{error}");
    assert!(!dir.path().join("e.sock").exists());
}
