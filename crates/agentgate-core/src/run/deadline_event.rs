//! The supervisor's deadline notices as the run's status events, and the
//! words of a timeout that was extended.

use std::time::Duration;

use agentgate_protocol::{EventBody, StatusEvent};
use agentgate_supervise::DeadlineNotice;
use jiff::{SignedDuration, Timestamp};

/// `timeout_warning` or `timeout_extended` for `notice`; the deadline is
/// now plus the time left.
pub(super) fn status(notice: &DeadlineNotice) -> EventBody {
    let ms = |d: &Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    let at = |left: &Duration| {
        let deadline = SignedDuration::try_from(*left)
            .ok()
            .and_then(|d| Timestamp::now().checked_add(d).ok())
            .unwrap_or_else(Timestamp::now);
        deadline.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
    };
    EventBody::Status(match notice {
        DeadlineNotice::Warning { remaining, elapsed } => StatusEvent::TimeoutWarning {
            remaining_ms: ms(remaining),
            elapsed_ms: ms(elapsed),
            deadline: at(remaining),
        },
        DeadlineNotice::Extended {
            by,
            remaining,
            elapsed,
        } => StatusEvent::TimeoutExtended {
            extended_by_ms: ms(by),
            remaining_ms: ms(remaining),
            elapsed_ms: ms(elapsed),
            deadline: at(remaining),
        },
    })
}

/// How far `notice` moved the deadline.
pub(super) fn extension(notice: &DeadlineNotice) -> Duration {
    match notice {
        DeadlineNotice::Extended { by, .. } => *by,
        DeadlineNotice::Warning { .. } => Duration::ZERO,
    }
}

/// The error message of a timed-out attempt whose deadline moved by
/// `extended` in all.
pub(super) fn timed_out(provider: &str, timeout: Duration, extended: Duration) -> String {
    if extended.is_zero() {
        format!(
            "{provider} did not finish within --timeout {}",
            humanize(timeout)
        )
    } else {
        format!(
            "{provider} did not finish within --timeout {} (extended by {} while it printed)",
            humanize(timeout),
            humanize(extended)
        )
    }
}

/// `90s`, or `1500ms` when not whole seconds.
pub(crate) fn humanize(d: Duration) -> String {
    let ms = d.as_millis();
    if ms.is_multiple_of(1000) {
        format!("{}s", ms / 1000)
    } else {
        format!("{ms}ms")
    }
}
