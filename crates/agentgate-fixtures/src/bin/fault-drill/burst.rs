//! The burst (`--burst N`): N short jobs queued at once, early in the
//! drill, through the serve's HTTP API over [`CONNECTIONS`] connections at
//! once, so that the workers drain a deep backlog while the drill acts;
//! the drill's kills then come while it drains (`actions.rs` waits for the
//! queue to fall below a depth for each), so the leases of killed workers
//! are taken back from a deep queue.
//!
//! Its jobs are `quick` (drill-cli answers within 20 ms: the time is the
//! queue's, not the CLI's) and spread over the drill's limits, drawn from
//! the seed (a stream of their own, so the rest of the drill draws as
//! without a burst): 3% on `drill-a` (at most 2 at once) and 1% on
//! `drill-b` (1 at once, its quota windows), few enough that those limits
//! do not set the drain's pace, 6% turns of [`SESSIONS`] logical sessions
//! (each session's turns over one connection, in order) and 6% writers
//! (`accept_edits`) in [`FOLDERS`] folders, a tenth of both on `drill-a`,
//! a random priority of -1, 0 or 1 (so a session's later turn may outrank
//! an earlier one), 2% failing, 1% cancelled at once (deep in the queue),
//! and 1% the same request again (an earlier job's, not a session turn's)
//! over another connection, racing it for its idempotency key.
//!
//! The burst's jobs join the drill's ledger like any other submission, so
//! every assertion of `checks.rs` covers them (exactly once, one final
//! state, the same over HTTP, `drill-a`'s limit and `drill-b`'s resets
//! from `/proc` and the stamps, cancels, runs and events); a key's racing
//! answers join the ledger's duplicates ([`Burst::finish`]: a second 201
//! for a key is one whose job differs from the first), which `checks.rs`
//! holds to one job per key. [`check`] adds what only the burst
//! exercises: a session's turns ran one at a time in submission order,
//! whatever their priorities; a folder's writers ran one at a time; each
//! kill came while at least a tenth of the burst was queued.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

use serde_json::{Value, json};

use crate::actions::{Cancel, Ledger, Submitted, ask_cancel};
use crate::checks::{Evidence, ended_or_gone};
use crate::evidence::CliRun;
use crate::http::request;
use crate::{Rng, now_ns};

/// Connections the burst is submitted over, at once.
pub const CONNECTIONS: usize = 8;
/// Logical sessions its turns are spread over.
pub const SESSIONS: usize = 8;
/// Folders its writers are spread over.
pub const FOLDERS: usize = 4;
/// How its jobs' tags begin (`tag-b17`); the other jobs' never do.
pub const TAG_PREFIX: &str = "tag-b";

/// One planned submission of the burst.
#[derive(Debug, Clone)]
struct Planned {
    tag: String,
    key: String,
    body: Value,
    session: Option<usize>,
    folder: Option<usize>,
    /// Cancelled as soon as it is queued.
    cancel: bool,
    connection: usize,
}

/// What a connection saw of one submission (`index` into the plan).
#[derive(Debug)]
struct Answer {
    index: usize,
    status: u16,
    id: String,
    cancel: Option<Cancel>,
}

/// What the drill keeps of the burst, once it is queued.
#[derive(Debug, Default, Clone)]
pub struct BurstLedger {
    pub size: usize,
    /// When the first submission was sent, and the last answered (ns).
    pub started_ns: u128,
    pub queued_ns: u128,
    /// The tags of the jobs it made.
    pub tags: BTreeSet<String>,
    /// Per session: the tags of its turns, in submission order.
    pub sessions: Vec<Vec<String>>,
    /// Per folder: the tags of its writers.
    pub folders: Vec<Vec<String>>,
    /// The most jobs queued at once, as the drill saw it while it acted.
    pub deepest: u64,
}

/// The burst under way: one thread per connection.
#[derive(Debug)]
pub struct Burst {
    plan: Vec<Planned>,
    threads: Vec<JoinHandle<Result<Vec<Answer>, String>>>,
    started_ns: u128,
}

/// The session's name, as the requests give it.
pub fn session_name(n: usize) -> String {
    format!("burst-s{n}")
}

/// The folder writers number `n` write in.
pub fn folder(work: &Path, n: usize) -> PathBuf {
    work.join(format!("burst-w{n}"))
}

/// The burst's submissions, drawn from `seed`.
fn plan(size: usize, seed: u64, work: &Path) -> Vec<Planned> {
    let mut rng = Rng(seed ^ 0xB0B5_7B0B_5700_0000);
    let mut plan: Vec<Planned> = Vec::with_capacity(size);
    for i in 0..size {
        // The same request again, over another connection.
        if !plan.is_empty() && rng.chance(0.01) {
            let first = plan[rng.below(plan.len())].clone();
            if first.session.is_none() {
                let connection = (first.connection + 1 + rng.below(CONNECTIONS - 1)) % CONNECTIONS;
                plan.push(Planned {
                    cancel: false,
                    connection,
                    ..first
                });
                continue;
            }
        }
        let tag = format!("{TAG_PREFIX}{i}");
        let kind = rng.unit();
        let (session, folder_n) = if kind < 0.06 {
            (Some(rng.below(SESSIONS)), None)
        } else if kind < 0.12 {
            (None, Some(rng.below(FOLDERS)))
        } else {
            (None, None)
        };
        let draw = rng.unit();
        let provider = if session.is_some() || folder_n.is_some() {
            if draw < 0.1 { "drill-a" } else { "drill-c" }
        } else if draw < 0.03 {
            "drill-a"
        } else if draw < 0.04 {
            "drill-b"
        } else {
            "drill-c"
        };
        let fail = if rng.chance(0.02) { " fail" } else { "" };
        let priority = rng.below(3) as i64 - 1;
        let key = format!("drill-key-{tag}");
        let cwd = folder_n.map_or(work.to_path_buf(), |f| folder(work, f));
        let mut body = json!({"prompt": format!("burst job {tag} quick{fail}"),
                              "providers": [provider], "cwd": cwd.display().to_string(),
                              "permission_mode": if folder_n.is_some() { "accept_edits" } else { "plan" },
                              "priority": priority, "idempotency_key": key});
        if let Some(s) = session {
            body["session"] = json!(session_name(s));
        }
        let cancel = rng.chance(0.01);
        let connection = session.map_or_else(|| rng.below(CONNECTIONS), |s| s % CONNECTIONS);
        plan.push(Planned {
            tag,
            key,
            body,
            session,
            folder: folder_n,
            cancel,
            connection,
        });
    }
    plan
}

impl Burst {
    /// Plan the burst and start submitting it to the serve at `url`.
    pub fn start(size: usize, seed: u64, url: &str, work: &Path) -> Result<Burst, String> {
        for n in 0..FOLDERS {
            let dir = folder(work, n);
            std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        }
        let plan = plan(size, seed, work);
        let started_ns = now_ns();
        let threads = (0..CONNECTIONS)
            .map(|c| {
                let mine: Vec<(usize, Planned)> = plan
                    .iter()
                    .enumerate()
                    .filter(|(_, p)| p.connection == c)
                    .map(|(i, p)| (i, p.clone()))
                    .collect();
                let url = url.to_owned();
                std::thread::spawn(move || submit_all(&url, mine))
            })
            .collect();
        Ok(Burst {
            plan,
            threads,
            started_ns,
        })
    }

    /// Whether every submission was answered.
    pub fn queued(&self) -> bool {
        self.threads.iter().all(JoinHandle::is_finished)
    }

    /// Wait for every answer; add the jobs, duplicates and cancels to
    /// `ledger`; what the burst made.
    pub fn finish(self, ledger: &mut Ledger) -> Result<BurstLedger, String> {
        let mut answers = Vec::new();
        for t in self.threads {
            answers.extend(
                t.join()
                    .map_err(|_| "a burst connection's thread panicked".to_owned())??,
            );
        }
        let queued_ns = now_ns();
        answers.sort_by_key(|a| a.index);
        // The answers per key: exactly one 201, every other one 200 with its job.
        let mut by_key: BTreeMap<&str, Vec<&Answer>> = BTreeMap::new();
        for a in &answers {
            by_key.entry(&self.plan[a.index].key).or_default().push(a);
        }
        let mut made = BurstLedger {
            size: self.plan.len(),
            started_ns: self.started_ns,
            queued_ns,
            sessions: vec![Vec::new(); SESSIONS],
            folders: vec![Vec::new(); FOLDERS],
            ..BurstLedger::default()
        };
        for (key, group) in by_key {
            let created: Vec<&&Answer> = group.iter().filter(|a| a.status == 201).collect();
            let first = created
                .first()
                .map_or("none (no 201)".to_owned(), |a| a.id.clone());
            for a in &group {
                let p = &self.plan[a.index];
                if a.status == 201 {
                    ledger.jobs.push(Submitted {
                        id: a.id.clone(),
                        tag: p.tag.clone(),
                    });
                    made.tags.insert(p.tag.clone());
                }
                // A second 201 for the key is a duplicate that made a job.
                if a.status != 201 || a.id != first {
                    ledger
                        .duplicates
                        .push((key.to_owned(), a.id.clone(), first.clone()));
                }
                ledger.cancels.extend(a.cancel.clone());
            }
        }
        // Sessions and folders, in submission order (the plan's, which is
        // each connection's).
        for p in &self.plan {
            if !made.tags.contains(&p.tag) {
                continue;
            }
            if let Some(s) = p.session
                && !made.sessions[s].contains(&p.tag)
            {
                made.sessions[s].push(p.tag.clone());
            }
            if let Some(f) = p.folder
                && !made.folders[f].contains(&p.tag)
            {
                made.folders[f].push(p.tag.clone());
            }
        }
        Ok(made)
    }
}

/// One connection's submissions, one after the other.
fn submit_all(url: &str, mine: Vec<(usize, Planned)>) -> Result<Vec<Answer>, String> {
    let mut answers = Vec::with_capacity(mine.len());
    for (index, p) in mine {
        let (status, answer) = request(url, "POST", "/v1/runs", Some(&p.body))?;
        if !matches!(status, 200 | 201) {
            return Err(format!(
                "the burst's POST /v1/runs answered {status}: {answer}"
            ));
        }
        let id = answer["run_id"]
            .as_str()
            .ok_or_else(|| format!("no run_id in {answer}"))?
            .to_owned();
        let cancel = if p.cancel && status == 201 {
            Some(ask_cancel(url, &id, false)?)
        } else {
            None
        };
        answers.push(Answer {
            index,
            status,
            id,
            cancel,
        });
    }
    Ok(answers)
}

/// The burst's figures in the drill's table.
#[derive(Debug, Clone, Default)]
pub struct BurstCounts {
    pub size: usize,
    pub jobs: usize,
    pub queued_secs: f64,
    pub deepest: u64,
    /// From the first submission to the last of its CLIs' ends.
    pub drained_secs: f64,
    pub turns: usize,
    pub writes: usize,
}

/// The burst's own assertions (see the module notes); its figures.
pub fn check(
    e: &Evidence<'_>,
    by_tag: &HashMap<&str, Vec<&CliRun>>,
    fails: &mut Vec<String>,
) -> Option<BurstCounts> {
    let b = e.ledger.burst.as_ref()?;
    for (s, turns) in b.sessions.iter().enumerate() {
        let name = session_name(s);
        one_at_a_time(e, by_tag, &format!("session {name}"), turns, fails);
    }
    for (f, writers) in b.folders.iter().enumerate() {
        let runs: Vec<&CliRun> = writers
            .iter()
            .flat_map(|t| by_tag.get(t.as_str()).into_iter().flatten().copied())
            .collect();
        never_overlap(e, &format!("folder burst-w{f}"), runs, fails);
    }
    let deep = (b.size / 10) as u64;
    for k in &e.ledger.kills {
        if k.queued < deep {
            fails.push(format!(
                "the kill of worker {} came with {} jobs queued, not while the burst drained (at least {deep})",
                k.worker, k.queued
            ));
        }
    }
    let last_end = e
        .stamps
        .runs
        .iter()
        .filter(|r| b.tags.contains(&r.tag))
        .map(|r| ended_or_gone(e, r))
        .filter(|t| *t != u128::MAX)
        .max()
        .unwrap_or(b.queued_ns);
    let secs = |from: u128, to: u128| to.saturating_sub(from) as f64 / 1e9;
    Some(BurstCounts {
        size: b.size,
        jobs: b.tags.len(),
        queued_secs: secs(b.started_ns, b.queued_ns),
        deepest: b.deepest,
        drained_secs: secs(b.started_ns, last_end),
        turns: b.sessions.iter().map(Vec::len).sum(),
        writes: b.folders.iter().map(Vec::len).sum(),
    })
}

/// The CLIs of `tags`' jobs, taken in that order, never overlap: each
/// starts after every CLI of the jobs before it ended (its stamp, or when
/// `/proc` saw it gone).
fn one_at_a_time(
    e: &Evidence<'_>,
    by_tag: &HashMap<&str, Vec<&CliRun>>,
    what: &str,
    tags: &[String],
    fails: &mut Vec<String>,
) {
    let mut before: Option<(&str, &CliRun, u128)> = None;
    for tag in tags {
        let mut runs: Vec<&CliRun> = by_tag.get(tag.as_str()).cloned().unwrap_or_default();
        runs.sort_by_key(|r| r.start);
        if let Some((earlier, cli, end)) = before
            && let Some(first) = runs.first()
            && first.start < end
        {
            fails.push(format!(
                "{what}: job {tag}'s CLI {} started before {earlier}'s CLI {}, submitted before it, had ended",
                first.pid, cli.pid
            ));
        }
        for r in runs {
            let end = ended_or_gone(e, r);
            if before.is_none_or(|(_, _, b)| end >= b) {
                before = Some((tag.as_str(), r, end));
            }
        }
    }
}

/// No two of `runs` (a folder's writers, in any order) were alive at once.
fn never_overlap(e: &Evidence<'_>, what: &str, mut runs: Vec<&CliRun>, fails: &mut Vec<String>) {
    runs.sort_by_key(|r| r.start);
    let mut latest: Option<(&CliRun, u128)> = None;
    for r in runs {
        if let Some((other, end)) = latest
            && r.start < end
        {
            fails.push(format!(
                "{what}: the writers' CLIs {} ({}) and {} ({}) ran at once",
                other.pid, other.tag, r.pid, r.tag
            ));
        }
        let end = ended_or_gone(e, r);
        if latest.is_none_or(|(_, l)| end >= l) {
            latest = Some((r, end));
        }
    }
}
