//! Reopening a run ([`RunStore::reopen_run`](crate::RunStore::reopen_run)):
//! the rule every backend applies to the row it read, and what the call
//! reports.
//!
//! A backend reads the run's status and owner columns ([`Seen`]), asks
//! [`decide`] whether the run may be reopened, and if so writes with a
//! compare-and-swap: its UPDATE's WHERE names the same columns with the
//! values read. When the swap matches no row, another process wrote the run
//! in between; [`after_a_lost_swap`] says what to report from the row as it
//! is now.

use crate::error::StoreError;
use crate::owner::{OwnerState, RunOwner};
use crate::records::{RunStatus, effective_status};

/// What one reopen came to, computed inside the backend's transaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Outcome {
    /// The run is `running` again, owned by the calling process.
    Reopened,
    /// There is no such run.
    NotFound,
    /// The run runs; who runs it.
    StillRunning(String),
    /// The run changed between the read and the write, and does not run now.
    Changed,
}

impl Outcome {
    /// The call's result; `not_found` makes the backend's
    /// [`StoreError::RunNotFound`].
    pub(crate) fn into_result(
        self,
        run_id: &str,
        not_found: impl FnOnce() -> StoreError,
    ) -> Result<(), StoreError> {
        match self {
            Outcome::Reopened => Ok(()),
            Outcome::NotFound => Err(not_found()),
            Outcome::StillRunning(owner) => Err(StoreError::RunStillRunning {
                run_id: run_id.to_owned(),
                owner,
            }),
            Outcome::Changed => Err(StoreError::RunChangedWhileReopening {
                run_id: run_id.to_owned(),
            }),
        }
    }
}

/// The columns a reopen reads, exactly as stored, and then names in its
/// UPDATE's WHERE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    /// `runs.status`.
    pub status: String,
    /// `runs.owner_pid`.
    pub owner_pid: Option<i64>,
    /// `runs.owner_start_ticks`.
    pub owner_start_ticks: Option<i64>,
    /// `runs.owner_boot_id`.
    pub owner_boot_id: Option<String>,
    /// `runs.owner_host`.
    pub owner_host: Option<String>,
}

/// A stored value out of its range: the column and the value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invalid {
    /// The table and column, e.g. `runs.owner_pid`.
    pub column: &'static str,
    /// The value read.
    pub value: String,
}

impl Seen {
    /// The status and owner as the records have them (an owner only where
    /// both its pid and host are stored, as every read does).
    fn parse(&self) -> Result<(RunStatus, Option<RunOwner>), Invalid> {
        let status = self.status.parse().map_err(|_| Invalid {
            column: "runs.status",
            value: self.status.clone(),
        })?;
        let owner = match (self.owner_pid, &self.owner_host) {
            (Some(pid), Some(host)) => Some(RunOwner {
                pid: u32::try_from(pid).map_err(|_| Invalid {
                    column: "runs.owner_pid",
                    value: pid.to_string(),
                })?,
                start_ticks: self
                    .owner_start_ticks
                    .map(|ticks| {
                        u64::try_from(ticks).map_err(|_| Invalid {
                            column: "runs.owner_start_ticks",
                            value: ticks.to_string(),
                        })
                    })
                    .transpose()?,
                boot_id: self.owner_boot_id.clone(),
                host: host.clone(),
            }),
            _ => None,
        };
        Ok((status, owner))
    }
}

/// `None` if a run stored as `seen` may be reopened: it ended (any final
/// status) or was abandoned (running, its owner gone). Else why not: it
/// runs, its owner alive, on another host (where it cannot be checked) or
/// never recorded.
pub(crate) fn decide(seen: &Seen) -> Result<Option<Outcome>, Invalid> {
    let (status, owner) = seen.parse()?;
    Ok(match effective_status(status, owner.as_ref()) {
        RunStatus::Running => Some(Outcome::StillRunning(describe_owner(owner.as_ref()))),
        _ => None,
    })
}

/// What to report when the swap matched no row, from the run as it is now
/// (`None`: it is gone).
pub(crate) fn after_a_lost_swap(now: Option<&Seen>) -> Result<Outcome, Invalid> {
    match now {
        None => Ok(Outcome::NotFound),
        Some(now) => Ok(decide(now)?.unwrap_or(Outcome::Changed)),
    }
}

/// The owner for a message, e.g. `pid 123 on host build-1`.
pub(crate) fn describe_owner(owner: Option<&RunOwner>) -> String {
    match owner {
        None => "a process agentgate did not record (the run predates owner records)".to_owned(),
        Some(owner) => {
            let mut text = format!("pid {} on host {}", owner.pid, owner.host);
            if owner.state() == OwnerState::Elsewhere {
                text.push_str(" (another host: it cannot be checked from here)");
            }
            text
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The columns of a run stored with `status` and `owner` (start ticks
    /// are far below `i64::MAX`; one above would read as unknown).
    fn seen(status: &str, owner: &RunOwner) -> Seen {
        Seen {
            status: status.to_owned(),
            owner_pid: Some(i64::from(owner.pid)),
            owner_start_ticks: owner.start_ticks.and_then(|t| i64::try_from(t).ok()),
            owner_boot_id: owner.boot_id.clone(),
            owner_host: Some(owner.host.clone()),
        }
    }

    /// The pid of a process that has exited and been reaped.
    fn dead_pid() -> std::io::Result<u32> {
        let mut child = std::process::Command::new("true").spawn()?;
        let pid = child.id();
        child.wait()?;
        Ok(pid)
    }

    #[test]
    fn ended_and_abandoned_runs_may_be_reopened_running_ones_may_not() {
        let me = RunOwner::current();
        for status in ["succeeded", "failed", "cancelled"] {
            assert_eq!(decide(&seen(status, &me)).unwrap(), None, "{status}");
        }
        let gone = RunOwner {
            pid: dead_pid().unwrap(),
            ..me.clone()
        };
        assert_eq!(decide(&seen("running", &gone)).unwrap(), None);
        assert_eq!(
            decide(&seen("running", &me)).unwrap(),
            Some(Outcome::StillRunning(format!(
                "pid {} on host {}",
                me.pid, me.host
            )))
        );
        let far = RunOwner {
            host: "far-away.example".to_owned(),
            ..gone
        };
        let Some(Outcome::StillRunning(owner)) = decide(&seen("running", &far)).unwrap() else {
            panic!("a run on another host was not refused");
        };
        assert!(owner.contains("far-away.example") && owner.contains("another host"));
        let unrecorded = Seen {
            owner_pid: None,
            owner_host: None,
            ..seen("running", &me)
        };
        assert!(matches!(
            decide(&unrecorded).unwrap(),
            Some(Outcome::StillRunning(_))
        ));
    }

    #[test]
    fn a_lost_swap_reports_the_run_as_it_is_now() {
        let me = RunOwner::current();
        assert_eq!(after_a_lost_swap(None).unwrap(), Outcome::NotFound);
        assert!(matches!(
            after_a_lost_swap(Some(&seen("running", &me))).unwrap(),
            Outcome::StillRunning(_)
        ));
        assert_eq!(
            after_a_lost_swap(Some(&seen("failed", &me))).unwrap(),
            Outcome::Changed
        );
        let bad = Seen {
            owner_pid: Some(-1),
            ..seen("failed", &me)
        };
        assert_eq!(
            decide(&bad).unwrap_err(),
            Invalid {
                column: "runs.owner_pid",
                value: "-1".to_owned()
            }
        );
    }
}
