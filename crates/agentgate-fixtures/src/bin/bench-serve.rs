//! What `agentgate serve` costs at scale on one machine, measured on a real
//! server process with `instant-cli` standing in for the agent CLI.
//!
//! `bench-serve [--jobs N] [--clients N] [--latency-runs N] [--agentgate
//! PATH] [--instant-cli PATH]` starts `agentgate serve` in a temporary home
//! (config `queue: {max_running: N}`, token from the environment) and
//! measures, in order:
//!
//! 1. **Submit to start, idle queue.** One job at a time: the time from just
//!    before `POST /v1/runs` to the CLI's first instruction (it appends the
//!    wall clock to a stamp file), against a baseline in this process: the
//!    same CLI spawned directly, spawn to the same stamp.
//! 2. **Running jobs.** N jobs submitted at once, each CLI held (it waits for
//!    a file before answering) until all N are running; then the memory of
//!    the `serve` process (VmRSS from /proc) against its own before the
//!    jobs (after a warm-up), per running job; the keepers and the CLIs are
//!    counted apart. Then the CLIs are released and every job must succeed.
//! 3. **SSE fan-out.** One held job followed by N clients
//!    (`GET /v1/runs/{id}/events`), then released: every client must get
//!    every event up to `result`; the time from release to the last
//!    client's `result` against the same with one client.
//!
//! Anything functional that goes wrong (a job not succeeding, a client
//! missing an event) ends the benchmark with exit 1; timings never do.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{
    LIMIT, Serve, children_of, count_lines, first_stamp, median_ms, now_ns, percentile_ms, rss_kib,
    send, wait_for,
};
use serde_json::{Value, json};

const USAGE: &str = "\
usage: bench-serve [--jobs N] [--clients N] [--latency-runs N] [--agentgate PATH] [--instant-cli PATH]

  --jobs N            jobs held running at once (default 500)
  --clients N         SSE clients following one run (default 100)
  --latency-runs N    submit-to-start samples, idle queue (default 30)
  --agentgate PATH    the agentgate binary (default: next to bench-serve)
  --instant-cli PATH  the stand-in CLI (default: next to bench-serve)

Exits 1 on a functional failure, 2 on bad usage, 0 otherwise.";

struct Options {
    jobs: usize,
    clients: usize,
    latency_runs: usize,
    agentgate: PathBuf,
    instant_cli: PathBuf,
}

fn main() -> ExitCode {
    let options = match parse_options() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench-serve: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-serve: {e}");
            ExitCode::FAILURE
        }
    }
}

fn parse_options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut o = Options {
        jobs: 500,
        clients: 100,
        latency_runs: 30,
        agentgate: exe.with_file_name("agentgate"),
        instant_cli: exe.with_file_name("instant-cli"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        let number = |v: String| {
            v.parse::<usize>()
                .map_err(|_| format!("{flag}: `{v}` is not a number"))
        };
        match flag.as_str() {
            "--jobs" => o.jobs = number(value()?)?,
            "--clients" => o.clients = number(value()?)?,
            "--latency-runs" => o.latency_runs = number(value()?)?,
            "--agentgate" => o.agentgate = PathBuf::from(value()?),
            "--instant-cli" => o.instant_cli = PathBuf::from(value()?),
            "--help" | "-h" => return Err("help".into()),
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(o)
}

fn run(o: &Options) -> Result<(), String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    let serve = Server::start(o, home.path())?;
    let work = home.path().join("work");
    std::fs::create_dir_all(&work).map_err(|e| e.to_string())?;

    // Warm-up: the runtime, the store and the page cache.
    for i in 0..5 {
        let id = serve.submit(&work, json!({}), &format!("warm-{i}"))?;
        serve.wait_ended(&[id])?;
    }
    let base_rss = rss_kib(serve.pid())?;

    latency(o, &serve, &work)?;
    scale(o, &serve, &work, base_rss)?;
    fan_out(o, &serve, &work)?;
    Ok(())
}

/// 1. Submit to the CLI's start, one job at a time, against spawning the CLI.
fn latency(o: &Options, serve: &Server, work: &Path) -> Result<(), String> {
    let stamps = work.join("latency-stamps");
    let mut added = Vec::new();
    let mut direct = Vec::new();
    for i in 0..o.latency_runs {
        let _ = std::fs::remove_file(&stamps);
        let before = now_ns();
        let env = json!({"INSTANT_CLI_STAMP": stamps.display().to_string()});
        let id = serve.submit(work, env, &format!("latency-{i}"))?;
        serve.wait_ended(&[id])?;
        added.push(first_stamp(&stamps)?.saturating_sub(before));

        let _ = std::fs::remove_file(&stamps);
        let before = now_ns();
        let status = Command::new(&o.instant_cli)
            .env("INSTANT_CLI_STAMP", &stamps)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("instant-cli: {e}"))?;
        if !status.success() {
            return Err(format!("instant-cli exited {status}"));
        }
        direct.push(first_stamp(&stamps)?.saturating_sub(before));
    }
    let (a, d) = (median_ms(&added), median_ms(&direct));
    println!("submit to CLI start, idle queue ({} runs):", o.latency_runs);
    println!("  direct spawn (baseline)   median {d:.2} ms");
    println!(
        "  POST /v1/runs to start    median {a:.2} ms  p90 {:.2} ms  ({:.1}x the baseline)",
        percentile_ms(&added, 0.9),
        a / d.max(0.001)
    );
    Ok(())
}

/// 2. N jobs held running at once: the server's memory per running job.
fn scale(o: &Options, serve: &Server, work: &Path, base_rss: u64) -> Result<(), String> {
    let hold = work.join("release-scale");
    let stamps = work.join("scale-stamps");
    let env = json!({
        "INSTANT_CLI_HOLD_FILE": hold.display().to_string(),
        "INSTANT_CLI_STAMP": stamps.display().to_string(),
    });
    let started = Instant::now();
    let mut ids = Vec::with_capacity(o.jobs);
    for i in 0..o.jobs {
        ids.push(serve.submit(work, env.clone(), &format!("scale-{i}"))?);
    }
    let submitted = started.elapsed();
    wait_for(&format!("{} CLIs running", o.jobs), || {
        Ok(count_lines(&stamps) >= o.jobs)
    })?;
    let all_running = started.elapsed();
    // Let the last starts settle (their first output read, leases written).
    std::thread::sleep(Duration::from_secs(2));
    let serve_rss = rss_kib(serve.pid())?;
    let keepers = children_of(serve.pid());
    let clis: Vec<u32> = keepers.iter().flat_map(|k| children_of(*k)).collect();
    let sum = |pids: &[u32]| pids.iter().filter_map(|p| rss_kib(*p).ok()).sum::<u64>();
    let (keeper_rss, cli_rss) = (sum(&keepers), sum(&clis));
    std::fs::write(&hold, b"").map_err(|e| e.to_string())?;
    serve.wait_ended(&ids)?;
    let drained = started.elapsed();
    let per_job = serve_rss.saturating_sub(base_rss) as f64 / o.jobs as f64;
    println!("{} jobs running at once:", o.jobs);
    println!(
        "  submitted in {:.2} s, all running after {:.2} s, all succeeded after {:.2} s",
        submitted.as_secs_f64(),
        all_running.as_secs_f64(),
        drained.as_secs_f64()
    );
    println!(
        "  agentgate serve RSS: {:.1} MiB idle (baseline), {:.1} MiB with {} running: {:.0} KiB per running job",
        kib_to_mib(base_rss),
        kib_to_mib(serve_rss),
        o.jobs,
        per_job
    );
    println!(
        "  counted apart: {} keeper processes, {:.1} MiB in all; {} CLI processes, {:.1} MiB in all",
        keepers.len(),
        kib_to_mib(keeper_rss),
        clis.len(),
        kib_to_mib(cli_rss)
    );
    Ok(())
}

/// 3. One run followed by many SSE clients, against one client.
fn fan_out(o: &Options, serve: &Server, work: &Path) -> Result<(), String> {
    let one = follow_run(serve, work, 1, "fanout-1")?;
    let many = follow_run(serve, work, o.clients, "fanout-n")?;
    println!("SSE fan-out, one run followed to its result:");
    println!(
        "  1 client (baseline): release to result {:.2} ms",
        one.as_secs_f64() * 1e3
    );
    println!(
        "  {} clients: release to the last client's result {:.2} ms ({:.1}x the baseline); every client got every event",
        o.clients,
        many.as_secs_f64() * 1e3,
        many.as_secs_f64() / one.as_secs_f64().max(1e-6)
    );
    Ok(())
}

/// Submit a held job, connect `clients` followers, release it; the time
/// from release to the last follower's `result`.
fn follow_run(serve: &Server, work: &Path, clients: usize, name: &str) -> Result<Duration, String> {
    let hold = work.join(format!("release-{name}"));
    let env = json!({"INSTANT_CLI_HOLD_FILE": hold.display().to_string()});
    let id = serve.submit(work, env, name)?;
    let (tx, rx) = std::sync::mpsc::channel();
    for _ in 0..clients {
        let (url, id, tx) = (serve.serve.url.clone(), id.clone(), tx.clone());
        std::thread::spawn(move || {
            let _ = tx.send(follow_events(&url, &id));
        });
    }
    // Every follower connected and reading before the release.
    std::thread::sleep(Duration::from_millis(500));
    let released = Instant::now();
    std::fs::write(&hold, b"").map_err(|e| e.to_string())?;
    let mut seqs: Option<Vec<u64>> = None;
    let mut last = Duration::ZERO;
    for _ in 0..clients {
        let (got, at) = rx
            .recv_timeout(LIMIT)
            .map_err(|_| format!("{name}: a client got no result within {LIMIT:?}"))??;
        last = last.max(at.saturating_duration_since(released));
        match &seqs {
            None => seqs = Some(got),
            Some(first) if *first != got => {
                return Err(format!(
                    "{name}: two clients got different events: {first:?} vs {got:?}"
                ));
            }
            Some(_) => {}
        }
    }
    Ok(last)
}

/// Follow a run's events to `result`: the seqs seen, and when it ended.
fn follow_events(url: &str, id: &str) -> Result<(Vec<u64>, Instant), String> {
    let head = format!("GET /v1/runs/{id}/events HTTP/1.1\r\nAccept: text/event-stream");
    let mut reader = BufReader::new(send(url, &head, "")?);
    let mut seqs = Vec::new();
    let mut line = String::new();
    loop {
        line.clear();
        let n = reader.read_line(&mut line).map_err(|e| e.to_string())?;
        if n == 0 {
            return Err(format!(
                "the event stream of {id} ended before its result: {seqs:?}"
            ));
        }
        if let Some(data) = line.trim_end().strip_prefix("data:") {
            let event: Value = serde_json::from_str(data.trim()).map_err(|e| e.to_string())?;
            seqs.push(event["seq"].as_u64().unwrap_or(u64::MAX));
            if event["type"] == "result" {
                return Ok((seqs, Instant::now()));
            }
        }
    }
}

/// The server under measure and what submits to it.
struct Server {
    serve: Serve,
}

impl Server {
    fn start(o: &Options, home: &Path) -> Result<Server, String> {
        let config = home.join("agentgate.yaml");
        let max = o.jobs.max(o.clients) + 10;
        std::fs::write(
            &config,
            format!("version: 1\nqueue:\n  max_running: {max}\n"),
        )
        .map_err(|e| e.to_string())?;
        let mut command = Command::new(&o.agentgate);
        command
            .args(["--config"])
            .arg(&config)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env("AGENTGATE_HOME", home.join("data"))
            .env("AGENTGATE_CLAUDE_BIN", &o.instant_cli);
        Ok(Server {
            serve: Serve::start(command)?,
        })
    }

    fn pid(&self) -> u32 {
        self.serve.pid()
    }

    /// `POST /v1/runs`: a read-only run of the stand-in CLI in `cwd`.
    fn submit(&self, cwd: &Path, env: Value, key: &str) -> Result<String, String> {
        let body = json!({
            "prompt": "hello", "providers": ["claude"], "permission_mode": "plan",
            "cwd": cwd.display().to_string(), "env": env, "idempotency_key": key,
        });
        let (status, answer) = self.serve.http("POST", "/v1/runs", Some(&body))?;
        if status != 201 {
            return Err(format!("POST /v1/runs answered {status}: {answer}"));
        }
        answer["run_id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("no run_id in {answer}"))
    }

    /// Wait until every job ended; each must have succeeded.
    fn wait_ended(&self, ids: &[String]) -> Result<(), String> {
        for id in ids {
            let mut status = String::new();
            wait_for(&format!("{id} to end"), || {
                let (_, run) = self.serve.http("GET", &format!("/v1/runs/{id}"), None)?;
                status = run["status"].as_str().unwrap_or_default().to_owned();
                Ok(!matches!(status.as_str(), "queued" | "running"))
            })?;
            if status != "succeeded" {
                return Err(format!("{id} ended {status}"));
            }
        }
        Ok(())
    }
}

fn kib_to_mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}
