//! A headless Chromium driven over WebDriver, for the benchmark programs
//! (`bench-dashboard`) and the dashboard's browser tests (whose harness,
//! `tests/suite/webdriver.rs`, builds on it): Debian's `chromium` and
//! `chromium-driver` (scripts/install-browser.sh), chromedriver on a free
//! port, one session, and its commands (open a URL, run a script, any
//! other by its path). Errors are strings, as the benchmarks print them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long chromedriver and one command may take.
const WAIT: Duration = Duration::from_secs(60);

/// Debian's paths; `AGENTGATE_CHROMIUM` / `AGENTGATE_CHROMEDRIVER` name
/// others.
pub fn browser_paths() -> (PathBuf, PathBuf) {
    let path = |env: &str, default: &str| {
        std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from)
    };
    (
        path("AGENTGATE_CHROMIUM", "/usr/bin/chromium"),
        path("AGENTGATE_CHROMEDRIVER", "/usr/bin/chromedriver"),
    )
}

/// A running chromedriver with one headless session; both end on drop.
#[derive(Debug)]
pub struct Chromium {
    driver: Child,
    url: String,
    session: String,
    _profile: tempfile::TempDir,
}

impl Chromium {
    /// A headless Chromium whose window is `width` x `height`.
    pub fn start(
        chromium: &Path,
        chromedriver: &Path,
        width: u32,
        height: u32,
    ) -> Result<Chromium, String> {
        for tool in [chromium, chromedriver] {
            if !tool.is_file() {
                return Err(format!(
                    "{} is missing: run scripts/install-browser.sh",
                    tool.display()
                ));
            }
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| e.to_string())?
            .port();
        let driver = Command::new(chromedriver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", chromedriver.display()))?;
        let profile = tempfile::tempdir().map_err(|e| e.to_string())?;
        let mut browser = Chromium {
            driver,
            url: format!("127.0.0.1:{port}"),
            session: String::new(),
            _profile: profile,
        };
        let start = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if start.elapsed() > WAIT {
                return Err("chromedriver did not listen".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium,
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu",
                         "--disable-dev-shm-usage", "--no-first-run",
                         "--disable-background-networking", "--disable-component-update",
                         "--disable-sync", format!("--window-size={width},{height}"),
                         format!("--user-data-dir={}", browser._profile.path().display())],
            }
        }}});
        let answer = browser.call("POST", "/session", Some(&caps))?;
        browser.session = answer["sessionId"]
            .as_str()
            .ok_or("chromedriver gave no session id")?
            .to_owned();
        Ok(browser)
    }

    /// Open `url` (WebDriver waits for its load event).
    pub fn goto(&self, url: &str) -> Result<(), String> {
        self.command("POST", "/url", Some(&json!({"url": url})))
            .map(drop)
    }

    /// Run `script` (a function body) in the page with `args`; its value.
    pub fn script(&self, script: &str, args: Value) -> Result<Value, String> {
        self.command(
            "POST",
            "/execute/sync",
            Some(&json!({"script": script, "args": args})),
        )
    }

    /// One command of the session (`path` after `/session/{id}`, e.g.
    /// `/element`), with its JSON body if it has one; its `value`.
    pub fn command(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        self.call(method, &format!("/session/{}{path}", self.session), body)
    }

    /// One command; its `value`.
    fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Result<Value, String> {
        let body = body.map(Value::to_string).unwrap_or_default();
        let (status, answer) = request(&self.url, method, path, &body)?;
        if status != 200 {
            return Err(format!("WebDriver {method} {path}: {status} {answer}"));
        }
        Ok(answer["value"].clone())
    }
}

impl Drop for Chromium {
    fn drop(&mut self) {
        if !self.session.is_empty() {
            let _ = request(
                &self.url,
                "DELETE",
                &format!("/session/{}", self.session),
                "",
            );
        }
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// One request to chromedriver; its answer is read by its Content-Length
/// (chromedriver may keep the connection open).
fn request(addr: &str, method: &str, path: &str, body: &str) -> Result<(u16, Value), String> {
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(WAIT))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| e.to_string())?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    let status = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| format!("chromedriver's answer: {line:?}"))?;
    let mut length = 0;
    loop {
        line.clear();
        reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse().map_err(|_| "bad Content-Length")?;
        }
    }
    let mut answer = vec![0; length];
    reader.read_exact(&mut answer).map_err(|e| e.to_string())?;
    let value = serde_json::from_slice(&answer).map_err(|e| e.to_string())?;
    Ok((status, value))
}
