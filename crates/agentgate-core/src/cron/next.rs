//! The next fire of an expression after an instant, in a time zone.
//!
//! The expression matches *local* (civil) times; each matching civil time
//! becomes an instant with jiff's `compatible` rule, the one cron and most
//! calendars use:
//!
//! - a local time that a daylight-saving jump skips (02:30 on a spring-
//!   forward night in Europe or the US) fires once, shifted by the jump
//!   (03:30). When that instant is also a fire of its own, it fires once;
//! - a local time that happens twice (01:30 on a fall-back night) fires
//!   once, at its first occurrence.
//!
//! So every fire is one instant and the fires are strictly increasing.
//! Because a skipped time is shifted forward, the search starts a few hours
//! of civil time before `after` and keeps the earliest instant after it.

use jiff::civil::{Date, DateTime, Time};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp};

use super::CronExpr;

/// Longer than any daylight-saving jump or repeated hour there has been.
const DST_SLACK_HOURS: i64 = 3;

/// Every expression fires again within this many years (a 29 February can
/// be 8 years away; an expression with no possible day is refused).
const SEARCH_YEARS: i16 = 10;

impl CronExpr {
    /// The first fire strictly after `after`, in `tz`; `None` only for an
    /// instant too close to the end of time jiff can represent.
    pub fn next_after(&self, after: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
        let local = after.to_zoned(tz.clone()).datetime();
        let start = local
            .with()
            .second(0)
            .subsec_nanosecond(0)
            .build()
            .ok()?
            .checked_sub(Span::new().hours(DST_SLACK_HOURS))
            .ok()?;
        let end_year = local.year().saturating_add(SEARCH_YEARS);
        let mut best: Option<(Timestamp, DateTime)> = None;
        let mut candidate = self.next_match(start, end_year)?;
        loop {
            if let Some((_, found_at)) = best
                && candidate
                    > found_at
                        .checked_add(Span::new().hours(DST_SLACK_HOURS))
                        .ok()?
            {
                break;
            }
            let instant = tz
                .to_ambiguous_zoned(candidate)
                .compatible()
                .ok()?
                .timestamp();
            if instant > after && best.is_none_or(|(b, _)| instant < b) {
                best = Some((instant, candidate));
            }
            let Some(next) = candidate
                .checked_add(Span::new().minutes(1))
                .ok()
                .and_then(|c| self.next_match(c, end_year))
            else {
                break;
            };
            candidate = next;
        }
        best.map(|(instant, _)| instant)
    }

    /// The first civil time at or after `from` that the expression matches
    /// (minute precision), up to the end of `end_year`.
    fn next_match(&self, from: DateTime, end_year: i16) -> Option<DateTime> {
        let mut c = from;
        while c.year() <= end_year {
            if !self.month_matches(c.month()) {
                let first = c.date().first_of_month();
                c = first
                    .checked_add(Span::new().months(1))
                    .ok()?
                    .to_datetime(Time::midnight());
                continue;
            }
            if !self.day_matches(c.date()) {
                c = c.date().tomorrow().ok()?.to_datetime(Time::midnight());
                continue;
            }
            if self.hours & (1 << c.hour()) == 0 {
                c = c
                    .with()
                    .minute(0)
                    .build()
                    .ok()?
                    .checked_add(Span::new().hours(1))
                    .ok()?;
                continue;
            }
            if self.minutes & (1 << c.minute()) == 0 {
                c = c.checked_add(Span::new().minutes(1)).ok()?;
                continue;
            }
            return Some(c);
        }
        None
    }

    fn month_matches(&self, month: i8) -> bool {
        self.months & (1 << month) != 0
    }

    fn day_matches(&self, date: Date) -> bool {
        let by_day = self.days & (1 << date.day()) != 0;
        let by_weekday = self.weekdays & (1 << date.weekday().to_sunday_zero_offset()) != 0;
        match (self.days_restricted, self.weekdays_restricted) {
            (true, true) => by_day || by_weekday,
            (true, false) => by_day,
            (false, true) => by_weekday,
            (false, false) => true,
        }
    }
}
