//! Helpers of the benchmark programs (`bench-serve`, `bench-queue`) and the
//! fault drill: a
//! `serve` process started on a free port, one-request HTTP calls with its
//! token, bounded polling, and /proc readings. Errors are strings: a
//! benchmark prints them and exits 1.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// The token every fixture's server takes (`AGENTGATE_TOKEN`).
pub const TOKEN: &str = "bench-serve-token-0123456789abcdef";

/// The bound on every wait.
pub const LIMIT: Duration = Duration::from_secs(600);

/// A running `agentgate serve` and its base URL; stopped (SIGTERM, then
/// waited for) when dropped.
#[derive(Debug)]
pub struct Serve {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
}

impl Serve {
    /// Start `command` (an `agentgate ... serve --listen 127.0.0.1:0` with
    /// its environment set): its first stdout line is the URL.
    pub fn start(mut command: Command) -> Result<Serve, String> {
        let mut child = command
            .env("AGENTGATE_TOKEN", TOKEN)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("agentgate serve: {e}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .map_err(|e| e.to_string())?;
        let url = first.trim().to_owned();
        if !url.starts_with("http://") {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("serve printed no URL: {first:?}"));
        }
        Ok(Serve { child, url })
    }

    /// The server's pid.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// One request to the server: its status and JSON answer.
    pub fn http(
        &self,
        method: &str,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value), String> {
        http(&self.url, method, path, body)
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        terminate(&mut self.child);
    }
}

/// SIGTERM `child` and wait for it.
pub fn terminate(child: &mut Child) {
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let _ = child.wait();
}

/// One request, one connection, with [`TOKEN`]; the answer's status and
/// JSON (`null` for an empty body).
pub fn http(
    url: &str,
    method: &str,
    path: &str,
    body: Option<&Value>,
) -> Result<(u16, Value), String> {
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut stream = send(
        url,
        &format!(
            "{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}",
            body.len()
        ),
        &body,
    )?;
    let mut raw = String::new();
    stream.read_to_string(&mut raw).map_err(|e| e.to_string())?;
    let (head, rest) = raw.split_once("\r\n\r\n").ok_or("no HTTP answer")?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or("bad status line")?;
    let value = if rest.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(rest).map_err(|e| format!("{method} {path}: {e}: {rest:?}"))?
    };
    Ok((status, value))
}

/// Connect to the server of `url` (read timeout [`LIMIT`]) and send
/// `head` (the request line and headers, without the final CRLF), the
/// `Host` and bearer-token headers, then `body`.
pub fn send(url: &str, head: &str, body: &str) -> Result<TcpStream, String> {
    let addr = url.trim_start_matches("http://");
    let mut stream = TcpStream::connect(addr).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(LIMIT))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "{head}\r\nHost: {addr}\r\nAuthorization: Bearer {TOKEN}\r\n\r\n{body}"
    )
    .map_err(|e| e.to_string())?;
    Ok(stream)
}

/// Poll `done` every 20 ms until it says yes, for at most [`LIMIT`].
pub fn wait_for(what: &str, mut done: impl FnMut() -> Result<bool, String>) -> Result<(), String> {
    let start = Instant::now();
    while !done()? {
        if start.elapsed() > LIMIT {
            return Err(format!("waited {LIMIT:?} for {what}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// The wall clock, ns since the epoch (what `instant-cli` stamps).
pub fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// The first stamp (ns) a stand-in CLI wrote to `path`.
pub fn first_stamp(path: &Path) -> Result<u128, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    text.lines()
        .next()
        .and_then(|l| l.trim().parse().ok())
        .ok_or_else(|| format!("{}: no stamp", path.display()))
}

/// The lines of `path` (0 when it does not exist).
pub fn count_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

/// A process's CPU ticks from `/proc`: its own (user and system), and its
/// reaped children's.
pub fn cpu_ticks(pid: u32) -> Result<(u64, u64), String> {
    let stat =
        std::fs::read_to_string(format!("/proc/{pid}/stat")).map_err(|e| format!("{pid}: {e}"))?;
    // Fields after the command name, which ends at the last ')': utime is
    // field 14, the 12th after it, then stime, cutime, cstime.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .ok_or_else(|| format!("/proc/{pid}/stat: no command name"))?;
    let fields: Vec<u64> = rest
        .split_whitespace()
        .skip(11)
        .take(4)
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    match fields.as_slice() {
        [utime, stime, cutime, cstime] => Ok((utime + stime, cutime + cstime)),
        _ => Err(format!("/proc/{pid}/stat: too few fields")),
    }
}

/// `USER_HZ`: the unit of `/proc`'s CPU times on Linux (fixed at 100 for
/// user space).
pub const TICKS_PER_S: f64 = 100.0;

/// VmRSS of a process, KiB.
pub fn rss_kib(pid: u32) -> Result<u64, String> {
    let status =
        std::fs::read_to_string(format!("/proc/{pid}/status")).map_err(|e| e.to_string())?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no VmRSS for {pid}"))
}

/// The pids whose parent is `pid`.
pub fn children_of(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|p| {
            std::fs::read_to_string(format!("/proc/{p}/stat")).is_ok_and(|s| {
                // The fields after the command's closing parenthesis: state, ppid.
                s.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(pid)
            })
        })
        .collect()
}

/// The `q` quantile of `ns`, in ms.
pub fn percentile_ms(ns: &[u128], q: f64) -> f64 {
    let mut v = ns.to_vec();
    v.sort_unstable();
    let i = ((v.len().saturating_sub(1)) as f64 * q).round() as usize;
    v.get(i).map_or(0.0, |n| *n as f64 / 1e6)
}

/// The median of `ns`, in ms.
pub fn median_ms(ns: &[u128]) -> f64 {
    percentile_ms(ns, 0.5)
}

/// The first three fields of `/proc/loadavg`, or "unknown".
pub fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .ok()
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| "unknown".into())
}

/// CPU count and model, for the record.
pub fn machine() -> String {
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    format!("{cpus} CPUs, {model}, {}", std::env::consts::ARCH)
}
