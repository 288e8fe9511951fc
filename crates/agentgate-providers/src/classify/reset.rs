//! Reset times and retry delays, in the words the providers use.
//!
//! Forms understood (case-insensitive), after a trigger such as "try again",
//! "retry", "reset(s)", "resume using this model" or "available again":
//!
//! | form | example |
//! |---|---|
//! | `epoch` | `Claude AI usage limit reached\|1760000000` (seconds or milliseconds after a `\|`) |
//! | `relative` | `reset after 8h44m7s`, `try again in 3 days 6 hours`, `Please try again in 20s`, `resets in 1d 5h`, `Please retry in 2.3s` |
//! | `clock_time` | `try again at 3:28 PM`, `resets 3pm`, `resume using this model at 4:05 PM`, `resets 5pm (Australia/Brisbane)` |
//! | `weekday_time` | `resets Mon 12:00am` |
//! | `date_time` | `try again at Jul 9th, 2026 1:47 AM`, `resets Sep 24 at 3pm (Australia/Brisbane)` |
//!
//! A time without a date is its next occurrence after `now`; a date without
//! a year likewise. Times are read in the zone named in parentheses after
//! them when there is one, else in the caller's zone. Local times are
//! resolved on the civil calendar, then placed in the zone: a time that a
//! DST change skips resolves to the instant after the gap, a repeated one to
//! its first occurrence after `now`.

use std::sync::LazyLock;

use jiff::civil::{Date, Time, Weekday};
use jiff::tz::TimeZone;
use jiff::{SignedDuration, Timestamp};
use regex::Regex;

use super::pattern::compile_checked;

/// The longest relative delay believed (a year): a larger figure is more
/// likely a misreading than a reset time.
const MAX_RELATIVE_MS: f64 = 366.0 * 24.0 * 3600.0 * 1000.0;

/// How far after a trigger the time may start and run.
const WINDOW: usize = 80;

fn re(pattern: &str) -> Option<Regex> {
    compile_checked(pattern).ok()
}

static EPOCH: LazyLock<Option<Regex>> = LazyLock::new(|| re(r"\|\s*(\d{13}|\d{10})\b"));

static TRIGGER: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"\b(?:try(?:ing)? again|retry|resets?|resume using this model|available again)\b(?:\s+(at|in|after|on|by))?[\s:]*",
    )
});

static RETRY_AFTER_HEADER: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r#"\bretry-after"?\s*[:=]\s*"?(\d+)"#));

static AMOUNT: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"^(?:\s*,?\s*(?:and\s+)?)(\d+(?:\.\d+)?)\s*(milliseconds?|msecs?|ms|seconds?|secs?|s|minutes?|mins?|m|hours?|hrs?|h|days?|d|weeks?|w)",
    )
});

static CLOCK_12H: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^(\d{1,2})(?::([0-5]\d))?(?::([0-5]\d))?\s*([ap])\.?\s?m\b\.?"));

static CLOCK_24H: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^([01]?\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?"));

static ZONE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"^\s*(?:\(\s*([A-Za-z][A-Za-z0-9_+\-]*(?:/[A-Za-z0-9_+\-]+)*)\s*\)|(UTC|GMT)\b)")
});

static WEEKDAY: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"^(mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+(?:at\s+)?"));

static DATE: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"^(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?,?(?:\s+(\d{4}))?,?\s+(?:at\s+)?",
    )
});

/// The reset time written in `text`, as an instant, with the name of the
/// form that matched (`"epoch"`, `"relative"`, `"clock_time"`,
/// `"weekday_time"`, `"date_time"`). `now` anchors relative and partial
/// times; `tz` is the zone a time without one is read in.
pub fn parse_reset(text: &str, now: Timestamp, tz: &TimeZone) -> Option<(Timestamp, &'static str)> {
    if let Some(t) = epoch(text) {
        return Some((t, "epoch"));
    }
    for (rest, preposition) in triggers(text) {
        if matches!(preposition, None | Some("in" | "after"))
            && let Some(ms) = relative(rest)
            && let Ok(t) = now.checked_add(SignedDuration::from_millis(ms))
        {
            return Some((t, "relative"));
        }
        if let Some(found) = absolute(rest, now, tz) {
            return Some(found);
        }
    }
    None
}

/// The delay, in whole seconds (rounded up), that `text` asks to wait
/// before retrying: a relative time after a trigger ("Please try again in
/// 20s", "reset after 8h44m7s") or a `retry-after` header.
pub fn parse_retry_after(text: &str) -> Option<u64> {
    if let Some(re) = RETRY_AFTER_HEADER.as_ref()
        && let Some(c) = re.captures(text)
        && let Some(secs) = c.get(1).and_then(|m| m.as_str().parse::<u64>().ok())
    {
        return Some(secs);
    }
    triggers(text)
        .filter(|(_, p)| matches!(p, None | Some("in" | "after")))
        .find_map(|(rest, _)| relative(rest))
        .and_then(|ms| u64::try_from(ms).ok())
        .map(|ms| ms.div_ceil(1000))
}

fn epoch(text: &str) -> Option<Timestamp> {
    let digits = EPOCH.as_ref()?.captures(text)?.get(1)?.as_str();
    let n: i64 = digits.parse().ok()?;
    if digits.len() == 13 {
        Timestamp::from_millisecond(n).ok()
    } else {
        Timestamp::from_second(n).ok()
    }
}

/// For each trigger in `text`: what follows it (a bounded window) and the
/// preposition after it, lowercased.
fn triggers(text: &str) -> impl Iterator<Item = (&str, Option<&'static str>)> {
    TRIGGER
        .as_ref()
        .into_iter()
        .flat_map(move |re| re.captures_iter(text))
        .filter_map(move |c| {
            let end = c.get(0)?.end();
            let preposition = c.get(1).map(|m| m.as_str().to_ascii_lowercase());
            let preposition = match preposition.as_deref() {
                Some("at") => Some("at"),
                Some("in") => Some("in"),
                Some("after") => Some("after"),
                Some("on") => Some("on"),
                Some("by") => Some("by"),
                _ => None,
            };
            Some((window(text, end), preposition))
        })
}

/// Up to [`WINDOW`] bytes of `text` from `start`, cut on a char boundary.
fn window(text: &str, start: usize) -> &str {
    let rest = text.get(start..).unwrap_or("");
    let mut end = rest.len().min(WINDOW);
    while !rest.is_char_boundary(end) {
        end -= 1;
    }
    &rest[..end]
}

/// A relative delay at the start of `s` ("8h44m7s", "3 days 6 hours",
/// "2.3s"), in milliseconds.
fn relative(s: &str) -> Option<i64> {
    let re = AMOUNT.as_ref()?;
    let mut rest = s;
    let mut total = 0.0_f64;
    let mut found = false;
    while let Some(c) = re.captures(rest) {
        let whole = c.get(0)?;
        // "8h44m7s" has no word boundary after a unit; a letter right after
        // one means the unit was the start of another word ("3 months").
        if rest[whole.end()..].starts_with(|ch: char| ch.is_alphabetic()) {
            break;
        }
        let amount: f64 = c.get(1)?.as_str().parse().ok()?;
        total += amount * unit_ms(c.get(2)?.as_str())?;
        found = true;
        rest = &rest[whole.end()..];
    }
    if !found || !(0.0..=MAX_RELATIVE_MS).contains(&total) {
        return None;
    }
    // Bounded above, so the cast cannot truncate.
    #[expect(
        clippy::cast_possible_truncation,
        reason = "bounded by MAX_RELATIVE_MS"
    )]
    Some(total.ceil() as i64)
}

fn unit_ms(unit: &str) -> Option<f64> {
    let unit = unit.to_ascii_lowercase();
    Some(match unit.as_str() {
        "ms" | "msec" | "msecs" | "millisecond" | "milliseconds" => 1.0,
        "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
        "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
        "d" | "day" | "days" => 86_400_000.0,
        "w" | "week" | "weeks" => 604_800_000.0,
        _ => return None,
    })
}

/// A date and/or clock time at the start of `s`.
fn absolute(s: &str, now: Timestamp, tz: &TimeZone) -> Option<(Timestamp, &'static str)> {
    if let Some(c) = DATE.as_ref()?.captures(s) {
        let month = month_number(c.get(1)?.as_str())?;
        let day: i8 = c.get(2)?.as_str().parse().ok()?;
        let year: Option<i16> = c.get(3).and_then(|m| m.as_str().parse().ok());
        let (time, zone) = clock(&s[c.get(0)?.end()..], tz)?;
        return next_date(year, month, day, time, now, &zone).map(|t| (t, "date_time"));
    }
    if let Some(c) = WEEKDAY.as_ref()?.captures(s) {
        let weekday = weekday(c.get(1)?.as_str())?;
        let (time, zone) = clock(&s[c.get(0)?.end()..], tz)?;
        return next_weekday(weekday, time, now, &zone).map(|t| (t, "weekday_time"));
    }
    let (time, zone) = clock(s, tz)?;
    next_clock(time, now, &zone).map(|t| (t, "clock_time"))
}

/// A clock time at the start of `s` ("3:28 PM", "3pm", "15:00"), and the
/// zone named after it (else `tz`).
fn clock(s: &str, tz: &TimeZone) -> Option<(Time, TimeZone)> {
    let (time, end) = if let Some(c) = CLOCK_12H.as_ref()?.captures(s) {
        let hour: i8 = c.get(1)?.as_str().parse().ok()?;
        if !(1..=12).contains(&hour) {
            return None;
        }
        let minute: i8 = c.get(2).map_or(Some(0), |m| m.as_str().parse().ok())?;
        let second: i8 = c.get(3).map_or(Some(0), |m| m.as_str().parse().ok())?;
        let pm = c.get(4)?.as_str().eq_ignore_ascii_case("p");
        let hour = match (hour, pm) {
            (12, false) => 0,
            (12, true) => 12,
            (h, false) => h,
            (h, true) => h + 12,
        };
        (Time::new(hour, minute, second, 0).ok()?, c.get(0)?.end())
    } else {
        let c = CLOCK_24H.as_ref()?.captures(s)?;
        let end = c.get(0)?.end();
        if s[end..].starts_with(|ch: char| ch.is_ascii_digit()) {
            return None;
        }
        let hour: i8 = c.get(1)?.as_str().parse().ok()?;
        let minute: i8 = c.get(2)?.as_str().parse().ok()?;
        let second: i8 = c.get(3).map_or(Some(0), |m| m.as_str().parse().ok())?;
        (Time::new(hour, minute, second, 0).ok()?, end)
    };
    Some((time, zone_after(&s[end..]).unwrap_or_else(|| tz.clone())))
}

/// The zone named right after a time: "(Australia/Brisbane)", "(UTC)", "UTC".
fn zone_after(s: &str) -> Option<TimeZone> {
    let c = ZONE.as_ref()?.captures(s)?;
    let name = c.get(1).or_else(|| c.get(2))?.as_str();
    if name.eq_ignore_ascii_case("UTC") || name.eq_ignore_ascii_case("GMT") {
        return Some(TimeZone::UTC);
    }
    TimeZone::get(name).ok()
}

fn month_number(name: &str) -> Option<i8> {
    let prefix = name.get(..3)?.to_ascii_lowercase();
    let months = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ];
    let index = months.iter().position(|m| *m == prefix)?;
    i8::try_from(index + 1).ok()
}

fn weekday(name: &str) -> Option<Weekday> {
    Some(match name.get(..3)?.to_ascii_lowercase().as_str() {
        "mon" => Weekday::Monday,
        "tue" => Weekday::Tuesday,
        "wed" => Weekday::Wednesday,
        "thu" => Weekday::Thursday,
        "fri" => Weekday::Friday,
        "sat" => Weekday::Saturday,
        "sun" => Weekday::Sunday,
        _ => return None,
    })
}

/// The instants `date` at `time` denotes in `tz`: one, or two when a DST
/// change repeats the hour (a skipped time gives the instant after the gap).
fn instants(date: Date, time: Time, tz: &TimeZone) -> Vec<Timestamp> {
    let ambiguous = tz.to_ambiguous_zoned(date.to_datetime(time));
    let mut out: Vec<Timestamp> = [ambiguous.clone().compatible(), ambiguous.later()]
        .into_iter()
        .filter_map(Result::ok)
        .map(|z| z.timestamp())
        .collect();
    out.sort();
    out.dedup();
    out
}

/// The first instant of `date` at `time` after `now`.
fn after_now(date: Date, time: Time, now: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
    instants(date, time, tz).into_iter().find(|t| *t > now)
}

fn next_clock(time: Time, now: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
    let today = now.to_zoned(tz.clone()).date();
    after_now(today, time, now, tz).or_else(|| after_now(today.tomorrow().ok()?, time, now, tz))
}

fn next_weekday(target: Weekday, time: Time, now: Timestamp, tz: &TimeZone) -> Option<Timestamp> {
    let today = now.to_zoned(tz.clone()).date();
    let ahead =
        (target.to_monday_zero_offset() - today.weekday().to_monday_zero_offset()).rem_euclid(7);
    [ahead, ahead + 7].into_iter().find_map(|days| {
        let date = today
            .checked_add(jiff::Span::new().try_days(days).ok()?)
            .ok()?;
        after_now(date, time, now, tz)
    })
}

fn next_date(
    year: Option<i16>,
    month: i8,
    day: i8,
    time: Time,
    now: Timestamp,
    tz: &TimeZone,
) -> Option<Timestamp> {
    if let Some(year) = year {
        let date = Date::new(year, month, day).ok()?;
        return instants(date, time, tz).into_iter().next();
    }
    let this_year = now.to_zoned(tz.clone()).date().year();
    [this_year, this_year.saturating_add(1)]
        .into_iter()
        .find_map(|y| after_now(Date::new(y, month, day).ok()?, time, now, tz))
}
