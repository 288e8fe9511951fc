//! A short-lived `codex app-server` for one-off questions (`skills/list`,
//! `model/list`): started in a folder with agentgate's environment under
//! the given variables, `initialize`d, asked requests one at a time (JSON
//! lines, no `jsonrpc` field), and ended (killed and reaped) when dropped.
//! Every answer is awaited at most until the deadline given at the start.
//! Warm sessions speak the same wire through `warm/` with a supervisor;
//! this is the small client for questions that start no turn.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// A running `codex app-server`, initialised.
pub(crate) struct AppServer {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
}

impl AppServer {
    /// Starts `program app-server` in `cwd` with `env` added, and
    /// initialises it; every answer must come within `timeout` of now.
    pub(crate) fn start(
        program: &Path,
        env: &[(String, String)],
        cwd: &Path,
        timeout: Duration,
    ) -> Result<AppServer, String> {
        let mut child = Command::new(program)
            .arg("app-server")
            .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("cannot start {} app-server: {e}", program.display()))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            let _ = child.wait();
            return Err("app-server: no stdin or stdout".to_owned());
        };
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = AppServer {
            child,
            stdin,
            lines,
            deadline: Instant::now() + timeout,
            timeout,
            next_id: 1,
        };
        server.request(
            "initialize",
            json!({"clientInfo": {"name": "agentgate", "title": null, "version": env!("CARGO_PKG_VERSION")}}),
        )?;
        server.send(&json!({"method": "initialized"}))?;
        Ok(server)
    }

    fn send(&mut self, message: &Value) -> Result<(), String> {
        writeln!(self.stdin, "{message}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("writing to app-server: {e}"))
    }

    /// Sends `method` with `params` and waits for its answer's `result`
    /// (its `error` is an `Err`); notifications in between are skipped.
    pub(crate) fn request(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"id": id, "method": method, "params": params}))?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = self.lines.recv_timeout(left).map_err(|_| {
                format!(
                    "no {method} answer within {:?} of app-server's start",
                    self.timeout
                )
            })?;
            let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
                continue;
            };
            if message["id"] != id {
                continue;
            }
            if let Some(e) = message.get("error") {
                return Err(format!("{method} failed: {e}"));
            }
            return Ok(message["result"].take());
        }
    }
}

impl Drop for AppServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
