//! record_wire_quota on a real SQLite store: each case of its decision,
//! the hold and what lifts it, and how record_quota treats what the wire
//! stored.

use agentgate_protocol::{
    ErrorKind, ErrorSource, ModelCallEvent, RateLimitEvent, RateLimitStatus, RateLimitWindow,
    WireApi,
};
use agentgate_store::{QuotaStatus, Store};

use super::*;

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("agentgate.db")).unwrap();
    (dir, store)
}

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

/// Noon; the windows below reset at 15:00 (5h), the next day (7d), 12:01
/// (requests).
fn now() -> Timestamp {
    at("2026-05-01T12:00:00Z")
}

fn call(status: u16, rate_limits: Vec<RateLimitWindow>) -> ModelCallEvent {
    ModelCallEvent {
        call: 1,
        api: WireApi::AnthropicMessages,
        model: Some("claude-sonnet-4-5".into()),
        path: "/v1/messages".into(),
        stream: true,
        status: Some(status),
        request_bytes: 100,
        response_bytes: 200,
        latency_ms: 30,
        ttft_ms: Some(10),
        usage: None,
        cache_write_5m_tokens: None,
        cache_write_1h_tokens: None,
        rate_limits,
        retry_after_s: None,
        error: None,
        refused_by: None,
    }
}

fn unified(name: &str, utilization: f64, resets_at: &str, status: &str) -> RateLimitWindow {
    RateLimitWindow {
        name: name.into(),
        utilization: Some(utilization),
        resets_at: Some(resets_at.into()),
        status: Some(status.into()),
        ..RateLimitWindow::default()
    }
}

fn five_hours(utilization: f64) -> RateLimitWindow {
    unified("5h", utilization, "2026-05-01T15:00:00Z", "allowed")
}

fn seven_days(utilization: f64) -> RateLimitWindow {
    unified("7d", utilization, "2026-05-02T00:00:00Z", "allowed")
}

fn requests(limit: u64, remaining: u64) -> RateLimitWindow {
    RateLimitWindow {
        name: "requests".into(),
        limit: Some(limit),
        remaining: Some(remaining),
        resets_at: Some("2026-05-01T12:01:00Z".into()),
        ..RateLimitWindow::default()
    }
}

#[test]
fn a_call_without_windows_that_is_not_a_429_records_nothing() {
    let (_dir, store) = store();
    record_wire_quota(&store, "claude", "r1", &call(200, vec![]), Some(0.9), now());
    // A retry-after alone (an overloaded upstream) is not about quota.
    let mut overloaded = call(529, vec![]);
    overloaded.retry_after_s = Some(30);
    record_wire_quota(&store, "claude", "r1", &overloaded, Some(0.9), now());
    assert_eq!(store.get_quota("claude").unwrap(), None);
}

#[test]
fn a_used_up_window_exhausts_until_the_latest_reset_of_the_used_up_ones() {
    let (_dir, store) = store();
    let windows = vec![five_hours(1.0), seven_days(1.0), requests(50, 40)];
    let mut limited = call(429, windows.clone());
    limited.retry_after_s = Some(10);
    record_wire_quota(&store, "claude@team-a", "r1", &limited, None, now());
    let s = store.get_quota("claude@team-a").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Exhausted);
    assert_eq!(s.reset_at, Some(at("2026-05-02T00:00:00Z")));
    assert_eq!(s.source, "wire:r1");
    assert_eq!(
        s.message.as_deref(),
        Some("window 7d at 100%, resets 2026-05-02T00:00:00Z")
    );
    assert_eq!(s.windows, windows);
    assert!(!is_quota_hold(&s));
    // Runs skip it and the queue holds its jobs until then.
    let skipped = exhausted_quota(&store, "claude@team-a", now()).unwrap();
    assert_eq!(skipped.reset_at, Some(at("2026-05-02T00:00:00Z")));
}

#[test]
fn a_window_with_nothing_remaining_or_rejected_is_used_up_without_a_429() {
    let (_dir, store) = store();
    // OpenAI: remaining 0 on a response that still succeeded.
    let openai = call(200, vec![requests(500, 0)]);
    record_wire_quota(&store, "codex", "r1", &openai, None, now());
    let s = store.get_quota("codex").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Exhausted);
    assert_eq!(s.reset_at, Some(at("2026-05-01T12:01:00Z")));
    assert_eq!(
        s.message.as_deref(),
        Some("window requests at 100%, resets 2026-05-01T12:01:00Z")
    );
    // Anthropic's own word, whatever the share says.
    let rejected = unified("5h", 0.5, "2026-05-01T15:00:00Z", "rejected");
    record_wire_quota(
        &store,
        "claude",
        "r2",
        &call(200, vec![rejected]),
        None,
        now(),
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(
        (s.status, s.reset_at),
        (QuotaStatus::Exhausted, Some(at("2026-05-01T15:00:00Z")))
    );
}

#[test]
fn a_429_that_says_only_retry_after_is_a_rate_limit_until_then_and_keeps_the_windows() {
    let (_dir, store) = store();
    record_wire_quota(
        &store,
        "claude",
        "r1",
        &call(200, vec![five_hours(0.5)]),
        None,
        now(),
    );
    let mut limited = call(429, vec![]);
    limited.retry_after_s = Some(30);
    record_wire_quota(&store, "claude", "r2", &limited, None, now());
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Warning);
    assert_eq!(s.reset_at, Some(at("2026-05-01T12:00:30Z")));
    assert_eq!(s.source, "wire:r2");
    assert_eq!(
        s.message.as_deref(),
        Some("rate limited (HTTP 429), retry after 30s")
    );
    assert_eq!(
        s.windows,
        vec![five_hours(0.5)],
        "the last windows reported"
    );
    // A rate limit is not skipped.
    assert!(exhausted_quota(&store, "claude", now()).is_none());

    // A used-up window that says no reset: the retry-after is the reset.
    let mut no_reset = requests(100, 0);
    no_reset.resets_at = None;
    let mut limited = call(429, vec![no_reset.clone()]);
    limited.retry_after_s = Some(5);
    record_wire_quota(&store, "codex", "r3", &limited, None, now());
    let s = store.get_quota("codex").unwrap().unwrap();
    assert_eq!(
        (s.status, s.reset_at, s.message.as_deref()),
        (
            QuotaStatus::Warning,
            Some(at("2026-05-01T12:00:05Z")),
            Some("window requests used up, retry after 5s")
        )
    );
    // Neither: exhausted with no reset time, which no run skips on.
    record_wire_quota(
        &store,
        "codex",
        "r4",
        &call(200, vec![no_reset]),
        None,
        now(),
    );
    let s = store.get_quota("codex").unwrap().unwrap();
    assert_eq!((s.status, s.reset_at), (QuotaStatus::Exhausted, None));
    assert!(exhausted_quota(&store, "codex", now()).is_none());
    // A bare 429: a rate limit with no reset.
    record_wire_quota(&store, "gemini", "r5", &call(429, vec![]), None, now());
    let s = store.get_quota("gemini").unwrap().unwrap();
    assert_eq!(
        (s.status, s.reset_at, s.message.as_deref()),
        (QuotaStatus::Warning, None, Some("rate limited (HTTP 429)"))
    );
}

#[test]
fn a_window_at_or_above_the_threshold_holds_the_provider_until_its_reset() {
    let (_dir, store) = store();
    let windows = vec![five_hours(0.97), seven_days(0.40)];
    record_wire_quota(
        &store,
        "claude",
        "r1",
        &call(200, windows.clone()),
        Some(0.95),
        now(),
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Held);
    assert_eq!(s.reset_at, Some(at("2026-05-01T15:00:00Z")));
    assert_eq!(
        s.message.as_deref(),
        Some("held: window 5h at 97% (quota_hold_above 0.95), resets 2026-05-01T15:00:00Z")
    );
    assert_eq!(s.windows, windows);
    assert!(is_quota_hold(&s));
    let held = exhausted_quota(&store, "claude", now()).unwrap();
    assert_eq!(held.reset_at, Some(at("2026-05-01T15:00:00Z")));
    // Exactly at the threshold holds too; the latest reset of the windows
    // over it is the one waited for.
    let both = vec![five_hours(0.96), seven_days(0.95)];
    record_wire_quota(&store, "claude", "r2", &call(200, both), Some(0.95), now());
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.reset_at, Some(at("2026-05-02T00:00:00Z")));
    assert!(is_quota_hold(&s));
    // Without a threshold the same windows only say where they stand.
    record_wire_quota(&store, "codex", "r3", &call(200, windows), None, now());
    let s = store.get_quota("codex").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Available);
    assert!(exhausted_quota(&store, "codex", now()).is_none());
}

#[test]
fn a_window_over_the_threshold_without_a_reset_is_a_warning_not_a_hold() {
    let (_dir, store) = store();
    let mut window = five_hours(0.99);
    window.resets_at = None;
    record_wire_quota(
        &store,
        "claude",
        "r1",
        &call(200, vec![window]),
        Some(0.95),
        now(),
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!((s.status, s.reset_at), (QuotaStatus::Warning, None));
    assert_eq!(
        s.message.as_deref(),
        Some("window 5h at 99% is over quota_hold_above 0.95, but says no reset time: not held")
    );
    assert!(exhausted_quota(&store, "claude", now()).is_none());
}

#[test]
fn windows_below_every_limit_are_available_until_the_earliest_reset() {
    let (_dir, store) = store();
    let windows = vec![seven_days(0.2), five_hours(0.42), requests(100, 90)];
    record_wire_quota(
        &store,
        "claude",
        "r1",
        &call(200, windows.clone()),
        Some(0.95),
        now(),
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Available);
    assert_eq!(s.reset_at, Some(at("2026-05-01T12:01:00Z")));
    assert_eq!(
        s.message.as_deref(),
        Some("window 5h at 42%, resets 2026-05-01T15:00:00Z"),
        "the most used window"
    );
    assert_eq!(s.windows, windows);
    // A window's own warning makes the state a warning.
    let warned = vec![unified(
        "5h",
        0.8,
        "2026-05-01T15:00:00Z",
        "allowed_warning",
    )];
    record_wire_quota(
        &store,
        "claude",
        "r2",
        &call(200, warned),
        Some(0.95),
        now(),
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Warning);
    assert!(exhausted_quota(&store, "claude", now()).is_none());
}

#[test]
fn a_later_call_below_the_threshold_lifts_the_hold() {
    let (_dir, store) = store();
    let hold = call(200, vec![five_hours(0.97)]);
    record_wire_quota(&store, "claude", "r1", &hold, Some(0.95), now());
    assert!(exhausted_quota(&store, "claude", now()).is_some());
    // After the reset, the window starts again.
    let after = at("2026-05-01T15:00:05Z");
    let fresh = unified("5h", 0.03, "2026-05-01T20:00:00Z", "allowed");
    record_wire_quota(
        &store,
        "claude",
        "r2",
        &call(200, vec![fresh.clone()]),
        Some(0.95),
        after,
    );
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(s.status, QuotaStatus::Available);
    assert_eq!(s.source, "wire:r2");
    assert_eq!(s.reset_at, Some(at("2026-05-01T20:00:00Z")));
    assert_eq!(s.windows, vec![fresh]);
    assert!(exhausted_quota(&store, "claude", after).is_none());
    assert!(!is_quota_hold(&s));
}

#[test]
fn what_a_cli_prints_does_not_lift_what_the_wire_exhausted_and_keeps_its_windows() {
    let (_dir, store) = store();
    let hold = call(200, vec![five_hours(0.97)]);
    record_wire_quota(&store, "claude", "r1", &hold, Some(0.95), now());
    // The CLI's own rate-limit event, read from the same headers.
    let event = RateLimitEvent {
        status: RateLimitStatus::Warning,
        resets_at: Some("2026-05-01T15:00:00Z".into()),
        window: Some("five_hour".into()),
        utilization: Some(0.97),
    };
    record_quota(&store, "claude", "r1", None, Some(&event), now());
    let rate_limited = ErrorInfo::new(ErrorKind::RateLimit, ErrorSource::Pattern, "slow down");
    record_quota(&store, "claude", "r1", Some(&rate_limited), None, now());
    let s = store.get_quota("claude").unwrap().unwrap();
    assert!(is_quota_hold(&s), "{s:?}");
    // A quota error replaces it, keeping the windows the wire read.
    let mut quota = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Pattern, "limit reached");
    quota.reset_at = Some("2026-05-01T15:00:00Z".into());
    record_quota(&store, "claude", "r1", Some(&quota), None, now());
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(
        (s.status, s.source.as_str()),
        (QuotaStatus::Exhausted, "error:r1")
    );
    assert_eq!(s.windows, vec![five_hours(0.97)]);
    // Once the reset passed, a success makes it available, windows kept.
    let after = at("2026-05-01T15:00:01Z");
    record_quota(&store, "claude", "r2", None, None, after);
    let s = store.get_quota("claude").unwrap().unwrap();
    assert_eq!(
        (s.status, s.source.as_str()),
        (QuotaStatus::Available, "success:r2")
    );
    assert_eq!(s.windows, vec![five_hours(0.97)]);
    // And a CLI's event may replace a wire state whose reset passed.
    record_wire_quota(&store, "codex", "r3", &hold, Some(0.95), now());
    record_quota(&store, "codex", "r4", None, Some(&event), after);
    let s = store.get_quota("codex").unwrap().unwrap();
    assert_eq!(
        (s.status, s.source.as_str()),
        (QuotaStatus::Warning, "event:r4")
    );
}

#[test]
fn shares_read_as_percentages_never_rounded_up_to_full() {
    assert_eq!(usage_percent(0.97), "97%");
    assert_eq!(usage_percent(0.425), "42.5%");
    assert_eq!(usage_percent(0.9996), "99.9%");
    assert_eq!(usage_percent(1.0), "100%");
    assert_eq!(usage_percent(0.0), "0%");
}
