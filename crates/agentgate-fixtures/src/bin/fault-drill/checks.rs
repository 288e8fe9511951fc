//! The drill's assertions, each from evidence gathered by the drill itself:
//! the stand-ins' stamps, the `/proc` samples, the store the processes
//! shared (jobs, runs, events) and the HTTP API. Each failed assertion is
//! one line in the list the drill prints. The runs and their events are
//! checked in `checks/runs.rs`.

mod runs;

use std::collections::{BTreeMap, BTreeSet, HashMap};

use agentgate_store::{JobFilter, JobRecord, JobState, StoreBackend};

use crate::actions::{Ledger, fire_key};
use crate::evidence::{CliRun, Sampled, Stamps};
use crate::http::request;

/// The counts the drill prints.
#[derive(Debug, Default)]
pub struct Counts {
    pub accepted: usize,
    pub deduplicated: usize,
    pub by_state: BTreeMap<String, usize>,
    pub reruns: usize,
    /// Runs of killed workers ended from their result file without a
    /// `result` event (`checks/runs.rs`).
    pub no_result: usize,
    pub kills: usize,
    pub fires: usize,
    pub cancels_queued: usize,
    pub cancels_running: usize,
    pub cli_runs: usize,
    pub max_a_proc: usize,
    pub max_a_stamps: usize,
    pub b_windows: usize,
    pub b_early: usize,
    pub survivors: usize,
    /// CLIs of killed workers that ended by their termination.
    pub killed_clis: usize,
    /// The partition: how long (ms) and which worker's address.
    pub partition: Option<(u128, String)>,
    /// See `partition::check`.
    pub partition_margins: Option<crate::partition::Margins>,
    /// The jobs queued at each kill, and the leases its worker held.
    pub queued_at_kills: Vec<u64>,
    pub leases_at_kills: Vec<usize>,
    /// The burst's figures (`burst.rs`).
    pub burst: Option<crate::burst::BurstCounts>,
}

/// What the checks read.
#[derive(Debug)]
pub struct Evidence<'a> {
    pub ledger: &'a Ledger,
    pub stamps: &'a Stamps,
    pub sampled: &'a Sampled,
    pub survivors: usize,
    /// Every worker the drill started (pids), killed or not.
    pub workers: &'a [u32],
    pub store: &'a dyn StoreBackend,
    pub url: &'a str,
    /// The partition drill's cut (`partition.rs`).
    pub cut: Option<&'a crate::partition::Cut>,
}

/// Every assertion; the counts and the failures.
pub fn check(e: &Evidence<'_>) -> Result<(Counts, Vec<String>), String> {
    let mut fails = Vec::new();
    let mut counts = Counts {
        deduplicated: e.ledger.duplicates.len(),
        kills: e.ledger.kills.len(),
        fires: e.ledger.fires.len(),
        cli_runs: e.stamps.runs.len(),
        max_a_proc: e.sampled.max_a,
        b_windows: e.stamps.windows.len(),
        survivors: e.survivors,
        queued_at_kills: e.ledger.kills.iter().map(|k| k.queued).collect(),
        leases_at_kills: e.ledger.kills.iter().map(|k| k.leases).collect(),
        ..Counts::default()
    };
    let jobs = all_jobs(e.store)?;
    let by_id: HashMap<&str, &JobRecord> = jobs.iter().map(|j| (j.job_id.as_str(), j)).collect();
    let schedule_jobs: Vec<&JobRecord> = jobs
        .iter()
        .filter(|j| {
            j.idempotency_key
                .as_deref()
                .is_some_and(|k| k.starts_with("schedule:"))
        })
        .collect();
    counts.accepted = e.ledger.jobs.len() + schedule_jobs.len();
    for c in &e.ledger.cancels {
        if c.of_running {
            counts.cancels_running += 1;
        } else {
            counts.cancels_queued += 1;
        }
    }

    // Every accepted job has exactly one final state, the same in the
    // store and over HTTP; duplicates made no job.
    if jobs.len() != counts.accepted {
        fails.push(format!(
            "the store holds {} jobs, {} were accepted (duplicates made jobs?)",
            jobs.len(),
            counts.accepted
        ));
    }
    for (key, answered, first) in &e.ledger.duplicates {
        if answered != first {
            fails.push(format!(
                "key {key} answered {answered}, first created {first}"
            ));
        }
    }
    for j in &jobs {
        if matches!(j.state, JobState::Queued | JobState::Running) {
            fails.push(format!("job {} never ended: {}", j.job_id, j.state));
        } else {
            *counts.by_state.entry(j.state.to_string()).or_default() += 1;
        }
    }
    let ended: Vec<&JobRecord> = jobs
        .iter()
        .filter(|j| !matches!(j.state, JobState::Queued | JobState::Running))
        .collect();
    let seen = each_in_parallel(&ended, |j| {
        let (status, view) = request(e.url, "GET", &format!("/v1/runs/{}", j.job_id), None)?;
        Ok(
            (status != 200 || view["status"] != j.state.to_string()).then(|| {
                format!(
                    "job {}: the store says {}, GET says {status} {}",
                    j.job_id, j.state, view["status"]
                )
            }),
        )
    })?;
    fails.extend(seen.into_iter().flatten());
    for s in &e.ledger.jobs {
        if !by_id.contains_key(s.id.as_str()) {
            fails.push(format!(
                "job {} ({}) was accepted but is not in the store",
                s.id, s.tag
            ));
        }
    }

    // Each schedule fire made one job, and no job came of another instant.
    let keys: BTreeSet<String> = schedule_jobs
        .iter()
        .filter_map(|j| j.idempotency_key.clone())
        .collect();
    let expected: BTreeSet<String> = e.ledger.fires.iter().map(|t| fire_key(*t)).collect();
    for missing in expected.difference(&keys) {
        fails.push(format!("the fire {missing} made no job"));
    }
    for extra in keys.difference(&expected) {
        fails.push(format!("a job {extra} of no fire the drill made"));
    }
    if keys.len() != schedule_jobs.len() {
        fails.push(format!(
            "{} schedule jobs for {} keys",
            schedule_jobs.len(),
            keys.len()
        ));
    }

    let by_tag = runs_by_tag(&e.stamps.runs);
    check_processes(e, &by_tag, &mut counts, &mut fails);
    check_cancels(e, &by_id, &by_tag, &mut fails);
    (counts.reruns, counts.no_result) = runs::check_runs(e, &jobs, &by_tag, &mut fails)?;
    counts.burst = crate::burst::check(e, &by_tag, &mut fails);
    Ok((counts, fails))
}

/// Threads the checks read the jobs on.
const THREADS: usize = 4;

/// `f` of each of `items`, in their order, on [`THREADS`] threads: the
/// checks read thousands of jobs through HTTP and the store.
pub fn each_in_parallel<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R, String> + Sync,
) -> Result<Vec<R>, String> {
    let chunk = items.len().div_ceil(THREADS).max(1);
    std::thread::scope(|s| {
        let threads: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(&f).collect::<Result<Vec<R>, String>>()))
            .collect();
        let mut all = Vec::with_capacity(items.len());
        for t in threads {
            all.extend(
                t.join()
                    .map_err(|_| "a checking thread panicked".to_owned())??,
            );
        }
        Ok(all)
    })
}

fn all_jobs(store: &dyn StoreBackend) -> Result<Vec<JobRecord>, String> {
    let mut jobs = Vec::new();
    let mut cursor = None;
    loop {
        let page = store
            .list_jobs(&JobFilter::default(), 500, cursor.as_ref())
            .map_err(|e| format!("listing the jobs: {e}"))?;
        if let Some(bad) = page.unreadable.first() {
            return Err(format!("job {} cannot be read: {}", bad.id, bad.error));
        }
        jobs.extend(page.jobs);
        match page.next {
            Some(next) => cursor = Some(next),
            None => return Ok(jobs),
        }
    }
}

fn runs_by_tag(runs: &[CliRun]) -> HashMap<&str, Vec<&CliRun>> {
    let mut by_tag: HashMap<&str, Vec<&CliRun>> = HashMap::new();
    for r in runs {
        by_tag.entry(r.tag.as_str()).or_default().push(r);
    }
    by_tag
}

/// No job on two workers at once; a's limit; b's reset; no survivor; a
/// killed worker's CLIs got their termination.
fn check_processes(
    e: &Evidence<'_>,
    by_tag: &HashMap<&str, Vec<&CliRun>>,
    counts: &mut Counts,
    fails: &mut Vec<String>,
) {
    let killed: BTreeSet<u32> = e.ledger.kills.iter().map(|k| k.worker).collect();
    let orphan = |r: &CliRun| !e.workers.contains(&r.worker);
    for r in &e.stamps.runs {
        if r.end.as_ref().is_some_and(|(_, how)| how == "pipe")
            && !killed.contains(&r.worker)
            && !orphan(r)
        {
            fails.push(format!(
                "CLI {} ({}) lost its output pipe under a live worker {}",
                r.pid, r.tag, r.worker
            ));
        }
        // The partition's stand-in is killed at once (`partition.rs`
        // checks when).
        let cut_off = e
            .cut
            .is_some_and(|c| r.worker == c.victim && r.tag == crate::partition::LONG_TAG);
        if r.end.is_none() && !cut_off {
            fails.push(format!(
                "CLI {} ({}) left no end stamp: killed without its termination",
                r.pid, r.tag
            ));
        }
    }
    for (tag, runs) in by_tag {
        if *tag == "tag-sched" {
            continue;
        }
        for (i, x) in runs.iter().enumerate() {
            for y in &runs[i + 1..] {
                let (xe, ye) = (ended_or_gone(e, x), ended_or_gone(e, y));
                if x.start < ye && y.start < xe {
                    fails.push(format!(
                        "job {tag} ran twice at once: CLI {} under {} and CLI {} under {}",
                        x.pid, x.worker, y.pid, y.worker
                    ));
                }
            }
        }
    }
    let a: Vec<&CliRun> = e.stamps.runs.iter().filter(|r| r.provider == "a").collect();
    counts.max_a_stamps = max_overlap(&a);
    if counts.max_a_proc > 2 || counts.max_a_stamps > 2 {
        fails.push(format!(
            "provider a had {} CLIs alive at once in /proc, {} by the stamps (limit 2)",
            counts.max_a_proc, counts.max_a_stamps
        ));
    }
    if e.sampled.samples == 0 {
        fails.push("the /proc sampler took no sample".into());
    }
    for (open, reset) in &e.stamps.windows {
        for r in e.stamps.runs.iter().filter(|r| r.provider == "b") {
            if r.start > *open && r.start < *reset {
                counts.b_early += 1;
                fails.push(format!(
                    "b's CLI {} ({}) started {} ms before the reset it was told",
                    r.pid,
                    r.tag,
                    (reset - r.start) / 1_000_000
                ));
            }
        }
    }
    if e.survivors > 0 {
        fails.push(format!(
            "{} stand-in CLIs were still alive at the end",
            e.survivors
        ));
    }
    // A killed worker's CLIs: its keeper sends SIGTERM to the group when
    // the worker dies; a CLI writing its output at that moment sees the
    // pipe broken first. Either way it ends at once; one that ended on its
    // own before the kill is not concerned. An `ok` stamped after the kill
    // is its own end too when the CLI was due to answer before the drill
    // saw the worker dead: its answer went out while the worker could
    // still read it (the stamp comes after the answer, and a loaded machine
    // can delay it); any later `ok` means it outlived its worker. A
    // `sig-INT` stamped after the kill is its cancel's interrupt, sent by
    // the worker before it died, when that cancel was asked before the
    // drill saw the worker dead (the CLI notices a signal within 10 ms, so
    // its stamp can come after the kill's).
    let tag_of: HashMap<&str, &str> = e
        .ledger
        .jobs
        .iter()
        .map(|s| (s.id.as_str(), s.tag.as_str()))
        .collect();
    let mut cancel_asked: HashMap<&str, u128> = HashMap::new();
    for c in &e.ledger.cancels {
        if let Some(tag) = tag_of.get(c.id.as_str()) {
            let at = cancel_asked.entry(tag).or_insert(c.at_ns);
            *at = (*at).min(c.at_ns);
        }
    }
    for k in &e.ledger.kills {
        let under: Vec<&CliRun> = e
            .stamps
            .runs
            .iter()
            .filter(|r| r.worker == k.worker)
            .collect();
        for pid in &k.clis {
            if !under.iter().any(|r| r.pid == *pid) {
                fails.push(format!(
                    "CLI {pid}, seen under the killed worker {}, left no stamps",
                    k.worker
                ));
            }
        }
        for r in under {
            match &r.end {
                Some((_, how)) if how == "sig-TERM" || how == "pipe" => counts.killed_clis += 1,
                Some((t, how))
                    if *t < k.at_ns || (how == "ok" && r.due.is_some_and(|d| d <= k.dead_ns)) => {}
                Some((_, how))
                    if how == "sig-INT"
                        && cancel_asked
                            .get(r.tag.as_str())
                            .is_some_and(|at| *at <= k.dead_ns) => {}
                other => fails.push(format!(
                    "CLI {} ({}) of the killed worker {} ended {other:?}, not by its termination",
                    r.pid, r.tag, k.worker
                )),
            }
        }
    }
    // A CLI whose keeper's parent was none of the drill's workers when it
    // started (the keeper reparented, to init) was started by a worker
    // killed at that moment: it started after a kill and ended at once,
    // by its termination or the broken pipe, like the CLIs under it.
    let first_kill = e.ledger.kills.iter().map(|k| k.at_ns).min();
    for r in e.stamps.runs.iter().filter(|r| orphan(r)) {
        let after_a_kill = first_kill.is_some_and(|k| r.start >= k);
        match &r.end {
            Some((_, how)) if after_a_kill && (how == "sig-TERM" || how == "pipe") => {
                counts.killed_clis += 1;
            }
            other => fails.push(format!(
                "CLI {} ({}) started under {}, none of the drill's workers, and ended {other:?}",
                r.pid, r.tag, r.worker
            )),
        }
    }
}

/// When `r` ended: its stamp, or for one killed without a stamp, when
/// `/proc` saw it gone; `u128::MAX` if neither.
pub fn ended_or_gone(e: &Evidence<'_>, r: &CliRun) -> u128 {
    match (&r.end, e.sampled.gone.get(&r.pid)) {
        (None, Some(gone)) => *gone,
        _ => end_of(r),
    }
}

fn end_of(r: &CliRun) -> u128 {
    r.end.as_ref().map_or(u128::MAX, |(t, _)| *t)
}

/// The most of `runs` alive at one instant (an end and a start at the same
/// instant do not overlap).
fn max_overlap(runs: &[&CliRun]) -> usize {
    let mut edges: Vec<(u128, i32)> = Vec::new();
    for r in runs {
        edges.push((r.start, 1));
        edges.push((end_of(r), -1));
    }
    edges.sort_by_key(|&(t, d)| (t, d));
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    most.max(0) as usize
}

/// Every cancelled job's CLI got its termination (or had ended on its own
/// before the cancel was asked, or its worker was killed before the cancel
/// reached it: then it ended by the kill's termination or broken pipe,
/// which `check_processes` holds it to).
fn check_cancels(
    e: &Evidence<'_>,
    by_id: &HashMap<&str, &JobRecord>,
    by_tag: &HashMap<&str, Vec<&CliRun>>,
    fails: &mut Vec<String>,
) {
    let killed: BTreeSet<u32> = e.ledger.kills.iter().map(|k| k.worker).collect();
    for c in &e.ledger.cancels {
        let Some(job) = by_id.get(c.id.as_str()) else {
            continue;
        };
        if job.state != JobState::Cancelled {
            if c.status == 200 {
                fails.push(format!(
                    "job {} was cancelled while queued (200) but ended {}",
                    c.id, job.state
                ));
            }
            continue;
        }
        let Some(tag) = e
            .ledger
            .jobs
            .iter()
            .find(|s| s.id == c.id)
            .map(|s| s.tag.as_str())
        else {
            continue;
        };
        for r in by_tag.get(tag).into_iter().flatten() {
            match &r.end {
                Some((_, how)) if how.starts_with("sig-") => {}
                Some((t, _)) if *t < c.at_ns => {}
                Some((_, how)) if how == "pipe" && killed.contains(&r.worker) => {}
                other => fails.push(format!(
                    "job {} ({tag}) ended cancelled, but its CLI {} ended {other:?}",
                    c.id, r.pid
                )),
            }
        }
    }
}
