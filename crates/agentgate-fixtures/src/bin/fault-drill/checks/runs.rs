//! The checks of every job's runs (`ID`, `ID.2`, ...) and their events,
//! read from the store, job by job on a few threads (a burst makes
//! thousands).

use std::collections::{BTreeSet, HashMap};

use agentgate_store::{EventLog, JobRecord, JobState, RunStatus, StoreBackend, StoreError};

use super::{Evidence, each_in_parallel};
use crate::evidence::CliRun;

/// The runs of every job (`ID`, `ID.2`, ...): recorded, ended or abandoned
/// by a killed worker, their events gap-free from a `start`, one `result`
/// at the end of each ended run; the last run agrees with the job. How
/// many jobs ran more than once, and how many runs ended without a
/// `result` event (see `check_events`).
pub fn check_runs(
    e: &Evidence<'_>,
    jobs: &[JobRecord],
    by_tag: &HashMap<&str, Vec<&CliRun>>,
    fails: &mut Vec<String>,
) -> Result<(usize, usize), String> {
    let killed: BTreeSet<u32> = e.ledger.kills.iter().map(|k| k.worker).collect();
    let tag_of: HashMap<&str, &str> = e
        .ledger
        .jobs
        .iter()
        .map(|s| (s.id.as_str(), s.tag.as_str()))
        .collect();
    let checked = each_in_parallel(jobs, |job| {
        let clis = tag_of
            .get(job.job_id.as_str())
            .and_then(|t| by_tag.get(t))
            .map_or(0, Vec::len);
        check_job(e, job, clis, &killed)
    })?;
    let (mut reruns, mut no_result) = (0, 0);
    for (rerun, lost, failed) in checked {
        reruns += usize::from(rerun);
        no_result += lost;
        fails.extend(failed);
    }
    Ok((reruns, no_result))
}

/// One job's runs (`clis`: its CLIs in the stamps): whether it ran more
/// than once, how many of its runs ended without a `result` event, and
/// what failed.
fn check_job(
    e: &Evidence<'_>,
    job: &JobRecord,
    clis: usize,
    killed: &BTreeSet<u32>,
) -> Result<(bool, usize, Vec<String>), String> {
    let mut fails = Vec::new();
    let mut no_result = 0;
    let mut runs = Vec::new();
    for n in 1.. {
        let id = if n == 1 {
            job.job_id.clone()
        } else {
            format!("{}.{n}", job.job_id)
        };
        match e
            .store
            .get_run(&id)
            .map_err(|e| format!("reading run {id}: {e}"))?
        {
            Some(run) => runs.push(run),
            None => break,
        }
    }
    if clis > runs.len() {
        fails.push(format!(
            "job {}: {clis} CLI starts but {} runs recorded",
            job.job_id,
            runs.len()
        ));
    }
    if runs.is_empty() && job.state != JobState::Cancelled {
        fails.push(format!(
            "job {} ended {} without a run record",
            job.job_id, job.state
        ));
    }
    for (i, run) in runs.iter().enumerate() {
        let id = &run.summary.record.run_id;
        let last = i + 1 == runs.len();
        let status = run.summary.status;
        // The run the partition stopped: its worker could write
        // nothing more; the next holder records it only from the
        // result it left, if it could read it (`partition.rs`).
        let cut_off = e.cut.is_some_and(|c| {
            c.long_id == job.job_id
                && run
                    .summary
                    .owner
                    .as_ref()
                    .is_some_and(|o| o.pid == c.victim)
        });
        if cut_off && !last {
            // Abandoned: read once the workers were stopped.
            if !matches!(
                status,
                RunStatus::Running | RunStatus::Cancelled | RunStatus::Abandoned
            ) {
                fails.push(format!("run {id}, stopped by the partition, is {status}"));
            }
            continue;
        }
        if status == RunStatus::Abandoned {
            let owner = run.summary.owner.as_ref().map(|o| o.pid);
            if !owner.is_some_and(|p| killed.contains(&p)) {
                fails.push(format!(
                    "run {id} is abandoned, its owner {owner:?} was not killed"
                ));
            }
        } else if status == RunStatus::Running {
            fails.push(format!("run {id} is still running"));
        }
        if last {
            let agrees = match job.state {
                JobState::Succeeded => status == RunStatus::Succeeded,
                JobState::Failed => status == RunStatus::Failed,
                JobState::Cancelled => {
                    matches!(status, RunStatus::Cancelled | RunStatus::Abandoned)
                }
                JobState::Abandoned => status == RunStatus::Abandoned,
                _ => false,
            };
            if !agrees {
                fails.push(format!(
                    "job {} ended {} but its last run {id} is {status}",
                    job.job_id, job.state
                ));
            }
        }
        // A run whose every provider was skipped, its quota known
        // exhausted when the run began (recorded by another worker
        // after this one claimed the job), started no CLI: its events
        // begin with the skip's `status` notice, not with `start`.
        let no_cli = run
            .envelope
            .as_ref()
            .is_some_and(|env| !env.attempts.is_empty() && env.attempts.iter().all(|a| a.skipped));
        let of_killed = run
            .summary
            .owner
            .as_ref()
            .is_some_and(|o| killed.contains(&o.pid));
        no_result += usize::from(check_events(
            e.store, id, status, no_cli, of_killed, &mut fails,
        )?);
    }
    Ok((runs.len() > 1, no_result, fails))
}

/// The events of run `id`, of a killed worker's when `of_killed`; whether
/// it is a run its killed worker had ended in its result file that was
/// finished from there without a `result` event (below).
fn check_events(
    store: &dyn StoreBackend,
    id: &str,
    status: RunStatus,
    no_cli: bool,
    of_killed: bool,
    fails: &mut Vec<String>,
) -> Result<bool, String> {
    // A worker killed between making the run's folder and creating its
    // events file (SQLite keeps the events in that file) leaves a run
    // without one: the store says the file is missing, and the run has no
    // events. Only an abandoned run may be so.
    let log = match store.read_events(id) {
        Err(StoreError::Io { source, .. })
            if source.kind() == std::io::ErrorKind::NotFound && status == RunStatus::Abandoned =>
        {
            EventLog {
                events: Vec::new(),
                truncated_tail: None,
            }
        }
        read => read.map_err(|e| format!("events of {id}: {e}"))?,
    };
    let types: Vec<String> = log
        .events
        .iter()
        .map(|ev| {
            serde_json::to_value(ev)
                .ok()
                .and_then(|v| v["type"].as_str().map(str::to_owned))
                .unwrap_or_default()
        })
        .collect();
    for (i, ev) in log.events.iter().enumerate() {
        if ev.seq != i as u64 {
            fails.push(format!("run {id}: event {i} has seq {}", ev.seq));
            break;
        }
    }
    // A run abandoned by a killed worker keeps the events its store had
    // made durable: on PostgreSQL they are written in batches after the
    // run's record (crates/agentgate-store/src/postgres/events.rs), so a
    // kill between the two leaves none; on SQLite, a kill before the
    // events file was made leaves none either (above). What is there
    // starts at `start`.
    let none_yet = status == RunStatus::Abandoned && types.is_empty();
    let first = if no_cli { "status" } else { "start" };
    // The engine's `log` notes may come before it: a turn of a session
    // whose previous turn's job had ended but whose process had not yet
    // let go of the session's lock logs that it waits for it.
    let opening = types.iter().find(|t| *t != "log").map(String::as_str);
    if opening != Some(first) && !none_yet {
        fails.push(format!(
            "run {id}: the events do not begin with {first}: {types:?}"
        ));
    }
    if no_cli && types.iter().any(|t| t == "start") {
        fails.push(format!(
            "run {id} skipped every provider but has a start event: {types:?}"
        ));
    }
    let results = types.iter().filter(|t| *t == "result").count();
    let ended = matches!(
        status,
        RunStatus::Succeeded | RunStatus::Failed | RunStatus::Cancelled
    );
    // A worker killed after its run's CLI answered and the result file
    // was written, but before the `result` event's batch was committed
    // (PostgreSQL writes events in batches), leaves a run whose end the
    // next holder of the job writes from that file ("finishing the job
    // from the result its run left"), without adding the event: the run
    // ends with no `result` event. Accepted for a killed worker's run
    // only, and counted (the drill's table); a known gap, not yet closed.
    let lost = of_killed && ended && results == 0;
    if ended && !lost && (results != 1 || types.last().map(String::as_str) != Some("result")) {
        fails.push(format!(
            "run {id} ended {status} but its events do not end with one result: {types:?}"
        ));
    }
    if !ended && results != 0 {
        fails.push(format!(
            "run {id} is {status} but has {results} result events"
        ));
    }
    Ok(lost)
}
