//! A window of time given as text, `since` and `until`: how the lists
//! (`GET /v1/runs`, `agentgate runs`) and the usage report read their
//! bounds, one parser for all of them.
//!
//! A bound is an RFC 3339 time (`2026-11-30T10:00:00Z`, or with an
//! offset, `2026-11-30T11:00:00+01:00`), taken as it is, or a date
//! (`2026-11-30`, UTC): for `since` that day's start, for `until` that
//! day's end (the next day's start), so `since=2026-11-01&until=2026-11-30`
//! is November. `since` is included, `until` is not.

use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

/// A window `[since, until)`; a bound not given leaves that side open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TimeWindow {
    /// The first instant in the window.
    pub since: Option<Timestamp>,
    /// The first instant after the window.
    pub until: Option<Timestamp>,
}

/// A bound of a [`TimeWindow`] that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeWindowError {
    /// Neither a date nor an RFC 3339 time.
    #[error(
        "`{name}` is `{value}`: give a date (2026-11-01) or an RFC 3339 time (2026-11-01T08:00:00Z)"
    )]
    Time {
        /// `since` or `until`.
        name: &'static str,
        /// What was given.
        value: String,
    },
    /// `until` is not after `since`.
    #[error("the window is empty: until ({until}) must be after since ({since})")]
    Empty {
        /// The start, as resolved.
        since: Timestamp,
        /// The end, as resolved.
        until: Timestamp,
    },
}

impl TimeWindowError {
    /// The parameter the error is about: `since` or `until` (an empty
    /// window is `until`'s: it is not after `since`).
    pub fn parameter(&self) -> &'static str {
        match self {
            TimeWindowError::Time { name, .. } => name,
            TimeWindowError::Empty { .. } => "until",
        }
    }
}

impl TimeWindow {
    /// The window of `since` and `until` as text (see the module's notes);
    /// an error when one does not read or the window is empty.
    pub fn from_params(
        since: Option<&str>,
        until: Option<&str>,
    ) -> Result<TimeWindow, TimeWindowError> {
        let since = since.map(parse_since).transpose()?;
        let until = until.map(parse_until).transpose()?;
        if let (Some(since), Some(until)) = (since, until)
            && until <= since
        {
            return Err(TimeWindowError::Empty { since, until });
        }
        Ok(TimeWindow { since, until })
    }

    /// Whether `at` is in the window.
    pub fn contains(&self, at: Timestamp) -> bool {
        self.since.is_none_or(|since| at >= since) && self.until.is_none_or(|until| at < until)
    }
}

/// A `since` bound: an RFC 3339 time, or a date's start (UTC).
pub fn parse_since(text: &str) -> Result<Timestamp, TimeWindowError> {
    parse_bound("since", text, false)
}

/// An `until` bound: an RFC 3339 time, or a date's end (the next day's
/// start, UTC).
pub fn parse_until(text: &str) -> Result<Timestamp, TimeWindowError> {
    parse_bound("until", text, true)
}

fn parse_bound(name: &'static str, text: &str, end: bool) -> Result<Timestamp, TimeWindowError> {
    let bad = || TimeWindowError::Time {
        name,
        value: text.to_owned(),
    };
    if let Ok(ts) = text.parse::<Timestamp>() {
        return Ok(ts);
    }
    let date: Date = text.parse().map_err(|_| bad())?;
    let date = if end {
        date.checked_add(1.day()).map_err(|_| bad())?
    } else {
        date
    };
    date.to_zoned(TimeZone::UTC)
        .map(|z| z.timestamp())
        .map_err(|_| bad())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(text: &str) -> Timestamp {
        text.parse().unwrap()
    }

    #[test]
    fn a_bound_is_a_time_as_given_or_a_day_in_utc() {
        assert_eq!(
            parse_since("2026-11-30T10:00:00Z").unwrap(),
            ts("2026-11-30T10:00:00Z")
        );
        assert_eq!(
            parse_since("2026-11-30T11:00:00+01:00").unwrap(),
            ts("2026-11-30T10:00:00Z")
        );
        assert_eq!(
            parse_since("2026-11-30").unwrap(),
            ts("2026-11-30T00:00:00Z")
        );
        // A date ends the window at its end: the day is in it.
        assert_eq!(
            parse_until("2026-11-30").unwrap(),
            ts("2026-12-01T00:00:00Z")
        );
        assert_eq!(
            parse_until("2026-11-30T10:00:00Z").unwrap(),
            ts("2026-11-30T10:00:00Z")
        );
    }

    #[test]
    fn a_bad_bound_or_an_empty_window_names_its_parameter() {
        for (since, until, named) in [
            (Some("yesterday"), None, "since"),
            (None, Some("2026-13-01"), "until"),
            // A space where the offset's `+` was (a `+` not URL-encoded).
            (Some("2026-11-30T10:00:00 01:00"), None, "since"),
            (
                Some("2026-11-30T10:00:00Z"),
                Some("2026-11-30T10:00:00Z"),
                "until",
            ),
            (Some("2026-11-30T10:00:00Z"), Some("2026-11-29"), "until"),
        ] {
            let err = TimeWindow::from_params(since, until).unwrap_err();
            assert_eq!(err.parameter(), named, "{err}");
        }
        let day = TimeWindow::from_params(Some("2026-11-30"), Some("2026-11-30")).unwrap();
        assert!(day.contains(ts("2026-11-30T00:00:00Z")));
        assert!(day.contains(ts("2026-11-30T23:59:59.999999999Z")));
        assert!(!day.contains(ts("2026-12-01T00:00:00Z")));
        assert!(!day.contains(ts("2026-11-29T23:59:59Z")));
        assert!(TimeWindow::default().contains(ts("1970-01-01T00:00:00Z")));
    }
}
