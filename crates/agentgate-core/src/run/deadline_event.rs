//! The supervisor's deadline notices as the run's status events, and the
//! error of an attempt that ran out of time (saying by how much an
//! extension moved its deadline).

use std::time::Duration;

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource, EventBody, StatusEvent};
use agentgate_supervise::{DeadlineNotice, EndReason};

use crate::plan::Step;
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

/// The error of an attempt that ended by its `timeout` (`ended_by`
/// `Timeout`, its deadline moved by `extended` in all) or its
/// `idle_timeout`.
pub(super) fn timed_out(
    provider: &str,
    ended_by: EndReason,
    step: &Step,
    extended: Duration,
) -> ErrorInfo {
    let (kind, message) = match ended_by {
        EndReason::IdleTimeout => (
            ErrorKind::IdleTimeout,
            format!(
                "{provider} printed nothing for --idle-timeout {}",
                humanize(step.idle_timeout.unwrap_or_default())
            ),
        ),
        _ if extended.is_zero() => (
            ErrorKind::Timeout,
            format!(
                "{provider} did not finish within --timeout {}",
                humanize(step.timeout.unwrap_or_default())
            ),
        ),
        _ => (
            ErrorKind::Timeout,
            format!(
                "{provider} did not finish within --timeout {} (extended by {} while it printed)",
                humanize(step.timeout.unwrap_or_default()),
                humanize(extended)
            ),
        ),
    };
    ErrorInfo::new(kind, ErrorSource::Internal, message)
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
