//! The schedules: which fires are due, and one job per fire.
//!
//! Each schedule keeps the instant of its next fire. [`Scheduler::tick`]
//! at `now` handles every schedule whose next fire is at or before `now`:
//!
//! - **Coalescing.** When several fires are due at once (the machine was
//!   suspended, the clock jumped forward), only the most recent one runs.
//! - **One job per fire.** The job's idempotency key is
//!   [`schedule_key`]: the schedule's name and the fire's scheduled instant.
//!   Enqueuing a fire twice (a restart, a second server on the store)
//!   returns the first job.
//! - **Overlap.** With `overlap: skip`, a fire creates no job while a job
//!   of this schedule (any earlier fire: its key has the schedule's prefix)
//!   is queued or running. The queue is asked, not memory, so this holds
//!   across restarts.
//! - **Catch-up.** A new scheduler's first fire is the first one after
//!   `now - catch_up` (`catch_up: 0`: after `now`), so at start the most
//!   recent fire of the window runs, once (its key dedups it if it ran).
//! - **Failure.** A fire whose job cannot be created (the store failed)
//!   stays due and is tried again at the next tick.

use std::sync::Arc;
use std::time::Duration;

use agentgate_core::CronExpr;
use agentgate_core::sealed::KeyRing;
use agentgate_core::{Config, Overlap, ScheduleSpec};
use agentgate_store::{JobFilter, JobQueue, JobState, StoreError};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};

use super::job::new_job;

/// The idempotency key of the fire of `schedule` at `fire` (its scheduled
/// instant, RFC 3339 in UTC).
pub fn schedule_key(schedule: &str, fire: Timestamp) -> String {
    format!("{}{fire}", key_prefix(schedule))
}

fn key_prefix(schedule: &str) -> String {
    format!("schedule:{schedule}:")
}

/// What one fire did.
#[derive(Debug, Clone, PartialEq)]
pub struct Fire {
    /// The schedule's name.
    pub schedule: String,
    /// The fire's scheduled instant.
    pub at: Timestamp,
    /// What came of it.
    pub outcome: FireOutcome,
}

/// What came of a fire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FireOutcome {
    /// A job was created.
    Enqueued {
        /// Its id.
        job_id: String,
    },
    /// The fire's job existed already (it was enqueued before a restart).
    AlreadyEnqueued {
        /// Its id.
        job_id: String,
    },
    /// `overlap: skip` and this job of the schedule is queued or running.
    Skipped {
        /// The job still queued or running.
        busy_job_id: String,
    },
    /// The store failed; the fire is tried again at the next tick.
    Failed {
        /// The store's error.
        error: String,
    },
}

#[derive(Debug)]
struct Entry {
    spec: ScheduleSpec,
    next: Option<Timestamp>,
}

/// The config's schedules, firing into a queue.
pub struct Scheduler {
    entries: Vec<Entry>,
    queue: Arc<dyn JobQueue>,
    config: Config,
    keys: KeyRing,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler")
            .field("entries", &self.entries)
            .finish_non_exhaustive()
    }
}

impl Scheduler {
    /// The schedules of `config`, started at `now` (see catch-up above).
    pub fn new(config: &Config, queue: Arc<dyn JobQueue>, now: Timestamp) -> Scheduler {
        let entries = config
            .schedules
            .iter()
            .map(|spec| {
                // Without catch-up, the first fire after `now`; with it,
                // the first of the window (its start included).
                let first = if spec.catch_up.is_zero() {
                    now
                } else {
                    SignedDuration::try_from(spec.catch_up)
                        .ok()
                        .and_then(|window| now.checked_sub(window).ok())
                        .and_then(|start| start.checked_sub(SignedDuration::from_nanos(1)).ok())
                        .unwrap_or(now)
                };
                Entry {
                    next: spec.cron.next_after(first, &spec.time_zone),
                    spec: spec.clone(),
                }
            })
            .collect();
        Scheduler {
            entries,
            queue,
            config: config.clone(),
            keys: KeyRing::default(),
        }
    }

    /// Seal the secrets of the jobs it creates with `keys` (without keys,
    /// a schedule whose request sets `env` fails to fire).
    #[must_use]
    pub fn with_keys(mut self, keys: KeyRing) -> Scheduler {
        self.keys = keys;
        self
    }

    /// The earliest next fire of all schedules (`None`: none will fire).
    pub fn next_due(&self) -> Option<Timestamp> {
        self.entries.iter().filter_map(|e| e.next).min()
    }

    /// The next fire of the schedule `name`.
    #[cfg(test)]
    pub fn next_fire(&self, name: &str) -> Option<Timestamp> {
        self.entries
            .iter()
            .find(|e| e.spec.name == name)
            .and_then(|e| e.next)
    }

    /// Handle every fire due at `now` (see the module notes); returns what
    /// each did.
    pub fn tick(&mut self, now: Timestamp) -> Vec<Fire> {
        let mut fired = Vec::new();
        for i in 0..self.entries.len() {
            let entry = &self.entries[i];
            let Some(next) = entry.next.filter(|n| *n <= now) else {
                continue;
            };
            let at = latest_due(&entry.spec.cron, &entry.spec.time_zone, next, now);
            let outcome = self.fire(&self.entries[i].spec, at, now);
            let entry = &mut self.entries[i];
            if !matches!(outcome, FireOutcome::Failed { .. }) {
                entry.next = entry.spec.cron.next_after(at, &entry.spec.time_zone);
            }
            log_fire(&entry.spec.name, at, &outcome);
            fired.push(Fire {
                schedule: entry.spec.name.clone(),
                at,
                outcome,
            });
        }
        fired
    }

    fn fire(&self, spec: &ScheduleSpec, at: Timestamp, now: Timestamp) -> FireOutcome {
        let key = schedule_key(&spec.name, at);
        if spec.overlap == Overlap::Skip {
            match self.busy_job(&spec.name, &key) {
                Ok(Some(busy_job_id)) => return FireOutcome::Skipped { busy_job_id },
                Ok(None) => {}
                Err(e) => {
                    return FireOutcome::Failed {
                        error: e.to_string(),
                    };
                }
            }
        }
        let job = match new_job(&spec.request, &key, &self.config, &self.keys, now) {
            Ok(job) => job,
            Err(e) => {
                return FireOutcome::Failed {
                    error: e.to_string(),
                };
            }
        };
        match self.queue.enqueue(&job, now) {
            Ok(done) if done.created => FireOutcome::Enqueued {
                job_id: done.job.job_id,
            },
            Ok(done) => FireOutcome::AlreadyEnqueued {
                job_id: done.job.job_id,
            },
            Err(e) => FireOutcome::Failed {
                error: e.to_string(),
            },
        }
    }

    /// A queued or running job of an earlier fire of the schedule `name`
    /// (the fire keyed `this_key` is not earlier: it is its own).
    fn busy_job(&self, name: &str, this_key: &str) -> Result<Option<String>, StoreError> {
        let prefix = key_prefix(name);
        for state in [JobState::Running, JobState::Queued] {
            let filter = JobFilter {
                state: Some(state),
                ..JobFilter::default()
            };
            let mut cursor = None;
            loop {
                let page = self.queue.list_jobs(&filter, 500, cursor.as_ref())?;
                let busy = page.jobs.iter().find(|j| {
                    j.idempotency_key
                        .as_deref()
                        .is_some_and(|k| k.starts_with(&prefix) && k != this_key)
                });
                if let Some(job) = busy {
                    return Ok(Some(job.job_id.clone()));
                }
                match page.next {
                    Some(next) => cursor = Some(next),
                    None => break,
                }
            }
        }
        Ok(None)
    }
}

/// The most recent fire at or before `now`, given that `first` (at or
/// before `now`) is one. The search starts in a window before `now` that
/// doubles until it holds a fire, so a long gap costs a few steps, not one
/// per missed fire.
fn latest_due(cron: &CronExpr, tz: &TimeZone, first: Timestamp, now: Timestamp) -> Timestamp {
    let mut window = Duration::from_secs(3600);
    let mut from = first;
    loop {
        let Ok(span) = SignedDuration::try_from(window) else {
            break;
        };
        let Ok(start) = now.checked_sub(span) else {
            break;
        };
        if start <= first {
            break;
        }
        let found = start
            .checked_sub(SignedDuration::from_nanos(1))
            .ok()
            .and_then(|s| cron.next_after(s, tz));
        if let Some(f) = found.filter(|f| *f <= now) {
            from = f;
            break;
        }
        window = window.saturating_mul(2);
    }
    let mut latest = from;
    while let Some(n) = cron.next_after(latest, tz).filter(|n| *n <= now) {
        latest = n;
    }
    latest
}

fn log_fire(schedule: &str, at: Timestamp, outcome: &FireOutcome) {
    match outcome {
        FireOutcome::Enqueued { job_id } => {
            tracing::info!(schedule, %at, job_id, "schedule fired: job enqueued");
        }
        FireOutcome::AlreadyEnqueued { job_id } => {
            tracing::info!(schedule, %at, job_id, "schedule fire already had its job");
        }
        FireOutcome::Skipped { busy_job_id } => {
            tracing::info!(schedule, %at, busy_job_id, "schedule fire skipped: its previous job is still queued or running (overlap: skip)");
        }
        FireOutcome::Failed { error } => {
            tracing::warn!(schedule, %at, error, "schedule fire could not enqueue its job; retrying");
        }
    }
}
