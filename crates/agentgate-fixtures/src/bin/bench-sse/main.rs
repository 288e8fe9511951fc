//! The delay from a CLI's line to an SSE client through `agentgate serve`
//! (`agentgate_fixtures::sse_delay`), on a real server with `instant-cli`
//! standing in for the agent CLI.
//!
//! `bench-sse [--runs N] [--ticks N] [--every-ms M] [--store URL]
//! [--agentgate PATH] [--instant-cli PATH]`: without `--store`, `serve`
//! runs the jobs itself on SQLite (the local executor); with a
//! `postgres://` store, `serve --no-executor` follows the runs of an
//! `agentgate worker` on it (another process). N runs one after the other,
//! each printing its ticks one every M ms; prints the median, p90 and max
//! delay over every tick.
//!
//! `bench-sse --followers N [--seconds S]` measures instead what followers
//! of a queued run cost: `serve --no-executor` on SQLite, one job queued
//! that never starts, then `serve`'s CPU (from `/proc`) over S seconds with
//! no follower (the baseline), and again with N SSE clients following that
//! job (`followers.rs`).
//!
//! Exits 1 when a run fails or a stream misses its ticks, 2 on bad usage.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};

use agentgate_fixtures::bench::{Serve, TOKEN, load_average, terminate, wait_for};
use agentgate_fixtures::sse_delay::{self, SseDelays};
use serde_json::json;

mod followers;

const USAGE: &str = "\
usage: bench-sse [--runs N] [--ticks N] [--every-ms M] [--store URL] [--agentgate PATH] [--instant-cli PATH]
       bench-sse --followers N [--seconds S] [--agentgate PATH]";

struct Options {
    runs: usize,
    ticks: u32,
    every_ms: u64,
    store: Option<String>,
    /// Measure N followers of a queued run instead.
    followers: Option<usize>,
    seconds: u64,
    agentgate: PathBuf,
    instant_cli: PathBuf,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench-sse: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-sse: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut o = Options {
        runs: 5,
        ticks: 50,
        every_ms: 20,
        store: None,
        followers: None,
        seconds: 10,
        agentgate: exe.with_file_name("agentgate"),
        instant_cli: exe.with_file_name("instant-cli"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--runs" => o.runs = value()?.parse().map_err(|_| "--runs: a number")?,
            "--ticks" => o.ticks = value()?.parse().map_err(|_| "--ticks: a number")?,
            "--every-ms" => o.every_ms = value()?.parse().map_err(|_| "--every-ms: a number")?,
            "--store" => o.store = Some(value()?),
            "--followers" => {
                o.followers = Some(value()?.parse().map_err(|_| "--followers: a number")?);
            }
            "--seconds" => o.seconds = value()?.parse().map_err(|_| "--seconds: a number")?,
            "--agentgate" => o.agentgate = PathBuf::from(value()?),
            "--instant-cli" => o.instant_cli = PathBuf::from(value()?),
            "--help" | "-h" => return Err("help".into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), String> {
    if let Some(n) = o.followers {
        return followers::measure(&o.agentgate, n, o.seconds);
    }
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let config = home.path().join("agentgate.yaml");
    std::fs::write(&config, "version: 1\n").map_err(|e| e.to_string())?;
    let base = |command: &mut Command| {
        command
            .arg("--config")
            .arg(&config)
            .env("AGENTGATE_HOME", home.path().join("data"))
            .env("AGENTGATE_CLAUDE_BIN", &o.instant_cli);
    };
    let mut serve_cmd = Command::new(&o.agentgate);
    base(&mut serve_cmd);
    serve_cmd.args(["serve", "--listen", "127.0.0.1:0"]);
    if let Some(store) = &o.store {
        serve_cmd.args(["--no-executor", "--store", store]);
    }
    // serve first: it creates the queue's key, which a worker reads when
    // it starts (the jobs' env is sealed with it).
    let serve = Serve::start(serve_cmd)?;
    let mut worker = None;
    if let Some(store) = &o.store {
        let mut cmd = Command::new(&o.agentgate);
        base(&mut cmd);
        cmd.arg("worker")
            .env("AGENTGATE_STORE", store)
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        worker = Some(cmd.spawn().map_err(|e| format!("agentgate worker: {e}"))?);
    }
    let measured = measure_runs(o, &serve, home.path());
    drop(serve);
    if let Some(mut worker) = worker {
        terminate(&mut worker);
    }
    let all = measured?;
    let where_ = match &o.store {
        Some(_) => "a worker's runs followed through another serve on PostgreSQL",
        None => "serve's own executor on SQLite",
    };
    println!(
        "CLI line -> SSE client, {where_}: {} ticks ({} runs of {} every {} ms): \
         median {:.1} ms, p90 {:.1} ms, max {:.1} ms (load {})",
        all.delays_ns.len(),
        o.runs,
        o.ticks,
        o.every_ms,
        all.median_ms(),
        all.p90_ms(),
        all.max_ms(),
        load_average()
    );
    Ok(())
}

fn measure_runs(o: &Options, serve: &Serve, home: &Path) -> Result<SseDelays, String> {
    let work = home.join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;
    let mut all = SseDelays::default();
    for i in 0..o.runs {
        let release = home.join(format!("release-{i}"));
        let body = json!({
            "prompt": "hello", "providers": ["claude"], "permission_mode": "plan",
            "cwd": work.display().to_string(),
            "env": sse_delay::job_env(o.ticks, o.every_ms, &release),
        });
        let (status, answer) = serve.http("POST", "/v1/runs", Some(&body))?;
        if status != 201 {
            return Err(format!("POST /v1/runs answered {status}: {answer}"));
        }
        let id = answer["run_id"].as_str().ok_or("no run_id")?.to_owned();
        let delays = sse_delay::measure(&serve.url, TOKEN, &id, &release)?;
        if delays.delays_ns.len() != o.ticks as usize {
            return Err(format!(
                "run {id}: {} ticks of {}",
                delays.delays_ns.len(),
                o.ticks
            ));
        }
        wait_for(&format!("{id} to end"), || {
            let (_, run) = serve.http("GET", &format!("/v1/runs/{id}"), None)?;
            Ok(!matches!(
                run["status"].as_str().unwrap_or_default(),
                "queued" | "running"
            ))
        })?;
        all.extend(&delays);
    }
    Ok(all)
}
