//! The queue at depth: a backlog of B jobs queued through `serve
//! --no-executor`, then what one more submit costs, what `serve` holds,
//! and how fast one worker drains the first jobs of it.
//!
//! For each backlog, on a fresh store:
//! 1. B jobs are queued over HTTP (not timed);
//! 2. `--probes` more are submitted one by one, each timed from its
//!    request's first byte to its answer (the submit latency at depth B);
//! 3. serve's peak RSS is read;
//! 4. one worker (`--concurrency N`) starts and is timed to the end of the
//!    first `--drain` jobs (or all of them, for a smaller backlog), seen
//!    by `GET /v1/queue` every 250 ms; its peak RSS is read before it is
//!    stopped.
//!
//! The jobs drained must all have succeeded.

use std::process::Stdio;
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{terminate, wait_for};

use crate::Options;
use crate::setup::{Backend, Setup, ended, peak_rss_kib, queue_counts, submit};

/// What one backlog measured.
#[derive(Debug, Clone, Copy)]
pub struct Depth {
    pub queued: usize,
    /// Jobs per second over the drained jobs.
    pub rate: f64,
    /// Submit latency, ns, median and p90.
    pub submit_ns: (u128, u128),
    /// serve's peak RSS after the backlog was queued, KiB.
    pub serve_kib: u64,
    /// The worker's peak RSS at the end of the drain, KiB.
    pub worker_kib: u64,
}

pub fn measure(o: &Options, backend: Backend, queued: usize) -> Result<Depth, String> {
    // Enough room that the worker's own --concurrency is the only bound.
    let setup = Setup::new(o, backend, o.concurrency + 10)?;
    let serve = setup.serve_api()?;
    let seeding = Instant::now();
    submit(&serve, &setup, (0, queued), o.submitters)?;
    eprintln!(
        "  {} jobs queued on {} in {:.1} s",
        queued,
        backend.name(),
        seeding.elapsed().as_secs_f64()
    );
    let mut times = Vec::with_capacity(o.probes);
    for i in 0..o.probes {
        let start = Instant::now();
        submit(&serve, &setup, (queued + i, queued + i + 1), 1)?;
        times.push(start.elapsed().as_nanos());
    }
    let submit_ns = (quantile(&times, 0.5), quantile(&times, 0.9));
    let serve_kib = peak_rss_kib(serve.pid())?;
    let drain = o.drain.min(queued) as u64;
    let concurrency = o.concurrency.to_string();
    let mut worker = setup
        .command(&["worker", "--concurrency", &concurrency])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("agentgate worker: {e}"))?;
    let started = Instant::now();
    let mut counts = serde_json::json!({});
    let drained = wait_for("the drain", || {
        counts = queue_counts(&serve)?;
        if ended(&counts) >= drain {
            return Ok(true);
        }
        // Counting a deep queue is not free (`GET /v1/queue` counts every
        // job by state): look every 250 ms, so that the measuring does not
        // take the cores the drain runs on. A drain of a thousand jobs
        // takes seconds: the end is seen at most one look late.
        std::thread::sleep(Duration::from_millis(230));
        Ok(false)
    });
    let elapsed = started.elapsed();
    let worker_kib = peak_rss_kib(worker.id());
    terminate(&mut worker);
    drained?;
    let worker_kib = worker_kib?;
    let done = ended(&counts);
    let succeeded = counts["succeeded"].as_u64().unwrap_or(0);
    if succeeded != done {
        return Err(format!(
            "{queued} queued on {}: not every drained job succeeded: {counts}",
            backend.name()
        ));
    }
    let rate = done as f64 / elapsed.as_secs_f64().max(1e-9);
    eprintln!(
        "  {} queued on {}: {} jobs drained in {:.2} s",
        queued,
        backend.name(),
        done,
        elapsed.as_secs_f64()
    );
    Ok(Depth {
        queued,
        rate,
        submit_ns,
        serve_kib,
        worker_kib,
    })
}

fn quantile(ns: &[u128], q: f64) -> u128 {
    let mut v = ns.to_vec();
    v.sort_unstable();
    let i = ((v.len().saturating_sub(1)) as f64 * q).round() as usize;
    v.get(i).copied().unwrap_or(0)
}
