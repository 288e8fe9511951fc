//! Which queued jobs may start now: the concurrency limits, the session
//! order, the shared working directories and the quotas, as one pure
//! function ([`choose`]) of the queued and running jobs. No I/O: the caller
//! reads the store and claims what this decides.
//!
//! The rules, in claim order (priority, then submission):
//! - a job whose `not_before` is ahead waits;
//! - a session runs one job at a time, in submission order: only its
//!   oldest queued job may start, and only when none of it runs;
//! - jobs that may write in one working directory run one at a time;
//! - a job counts against the first of its providers whose quota is not
//!   known exhausted (`ignore_quota`: its first provider); that provider's
//!   limit and `max_running` must have room;
//! - a job whose every provider is exhausted until a known time waits for
//!   the earliest reset ([`Decision::WaitForQuota`]), without a slot.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::config::QueueSpec;
use jiff::Timestamp;

use super::facts::JobFacts;

/// A job running now, as the limits see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningJob {
    /// The provider it counts against (`None`: no provider).
    pub provider: Option<String>,
    /// Its logical session.
    pub session: Option<String>,
    /// The folder it may write in.
    pub writes_in: Option<PathBuf>,
}

/// What to do with one queued job.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Claim and run it, counted against `provider`.
    Start {
        /// The job.
        job_id: String,
        /// The provider it counts against.
        provider: Option<String>,
    },
    /// Every provider's quota is exhausted: it waits until `until` (the
    /// earliest reset), charged no attempt.
    WaitForQuota {
        /// The job.
        job_id: String,
        /// The earliest reset.
        until: Timestamp,
    },
}

/// The decisions for `queued` given `running`, the limits and the clock;
/// `exhausted_until(provider)` is the reset time of a provider whose quota
/// is known exhausted (and `None` otherwise).
pub fn choose(
    queued: &[JobFacts],
    running: &[RunningJob],
    limits: &QueueSpec,
    now: Timestamp,
    exhausted_until: &dyn Fn(&str) -> Option<Timestamp>,
) -> Vec<Decision> {
    choose_claimable(queued, running, limits, now, exhausted_until, &|_| true)
}

/// [`choose`] for an executor that claims only some jobs: a job whose
/// chosen provider is not `claimable` is passed over (it keeps its place
/// for another executor and takes no slot here; its session's later jobs
/// still wait behind it).
pub fn choose_claimable(
    queued: &[JobFacts],
    running: &[RunningJob],
    limits: &QueueSpec,
    now: Timestamp,
    exhausted_until: &dyn Fn(&str) -> Option<Timestamp>,
    claimable: &dyn Fn(Option<&str>) -> bool,
) -> Vec<Decision> {
    let mut total = running.len();
    let mut per_provider: HashMap<String, usize> = HashMap::new();
    let mut busy_sessions: HashSet<String> = HashSet::new();
    let mut busy_dirs: HashSet<PathBuf> = HashSet::new();
    for r in running {
        if let Some(p) = &r.provider {
            *per_provider.entry(p.clone()).or_default() += 1;
        }
        busy_sessions.extend(r.session.clone());
        busy_dirs.extend(r.writes_in.clone());
    }
    // Each session's oldest queued job: the only one of it that may start.
    let mut first_of_session: HashMap<&str, &JobFacts> = HashMap::new();
    for job in queued {
        if let Some(s) = &job.session {
            let first = first_of_session.entry(s).or_insert(job);
            if (job.created_at, &job.job_id) < (first.created_at, &first.job_id) {
                *first = job;
            }
        }
    }
    let mut order: Vec<&JobFacts> = queued.iter().collect();
    order.sort_by(|a, b| {
        b.priority
            .cmp(&a.priority)
            .then(a.created_at.cmp(&b.created_at))
            .then(a.job_id.cmp(&b.job_id))
    });
    let mut decisions = Vec::new();
    for job in order {
        if job.not_before > now {
            continue;
        }
        if let Some(s) = &job.session
            && (busy_sessions.contains(s)
                || first_of_session
                    .get(s.as_str())
                    .is_some_and(|f| f.job_id != job.job_id))
        {
            continue;
        }
        let provider = if job.ignore_quota {
            job.providers.first().cloned()
        } else {
            let available = job.providers.iter().find(|p| exhausted_until(p).is_none());
            match available {
                Some(p) => Some(p.clone()),
                None if job.providers.is_empty() => None,
                None => {
                    let until = job
                        .providers
                        .iter()
                        .filter_map(|p| exhausted_until(p))
                        .min();
                    if let Some(until) = until {
                        decisions.push(Decision::WaitForQuota {
                            job_id: job.job_id.clone(),
                            until,
                        });
                    }
                    continue;
                }
            }
        };
        if !claimable(provider.as_deref()) || total >= limits.max_running {
            continue;
        }
        if let Some(dir) = &job.writes_in
            && busy_dirs.contains(dir)
        {
            continue;
        }
        if let Some(p) = &provider
            && let Some(limit) = limits.provider_limit(p)
            && per_provider.get(p).copied().unwrap_or(0) >= limit
        {
            continue;
        }
        total += 1;
        if let Some(p) = &provider {
            *per_provider.entry(p.clone()).or_default() += 1;
        }
        busy_sessions.extend(job.session.clone());
        busy_dirs.extend(job.writes_in.clone());
        decisions.push(Decision::Start {
            job_id: job.job_id.clone(),
            provider,
        });
    }
    decisions
}

/// The wait before try `attempts + 1` after `attempts` failed tries:
/// `backoff` doubled per earlier try, at most `backoff_max`, plus up to a
/// quarter more at random (`jitter` in 0..=1), so jobs that failed together
/// do not all come back at once.
pub fn backoff(limits: &QueueSpec, attempts: u32, jitter: f64) -> Duration {
    let doublings = attempts.saturating_sub(1).min(30);
    let base = limits
        .backoff
        .checked_mul(1u32 << doublings)
        .unwrap_or(limits.backoff_max)
        .min(limits.backoff_max);
    base + base.mul_f64(jitter.clamp(0.0, 1.0) / 4.0)
}

/// A number in 0..=1 from the process's random hasher seed and the clock:
/// jitter needs no better randomness.
pub fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond().unsigned_abs());
    (h.finish() % 10_001) as f64 / 10_000.0
}

#[cfg(test)]
mod tests;
