//! The fault drill's stand-in agent CLI (see `fault-drill`): a JSON-lines
//! CLI that runs for a random 1 to 4 s and leaves stamps of what happened
//! to it, so the drill can check the queue from the processes' side.
//!
//! `drill-cli PROVIDER DIR [ARGS...]` (extra arguments, such as the
//! permission mode's, are ignored). The prompt, on stdin, names the job
//! with a word `tag-...` (`tag-sched` when none) and may say `fail` (the
//! run ends with a non-quota error). Every process appends to `DIR/stamps`
//! (one `write` per line, `O_APPEND`, so lines of many processes never mix):
//!
//! - `start PID NS PROVIDER TAG WORKER`: NS is the wall clock in ns since
//!   the epoch; WORKER the pid of the keeper's parent (the agentgate
//!   process that runs the job);
//! - `due PID NS`: when it will answer unless a signal stops it first;
//! - `end PID NS HOW`: HOW is `ok`, `fail`, `quota` (a quota window was
//!   open when it started), or `sig-INT` / `sig-TERM` (it got that signal
//!   and exited at once, without a result), or `pipe` (its output could not
//!   be written: whoever read it is gone; it exits at once).
//!
//! Provider `b` has usage windows: its first start, and a start at least
//! `DRILL_B_GAP_MS` (default 6000) after the last window closed while fewer
//! than `DRILL_B_WINDOWS` (default 2) were opened, opens a window of
//! `DRILL_B_WINDOW_MS` (default 4000): `window OPEN_NS RESET_NS` in the
//! stamps. A start inside an open window answers a quota error, "try again
//! in Ns" (N: whole seconds to the reset, rounded up), as a real provider
//! would, and exits 1. The windows file is read and written under a lock.
//!
//! A prompt with the word `long` runs [`LONG_SECS`] (the drill's network
//! partition cuts its worker off while it runs); one with the word `quick`
//! runs 1 to [`QUICK_MS`] ms (the drill's burst: thousands of jobs whose
//! time is the queue's, not the CLI's).
//!
//! The run's length comes from `DRILL_SEED`, the pid and the tag, so a
//! replay with the same seed draws from the same stream.

use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long a `long` job runs.
const LONG_SECS: u64 = 15;

/// The longest a `quick` job runs, in ms.
const QUICK_MS: u64 = 20;

fn main() -> ExitCode {
    match run() {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            eprintln!("drill-cli: {e}");
            ExitCode::from(2)
        }
    }
}

struct Stamps(PathBuf);

impl Stamps {
    fn line(&self, text: &str) -> Result<(), String> {
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.0)
            .map_err(|e| format!("{}: {e}", self.0.display()))?;
        file.write_all(format!("{text}\n").as_bytes())
            .map_err(|e| format!("{}: {e}", self.0.display()))
    }
}

fn run() -> Result<u8, String> {
    let mut args = std::env::args().skip(1);
    let provider = args.next().ok_or("usage: drill-cli PROVIDER DIR")?;
    let dir = PathBuf::from(args.next().ok_or("usage: drill-cli PROVIDER DIR")?);
    let interrupted = Arc::new(AtomicBool::new(false));
    let terminated = Arc::new(AtomicBool::new(false));
    signal_hook::flag::register(signal_hook::consts::SIGINT, interrupted.clone())
        .map_err(|e| e.to_string())?;
    signal_hook::flag::register(signal_hook::consts::SIGTERM, terminated.clone())
        .map_err(|e| e.to_string())?;

    let mut prompt = String::new();
    std::io::stdin()
        .read_to_string(&mut prompt)
        .map_err(|e| format!("reading the prompt: {e}"))?;
    let tag = prompt
        .split_whitespace()
        .find(|w| w.starts_with("tag-"))
        .unwrap_or("tag-sched")
        .to_owned();
    let pid = std::process::id();
    let stamps = Stamps(dir.join("stamps"));
    let started = now_ns();
    stamps.line(&format!(
        "start {pid} {started} {provider} {tag} {}",
        worker_pid().unwrap_or(0)
    ))?;
    let mut out = std::io::stdout().lock();
    let session = format!("drill-{pid}");
    let print = |out: &mut std::io::StdoutLock, line: String| {
        writeln!(out, "{line}")
            .and_then(|()| out.flush())
            .or_else(|e| {
                stamps.line(&format!("end {pid} {} pipe", now_ns()))?;
                Err(format!("writing stdout: {e}"))
            })
    };
    print(
        &mut out,
        format!(r#"{{"type":"system","subtype":"init","session_id":"{session}"}}"#),
    )?;

    if provider == "b"
        && let Some(reset) = quota_window(&dir, &stamps, started)?
    {
        let secs = reset
            .saturating_sub(now_ns())
            .div_ceil(1_000_000_000)
            .max(1);
        print(
            &mut out,
            format!(
                r#"{{"type":"result","is_error":true,"session_id":"{session}","result":"insufficient_quota: You exceeded your current quota. Please try again in {secs}s."}}"#
            ),
        )?;
        stamps.line(&format!("end {pid} {} quota", now_ns()))?;
        return Ok(1);
    }

    let seed: u64 = std::env::var("DRILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let word = |w: &str| prompt.split_whitespace().any(|p| p == w);
    let length = if word("long") {
        Duration::from_secs(LONG_SECS)
    } else if word("quick") {
        Duration::from_millis(1 + mix(seed, u64::from(pid), &tag) % QUICK_MS)
    } else {
        Duration::from_millis(1000 + mix(seed, u64::from(pid), &tag) % 3001)
    };
    let deadline = std::time::Instant::now() + length;
    stamps.line(&format!("due {pid} {}", now_ns() + length.as_nanos()))?;
    while std::time::Instant::now() < deadline {
        for (flag, name, code) in [(&interrupted, "INT", 130), (&terminated, "TERM", 143)] {
            if flag.load(Ordering::Relaxed) {
                stamps.line(&format!("end {pid} {} sig-{name}", now_ns()))?;
                return Ok(code);
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    if word("fail") {
        print(
            &mut out,
            format!(
                r#"{{"type":"result","is_error":true,"session_id":"{session}","result":"drill: this job fails on purpose"}}"#
            ),
        )?;
        stamps.line(&format!("end {pid} {} fail", now_ns()))?;
        return Ok(1);
    }
    print(
        &mut out,
        format!(
            r#"{{"type":"result","is_error":false,"session_id":"{session}","result":"done {tag}"}}"#
        ),
    )?;
    stamps.line(&format!("end {pid} {} ok", now_ns()))?;
    Ok(0)
}

/// Provider b's usage windows (see the module notes): the reset of the
/// window open at `now`, opening one when it is time; `None` outside.
fn quota_window(dir: &Path, stamps: &Stamps, now: u128) -> Result<Option<u128>, String> {
    let env = |name: &str, default: u128| {
        std::env::var(name)
            .ok()
            .and_then(|s| s.parse::<u128>().ok())
            .unwrap_or(default)
    };
    let (most, length, gap) = (
        env("DRILL_B_WINDOWS", 2),
        env("DRILL_B_WINDOW_MS", 4000) * 1_000_000,
        env("DRILL_B_GAP_MS", 6000) * 1_000_000,
    );
    let path = dir.join("b-windows");
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&path)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    file.lock()
        .map_err(|e| format!("locking {}: {e}", path.display()))?;
    let mut text = String::new();
    file.read_to_string(&mut text)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let windows: Vec<(u128, u128)> = text
        .lines()
        .filter_map(|l| {
            let (open, reset) = l.split_once(' ')?;
            Some((open.parse().ok()?, reset.parse().ok()?))
        })
        .collect();
    if let Some(&(_, reset)) = windows.iter().find(|(o, r)| *o <= now && now < *r) {
        return Ok(Some(reset));
    }
    let due = windows.last().is_none_or(|(_, r)| now >= r + gap);
    if due && (windows.len() as u128) < most {
        let reset = now + length;
        file.write_all(format!("{now} {reset}\n").as_bytes())
            .map_err(|e| format!("{}: {e}", path.display()))?;
        stamps.line(&format!("window {now} {reset}"))?;
        return Ok(Some(reset));
    }
    Ok(None)
}

/// The pid of the keeper's parent: the agentgate process running the job.
fn worker_pid() -> Option<u32> {
    let keeper = std::os::unix::process::parent_id();
    let stat = std::fs::read_to_string(format!("/proc/{keeper}/stat")).ok()?;
    stat.rsplit_once(')')?
        .1
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos())
}

/// A 64-bit mix of the seed, the pid and the tag (splitmix64 steps).
fn mix(seed: u64, pid: u64, tag: &str) -> u64 {
    let mut x = seed ^ pid.rotate_left(32);
    for b in tag.bytes() {
        x = splitmix(x ^ u64::from(b));
    }
    splitmix(x)
}

fn splitmix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1330_11EB);
    z ^ (z >> 31)
}
