//! The wall-clock deadline of one run, with its warnings and its
//! extension on activity.
//!
//! [`Wall`] is the supervisor's one timer for the deadline: the loop sleeps
//! until [`Wall::next_wake`] and hands the time to [`Wall::wake`], which
//! says what it is: a warning point passed (the run goes on), the deadline
//! moved because the CLI printed within `extend_on_activity`, or the
//! deadline passed (terminate). The deadline is a value the loop re-reads
//! on each turn, so an extension is a change of state, not a second timer.
//! Time is the caller's (`Instant`s in, no clock read here), so the rules
//! are unit-tested without sleeping.

use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

/// When to warn that the deadline is near.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarnPoint {
    /// When this share of the time from the start to the deadline has
    /// passed, in thousandths (800: at 80 %).
    Permille(u16),
    /// When this much time is left.
    Remaining(Duration),
}

/// Warnings before the wall-clock deadline and its extension on activity.
/// The default: no warning, no extension.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeadlinePolicy {
    /// Each is warned of once per deadline (again after an extension, for
    /// the points still ahead of the new one).
    pub warn: Vec<WarnPoint>,
    /// When the deadline comes and the CLI printed something (a byte on
    /// stdout or stderr) within this much time, the deadline moves this
    /// much later.
    pub extend_on_activity: Option<Duration>,
    /// The limit on extensions, from the start (default: three times the
    /// timeout).
    pub max_timeout: Option<Duration>,
}

/// What the deadline did, sent to
/// [`SupervisorConfig::deadline_notices`](super::SupervisorConfig::deadline_notices).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeadlineNotice {
    /// A warning point passed.
    Warning {
        /// Time left until the deadline.
        remaining: Duration,
        /// Time since the start.
        elapsed: Duration,
    },
    /// The deadline moved later.
    Extended {
        /// How far it moved.
        by: Duration,
        /// Time left until the new deadline.
        remaining: Duration,
        /// Time since the start.
        elapsed: Duration,
    },
}

/// Where deadline notices go: a channel the caller reads while the run
/// goes on. Two senders are equal when they send to the same channel.
#[derive(Debug, Clone)]
pub struct NoticeSender(pub mpsc::UnboundedSender<DeadlineNotice>);

impl PartialEq for NoticeSender {
    fn eq(&self, other: &Self) -> bool {
        self.0.same_channel(&other.0)
    }
}

impl Eq for NoticeSender {}

/// What a wake of the wall clock found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum WallWake {
    /// Notices to send; the run goes on.
    Notices(Vec<DeadlineNotice>),
    /// The deadline passed: terminate.
    Expired,
}

/// One run's deadline (see the module's notes).
#[derive(Debug, Clone)]
pub(crate) struct Wall {
    started: Instant,
    deadline: Instant,
    limit: Instant,
    policy: DeadlinePolicy,
    /// Per warning point: warned of for the current deadline.
    warned: Vec<bool>,
}

impl Wall {
    /// The deadline `timeout` after `started`.
    pub fn new(started: Instant, timeout: Duration, policy: DeadlinePolicy) -> Wall {
        let max = policy
            .max_timeout
            .unwrap_or_else(|| timeout.saturating_mul(3))
            .max(timeout);
        Wall {
            started,
            deadline: started + timeout,
            limit: started + max,
            warned: vec![false; policy.warn.len()],
            policy,
        }
    }

    /// When a warning point is due, or else the deadline.
    pub fn next_wake(&self) -> Instant {
        self.points()
            .filter(|(i, _)| !self.warned[*i])
            .map(|(_, at)| at)
            .min()
            .map_or(self.deadline, |at| at.min(self.deadline))
    }

    /// The clock woke at `now`; the CLI last printed at `last_output`.
    pub fn wake(&mut self, now: Instant, last_output: Option<Instant>) -> WallWake {
        if now >= self.deadline {
            return self.at_deadline(now, last_output);
        }
        let due: Vec<usize> = self
            .points()
            .filter(|(i, at)| !self.warned[*i] && *at <= now)
            .map(|(i, _)| i)
            .collect();
        if due.is_empty() {
            return WallWake::Notices(Vec::new());
        }
        for i in due {
            self.warned[i] = true;
        }
        WallWake::Notices(vec![DeadlineNotice::Warning {
            remaining: self.deadline - now,
            elapsed: now - self.started,
        }])
    }

    fn at_deadline(&mut self, now: Instant, last_output: Option<Instant>) -> WallWake {
        let Some(step) = self.policy.extend_on_activity else {
            return WallWake::Expired;
        };
        let active = last_output.is_some_and(|t| now.saturating_duration_since(t) <= step);
        let moved = (self.deadline + step).min(self.limit);
        if !active || moved <= now {
            return WallWake::Expired;
        }
        let by = moved - self.deadline;
        self.deadline = moved;
        // The points still ahead of the new deadline warn again.
        let ahead: Vec<bool> = self.points().map(|(_, at)| at <= now).collect();
        self.warned = ahead;
        WallWake::Notices(vec![DeadlineNotice::Extended {
            by,
            remaining: moved - now,
            elapsed: now - self.started,
        }])
    }

    /// Each warning point's time for the current deadline.
    fn points(&self) -> impl Iterator<Item = (usize, Instant)> + '_ {
        let span = self.deadline - self.started;
        self.policy.warn.iter().enumerate().map(move |(i, p)| {
            let at = match *p {
                WarnPoint::Permille(m) => {
                    self.started + span.mul_f64(f64::from(m.min(1000)) / 1000.0)
                }
                WarnPoint::Remaining(left) => self
                    .deadline
                    .checked_sub(left)
                    .unwrap_or(self.started)
                    .max(self.started),
            };
            (i, at)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    fn policy(warn: Vec<WarnPoint>, extend: Option<u64>, max: Option<u64>) -> DeadlinePolicy {
        DeadlinePolicy {
            warn,
            extend_on_activity: extend.map(secs),
            max_timeout: max.map(secs),
        }
    }

    #[test]
    fn warnings_come_once_each_before_the_deadline() {
        let t0 = Instant::now();
        let warn = vec![WarnPoint::Permille(800), WarnPoint::Remaining(secs(5))];
        let mut w = Wall::new(t0, secs(100), policy(warn, None, None));
        assert_eq!(w.next_wake(), t0 + secs(80));
        assert_eq!(w.wake(t0 + secs(79), None), WallWake::Notices(vec![]));
        assert_eq!(
            w.wake(t0 + secs(80), None),
            WallWake::Notices(vec![DeadlineNotice::Warning {
                remaining: secs(20),
                elapsed: secs(80)
            }])
        );
        assert_eq!(w.next_wake(), t0 + secs(95));
        assert!(matches!(w.wake(t0 + secs(96), None), WallWake::Notices(n) if n.len() == 1));
        assert_eq!(w.next_wake(), t0 + secs(100));
        assert_eq!(
            w.wake(t0 + secs(100), Some(t0 + secs(99))),
            WallWake::Expired
        );
    }

    #[test]
    fn output_within_the_window_moves_the_deadline_up_to_the_limit() {
        let t0 = Instant::now();
        let mut w = Wall::new(
            t0,
            secs(10),
            policy(vec![WarnPoint::Remaining(secs(2))], Some(5), Some(22)),
        );
        assert!(matches!(w.wake(t0 + secs(8), None), WallWake::Notices(n) if n.len() == 1));
        // Printed 3 s before the deadline: within 5 s, moved by 5 s.
        assert_eq!(
            w.wake(t0 + secs(10), Some(t0 + secs(7))),
            WallWake::Notices(vec![DeadlineNotice::Extended {
                by: secs(5),
                remaining: secs(5),
                elapsed: secs(10)
            }])
        );
        // The warning is armed again for the new deadline.
        assert_eq!(w.next_wake(), t0 + secs(13));
        assert!(matches!(w.wake(t0 + secs(13), None), WallWake::Notices(n) if n.len() == 1));
        assert!(matches!(
            w.wake(t0 + secs(15), Some(t0 + secs(14))),
            WallWake::Notices(n) if n == [DeadlineNotice::Extended { by: secs(5), remaining: secs(5), elapsed: secs(15) }]
        ));
        // The limit (22 s) cuts the next move to 2 s, then no more.
        assert!(matches!(
            w.wake(t0 + secs(20), Some(t0 + secs(19))),
            WallWake::Notices(n) if n == [DeadlineNotice::Extended { by: secs(2), remaining: secs(2), elapsed: secs(20) }]
        ));
        assert_eq!(
            w.wake(t0 + secs(22), Some(t0 + secs(22))),
            WallWake::Expired
        );
    }

    #[test]
    fn a_silent_cli_is_not_given_more_time() {
        let t0 = Instant::now();
        let mut w = Wall::new(t0, secs(10), policy(vec![], Some(5), Some(60)));
        assert_eq!(w.wake(t0 + secs(10), Some(t0 + secs(4))), WallWake::Expired);
        let mut w = Wall::new(t0, secs(10), policy(vec![], Some(5), Some(60)));
        assert_eq!(w.wake(t0 + secs(10), None), WallWake::Expired);
        // Without max_timeout the limit is three times the timeout.
        let mut w = Wall::new(t0, secs(10), policy(vec![], Some(50), None));
        assert!(matches!(
            w.wake(t0 + secs(10), Some(t0 + secs(10))),
            WallWake::Notices(n) if n == [DeadlineNotice::Extended { by: secs(20), remaining: secs(20), elapsed: secs(10) }]
        ));
    }
}
