//! `agentgate serve` against strangers, over raw sockets: request heads
//! that never end and idle kept-alive connections are closed after their
//! timeouts (an event stream is not idle), connections past the limit are
//! refused until others close, bodies without a valid token are refused
//! before they are read and the server's memory stays bounded under a
//! flood of them, an address that keeps failing gets 429, and a short
//! token is refused at start.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::os::unix::fs::PermissionsExt;
use std::sync::{Arc, Barrier};

use super::serve::Home;
use super::serve_queue_support::{QueueHome, TOKEN as QUEUE_TOKEN, submit_ok};
use super::serve_support::{LIMIT, Serve, get, serve_exits};
use super::sse_client::stream;

const TOKEN: &str = "limits-test-token-0123456789abcdef";

fn serve(home: &Home, args: &[&str]) -> Serve {
    Serve::start(&home.env(vec![("AGENTGATE_TOKEN", TOKEN.to_owned())]), args)
}

/// A connection to the server, every read and write bounded by [`LIMIT`].
fn connect(server: &Serve) -> TcpStream {
    let socket = TcpStream::connect(server.url.strip_prefix("http://").unwrap()).unwrap();
    socket.set_read_timeout(Some(LIMIT)).unwrap();
    socket.set_write_timeout(Some(LIMIT)).unwrap();
    socket
}

/// What the server sends until it closes the connection; an error when it
/// is still open after [`LIMIT`].
fn until_closed(socket: &mut TcpStream) -> Result<Vec<u8>, String> {
    let mut got = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match socket.read(&mut buf) {
            Ok(0) => return Ok(got),
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => return Ok(got),
            Err(e) => return Err(format!("still open after {LIMIT:?} ({e})")),
        }
    }
}

/// One response read off a connection that stays open: its status line
/// and headers (lower case), its body read by its `content-length`.
fn one_response(socket: &mut TcpStream) -> (String, String) {
    let mut got = Vec::new();
    let mut byte = [0u8; 1];
    while !got.ends_with(b"\r\n\r\n") {
        let n = socket.read(&mut byte).unwrap();
        assert_eq!(n, 1, "closed inside a response head: {got:?}");
        got.push(byte[0]);
    }
    let head = String::from_utf8(got).unwrap().to_ascii_lowercase();
    let length: usize = head
        .lines()
        .find_map(|l| l.strip_prefix("content-length:"))
        .map_or(0, |v| v.trim().parse().unwrap());
    let mut body = vec![0u8; length];
    socket.read_exact(&mut body).unwrap();
    (head, String::from_utf8(body).unwrap())
}

const HEALTHZ: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: agentgate\r\n\r\n";

#[test]
fn unfinished_heads_and_idle_connections_are_closed_after_their_timeouts() {
    let home = Home::new("0");
    let server = serve(&home, &["--header-timeout", "1", "--idle-timeout", "2"]);
    // Heads that never end: a request line and half a header.
    let mut slow: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = connect(&server);
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: agentgate\r\nX-Slow: ")
                .unwrap();
            s
        })
        .collect();
    // Kept-alive connections that made one request and then say nothing.
    let mut idle: Vec<TcpStream> = (0..20)
        .map(|_| {
            let mut s = connect(&server);
            s.write_all(HEALTHZ).unwrap();
            let (head, body) = one_response(&mut s);
            assert!(head.starts_with("http/1.1 200"), "{head}");
            assert!(body.contains("\"ok\":true"), "{body}");
            s
        })
        .collect();
    for s in &mut slow {
        let got = until_closed(s).expect("a head that never ended was left open");
        assert!(got.is_empty(), "{:?}", String::from_utf8_lossy(&got));
    }
    for s in &mut idle {
        let got = until_closed(s).expect("an idle kept-alive connection was left open");
        assert!(got.is_empty(), "{:?}", String::from_utf8_lossy(&got));
    }
    // The server still serves.
    assert_eq!(get(&server.url, "/healthz", None).status, 200);
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn an_event_stream_outlives_both_timeouts() {
    // No executor: the run stays queued and its stream open, sending
    // keep-alive comments every 0.2 s.
    let home = QueueHome::new("");
    let server = home.serve(
        false,
        &[
            "--no-executor",
            "--header-timeout",
            "1",
            "--idle-timeout",
            "1",
            "--sse-keep-alive",
            "0.2",
        ],
    );
    let id = submit_ok(&server.url, "wait", serde_json::json!({}));
    let mut events = stream(
        &server.url,
        &format!("/v1/runs/{id}/events"),
        QUEUE_TOKEN,
        None,
    );
    // 20 keep-alives take 4 s at least: past both timeouts.
    for n in 0..20 {
        let message = events
            .next()
            .unwrap_or_else(|| panic!("the stream ended after {n} keep-alives"));
        assert_eq!(message.comments, ["keep-alive"], "{message:?}");
    }
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn connections_past_the_limit_get_503_until_others_close() {
    let home = Home::new("0");
    // The held connections stay idle as long as the test takes.
    let server = serve(&home, &["--max-connections", "4", "--idle-timeout", "3600"]);
    // Four kept-alive connections, each served once: they hold the four
    // slots.
    let mut held: Vec<TcpStream> = (0..4)
        .map(|_| {
            let mut s = connect(&server);
            s.write_all(HEALTHZ).unwrap();
            let (head, _) = one_response(&mut s);
            assert!(head.starts_with("http/1.1 200"), "{head}");
            s
        })
        .collect();
    for _ in 0..3 {
        let mut extra = connect(&server);
        // The server may close before the request is written.
        let _ = extra.write_all(HEALTHZ);
        let got = until_closed(&mut extra).expect("a connection past the limit was left open");
        let text = String::from_utf8_lossy(&got);
        assert!(
            got.is_empty() || text.starts_with("HTTP/1.1 503 "),
            "past the limit: {text:?}"
        );
    }
    // A held connection is still served: the limit refused only new ones.
    held[0].write_all(HEALTHZ).unwrap();
    let (head, _) = one_response(&mut held[0]);
    assert!(head.starts_with("http/1.1 200"), "{head}");
    // One closes: a new connection is served once the server has seen it.
    drop(held.pop());
    super::serve_queue_support::wait_until("a new connection to be served", || {
        let mut s = connect(&server);
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: agentgate\r\nConnection: close\r\n\r\n")
            .ok()?;
        let got = until_closed(&mut s).ok()?;
        String::from_utf8_lossy(&got)
            .starts_with("HTTP/1.1 200 ")
            .then_some(())
    });
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

/// `Name: value` of a response head in lower case.
fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines()
        .find_map(|l| l.strip_prefix(&format!("{name}:")))
        .map(str::trim)
}

fn rss_kib(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix(&format!("{field}:")))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in /proc/{pid}/status"))
}

const MIB: usize = 1024 * 1024;

#[test]
fn bodies_without_a_valid_token_are_refused_unread_and_memory_stays_bounded() {
    let home = Home::new("0");
    let server = serve(&home, &[]);
    // The head says a 1 MiB body follows; none is sent. The answer comes
    // from the head alone, and the connection is closed.
    for auth in [
        "",
        "Authorization: Bearer not-the-token-0123456789abcdef0123\r\n",
    ] {
        let mut s = connect(&server);
        let head = format!(
            "POST /v1/runs HTTP/1.1\r\nHost: agentgate\r\n{auth}Content-Type: application/json\r\n\
             Content-Length: {MIB}\r\n\r\n"
        );
        s.write_all(head.as_bytes()).unwrap();
        let (head, body) = one_response(&mut s);
        assert!(head.starts_with("http/1.1 401"), "{head}");
        assert_eq!(header(&head, "connection"), Some("close"), "{head}");
        assert!(body.contains("unauthorized"), "{body}");
        until_closed(&mut s).expect("the connection was kept after a 401");
    }

    // Five bursts of 200 connections, each sending all but the last byte
    // of a 1 MiB body without a valid token, all at once, then the last.
    let pid = server.pid();
    let before = rss_kib(pid, "VmRSS");
    let body = Arc::new(vec![b'x'; MIB]);
    let mut answers = std::collections::BTreeMap::<String, usize>::new();
    for _ in 0..5 {
        let barrier = Arc::new(Barrier::new(200));
        let senders: Vec<_> = (0..200)
            .map(|_| {
                let (barrier, body) = (Arc::clone(&barrier), Arc::clone(&body));
                let mut s = connect(&server);
                std::thread::spawn(move || {
                    let head = format!(
                        "POST /v1/runs HTTP/1.1\r\nHost: agentgate\r\n\
                         Authorization: Bearer not-the-token-0123456789abcdef0123\r\n\
                         Content-Length: {MIB}\r\n\r\n"
                    );
                    // Refused early, the writes fail: that is the point.
                    let _ = s
                        .write_all(head.as_bytes())
                        .and_then(|()| s.write_all(&body[..MIB - 1]));
                    barrier.wait();
                    let _ = s.write_all(&body[MIB - 1..]);
                    until_closed(&mut s)
                })
            })
            .collect();
        for sender in senders {
            let got = sender
                .join()
                .unwrap()
                .expect("a refused connection was left open");
            let text = String::from_utf8_lossy(&got);
            let status = text.split(' ').nth(1).unwrap_or("none (reset)").to_owned();
            *answers.entry(status).or_default() += 1;
        }
    }
    let after = rss_kib(pid, "VmRSS");
    let peak = rss_kib(pid, "VmHWM");
    eprintln!(
        "serve RSS: {before} KiB before, {after} KiB after, peak {peak} KiB; answers {answers:?}"
    );
    for status in answers.keys() {
        assert!(
            ["401", "429", "none (reset)"].contains(&status.as_str()),
            "{answers:?}"
        );
    }
    assert!(
        answers.contains_key("429"),
        "the address was never limited: {answers:?}"
    );
    let bound = 64 * 1024;
    assert!(
        peak < before + bound,
        "the peak RSS grew from {before} KiB to {peak} KiB under 1000 refused 1 MiB bodies"
    );
    assert!(after < before + bound, "RSS {before} KiB -> {after} KiB");
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn an_address_that_keeps_failing_gets_429_with_retry_after_whatever_it_sends() {
    let home = Home::new("0");
    let server = serve(&home, &[]);
    let wrong = "not-the-token-0123456789abcdef0123";
    for n in 0..30 {
        let r = get(&server.url, "/v1/queue", Some(wrong));
        assert_eq!(r.status, 401, "failure {n}: {r:?}");
    }
    for token in [Some(wrong), None, Some(TOKEN)] {
        let r = get(&server.url, "/v1/queue", token);
        assert_eq!(r.status, 429, "{r:?}");
        assert_eq!(r.json()["error"]["type"], "too_many_requests", "{r:?}");
        let wait: u64 = r.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=60).contains(&wait), "{r:?}");
        assert_eq!(r.header("connection"), Some("close"), "{r:?}");
    }
    // Open routes are not limited.
    assert_eq!(get(&server.url, "/healthz", None).status, 200);
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("refusing this address"), "{stderr}");
}

#[test]
fn a_short_token_is_refused_at_start() {
    let home = Home::new("0");
    let short = "short-token-0123456789abcdef012";
    let env = home.env(vec![("AGENTGATE_TOKEN", short.to_owned())]);
    let (status, out, err) = serve_exits(&env, &["--listen", "127.0.0.1:0"]);
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains("AGENTGATE_TOKEN has 31 characters") && err.contains("at least 32"),
        "{err}"
    );
    assert!(!err.contains(short), "{err}");

    let file = home.path().join("short-token");
    std::fs::write(&file, "0123456789abcdef\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let env = home.env(vec![]);
    let args = [
        "--listen",
        "127.0.0.1:0",
        "--token-file",
        file.to_str().unwrap(),
    ];
    let (status, out, err) = serve_exits(&env, &args);
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(out, "");
    assert!(
        err.contains(&format!(
            "the token file {} has 16 characters",
            file.display()
        )),
        "{err}"
    );
    assert!(!err.contains("0123456789abcdef"), "{err}");
}
