//! `agentgate serve` as a real process over real HTTP on 127.0.0.1: the URL
//! line, /healthz, bearer-token auth (env and file tokens), the token file,
//! the non-loopback refusal, the body limit, JSON errors and graceful
//! shutdown.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::serve_support::{Env, LIMIT, Serve, get, request, request_raw, serve_exits};

/// A scratch home for one serve process: `bin/` holds a stub `claude`
/// whose `--version` prints 9.8.7 after `delay` seconds, adding a line to
/// `probe-started` first; PATH is that folder.
pub(super) struct Home {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Home {
    pub(super) fn new(delay: &str) -> Home {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let claude = bin.join("claude");
        let started = dir.path().join("probe-started");
        std::fs::write(
            &claude,
            format!(
                "#!/bin/sh\necho probe >> '{}'\nsleep {delay}\necho '9.8.7 (Claude Code)'\n",
                started.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&claude, std::fs::Permissions::from_mode(0o755)).unwrap();
        Home { dir, bin }
    }

    pub(super) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// The serve environment: this home, this PATH, and `vars`.
    pub(super) fn env(&self, vars: Vec<(&'static str, String)>) -> Env<'_> {
        Env {
            home: self.path(),
            bin: &self.bin,
            vars,
        }
    }
}

pub(super) fn assert_unauthorized(r: &super::serve_support::Response) {
    assert_eq!(r.status, 401, "{r:?}");
    assert!(
        r.header("www-authenticate")
            .is_some_and(|v| v.starts_with("Bearer")),
        "{r:?}"
    );
    assert_eq!(r.json()["error"]["type"], "unauthorized", "{r:?}");
}

#[test]
fn serve_prints_its_url_and_healthz_is_open() {
    let home = Home::new("0");
    let env = home.env(vec![]);
    let server = Serve::start(&env, &[]);
    let port: u16 = server
        .url
        .strip_prefix("http://127.0.0.1:")
        .unwrap_or_else(|| panic!("unexpected URL line {:?}", server.url))
        .parse()
        .unwrap();
    assert_ne!(port, 0, "port 0 must be replaced by the bound port");
    let r = get(&server.url, "/healthz", None);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(
        r.json(),
        serde_json::json!({"ok": true, "version": env!("CARGO_PKG_VERSION")})
    );
    let (status, rest, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));
    assert_eq!(rest, "", "stdout holds only the URL line");
}

#[test]
fn the_token_file_is_created_private_and_reused_and_guards_v1() {
    let home = Home::new("0");
    let env = home.env(vec![]);
    let token_path = home.path().join("data/token");
    let server = Serve::start(&env, &[]);
    let mode = std::fs::metadata(&token_path).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "the token file is private");
    let token = std::fs::read_to_string(&token_path)
        .unwrap()
        .trim()
        .to_owned();
    assert!(
        token.len() >= 32,
        "a long random token: {} chars",
        token.len()
    );

    assert_unauthorized(&get(&server.url, "/v1/health", None));
    assert_unauthorized(&get(&server.url, "/v1/health", Some("not-the-token")));
    let r = request(
        &server.url,
        "GET",
        "/v1/health",
        &[format!("Authorization: Basic {token}")],
        b"",
    );
    assert_unauthorized(&r);

    let r = get(&server.url, "/v1/health", Some(&token));
    assert_eq!(r.status, 200, "{r:?}");
    let providers = r.json()["providers"].as_array().unwrap().clone();
    let claude = providers.iter().find(|p| p["name"] == "claude").unwrap();
    assert_eq!(claude["installed"], true, "{claude}");
    assert_eq!(claude["version"], "9.8.7", "{claude}");
    assert_eq!(claude["usable"], true, "{claude}");
    let codex = providers.iter().find(|p| p["name"] == "codex").unwrap();
    assert_eq!(codex["installed"], false, "{codex}");

    let (status, rest, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("token file: {} (created)", token_path.display())),
        "{stderr}"
    );
    assert!(
        !stderr.contains(&token) && !rest.contains(&token),
        "{stderr}"
    );

    // The second start reads the same file.
    let server = Serve::start(&env, &[]);
    assert_eq!(get(&server.url, "/v1/health", Some(&token)).status, 200);
    let (status, _, stderr) = server.stop("INT");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("token file: {}", token_path.display()))
            && !stderr.contains("(created)"),
        "{stderr}"
    );
    assert!(!stderr.contains(&token), "{stderr}");
    let again = std::fs::read_to_string(&token_path).unwrap();
    assert_eq!(again.trim(), token, "the token was kept");
}

#[test]
fn the_env_token_is_used_and_never_printed() {
    let home = Home::new("0");
    let secret = "env-token-0123456789abcdef01234567";
    let env = home.env(vec![("AGENTGATE_TOKEN", secret.to_owned())]);
    let server = Serve::start(&env, &[]);
    assert_unauthorized(&get(
        &server.url,
        "/v1/health",
        Some("env-token-0123456789abcdef0123456X"),
    ));
    assert_eq!(get(&server.url, "/v1/health", Some(secret)).status, 200);
    let (status, rest, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("token: from AGENTGATE_TOKEN"), "{stderr}");
    assert!(
        !stderr.contains(secret) && !rest.contains(secret),
        "{stderr}"
    );
    assert!(
        !home.path().join("data/token").exists(),
        "no token file is made when the environment gives the token"
    );
}

#[test]
fn a_given_token_file_is_used_and_a_loose_one_refused() {
    let home = Home::new("0");
    let env = home.env(vec![]);
    let file = home.path().join("my-token");
    std::fs::write(&file, "file-token-abcdef0123456789abcdefgh\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let file_arg = file.to_str().unwrap();
    let server = Serve::start(&env, &["--token-file", file_arg]);
    assert_eq!(
        get(
            &server.url,
            "/v1/health",
            Some("file-token-abcdef0123456789abcdefgh")
        )
        .status,
        200
    );
    assert_unauthorized(&get(&server.url, "/v1/health", Some("file-token")));
    drop(server);

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let (status, out, err) =
        serve_exits(&env, &["--listen", "127.0.0.1:0", "--token-file", file_arg]);
    assert_eq!(status.code(), Some(2), "{err}");
    assert_eq!(out, "");
    assert!(err.contains("chmod 600") && err.contains(file_arg), "{err}");
    assert!(!err.contains("file-token-abcdef"), "{err}");
}

#[test]
fn a_non_loopback_address_needs_an_explicit_token() {
    let home = Home::new("0");
    let env = home.env(vec![]);
    let missing = home.path().join("not-yet");
    for args in [
        vec!["--listen", "0.0.0.0:0"],
        vec![
            "--listen",
            "0.0.0.0:0",
            "--token-file",
            missing.to_str().unwrap(),
        ],
    ] {
        let (status, out, err) = serve_exits(&env, &args);
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(out, "", "{args:?}");
        assert!(
            err.contains("refusing to listen on 0.0.0.0:0")
                && err.contains("not a loopback address")
                && err.contains("AGENTGATE_TOKEN"),
            "{args:?}: {err}"
        );
    }
    assert!(
        !home.path().join("data/token").exists(),
        "no token was made"
    );
    assert!(!missing.exists(), "no token was made");
}

#[test]
fn bodies_over_the_limit_are_413_and_unknown_routes_404_as_json() {
    let home = Home::new("0");
    let env = home.env(vec![(
        "AGENTGATE_TOKEN",
        "t0ken-for-limits-0123456789abcdefg".to_owned(),
    )]);
    let server = Serve::start(&env, &[]);
    let auth = "Authorization: Bearer t0ken-for-limits-0123456789abcdefg".to_owned();
    // A declared length over 1 MiB is refused before the body is read.
    let r = request(
        &server.url,
        "POST",
        "/v1/health",
        &[auth.clone(), format!("Content-Length: {}", 2 * 1024 * 1024)],
        b"",
    );
    assert_eq!(r.status, 413, "{r:?}");
    assert_eq!(r.json()["error"]["type"], "payload_too_large");
    // A chunked body is counted as it arrives: 1 MiB, then one byte more
    // (nothing is left unread after it, so the answer is not lost to a reset).
    let mut body = Vec::new();
    for len in [256 * 1024, 256 * 1024, 256 * 1024, 256 * 1024, 1] {
        body.extend_from_slice(format!("{len:x}\r\n").as_bytes());
        body.extend_from_slice(&vec![b'x'; len]);
        body.extend_from_slice(b"\r\n");
    }
    body.extend_from_slice(b"0\r\n\r\n");
    let r = request(
        &server.url,
        "POST",
        "/v1/health",
        &[auth.clone(), "Transfer-Encoding: chunked".to_owned()],
        &body,
    );
    assert_eq!(r.status, 413, "{r:?}");
    assert_eq!(r.json()["error"]["type"], "payload_too_large");
    // Within the limit, the request reaches routing (here: a wrong method).
    let r = request(
        &server.url,
        "POST",
        "/healthz",
        &["Content-Length: 2".to_owned()],
        b"{}",
    );
    assert_eq!(r.status, 405, "{r:?}");
    assert_eq!(r.json()["error"]["type"], "method_not_allowed");

    // Under /v1 an unknown path needs the token before it is a 404.
    assert_unauthorized(&get(&server.url, "/v1/nope", None));
    for (path, token) in [
        ("/nope", None),
        ("/v1/nope", Some("t0ken-for-limits-0123456789abcdefg")),
    ] {
        let r = get(&server.url, path, token);
        assert_eq!(r.status, 404, "{path}: {r:?}");
        assert!(r.header("content-type").is_some_and(|v| v.contains("json")));
        let error = &r.json()["error"];
        assert_eq!(error["type"], "not_found", "{path}");
        assert!(error["message"].as_str().unwrap().contains(path), "{error}");
    }
    let r = request(
        &server.url,
        "POST",
        "/v1/health",
        &[auth.clone(), "Content-Length: 0".to_owned()],
        b"",
    );
    assert_eq!(r.status, 405, "{r:?}");
    assert_eq!(
        r.json()["error"]["message"],
        "/v1/health does not accept POST"
    );
    let (status, _, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn sigterm_lets_a_request_in_flight_finish_then_exits_0() {
    let home = Home::new("2");
    // The health probe takes 2 s: the request is in flight when SIGTERM comes.
    let env = home.env(vec![(
        "AGENTGATE_TOKEN",
        "t0ken-for-shutdown-0123456789abcdef".to_owned(),
    )]);
    let server = Serve::start(&env, &[]);
    let url = server.url.clone();
    let base = server.url.clone();
    let in_flight = std::thread::spawn(move || {
        get(
            &url,
            "/v1/health",
            Some("t0ken-for-shutdown-0123456789abcdef"),
        )
    });
    let started = home.path().join("probe-started");
    let deadline = std::time::Instant::now() + LIMIT;
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the probe never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    let r = in_flight.join().unwrap();
    assert_eq!(r.status, 200, "the request in flight finished: {r:?}");
    let claude = r.json()["providers"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "claude")
        .cloned()
        .unwrap();
    assert_eq!(claude["version"], "9.8.7");
    // After the exit nothing listens: a new connection is refused.
    let addr = base.strip_prefix("http://").unwrap();
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "{addr} still accepts"
    );
}

#[test]
fn a_request_still_open_after_the_grace_is_dropped_and_serve_exits_0() {
    let home = Home::new("8");
    // The probe outlasts the 1 s grace.
    let env = home.env(vec![(
        "AGENTGATE_TOKEN",
        "t0ken-for-grace-0123456789abcdefghi".to_owned(),
    )]);
    let server = Serve::start(&env, &["--grace", "1"]);
    let url = server.url.clone();
    let in_flight = std::thread::spawn(move || {
        let auth = "Authorization: Bearer t0ken-for-grace-0123456789abcdefghi".to_owned();
        request_raw(&url, "GET", "/v1/health", &[auth], b"")
    });
    let started = home.path().join("probe-started");
    let deadline = std::time::Instant::now() + LIMIT;
    while !started.exists() {
        assert!(
            std::time::Instant::now() < deadline,
            "the probe never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("requests still open after the grace were dropped"),
        "{stderr}"
    );
    let raw = in_flight.join().unwrap();
    assert!(
        raw.is_empty(),
        "the dropped request got no answer: {:?}",
        String::from_utf8_lossy(&raw)
    );
}

#[test]
fn health_requests_within_the_cache_window_share_one_probe() {
    let home = Home::new("0");
    let token = "t0ken-for-the-cache-0123456789abcde";
    let env = home.env(vec![("AGENTGATE_TOKEN", token.to_owned())]);
    let server = Serve::start(&env, &[]);
    for _ in 0..3 {
        let r = get(&server.url, "/v1/health", Some(token));
        assert_eq!(r.status, 200, "{r:?}");
    }
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    // Three requests well inside the 10 s window: claude's --version ran once.
    let probes = std::fs::read_to_string(home.path().join("probe-started")).unwrap();
    assert_eq!(probes.lines().count(), 1, "{probes:?}");
}

#[test]
fn serve_raises_its_open_files_limit_to_the_hard_one() {
    let home = Home::new("0");
    // A low soft limit, as many systems set (1024), under a higher hard one.
    let wrapper = home.path().join("low-limit");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/bash\nulimit -Sn 256\nexec {} \"$@\"\n",
            env!("CARGO_BIN_EXE_agentgate")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let hard: String = std::fs::read_to_string("/proc/self/limits")
        .unwrap()
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .and_then(|l| l.split_whitespace().nth(4).map(str::to_owned))
        .unwrap();
    assert_ne!(hard, "256", "the test needs a hard limit above 256");
    let mut child = std::process::Command::new(&wrapper)
        .args(["serve", "--listen", "127.0.0.1:0"])
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("AGENTGATE_HOME", home.path().join("data"))
        .env("AGENTGATE_TOKEN", "limit-test-token-0123456789abcdefgh")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut first,
    )
    .unwrap();
    assert!(first.starts_with("http://"), "{first:?}");
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", child.id())).unwrap();
    let _ = child.kill();
    let _ = child.wait();
    let line = limits
        .lines()
        .find(|l| l.starts_with("Max open files"))
        .unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(fields[3], hard, "soft limit raised to the hard one: {line}");
}
