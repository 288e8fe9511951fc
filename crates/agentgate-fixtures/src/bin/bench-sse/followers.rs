//! What followers of a queued run cost `serve`: one job queued through
//! `serve --no-executor` (so it never starts), then serve's CPU over the
//! same span with no follower (the baseline) and with N SSE clients
//! following the job. Each client is a plain connection that sent its
//! request and got its answer's head, then waits: a follower of a queued
//! run is sent nothing (but a keep-alive every 15 s).

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{Serve, TICKS_PER_S, cpu_ticks, load_average, send};
use serde_json::json;

pub fn measure(agentgate: &Path, followers: usize, seconds: u64) -> Result<(), String> {
    // A connection each: as many descriptors as the hard limit allows
    // (serve raises its own).
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((soft, hard)) = getrlimit(Resource::RLIMIT_NOFILE)
        && soft < hard
    {
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
    }
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = home.path().join("agentgate.yaml");
    std::fs::write(&config, "version: 1\n").map_err(|e| e.to_string())?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut command = Command::new(agentgate);
    command
        .arg("--config")
        .arg(&config)
        .args(["serve", "--no-executor", "--listen", "127.0.0.1:0"])
        .env("AGENTGATE_HOME", home.path().join("data"));
    let serve = Serve::start(command)?;
    let body = json!({
        "prompt": "hello", "providers": ["claude"], "permission_mode": "plan",
        "cwd": work.display().to_string(),
    });
    let (status, answer) = serve.http("POST", "/v1/runs", Some(&body))?;
    if status != 201 {
        return Err(format!("POST /v1/runs answered {status}: {answer}"));
    }
    let id = answer["run_id"].as_str().ok_or("no run_id")?.to_owned();
    let span = Duration::from_secs(seconds.max(1));
    let idle = cpu_share(serve.pid(), span)?;
    let mut streams = Vec::with_capacity(followers);
    for _ in 0..followers {
        streams.push(follow(&serve.url, &id)?);
    }
    // Past the followers' first look at the job.
    std::thread::sleep(Duration::from_secs(2));
    let busy = cpu_share(serve.pid(), span)?;
    drop(streams);
    println!(
        "{followers} SSE followers of one queued run: serve uses {:.1}% of a core \
         (with none: {:.1}%), over {} s each (load {})",
        busy * 100.0,
        idle * 100.0,
        span.as_secs(),
        load_average()
    );
    Ok(())
}

/// One follower of `id`: its connection, once the answer's head is read.
fn follow(url: &str, id: &str) -> Result<BufReader<TcpStream>, String> {
    let stream = send(
        url,
        &format!("GET /v1/runs/{id}/events HTTP/1.1\r\nAccept: text/event-stream"),
        "",
    )?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).map_err(|e| e.to_string())?;
    if !line.starts_with("HTTP/1.1 200") {
        return Err(format!("GET /v1/runs/{id}/events answered {line:?}"));
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).map_err(|e| e.to_string())? == 0 || line == "\r\n" {
            return Ok(reader);
        }
    }
}

/// The share of one core `pid` used over `span`.
fn cpu_share(pid: u32, span: Duration) -> Result<f64, String> {
    let (before, _) = cpu_ticks(pid)?;
    let start = Instant::now();
    std::thread::sleep(span);
    let used = cpu_ticks(pid)?.0.saturating_sub(before) as f64 / TICKS_PER_S;
    Ok(used / start.elapsed().as_secs_f64().max(1e-9))
}
