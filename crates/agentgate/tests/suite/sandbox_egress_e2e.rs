//! `--sandbox strict` with `egress_allow` and the REAL Claude Code through
//! the run's gateway (as `sandbox_strict_e2e.rs`): the test runs two HTTP
//! servers on the host's 127.0.0.1; the config allows `localhost:PORT` of
//! the first. The model has the shell tool `curl` each through the proxy
//! the sandbox sets (`$HTTP_PROXY`, a CONNECT tunnel: `-p`; the egress
//! proxy answers plain-HTTP requests with 405). Checked: the allowed
//! server's answer comes back through the tunnel; the other is refused
//! (403 from the proxy) and never sees a connection; the refusal is a
//! `status` notice of the run's events (and the proxy's totals); the run
//! answers.

use std::ffi::OsStr;
use std::io::{Read, Write};
use std::net::TcpListener;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentgate_fakellm::clients::Cli;

use super::gateway_e2e::{https_upstream, test_ca, with_real_key};
use super::sandbox_e2e::{ANSWER, envelope, events, finding, run, script};
use super::support::Client;

/// What the allowed server answers.
const BODY: &str = "egress-allowed-answer";

/// An HTTP server on 127.0.0.1 answering [`BODY`] to each request, and
/// how many connections it took. Its thread ends with the test process.
fn http_server() -> (u16, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            seen.fetch_add(1, Ordering::SeqCst);
            let _ = stream.set_read_timeout(Some(std::time::Duration::from_secs(5)));
            let mut head = Vec::new();
            let mut buf = [0u8; 1024];
            while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < 16 * 1024 {
                match stream.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => head.extend_from_slice(&buf[..n]),
                }
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{BODY}",
                BODY.len()
            );
        }
    });
    (port, count)
}

/// The shell command: each server through the proxy, as a tunnel (`-p`),
/// `--noproxy ''` so that the sandbox's `NO_PROXY` (loopback) does not
/// send the requests past the proxy; the answer of the allowed one, and
/// the proxy's answer to the CONNECT of the other.
fn command(allowed: u16, other: u16) -> String {
    format!(
        "curl -s -m 20 --noproxy '' -p -x $HTTP_PROXY http://localhost:{allowed}/allowed > egress-allowed.txt; \
         curl -s -m 20 --noproxy '' -p -x $HTTP_PROXY -o /dev/null -w %{{http_connect}} http://127.0.0.1:{other}/refused > egress-refused.txt; \
         echo done > egress-done.txt"
    )
}

#[test]
fn claude_in_strict_reaches_only_its_egress_allowlist() {
    let cli = Cli::Claude;
    let (allowed, allowed_seen) = http_server();
    let (other, other_seen) = http_server();
    let ca = test_ca();
    let upstream = https_upstream(&script(cli, &command(allowed, other)), &ca);
    let mut client = Client::new(cli, &upstream);
    with_real_key(cli, &mut client);
    let store = tempfile::tempdir().unwrap();
    let config = ca.dir.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\ngateway:\n  ca_file: {}\nsandbox:\n  egress_allow: [\"localhost:{allowed}\"]\n",
            ca.ca_file.display()
        ),
    )
    .unwrap();
    let run = run(
        &client,
        store.path(),
        &[
            OsStr::new("--gateway"),
            OsStr::new("--config"),
            config.as_os_str(),
            OsStr::new("--sandbox"),
            OsStr::new("strict"),
        ],
    );
    let all = run.all_output();
    assert_eq!(run.code, Some(0), "{all}");
    let env = envelope(&run);
    assert_eq!(env["response"], ANSWER, "{all}");
    assert_eq!(env["sandbox"]["level"], "strict", "{env:#}");
    assert_eq!(env["sandbox"]["network"]["state"], "enforced", "{env:#}");
    let work = &client.setup.workdir;
    assert_eq!(finding(work, "egress-done.txt", &all), "done");
    assert_eq!(
        finding(work, "egress-allowed.txt", &all),
        BODY,
        "the allowed server was not reached through the proxy"
    );
    assert!(allowed_seen.load(Ordering::SeqCst) >= 1);
    assert_eq!(
        finding(work, "egress-refused.txt", &all),
        "403",
        "the proxy did not refuse the host not allowed"
    );
    assert_eq!(
        other_seen.load(Ordering::SeqCst),
        0,
        "the server not allowed saw a connection"
    );
    // The refusal and the proxy's totals are in the run's events.
    let notices: Vec<String> = events(&run)
        .iter()
        .filter(|e| e["type"] == "status")
        .map(|e| e.to_string())
        .collect();
    let refused = format!("sandbox egress: refused 127.0.0.1:{other}");
    assert!(
        notices.iter().any(|n| n.contains(&refused)),
        "no notice of the refusal: {notices:#?}"
    );
    assert!(
        notices
            .iter()
            .any(|n| n.contains("sandbox egress: 1 tunnel(s) opened, 1 destination(s) refused")),
        "no totals: {notices:#?}"
    );
}
