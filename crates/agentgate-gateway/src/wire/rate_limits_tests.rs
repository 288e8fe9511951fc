//! Rate-limit headers as the APIs send them.

use http::{HeaderMap, HeaderName, HeaderValue};

use super::*;

fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
    let mut h = HeaderMap::new();
    for (k, v) in pairs {
        h.append(
            HeaderName::from_bytes(k.as_bytes()).unwrap(),
            HeaderValue::from_str(v).unwrap(),
        );
    }
    h
}

fn now() -> Timestamp {
    "2026-11-29T10:00:00Z".parse().unwrap()
}

fn find<'a>(r: &'a RateLimits, name: &str) -> &'a RateLimitWindow {
    r.windows
        .iter()
        .find(|w| w.name == name)
        .unwrap_or_else(|| panic!("no window {name} in {r:?}"))
}

#[test]
fn anthropic_classic_windows() {
    let r = rate_limits(
        &headers(&[
            ("anthropic-ratelimit-requests-limit", "50"),
            ("anthropic-ratelimit-requests-remaining", "49"),
            ("anthropic-ratelimit-requests-reset", "2026-11-29T10:00:01Z"),
            ("anthropic-ratelimit-tokens-limit", "100000"),
            ("anthropic-ratelimit-tokens-remaining", "75000"),
            (
                "anthropic-ratelimit-tokens-reset",
                "2026-11-29T10:00:06+00:00",
            ),
            ("anthropic-ratelimit-input-tokens-limit", "80000"),
            ("anthropic-ratelimit-input-tokens-remaining", "80000"),
            (
                "anthropic-ratelimit-input-tokens-reset",
                "2026-11-29T10:00:00Z",
            ),
            ("anthropic-ratelimit-output-tokens-limit", "20000"),
            ("anthropic-ratelimit-output-tokens-remaining", "0"),
            ("anthropic-ratelimit-output-tokens-reset", "not a time"),
        ]),
        now(),
    );
    let names: Vec<&str> = r.windows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(
        names,
        ["requests", "tokens", "input_tokens", "output_tokens"]
    );
    let t = find(&r, "tokens");
    assert_eq!(
        (t.limit, t.remaining, t.utilization),
        (Some(100000), Some(75000), Some(0.25))
    );
    assert_eq!(t.resets_at.as_deref(), Some("2026-11-29T10:00:06Z"));
    assert_eq!(find(&r, "requests").utilization, Some(0.02));
    let out = find(&r, "output_tokens");
    assert_eq!(
        (out.utilization, out.resets_at.as_deref()),
        (Some(1.0), None)
    );
    assert_eq!(r.retry_after_s, None);
}

#[test]
fn anthropic_unified_windows_as_a_subscription_429_sends_them() {
    let r = rate_limits(
        &headers(&[
            ("anthropic-ratelimit-unified-status", "rejected"),
            ("anthropic-ratelimit-unified-reset", "1795000000"),
            (
                "anthropic-ratelimit-unified-representative-claim",
                "five_hour",
            ),
            ("anthropic-ratelimit-unified-5h-status", "rejected"),
            ("anthropic-ratelimit-unified-5h-reset", "1795000000"),
            ("anthropic-ratelimit-unified-5h-utilization", "1.0"),
            ("anthropic-ratelimit-unified-7d-status", "allowed"),
            ("anthropic-ratelimit-unified-7d-reset", "1795400000"),
            ("anthropic-ratelimit-unified-7d-utilization", "0.59"),
            ("anthropic-ratelimit-unified-7d_oi-utilization", "0.10"),
            ("anthropic-ratelimit-unified-fallback-percentage", "0.5"),
            ("anthropic-ratelimit-unified-overage-status", "rejected"),
            (
                "anthropic-ratelimit-unified-overage-disabled-reason",
                "out_of_credits",
            ),
            ("anthropic-ratelimit-unified-7d-opus-utilization", "bad"),
            ("retry-after", "2094"),
        ]),
        now(),
    );
    let names: Vec<&str> = r.windows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["5h", "7d", "7d_oi", "overage", "unified"]);
    let five = find(&r, "5h");
    assert_eq!(five.utilization, Some(1.0));
    assert_eq!(five.status.as_deref(), Some("rejected"));
    assert_eq!(five.resets_at.as_deref(), Some("2026-11-18T11:06:40Z"));
    let week = find(&r, "7d");
    assert_eq!(
        (week.utilization, week.status.as_deref()),
        (Some(0.59), Some("allowed"))
    );
    assert_eq!(find(&r, "overage").status.as_deref(), Some("rejected"));
    let unified = find(&r, "unified");
    assert_eq!(unified.status.as_deref(), Some("rejected"));
    assert_eq!(
        unified.utilization,
        Some(1.0),
        "the representative claim's window"
    );
    assert_eq!(r.retry_after_s, Some(2094));
}

#[test]
fn openai_windows_reset_after_a_duration() {
    let r = rate_limits(
        &headers(&[
            ("x-ratelimit-limit-requests", "10000"),
            ("x-ratelimit-remaining-requests", "9999"),
            ("x-ratelimit-reset-requests", "6m0s"),
            ("x-ratelimit-limit-tokens", "2000000"),
            ("x-ratelimit-remaining-tokens", "1500000"),
            ("x-ratelimit-reset-tokens", "20ms"),
            ("retry-after-ms", "1500"),
            ("retry-after", "9"),
        ]),
        now(),
    );
    let req = find(&r, "requests");
    assert_eq!((req.limit, req.remaining), (Some(10000), Some(9999)));
    assert_eq!(req.resets_at.as_deref(), Some("2026-11-29T10:06:00Z"));
    let tok = find(&r, "tokens");
    assert_eq!(tok.utilization, Some(0.25));
    assert_eq!(tok.resets_at.as_deref(), Some("2026-11-29T10:00:00.02Z"));
    assert_eq!(r.retry_after_s, Some(2), "retry-after-ms first, rounded up");
}

#[test]
fn go_durations() {
    let cases = [
        ("1s", Some(1_000_000_000_i64)),
        ("6m0s", Some(360_000_000_000)),
        ("20ms", Some(20_000_000)),
        ("1h2m3.5s", Some(3_723_500_000_000)),
        ("0.5s", Some(500_000_000)),
        ("", None),
        ("5", None),
        ("5x", None),
        ("s", None),
        ("1e400s", None),
    ];
    for (text, nanos) in cases {
        assert_eq!(
            go_duration(text).map(|d| d.as_nanos()),
            nanos.map(i128::from),
            "{text}"
        );
    }
}

#[test]
fn codex_usage_percent_windows() {
    let r = rate_limits(
        &headers(&[
            ("x-codex-primary-used-percent", "42.5"),
            ("x-codex-primary-window-minutes", "300"),
            ("x-codex-primary-reset-at", "1795000000"),
            ("x-codex-secondary-used-percent", "7"),
            ("x-codex-secondary-window-minutes", "10080"),
            ("x-codex-secondary-reset-after-seconds", "3600"),
            ("x-codex-bengalfox-primary-used-percent", "80"),
            ("x-codex-credits-balance", "0"),
            ("x-codex-plan-type", "pro"),
        ]),
        now(),
    );
    let names: Vec<&str> = r.windows.iter().map(|w| w.name.as_str()).collect();
    assert_eq!(names, ["primary", "secondary", "codex_bengalfox_primary"]);
    let p = find(&r, "primary");
    assert_eq!(p.utilization, Some(0.425));
    assert_eq!(p.resets_at.as_deref(), Some("2026-11-18T11:06:40Z"));
    let s = find(&r, "secondary");
    assert_eq!(s.utilization, Some(0.07));
    assert_eq!(s.resets_at.as_deref(), Some("2026-11-29T11:00:00Z"));
    assert_eq!(find(&r, "codex_bengalfox_primary").utilization, Some(0.8));
}

#[test]
fn retry_after_as_an_http_date() {
    let r = rate_limits(
        &headers(&[("retry-after", "Sun, 29 Nov 2026 10:00:30 GMT")]),
        now(),
    );
    assert_eq!(r.retry_after_s, Some(30));
    let r = rate_limits(
        &headers(&[("retry-after", "Sun, 29 Nov 2026 09:00:00 GMT")]),
        now(),
    );
    assert_eq!(r.retry_after_s, Some(0), "a date passed: retry now");
    let r = rate_limits(&headers(&[("retry-after", "1.2")]), now());
    assert_eq!(r.retry_after_s, Some(2));
}

#[test]
fn unparseable_values_are_skipped() {
    let mut h = headers(&[
        ("x-ratelimit-limit-requests", "many"),
        ("x-ratelimit-remaining-requests", "-1"),
        ("x-ratelimit-reset-requests", "soon"),
        ("anthropic-ratelimit-tokens-limit", "1e9"),
        ("anthropic-ratelimit-unified-5h-utilization", "NaN"),
        (
            "anthropic-ratelimit-unified-5h-reset",
            "99999999999999999999",
        ),
        ("x-codex-primary-used-percent", "lots"),
        ("x-codex-secondary-used-percent", "inf"),
        ("retry-after", "tomorrow"),
        ("retry-after-ms", "-5"),
        ("x-ratelimit-", "1"),
    ]);
    h.append(
        "anthropic-ratelimit-unified-7d-status",
        HeaderValue::from_bytes(b"\xffbad").unwrap(),
    );
    let r = rate_limits(&h, now());
    assert!(
        r.windows.iter().all(|w| w.limit.is_none()
            && w.remaining.is_none()
            && w.utilization.is_none()
            && w.resets_at.is_none()
            && w.status.is_none()),
        "{r:?}"
    );
    assert_eq!(r.retry_after_s, None);
    assert_eq!(rate_limits(&HeaderMap::new(), now()), RateLimits::default());
}
