use jiff::Timestamp;
use jiff::tz::TimeZone;

use super::CronExpr;

fn ts(s: &str) -> Timestamp {
    s.parse().unwrap()
}

fn tz(name: &str) -> TimeZone {
    TimeZone::get(name).unwrap()
}

/// The first `n` fires after `after`, as RFC 3339 instants.
fn fires(expr: &str, zone: &str, after: &str, n: usize) -> Vec<String> {
    let expr = CronExpr::parse(expr).unwrap();
    let zone = tz(zone);
    let mut at = ts(after);
    let mut out = Vec::new();
    for _ in 0..n {
        at = expr.next_after(at, &zone).unwrap();
        out.push(at.to_string());
    }
    out
}

#[test]
fn every_fifteen_minutes_in_utc() {
    assert_eq!(
        fires("*/15 * * * *", "UTC", "2026-03-01T10:07:30Z", 3),
        [
            "2026-03-01T10:15:00Z",
            "2026-03-01T10:30:00Z",
            "2026-03-01T10:45:00Z"
        ]
    );
}

#[test]
fn the_next_fire_is_strictly_after_the_instant() {
    assert_eq!(
        fires("0 * * * *", "UTC", "2026-03-01T10:00:00Z", 1),
        ["2026-03-01T11:00:00Z"]
    );
}

#[test]
fn a_time_zone_shifts_the_fire() {
    // 09:00 in Tokyo (UTC+9, no daylight saving) is 00:00 UTC.
    assert_eq!(
        fires("0 9 * * *", "Asia/Tokyo", "2026-06-01T12:00:00Z", 2),
        ["2026-06-02T00:00:00Z", "2026-06-03T00:00:00Z"]
    );
    // Paris in summer is UTC+2, in winter UTC+1.
    assert_eq!(
        fires("30 8 * * *", "Europe/Paris", "2026-07-01T00:00:00Z", 1),
        ["2026-07-01T06:30:00Z"]
    );
    assert_eq!(
        fires("30 8 * * *", "Europe/Paris", "2026-12-01T00:00:00Z", 1),
        ["2026-12-01T07:30:00Z"]
    );
}

#[test]
fn a_daily_fire_keeps_its_local_hour_across_a_dst_change() {
    // New York springs forward on 2026-03-08 (EST -5 to EDT -4).
    assert_eq!(
        fires("0 9 * * *", "America/New_York", "2026-03-06T20:00:00Z", 3),
        [
            "2026-03-07T14:00:00Z",
            "2026-03-08T13:00:00Z",
            "2026-03-09T13:00:00Z"
        ]
    );
}

#[test]
fn a_time_skipped_by_spring_forward_fires_once_after_the_jump() {
    // 02:30 does not exist in New York on 2026-03-08: it fires at 03:30
    // EDT (07:30Z), then at 02:30 EDT (06:30Z) on the next days.
    assert_eq!(
        fires("30 2 * * *", "America/New_York", "2026-03-07T12:00:00Z", 3),
        [
            "2026-03-08T07:30:00Z",
            "2026-03-09T06:30:00Z",
            "2026-03-10T06:30:00Z"
        ]
    );
}

#[test]
fn fires_inside_a_skipped_hour_collapse_onto_distinct_instants() {
    // Every 20 minutes across the jump at 02:00 EST -> 03:00 EDT (07:00Z):
    // 02:00, 02:20, 02:40 are shifted to 03:00, 03:20, 03:40 EDT, which are
    // fires anyway; each instant fires once.
    assert_eq!(
        fires(
            "*/20 * * * *",
            "America/New_York",
            "2026-03-08T06:30:00Z",
            5
        ),
        [
            "2026-03-08T06:40:00Z",
            "2026-03-08T07:00:00Z",
            "2026-03-08T07:20:00Z",
            "2026-03-08T07:40:00Z",
            "2026-03-08T08:00:00Z"
        ]
    );
}

#[test]
fn a_skipped_time_still_fires_when_searching_from_inside_the_jump_window() {
    // From 03:10 EDT, the shifted 02:30 (03:30 EDT) is still ahead.
    assert_eq!(
        fires("30 2 * * *", "America/New_York", "2026-03-08T07:10:00Z", 1),
        ["2026-03-08T07:30:00Z"]
    );
    // 02:15 (shifted to 03:15 EDT, 07:15Z) is before the start; 02:30 is
    // shifted to 03:30 EDT; 03:15 and 03:30 EDT are fires of their own.
    assert_eq!(
        fires(
            "15,30 2,3 * * *",
            "America/New_York",
            "2026-03-08T07:20:00Z",
            3
        ),
        [
            "2026-03-08T07:30:00Z",
            "2026-03-09T06:15:00Z",
            "2026-03-09T06:30:00Z"
        ]
    );
}

#[test]
fn a_time_repeated_by_fall_back_fires_once_at_its_first_occurrence() {
    // New York falls back on 2026-11-01: 01:30 happens at 05:30Z (EDT) and
    // again at 06:30Z (EST); it fires at the first only.
    assert_eq!(
        fires("30 1 * * *", "America/New_York", "2026-10-31T12:00:00Z", 2),
        ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"]
    );
    // Searching from inside the repeated hour does not fire it again.
    assert_eq!(
        fires("30 1 * * *", "America/New_York", "2026-11-01T06:10:00Z", 1),
        ["2026-11-02T06:30:00Z"]
    );
}

#[test]
fn hourly_fires_cover_the_repeated_hour_by_instant() {
    // Every hour on the hour, local: 01:00 EDT (05:00Z), then 02:00 EST
    // (07:00Z): the repeated 01:00 EST (06:00Z) is the same local time.
    assert_eq!(
        fires("0 * * * *", "America/New_York", "2026-11-01T04:30:00Z", 2),
        ["2026-11-01T05:00:00Z", "2026-11-01T07:00:00Z"]
    );
}

#[test]
fn names_ranges_lists_and_steps() {
    // Weekdays at 09:00 and 17:00: from Friday 2026-03-06 18:00Z.
    assert_eq!(
        fires("0 9,17 * * mon-fri", "UTC", "2026-03-06T18:00:00Z", 3),
        [
            "2026-03-09T09:00:00Z",
            "2026-03-09T17:00:00Z",
            "2026-03-10T09:00:00Z"
        ]
    );
    // `5/20` is 5, 25, 45; 7 is Sunday too.
    assert_eq!(
        fires("5/20 0 * JAN 7", "UTC", "2026-01-01T00:00:00Z", 4),
        [
            "2026-01-04T00:05:00Z",
            "2026-01-04T00:25:00Z",
            "2026-01-04T00:45:00Z",
            "2026-01-11T00:05:00Z"
        ]
    );
}

#[test]
fn day_of_month_and_day_of_week_restricted_together_match_either() {
    // The 1st of the month, or any Monday: 2026-06-01 is a Monday, then
    // Monday 8th, then 1 July (a Wednesday) comes after Mondays 15/22/29.
    assert_eq!(
        fires("0 0 1 * mon", "UTC", "2026-05-30T00:00:00Z", 6),
        [
            "2026-06-01T00:00:00Z",
            "2026-06-08T00:00:00Z",
            "2026-06-15T00:00:00Z",
            "2026-06-22T00:00:00Z",
            "2026-06-29T00:00:00Z",
            "2026-07-01T00:00:00Z"
        ]
    );
}

#[test]
fn a_leap_day_fires_in_leap_years_only() {
    assert_eq!(
        fires("0 12 29 2 *", "UTC", "2026-01-01T00:00:00Z", 2),
        ["2028-02-29T12:00:00Z", "2032-02-29T12:00:00Z"]
    );
}

#[test]
fn macros_stand_for_their_expressions() {
    for (mac, expr) in [
        ("@hourly", "0 * * * *"),
        ("@daily", "0 0 * * *"),
        ("@weekly", "0 0 * * 0"),
        ("@monthly", "0 0 1 * *"),
        ("@yearly", "0 0 1 1 *"),
    ] {
        assert_eq!(
            fires(mac, "UTC", "2026-03-04T05:06:00Z", 3),
            fires(expr, "UTC", "2026-03-04T05:06:00Z", 3),
            "{mac}"
        );
    }
}

#[test]
fn bad_expressions_are_refused_with_the_reason() {
    for (text, reason) in [
        ("* * * *", "4 fields"),
        ("0 * * * * *", "seconds are not supported"),
        (
            "60 * * * *",
            "minute field `60`: 60 is out of range (0 to 59)",
        ),
        ("* 24 * * *", "hour field"),
        ("0 0 0 * *", "day of month field"),
        ("0 0 * 13 *", "month field"),
        ("0 0 * * 8", "day of week field"),
        ("0 0 * * fri-mon", "runs backwards"),
        ("*/0 * * * *", "a step of 0"),
        ("1,,2 * * * *", "an empty item"),
        ("x * * * *", "`x` is not a number"),
        ("0 0 * foo *", "not a number or a name"),
        ("0 0 30 2 *", "would never fire"),
        ("@reboot", "unknown macro"),
    ] {
        let err = CronExpr::parse(text).unwrap_err().to_string();
        assert!(err.contains(reason), "{text}: {err}");
        assert!(err.contains(text.trim()), "{text}: {err}");
    }
    // With a weekday restricted too, 30 February is not the only day.
    assert!(CronExpr::parse("0 0 30 2 mon").is_ok());
}
