//! The drill's actions, driven from one loop on a seeded random stream:
//! submissions (some with an earlier job's idempotency key), cancels of
//! queued and of running jobs, `kill -9` of a worker holding leases (and a
//! replacement started at once), and the serve's clock stepped one minute
//! every 2 s so that the every-minute schedule fires.
//!
//! With `--burst N` the burst (`burst.rs`) is queued beside them, from
//! threads of its own, from a tenth into the submissions; the kills then
//! wait for the burst to be queued and come as the queue drains past
//! depths spread over it (kill i of k once at most N·(k-i)/(k+1) jobs are
//! queued), instead of at random moments, so that each takes leases back
//! from a deep queue. The queue's depth (the store's count of queued jobs)
//! is read every 250 ms meanwhile, and at each kill.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use jiff::{SignedDuration, Timestamp};
use serde_json::json;

use agentgate_store::{JobFilter, JobState, RunOwner, StoreBackend};

use crate::burst::{Burst, BurstLedger, TAG_PREFIX};
use crate::cluster::{Process, Setup, start_worker};
use crate::evidence::{descends_from, live_clis, read_stamps};
use crate::http::request;
use crate::{Options, Rng, now_ns};

/// One submission that created a job.
#[derive(Debug, Clone)]
pub struct Submitted {
    pub id: String,
    pub tag: String,
}

/// One cancel asked, and the answer.
#[derive(Debug, Clone)]
pub struct Cancel {
    pub id: String,
    pub at_ns: u128,
    pub status: u16,
    /// Asked because its CLI was seen running (else: right after submitting).
    pub of_running: bool,
}

/// One `kill -9`.
#[derive(Debug, Clone)]
pub struct Kill {
    pub worker: u32,
    pub at_ns: u128,
    /// When the drill saw the worker dead (reaped).
    pub dead_ns: u128,
    /// The stand-ins running under it just before.
    pub clis: Vec<u32>,
    /// The jobs queued just before.
    pub queued: u64,
    /// The leases it held just before, by the store.
    pub leases: usize,
}

/// What the drill did, for the checks.
#[derive(Debug, Default)]
pub struct Ledger {
    pub jobs: Vec<Submitted>,
    /// Submissions answered 200 with an earlier job: (key, the id answered,
    /// the id first created with that key).
    pub duplicates: Vec<(String, String, String)>,
    pub cancels: Vec<Cancel>,
    pub kills: Vec<Kill>,
    /// The minute instants the serve's clock crossed (each must fire once).
    pub fires: BTreeSet<Timestamp>,
    /// The burst, with `--burst N` (its jobs are in `jobs` too).
    pub burst: Option<BurstLedger>,
}

/// Where the drill acts.
#[derive(Debug)]
pub struct Stage<'a> {
    pub options: &'a Options,
    pub setup: &'a Setup,
    pub url: &'a str,
    pub clock: PathBuf,
    pub stamps: PathBuf,
    pub cli_dir: PathBuf,
    pub work: PathBuf,
    pub workers: &'a mut Vec<Process>,
    /// The store the processes share (the queue's depth).
    pub store: &'a dyn StoreBackend,
}

/// Write the serve's clock file (atomically).
pub fn set_clock(path: &Path, t: Timestamp) -> Result<(), String> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, t.to_string()).map_err(|e| format!("{}: {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("{}: {e}", path.display()))
}

/// The serve's clock at start: a day back, half a minute past a minute (so
/// that jobs are due at once for the workers' real clocks).
pub fn first_clock() -> Result<Timestamp, String> {
    let back = Timestamp::now() - SignedDuration::from_hours(24);
    let minute = back.as_second() - back.as_second().rem_euclid(60);
    Timestamp::from_second(minute + 30).map_err(|e| e.to_string())
}

/// Run the actions for `options.duration` (and, with a burst, until it
/// is queued and every kill was made).
pub fn drive(stage: &mut Stage<'_>, rng: &mut Rng, clock: Timestamp) -> Result<Ledger, String> {
    let o = stage.options;
    let mut ledger = Ledger::default();
    let duration = Duration::from_secs(o.duration);
    let submit_until = duration.mul_f64(0.6);
    // Kills at random moments in the middle of the run, sorted.
    let mut kill_at: Vec<Duration> = (0..o.kills)
        .map(|_| submit_until.mul_f64(0.15 + 0.85 * rng.unit()))
        .collect();
    kill_at.sort();
    // With a burst: the most jobs queued for each kill instead.
    let kill_depths: Vec<u64> = (0..o.kills)
        .map(|i| (o.burst * (o.kills - i) / (o.kills + 1)) as u64)
        .collect();
    let limit = if o.burst > 0 {
        duration * 4 + Duration::from_secs(o.wait)
    } else {
        duration * 4
    };
    let running_cancels = o.jobs.div_ceil(25);
    let start = Instant::now();
    let mut now_clock = clock;
    let mut next_step = Duration::from_secs(2);
    let mut next_running_cancel = duration.mul_f64(0.15);
    let mut submitted = 0;
    let mut started_workers = o.workers;
    let burst_at = submit_until.mul_f64(0.1);
    let mut burst: Option<Burst> = None;
    let mut burst_queued = None;
    let (mut depth, mut deepest, mut next_depth) = (0, 0, Duration::ZERO);
    let mut kills = 0;
    let burst_left = |queued: &Option<BurstLedger>| o.burst > 0 && queued.is_none();
    while start.elapsed() < duration
        || submitted < o.jobs
        || kills < o.kills
        || burst_left(&burst_queued)
    {
        let t = start.elapsed();
        if t > limit {
            return Err(format!(
                "the actions did not finish in {limit:?}: {submitted} of {} submitted, {} of {} kills, the burst {} (no worker held a lease?)",
                o.jobs,
                kills,
                o.kills,
                if burst_left(&burst_queued) {
                    "not yet queued"
                } else {
                    "queued"
                },
            ));
        }
        // Submissions, spread over the first 60%.
        let due = if submit_until.is_zero() {
            o.jobs
        } else {
            ((t.as_secs_f64() / submit_until.as_secs_f64()) * o.jobs as f64).ceil() as usize
        };
        while submitted < due.min(o.jobs) {
            submit(stage, rng, &mut ledger, submitted)?;
            submitted += 1;
        }
        if o.burst > 0 && burst.is_none() && burst_queued.is_none() && t >= burst_at {
            burst = Some(Burst::start(o.burst, o.seed, stage.url, &stage.work)?);
        }
        if burst.as_ref().is_some_and(Burst::queued)
            && let Some(b) = burst.take()
        {
            burst_queued = Some(b.finish(&mut ledger)?);
        }
        if o.burst > 0 && t >= burst_at && t >= next_depth {
            depth = queued_jobs(stage.store)?;
            deepest = deepest.max(depth);
            next_depth = t + Duration::from_millis(250);
        }
        if t >= next_running_cancel
            && ledger.cancels.iter().filter(|c| c.of_running).count() < running_cancels
        {
            cancel_a_running_job(stage, rng, &mut ledger)?;
            next_running_cancel = t + duration.mul_f64(0.7) / running_cancels.max(1) as u32;
        }
        let kill_due = if o.burst > 0 {
            burst_queued.is_some() && kill_depths.get(kills).is_some_and(|d| depth <= *d)
        } else {
            kill_at.get(kills).is_some_and(|k| t >= *k)
        };
        if kill_due && kill_a_worker(stage, rng, &mut ledger, &mut started_workers)? {
            kills += 1;
        }
        if t >= next_step {
            now_clock = step_clock(stage, &mut ledger, now_clock)?;
            next_step = t + Duration::from_secs(2);
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    if let Some(mut b) = burst_queued {
        b.deepest = deepest;
        ledger.burst = Some(b);
    }
    Ok(ledger)
}

/// How many leases each worker (by pid) holds now, by the store: the
/// running jobs' `lease_owner` (a `RunOwner` as JSON) names its pid.
fn leases_by_pid(store: &dyn StoreBackend) -> Result<HashMap<u32, usize>, String> {
    let filter = JobFilter {
        state: Some(JobState::Running),
        ..JobFilter::default()
    };
    let mut held = HashMap::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_jobs(&filter, 500, cursor.as_ref())
            .map_err(|e| format!("listing the running jobs: {e}"))?;
        for job in &page.jobs {
            let owner = job
                .lease_owner
                .as_deref()
                .and_then(|o| serde_json::from_str::<RunOwner>(o).ok());
            if let Some(owner) = owner {
                *held.entry(owner.pid).or_default() += 1;
            }
        }
        match page.next {
            Some(next) => cursor = Some(next),
            None => return Ok(held),
        }
    }
}

/// How many jobs are queued now (read from the queued and running jobs
/// only, whatever the history).
fn queued_jobs(store: &dyn StoreBackend) -> Result<u64, String> {
    let counts = store
        .count_active_jobs()
        .map_err(|e| format!("counting the queued jobs: {e}"))?;
    Ok(counts
        .iter()
        .filter(|c| c.state == JobState::Queued)
        .map(|c| c.jobs)
        .sum())
}

fn submit(stage: &Stage<'_>, rng: &mut Rng, ledger: &mut Ledger, n: usize) -> Result<(), String> {
    // A duplicate: an earlier job's key again.
    if !ledger.jobs.is_empty() && rng.chance(0.08) {
        let first = &ledger.jobs[rng.below(ledger.jobs.len())];
        let key = format!("drill-key-{}", first.tag);
        let body = json!({"prompt": "duplicate", "providers": ["drill-c"], "permission_mode": "plan",
                          "cwd": stage.work.display().to_string(), "idempotency_key": key});
        let (status, answer) = request(stage.url, "POST", "/v1/runs", Some(&body))?;
        if status != 200 {
            return Err(format!(
                "a duplicate key was answered {status}, not 200: {answer}"
            ));
        }
        let id = answer["run_id"].as_str().unwrap_or_default().to_owned();
        ledger.duplicates.push((key, id, first.id.clone()));
        return Ok(());
    }
    let draw = rng.unit();
    let provider = if draw < 0.2 {
        "drill-a"
    } else if draw < 0.27 {
        "drill-b"
    } else {
        "drill-c"
    };
    let tag = format!("tag-j{n}");
    let fail = if rng.chance(0.04) { " fail" } else { "" };
    let body = json!({"prompt": format!("drill job {tag}{fail}"), "providers": [provider],
                      "permission_mode": "plan", "cwd": stage.work.display().to_string(),
                      "idempotency_key": format!("drill-key-{tag}")});
    let (status, answer) = request(stage.url, "POST", "/v1/runs", Some(&body))?;
    if status != 201 {
        return Err(format!("POST /v1/runs answered {status}: {answer}"));
    }
    let id = answer["run_id"]
        .as_str()
        .ok_or_else(|| format!("no run_id in {answer}"))?
        .to_owned();
    ledger.jobs.push(Submitted {
        id: id.clone(),
        tag,
    });
    if rng.chance(0.05) {
        cancel(stage, ledger, &id, false)?;
    }
    Ok(())
}

fn cancel(
    stage: &Stage<'_>,
    ledger: &mut Ledger,
    id: &str,
    of_running: bool,
) -> Result<(), String> {
    ledger.cancels.push(ask_cancel(stage.url, id, of_running)?);
    Ok(())
}

/// Ask the serve at `url` to cancel `id`; what it answered.
pub fn ask_cancel(url: &str, id: &str, of_running: bool) -> Result<Cancel, String> {
    let at_ns = now_ns();
    let (status, answer) = request(url, "POST", &format!("/v1/runs/{id}/cancel"), None)?;
    if !matches!(status, 200 | 202 | 409) {
        return Err(format!("cancel of {id} answered {status}: {answer}"));
    }
    Ok(Cancel {
        id: id.to_owned(),
        at_ns,
        status,
        of_running,
    })
}

/// Cancel the job of a stand-in seen running now (none running: nothing).
fn cancel_a_running_job(
    stage: &Stage<'_>,
    rng: &mut Rng,
    ledger: &mut Ledger,
) -> Result<(), String> {
    let stamps = read_stamps(&stage.stamps)?;
    let cancelled: BTreeSet<&str> = ledger.cancels.iter().map(|c| c.id.as_str()).collect();
    let running: Vec<String> = stamps
        .runs
        .iter()
        .filter(|r| r.end.is_none())
        .filter_map(|r| ledger.jobs.iter().find(|j| j.tag == r.tag))
        .filter(|j| !cancelled.contains(j.id.as_str()))
        .map(|j| j.id.clone())
        .collect();
    if running.is_empty() {
        return Ok(());
    }
    let id = running[rng.below(running.len())].clone();
    cancel(stage, ledger, &id, true)
}

/// `kill -9` a worker holding leases (the store says so, and a stand-in
/// runs under it), then start a replacement; `false` when no worker holds
/// one now.
fn kill_a_worker(
    stage: &mut Stage<'_>,
    rng: &mut Rng,
    ledger: &mut Ledger,
    started: &mut usize,
) -> Result<bool, String> {
    let live = live_clis(&stage.options.cli, &stage.cli_dir);
    let leases = leases_by_pid(stage.store)?;
    let holding: Vec<usize> = (0..stage.workers.len())
        .filter(|i| {
            let pid = stage.workers[*i].pid();
            live.iter().any(|c| descends_from(c.pid, pid)) && leases.contains_key(&pid)
        })
        .collect();
    if holding.is_empty() {
        return Ok(false);
    }
    // With a burst, a worker running one of the drill's longer jobs is
    // preferred: the burst's CLIs mostly end on their own before a kill's
    // termination could reach them.
    let holding = if stage.options.burst > 0 {
        let stamps = read_stamps(&stage.stamps)?;
        let long: Vec<usize> = holding
            .iter()
            .copied()
            .filter(|i| {
                let pid = stage.workers[*i].pid();
                stamps
                    .runs
                    .iter()
                    .any(|r| r.end.is_none() && r.worker == pid && !r.tag.starts_with(TAG_PREFIX))
            })
            .collect();
        if long.is_empty() { holding } else { long }
    } else {
        holding
    };
    let i = holding[rng.below(holding.len())];
    let mut victim = stage.workers.remove(i);
    let pid = victim.pid();
    let clis: Vec<u32> = live
        .iter()
        .filter(|c| descends_from(c.pid, pid))
        .map(|c| c.pid)
        .collect();
    let queued = queued_jobs(stage.store)?;
    let held = leases.get(&pid).copied().unwrap_or(0);
    let at_ns = now_ns();
    victim.signal("KILL")?;
    if !victim.wait_exit(Duration::from_secs(30)) {
        return Err(format!("worker {pid} did not die of SIGKILL"));
    }
    let dead_ns = now_ns();
    ledger.kills.push(Kill {
        worker: pid,
        at_ns,
        dead_ns,
        clis,
        queued,
        leases: held,
    });
    *started += 1;
    stage.workers.push(start_worker(
        stage.setup,
        *started,
        stage.options.concurrency,
    )?);
    Ok(true)
}

/// Move the serve's clock one minute on, after checking that the previous
/// minute's fire made its job (waiting for it at most 30 s).
fn step_clock(stage: &Stage<'_>, ledger: &mut Ledger, now: Timestamp) -> Result<Timestamp, String> {
    if let Some(last) = ledger.fires.last() {
        wait_for_fire(stage.url, *last)?;
    }
    let next = now + SignedDuration::from_secs(60);
    set_clock(&stage.clock, next)?;
    let minute = next.as_second() - next.as_second().rem_euclid(60);
    ledger
        .fires
        .insert(Timestamp::from_second(minute).map_err(|e| e.to_string())?);
    Ok(next)
}

/// Wait (at most 30 s) until `GET /v1/runs` lists a job of the fire at
/// `instant`. The list is newest first and the fire's job was submitted
/// at `instant` or later by the serve's clock, so the pages are read only
/// down to the first job submitted before it (a burst may have queued
/// thousands since).
pub fn wait_for_fire(url: &str, instant: Timestamp) -> Result<(), String> {
    let start = Instant::now();
    let key = fire_key(instant);
    while start.elapsed() < Duration::from_secs(30) {
        if lists_fire(url, instant, &key)? {
            return Ok(());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    Err(format!(
        "the schedule's fire at {instant} made no job in 30 s"
    ))
}

/// Whether the runs submitted at `instant` or later include one of `key`.
fn lists_fire(url: &str, instant: Timestamp, key: &str) -> Result<bool, String> {
    let mut path = "/v1/runs?limit=500".to_owned();
    loop {
        let (status, page) = request(url, "GET", &path, None)?;
        if status != 200 {
            return Ok(false);
        }
        let runs = page["runs"].as_array().map_or(&[][..], Vec::as_slice);
        if runs.iter().any(|r| r["idempotency_key"] == key) {
            return Ok(true);
        }
        let older = runs.last().is_none_or(|r| {
            r["created_at"]
                .as_str()
                .and_then(|t| t.parse::<Timestamp>().ok())
                .is_none_or(|t| t < instant)
        });
        match page["next_cursor"].as_str() {
            Some(cursor) if !older => path = format!("/v1/runs?limit=500&cursor={cursor}"),
            _ => return Ok(false),
        }
    }
}

/// The idempotency key the serve gives the fire at `instant`.
pub fn fire_key(instant: Timestamp) -> String {
    format!("schedule:{}:{instant}", crate::cluster::SCHEDULE)
}
