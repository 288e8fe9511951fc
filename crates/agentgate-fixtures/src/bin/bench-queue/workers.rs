//! Throughput with many workers: N jobs queued, then 1, 3 or 6 `agentgate
//! worker` processes started at once on the same store, timed from their
//! start to the last job's end, and where their CPU went (`cpu.rs`).

use std::process::{Child, Stdio};
use std::time::Instant;

use agentgate_fixtures::bench::{terminate, wait_for};

use crate::Options;
use crate::cpu::{self, CpuUse};
use crate::setup::{Backend, Setup, queue_counts, submit};

/// One measurement: `workers` workers on a fresh store; jobs per second,
/// and the CPU the drain took.
pub fn measure(o: &Options, backend: Backend, workers: usize) -> Result<(f64, CpuUse), String> {
    let setup = Setup::new(o, backend, o.jobs + 10)?;
    let serve = setup.serve_api()?;
    submit(&serve, &setup, (0, o.jobs), o.submitters)?;
    let postmaster = match backend {
        Backend::Postgres => Some(cpu::postmaster(&o.postgres)?),
        Backend::Sqlite => None,
    };
    let before = cpu::before(serve.pid(), postmaster)?;
    let started = Instant::now();
    let concurrency = o.concurrency.to_string();
    let mut running: Vec<Child> = Vec::with_capacity(workers);
    for _ in 0..workers {
        let child = setup
            .command(&["worker", "--concurrency", &concurrency])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("agentgate worker: {e}"))?;
        running.push(child);
    }
    let mut counts = serde_json::json!({});
    let ended = wait_for("every job to end", || {
        counts = queue_counts(&serve)?;
        let left = ["queued", "running"]
            .iter()
            .map(|s| counts[s].as_u64().unwrap_or(u64::MAX))
            .sum::<u64>();
        Ok(left == 0)
    });
    let elapsed = started.elapsed();
    let pids: Vec<u32> = running.iter().map(Child::id).collect();
    let used = cpu::after(&before, serve.pid(), &pids);
    for child in &mut running {
        terminate(child);
    }
    drop(serve);
    ended?;
    if counts["succeeded"].as_u64() != Some(o.jobs as u64) {
        return Err(format!(
            "{} workers on {}: not every job succeeded: {counts}",
            workers,
            backend.name()
        ));
    }
    let rate = o.jobs as f64 / elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "  {} workers on {}: {} jobs in {:.2} s",
        workers,
        backend.name(),
        o.jobs,
        elapsed.as_secs_f64()
    );
    Ok((rate, used?))
}
