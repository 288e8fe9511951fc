//! What `bench-warm` measures with besides `agentgate run`: bounded
//! processes, the model server on its own, /proc readings, and the report.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::os::unix::process::CommandExt as _;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use agentgate_fakellm::Api;
use agentgate_fakellm::clients::Cli;
use agentgate_fixtures::bench::rss_kib;
use serde_json::{Value, json};

use crate::{ANSWER, Config, Figures, RUN_LIMIT};

/// Turn 2 must continue turn 1's native session.
pub(crate) fn same_session(
    cli: Cli,
    session: &str,
    one: &Value,
    two: &Value,
) -> Result<(), String> {
    if one["session_id"].is_string() && one["session_id"] == two["session_id"] {
        return Ok(());
    }
    Err(format!(
        "{cli}: session {session}: turn 2 ran in native session {}, turn 1 in {}",
        two["session_id"], one["session_id"]
    ))
}

/// The wall-clock minute of `ns` since the epoch.
pub(crate) fn minute(ns: u128) -> u128 {
    ns / 60_000_000_000
}

/// The median of `ns`, in ms (the mean of the middle two of an even count).
pub(crate) fn median_ms(ns: &[u128]) -> f64 {
    let mut v = ns.to_vec();
    v.sort_unstable();
    let n = v.len();
    let mid = |i: usize| v.get(i).map_or(f64::NAN, |x| *x as f64 / 1e6);
    if n.is_multiple_of(2) {
        (mid(n / 2 - 1) + mid(n / 2)) / 2.0
    } else {
        mid(n / 2)
    }
}

/// Run `cmd` (stdin closed) in its own process group, killed at
/// [`RUN_LIMIT`]: wall time (ns) from spawn to reaped exit with output
/// read, exit code, stdout, stderr.
pub(crate) fn run_bounded(mut cmd: Command) -> Result<(u128, Option<i32>, String, String), String> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let child = cmd
        .spawn()
        .map_err(|e| format!("failed to start agentgate: {e}"))?;
    let pgid = child.id();
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let out = child.wait_with_output();
        let _ = tx.send((started.elapsed(), out));
    });
    let (wall, out) = match rx.recv_timeout(RUN_LIMIT) {
        Ok(done) => done,
        Err(_) => {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{pgid}")])
                .status();
            return Err(format!("agentgate run took over {RUN_LIMIT:?}; killed"));
        }
    };
    let out = out.map_err(|e| format!("failed to wait for agentgate: {e}"))?;
    Ok((
        wall.as_nanos(),
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    ))
}

/// One streamed scripted request in `api`'s protocol on a new connection
/// to `addr`, read to the end: its wall time (ns). It must answer 200 with
/// [`ANSWER`] in the body.
pub(crate) fn server_request(addr: &str, api: Api, model: &str) -> Result<u128, String> {
    let prompt = "bench turn one of session server";
    let (path, body) = match api {
        Api::Anthropic => (
            "/v1/messages".to_owned(),
            json!({"model": model, "max_tokens": 1024, "stream": true,
                   "messages": [{"role": "user", "content": prompt}]}),
        ),
        Api::Responses => (
            "/v1/responses".to_owned(),
            json!({"model": model, "stream": true, "input": prompt}),
        ),
        Api::Chat => (
            "/v1/chat/completions".to_owned(),
            json!({"model": model, "stream": true,
                   "messages": [{"role": "user", "content": prompt}]}),
        ),
        Api::Gemini => (
            format!("/v1beta/models/{model}:streamGenerateContent?alt=sse"),
            json!({"contents": [{"role": "user", "parts": [{"text": prompt}]}]}),
        ),
    };
    let body = body.to_string();
    let started = Instant::now();
    let mut stream = TcpStream::connect(addr).map_err(|e| format!("fake-llm: {e}"))?;
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .map_err(|e| e.to_string())?;
    write!(
        stream,
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\nx-api-key: fake-llm-key\r\nanthropic-version: 2023-06-01\r\nAuthorization: Bearer fake-llm-key\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .map_err(|e| format!("fake-llm: {e}"))?;
    let mut raw = Vec::new();
    stream
        .read_to_end(&mut raw)
        .map_err(|e| format!("fake-llm: {e}"))?;
    let ns = started.elapsed().as_nanos();
    let text = String::from_utf8_lossy(&raw);
    if !text.starts_with("HTTP/1.1 200") || !text.contains(ANSWER) {
        return Err(format!("fake-llm answered {path} with: {text}"));
    }
    Ok(ns)
}

/// The summed RSS (KiB) of the processes in group `pgid`, and how many.
pub(crate) fn group_rss_kib(pgid: u64) -> (u64, usize) {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return (0, 0);
    };
    let mut total = (0, 0);
    for pid in dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok()) {
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // After the command's closing parenthesis: state, ppid, pgrp.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map_or(Vec::new(), |(_, rest)| rest.split_whitespace().collect());
        let in_group = fields.get(2).and_then(|g| g.parse::<u64>().ok()) == Some(pgid);
        if in_group && fields.first() != Some(&"Z") {
            total.0 += rss_kib(pid).unwrap_or(0);
            total.1 += 1;
        }
    }
    total
}

/// Whether `pid` runs (a zombie does not).
pub(crate) fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        !s.rsplit_once(')')
            .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'))
    })
}

/// Poll `done` every 50 ms for at most `limit`.
pub(crate) fn wait_until(limit: Duration, mut done: impl FnMut() -> bool) -> bool {
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    done()
}

pub(crate) fn print_report(cli: Cli, config: &Config, f: &Figures) {
    let server = median_ms(&f.server);
    let [cold1, cold2, warm1, warm2] =
        [&f.cold1, &f.cold2, &f.warm1, &f.warm2].map(|v| median_ms(v));
    println!();
    println!(
        "{cli}: {} iterations, {} server-only requests",
        config.turns,
        f.server.len()
    );
    println!(
        "{:<34} {:>10} {:>10} {:>12}",
        "", "median ms", "max ms", "vs server"
    );
    let max_ms = |v: &[u128]| v.iter().max().map_or(0.0, |n| *n as f64 / 1e6);
    let rows: [(&str, f64, &[u128]); 6] = [
        ("model server, 1 request", server, &f.server),
        ("agentgate --version", median_ms(&f.version), &f.version),
        ("cold turn 1 (new session)", cold1, &f.cold1),
        ("cold turn 2 (new CLI, resume)", cold2, &f.cold2),
        ("warm turn 1 (process started)", warm1, &f.warm1),
        ("warm turn 2 (process reused)", warm2, &f.warm2),
    ];
    for (label, median, samples) in rows {
        println!(
            "{label:<34} {median:>10.2} {:>10.2} {:>11.1}x",
            max_ms(samples),
            median / server
        );
    }
    let mib = |kib: u64| kib as f64 / 1024.0;
    let mut rss = f.rss.clone();
    rss.sort_unstable();
    println!(
        "warm process group RSS after turn 2: {:.1} MiB median, {:.1} MiB max ({} processes)",
        rss.get(rss.len() / 2).map_or(0.0, |k| mib(*k)),
        rss.last().map_or(0.0, |k| mib(*k)),
        f.procs.iter().max().copied().unwrap_or(0)
    );
    let mut reqs = f.warm2_requests.clone();
    reqs.sort_unstable();
    println!(
        "model-server requests per warm turn 2: {} (median)",
        reqs.get(reqs.len() / 2).copied().unwrap_or(0)
    );
    let to_request = median_ms(&f.warm2_to_request);
    println!(
        "warm turn 2: spawn to model request {to_request:.2} ms, the rest {:.2} ms (medians)",
        warm2 - to_request
    );
    let goal = 1.10 * server + 50.0;
    println!(
        "goal warm turn 2 <= 1.10 x server + 50 ms = {goal:.2} ms: {} ({warm2:.2} ms)",
        if warm2 <= goal { "MET" } else { "MISSED" }
    );
    println!(
        "cold turn 2 / warm turn 2: {:.1}x ({cold2:.2} / {warm2:.2} ms)",
        cold2 / warm2
    );
    if cli == Cli::Gemini {
        // Gemini CLI destroys a session that a long-lived process loads in
        // the minute it was created (agentgate's warm replacement waits);
        // a new process per turn resuming it is measured here as it comes.
        println!(
            "note: cold turn 2 resumed in the session's creation minute in {} of {} iterations, \
             each continuing the same native session with its history",
            f.same_minute,
            f.cold2.len()
        );
    }
}
