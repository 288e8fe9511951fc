//! A real `agentgate serve` process for the tests, and a small HTTP/1.1
//! client over `TcpStream` (one request per connection, every read and
//! write bounded by a timeout).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// The bound on one request, on start-up and on shutdown.
pub const LIMIT: Duration = Duration::from_secs(30);

/// A running `agentgate serve`.
pub struct Serve {
    pub url: String,
    child: Child,
    stdout_rest: mpsc::Receiver<String>,
    stderr: PathBuf,
}

/// The environment of a serve process: nothing but these.
pub struct Env<'a> {
    pub home: &'a Path,
    /// PATH is only this folder (plus /usr/bin:/bin for the stub CLIs).
    pub bin: &'a Path,
    pub vars: Vec<(&'a str, String)>,
}

fn command(env: &Env<'_>, args: &[&str]) -> Command {
    let mut cmd = Command::new(AGENTGATE);
    cmd.arg("serve")
        .args(args)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", env.bin.display()))
        .env("HOME", env.home)
        .env("AGENTGATE_HOME", env.home.join("data"))
        .envs(env.vars.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(env.home);
    cmd
}

impl Serve {
    /// Start `agentgate serve --listen 127.0.0.1:0 ARGS` and read its URL.
    pub fn start(env: &Env<'_>, args: &[&str]) -> Serve {
        let stderr = env.home.join(format!("serve-stderr-{}.log", unique()));
        let mut child = command(env, &[&["--listen", "127.0.0.1:0"], args].concat())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&stderr).unwrap())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (first_tx, first_rx) = mpsc::channel();
        let (rest_tx, rest_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = String::new();
            let _ = reader.read_line(&mut line);
            let _ = first_tx.send(line);
            let mut rest = String::new();
            let _ = reader.read_to_string(&mut rest);
            let _ = rest_tx.send(rest);
        });
        let line = match first_rx.recv_timeout(LIMIT) {
            Ok(line) => line,
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                panic!(
                    "serve printed no URL within {LIMIT:?}; stderr:\n{}",
                    std::fs::read_to_string(&stderr).unwrap_or_default()
                );
            }
        };
        assert!(
            line.ends_with('\n'),
            "the URL line is not a whole line: {line:?}; stderr:\n{}",
            std::fs::read_to_string(&stderr).unwrap_or_default()
        );
        Serve {
            url: line.trim_end().to_owned(),
            child,
            stdout_rest: rest_rx,
            stderr,
        }
    }

    /// What the server has written to stderr so far (its log).
    pub fn stderr_so_far(&self) -> String {
        std::fs::read_to_string(&self.stderr).unwrap_or_default()
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Send `signal` (TERM, INT) and wait for the exit, bounded; returns
    /// the status, what stdout had after the URL line, and stderr.
    pub fn stop(mut self, signal: &str) -> (ExitStatus, String, String) {
        let sent = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(sent.success());
        let status = wait_bounded(&mut self.child, LIMIT)
            .unwrap_or_else(|| panic!("serve did not exit within {LIMIT:?} of SIG{signal}"));
        let rest = self.stdout_rest.recv_timeout(LIMIT).unwrap_or_default();
        let stderr = std::fs::read_to_string(&self.stderr).unwrap_or_default();
        (status, rest, stderr)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `agentgate serve ARGS` in `home` (data in `home/data`), with a CLI's
/// environment `cli_env` (its home pointed at fake-llm) and `token`.
pub fn serve_with_cli_env(
    home: &Path,
    cli_env: &[(String, String)],
    token: &str,
    args: &[&str],
) -> Serve {
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mut vars: Vec<(&str, String)> = cli_env
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    vars.push(("AGENTGATE_TOKEN", token.to_owned()));
    Serve::start(
        &Env {
            home,
            bin: &bin,
            vars,
        },
        args,
    )
}

/// Run `agentgate serve ARGS` that is expected to exit by itself.
pub fn serve_exits(env: &Env<'_>, args: &[&str]) -> (ExitStatus, String, String) {
    let mut child = command(env, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let status = wait_bounded(&mut child, LIMIT).unwrap_or_else(|| {
        panic!("serve {args:?} did not exit within {LIMIT:?}");
    });
    let mut out = String::new();
    let mut err = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (status, out, err)
}

fn wait_bounded(child: &mut Child, limit: Duration) -> Option<ExitStatus> {
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn unique() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos()
}

/// An HTTP response.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }
}

/// A request: method, path, extra header lines, and the raw bytes sent
/// after the headers (the caller writes framing headers itself).
pub fn request(url: &str, method: &str, path: &str, headers: &[String], body: &[u8]) -> Response {
    parse(&request_raw(url, method, path, headers, body))
}

/// The bytes the server sent back before closing (empty when it closed
/// without answering).
pub fn request_raw(
    url: &str,
    method: &str,
    path: &str,
    headers: &[String],
    body: &[u8],
) -> Vec<u8> {
    let addr = url.strip_prefix("http://").unwrap();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(LIMIT)).unwrap();
    stream.set_write_timeout(Some(LIMIT)).unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for h in headers {
        head.push_str(h);
        head.push_str("\r\n");
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).unwrap();
    // The server may answer (413) and close before taking the whole body.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    raw
}

/// POST `path` with a JSON body and the bearer `token`.
pub fn post_json(url: &str, path: &str, token: &str, body: &str) -> Response {
    request(
        url,
        "POST",
        path,
        &[
            format!("Authorization: Bearer {token}"),
            "Content-Type: application/json".to_owned(),
            format!("Content-Length: {}", body.len()),
        ],
        body.as_bytes(),
    )
}

/// GET `path`, with `Authorization: Bearer TOKEN` when a token is given.
pub fn get(url: &str, path: &str, token: Option<&str>) -> Response {
    let headers: Vec<String> = token
        .map(|t| format!("Authorization: Bearer {t}"))
        .into_iter()
        .collect();
    request(url, "GET", path, &headers, b"")
}

fn parse(raw: &[u8]) -> Response {
    let text = String::from_utf8_lossy(raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete HTTP response: {text:?}"));
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap();
    let status = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("bad status line {status_line:?}"));
    let headers = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    Response {
        status,
        headers,
        body: body.to_owned(),
    }
}
