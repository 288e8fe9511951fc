//! A webhook receiver for the tests, written in JavaScript and run on the
//! pinned Node.js of the test CLIs: it verifies every delivery with the
//! `standardwebhooks` package from npm (pinned in clis/package.json,
//! installed by scripts/install-clis.sh: an implementation independent of
//! agentgate's), answers each path with the statuses the test queued for
//! it (then 200), and logs every request as a JSON line. A missing Node.js
//! or package fails the test: it is never a skip.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use super::serve_queue_support::wait_until;
use super::support::{clis_bin_dir, clis_dir};

const RECEIVER_JS: &str = r#"
const http = require("http");
const fs = require("fs");
const { Webhook } = require("standardwebhooks");
const [secret, statusFile, logFile] = process.argv.slice(2);
const wh = new Webhook(secret);
function nextStatus(path) {
  let lines = [];
  try { lines = fs.readFileSync(statusFile, "utf8").split("\n").filter(Boolean); } catch (e) { return 200; }
  const at = lines.findIndex((l) => l.split(" ")[0] === path);
  if (at < 0) return 200;
  const status = parseInt(lines[at].split(" ")[1], 10);
  lines.splice(at, 1);
  fs.writeFileSync(statusFile, lines.map((l) => l + "\n").join(""));
  return status;
}
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const body = Buffer.concat(chunks).toString("utf8");
    let verified = false, error = null, payload = null;
    try { payload = wh.verify(body, req.headers); verified = true; } catch (e) { error = String(e && e.message || e); }
    const status = nextStatus(req.url);
    const entry = {
      path: req.url, method: req.method, id: req.headers["webhook-id"] || null,
      timestamp: req.headers["webhook-timestamp"] || null, verified, error, payload, status,
    };
    fs.appendFileSync(logFile, JSON.stringify(entry) + "\n");
    res.writeHead(status, { "content-type": "text/plain" });
    res.end("ok");
  });
});
server.listen(0, "127.0.0.1", () => { process.stdout.write(server.address().port + "\n"); });
"#;

/// The receiver process; killed when dropped.
pub struct Receiver {
    pub port: u16,
    log: PathBuf,
    statuses: PathBuf,
    child: Child,
}

impl Receiver {
    /// Start a receiver verifying with `secret` (`whsec_...`), its files
    /// in `dir`.
    pub fn start(dir: &Path, secret: &str) -> Receiver {
        let node = clis_bin_dir().join("node");
        let modules = clis_dir().join("node_modules");
        assert!(
            modules.join("standardwebhooks/package.json").is_file(),
            "the standardwebhooks package is not installed in {}: run scripts/install-clis.sh",
            modules.display()
        );
        let script = dir.join("receiver.js");
        std::fs::write(&script, RECEIVER_JS).unwrap();
        let (log, statuses) = (dir.join("received.jsonl"), dir.join("statuses"));
        let mut child = Command::new(&node)
            .arg(&script)
            .args([secret, statuses.to_str().unwrap(), log.to_str().unwrap()])
            .env("NODE_PATH", &modules)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {}: {e}", node.display()));
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            let _ = BufReader::new(stdout).read_line(&mut line);
            let _ = tx.send(line);
        });
        let line = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the receiver printed no port");
        Receiver {
            port: line.trim().parse().expect("a port"),
            log,
            statuses,
            child,
        }
    }

    /// `http://127.0.0.1:PORT{path}`.
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }

    /// Answer the next request to `path` with `status` (queued after any
    /// status queued before).
    pub fn answer_next(&self, path: &str, status: u16) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.statuses)
            .unwrap();
        writeln!(f, "{path} {status}").unwrap();
    }

    /// Every request so far, in arrival order.
    pub fn received(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The requests to `path` so far.
    pub fn received_at(&self, path: &str) -> Vec<Value> {
        self.received()
            .into_iter()
            .filter(|r| r["path"] == path)
            .collect()
    }

    /// Wait (bounded) until `path` got `n` requests.
    pub fn wait_for(&self, path: &str, n: usize) -> Vec<Value> {
        wait_until(&format!("{n} deliveries to {path}"), || {
            let got = self.received_at(path);
            (got.len() >= n).then_some(got)
        })
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
