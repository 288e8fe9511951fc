//! The rate-limit state of a response's headers, as windows:
//!
//! - Anthropic `anthropic-ratelimit-{requests,tokens,input-tokens,
//!   output-tokens}-{limit,remaining,reset}` (reset RFC 3339) → `requests`,
//!   `tokens`, `input_tokens`, `output_tokens`, utilization
//!   `1 - remaining / limit`;
//! - Anthropic's unified (subscription) windows,
//!   `anthropic-ratelimit-unified-<w>-{utilization,reset,status}` (reset in
//!   unix seconds, utilization 0..1) → `5h`, `7d`, and any other the
//!   headers name (`7d_oi`, `7d_opus`, `overage`, dashes as underscores);
//!   the overall `anthropic-ratelimit-unified-{status,reset}` → `unified`,
//!   with the utilization of the window `…-representative-claim` names;
//! - OpenAI `x-ratelimit-{limit,remaining,reset}-{requests,tokens}` (reset
//!   a duration such as `6m0s`, `1s`, `20ms`, from `now`);
//! - Codex `x-codex-{primary,secondary}-{used-percent,window-minutes,
//!   reset-at,reset-after-seconds}` → `primary`, `secondary` (utilization
//!   percent / 100), and the other metered families Codex reads
//!   (`x-<family>-primary-used-percent`) → `<family>_primary`, …;
//! - `retry-after` (seconds or an HTTP date) and `retry-after-ms`.
//!
//! Values that do not parse are skipped.

use agentgate_protocol::RateLimitWindow;
use http::HeaderMap;
use jiff::{SignedDuration, Timestamp};

/// The rate-limit state of a response's headers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RateLimits {
    /// Each window the headers describe.
    pub windows: Vec<RateLimitWindow>,
    /// `retry-after` (seconds or an HTTP date) or `retry-after-ms`, in
    /// seconds (rounded up).
    pub retry_after_s: Option<u64>,
}

/// Read the rate-limit headers (Anthropic `anthropic-ratelimit-*` with the
/// unified windows, OpenAI `x-ratelimit-*`, Codex `x-codex-*`,
/// `retry-after`); `now` turns relative resets into times.
pub fn rate_limits(headers: &HeaderMap, now: Timestamp) -> RateLimits {
    let mut windows = Vec::new();
    anthropic_classic(headers, &mut windows);
    anthropic_unified(headers, &mut windows);
    openai(headers, now, &mut windows);
    codex(headers, now, &mut windows);
    RateLimits {
        windows,
        retry_after_s: retry_after(headers, now),
    }
}

fn text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)?
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn number(headers: &HeaderMap, name: &str) -> Option<u64> {
    text(headers, name)?.parse().ok()
}

fn fraction(headers: &HeaderMap, name: &str) -> Option<f64> {
    text(headers, name)?
        .parse::<f64>()
        .ok()
        .filter(|f| f.is_finite() && *f >= 0.0)
}

/// RFC 3339, UTC, to the millisecond.
fn rfc3339(t: Timestamp) -> Option<String> {
    Some(t.round(jiff::Unit::Millisecond).ok()?.to_string())
}

/// `1 - remaining / limit`.
fn used(limit: Option<u64>, remaining: Option<u64>) -> Option<f64> {
    let (limit, remaining) = (limit?, remaining?);
    (limit > 0).then(|| limit.saturating_sub(remaining) as f64 / limit as f64)
}

/// The window called `name` in `windows`, added when new.
fn window<'a>(windows: &'a mut Vec<RateLimitWindow>, name: &str) -> &'a mut RateLimitWindow {
    let at = match windows.iter().position(|w| w.name == name) {
        Some(i) => i,
        None => {
            windows.push(RateLimitWindow {
                name: name.to_owned(),
                ..RateLimitWindow::default()
            });
            windows.len() - 1
        }
    };
    &mut windows[at]
}

fn anthropic_classic(headers: &HeaderMap, windows: &mut Vec<RateLimitWindow>) {
    for class in ["requests", "tokens", "input-tokens", "output-tokens"] {
        let h = |part: &str| format!("anthropic-ratelimit-{class}-{part}");
        let limit = number(headers, &h("limit"));
        let remaining = number(headers, &h("remaining"));
        let resets_at = text(headers, &h("reset"))
            .and_then(|s| s.parse::<Timestamp>().ok())
            .and_then(rfc3339);
        if limit.is_none() && remaining.is_none() && resets_at.is_none() {
            continue;
        }
        windows.push(RateLimitWindow {
            name: class.replace('-', "_"),
            limit,
            remaining,
            utilization: used(limit, remaining),
            resets_at,
            status: None,
        });
    }
}

/// A unix time in seconds (maybe fractional), or RFC 3339.
fn absolute_time(s: &str) -> Option<Timestamp> {
    if let Ok(secs) = s.parse::<i64>() {
        return Timestamp::from_second(secs).ok();
    }
    if let Ok(secs) = s.parse::<f64>() {
        if !secs.is_finite() || secs.abs() > 1e13 {
            return None;
        }
        return Timestamp::from_millisecond((secs * 1000.0).round() as i64).ok();
    }
    s.parse::<Timestamp>().ok()
}

fn anthropic_unified(headers: &HeaderMap, windows: &mut Vec<RateLimitWindow>) {
    const PREFIX: &str = "anthropic-ratelimit-unified-";
    let mut unified: Vec<RateLimitWindow> = Vec::new();
    for (name, value) in headers {
        let Some(rest) = name.as_str().strip_prefix(PREFIX) else {
            continue;
        };
        let Some(value) = value.to_str().ok().map(str::trim).filter(|v| !v.is_empty()) else {
            continue;
        };
        for part in ["utilization", "reset", "status"] {
            let win = if rest == part {
                "unified".to_owned()
            } else if let Some(w) = rest.strip_suffix(part).and_then(|w| w.strip_suffix('-')) {
                w.replace('-', "_")
            } else {
                continue;
            };
            match part {
                "utilization" => {
                    if let Some(u) = value
                        .parse::<f64>()
                        .ok()
                        .filter(|f| f.is_finite() && *f >= 0.0)
                    {
                        window(&mut unified, &win).utilization = Some(u);
                    }
                }
                "reset" => {
                    if let Some(t) = absolute_time(value).and_then(rfc3339) {
                        window(&mut unified, &win).resets_at = Some(t);
                    }
                }
                _ => window(&mut unified, &win).status = Some(value.to_owned()),
            }
        }
    }
    // The overall state takes the utilization of the window that binds.
    if let Some(claim) = text(headers, "anthropic-ratelimit-unified-representative-claim")
        && let Some(at) = unified.iter().position(|w| w.name == "unified")
        && unified[at].utilization.is_none()
    {
        let binding = claim_window(claim);
        let utilization = unified
            .iter()
            .find(|w| w.name == binding)
            .and_then(|w| w.utilization);
        unified[at].utilization = utilization;
    }
    unified.sort_by(|a, b| a.name.cmp(&b.name));
    windows.extend(unified);
}

/// The window a representative claim names: `five_hour` → `5h`,
/// `seven_day` → `7d`, `seven_day_opus` → `7d_opus`.
fn claim_window(claim: &str) -> String {
    if let Some(rest) = claim.strip_prefix("five_hour") {
        format!("5h{rest}")
    } else if let Some(rest) = claim.strip_prefix("seven_day") {
        format!("7d{rest}")
    } else {
        claim.to_owned()
    }
}

fn openai(headers: &HeaderMap, now: Timestamp, windows: &mut Vec<RateLimitWindow>) {
    let mut found: Vec<RateLimitWindow> = Vec::new();
    for (name, value) in headers {
        let Some(rest) = name.as_str().strip_prefix("x-ratelimit-") else {
            continue;
        };
        let Some((part, class)) = rest.split_once('-') else {
            continue;
        };
        let Some(value) = value.to_str().ok().map(str::trim) else {
            continue;
        };
        let class = class.replace('-', "_");
        match part {
            "limit" => {
                if let Ok(n) = value.parse() {
                    window(&mut found, &class).limit = Some(n);
                }
            }
            "remaining" => {
                if let Ok(n) = value.parse() {
                    window(&mut found, &class).remaining = Some(n);
                }
            }
            "reset" => {
                let at = go_duration(value)
                    .and_then(|d| now.checked_add(d).ok())
                    .or_else(|| value.parse::<Timestamp>().ok());
                if let Some(t) = at.and_then(rfc3339) {
                    window(&mut found, &class).resets_at = Some(t);
                }
            }
            _ => {}
        }
    }
    for w in &mut found {
        w.utilization = used(w.limit, w.remaining);
    }
    windows.extend(found);
}

/// A duration as OpenAI writes it (Go's form): `6m0s`, `1s`, `20ms`,
/// `1h2m3.5s`, `0.5s`.
pub(crate) fn go_duration(s: &str) -> Option<SignedDuration> {
    if s.is_empty() {
        return None;
    }
    let mut rest = s;
    let mut nanos: f64 = 0.0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let value: f64 = rest[..digits].parse().ok()?;
        rest = &rest[digits..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let scale = match &rest[..unit_len] {
            "h" => 3.6e12,
            "m" => 6e10,
            "s" => 1e9,
            "ms" => 1e6,
            "us" | "µs" => 1e3,
            "ns" => 1.0,
            _ => return None,
        };
        rest = &rest[unit_len..];
        nanos += value * scale;
    }
    (nanos.is_finite() && nanos < 1e20).then(|| SignedDuration::from_nanos(nanos.round() as i64))
}

fn codex(headers: &HeaderMap, now: Timestamp, windows: &mut Vec<RateLimitWindow>) {
    let mut families: Vec<String> = headers
        .keys()
        .filter_map(|k| {
            let name = k.as_str();
            let family = name
                .strip_suffix("-primary-used-percent")
                .or_else(|| name.strip_suffix("-secondary-used-percent"))?;
            family.strip_prefix("x-").map(str::to_owned)
        })
        .collect();
    families.sort();
    families.dedup();
    // The codex family first, as Codex reads it.
    families.sort_by_key(|f| f != "codex");
    for family in families {
        for which in ["primary", "secondary"] {
            let h = |part: &str| format!("x-{family}-{which}-{part}");
            let Some(percent) = fraction(headers, &h("used-percent")) else {
                continue;
            };
            let resets_at = text(headers, &h("reset-at"))
                .and_then(absolute_time)
                .or_else(|| {
                    let after = number(headers, &h("reset-after-seconds"))
                        .or_else(|| number(headers, &h("resets-in-seconds")))?;
                    let after = i64::try_from(after).ok()?;
                    now.checked_add(SignedDuration::from_secs(after)).ok()
                })
                .and_then(rfc3339);
            let name = if family == "codex" {
                which.to_owned()
            } else {
                format!("{}_{which}", family.replace('-', "_"))
            };
            windows.push(RateLimitWindow {
                name,
                utilization: Some(percent / 100.0),
                resets_at,
                ..RateLimitWindow::default()
            });
        }
    }
}

/// `retry-after-ms`, else `retry-after` (seconds, or an HTTP date from
/// `now`), in seconds rounded up.
fn retry_after(headers: &HeaderMap, now: Timestamp) -> Option<u64> {
    if let Some(ms) = text(headers, "retry-after-ms")
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|f| f.is_finite() && *f >= 0.0 && *f < 1e15)
    {
        return Some((ms / 1000.0).ceil() as u64);
    }
    let value = text(headers, "retry-after")?;
    if let Ok(secs) = value.parse::<f64>() {
        return (0.0..1e15).contains(&secs).then(|| secs.ceil() as u64);
    }
    let at = jiff::fmt::rfc2822::DateTimeParser::new()
        .parse_timestamp(value)
        .ok()?;
    let wait = at.duration_since(now);
    if wait.is_negative() {
        return Some(0);
    }
    let secs = wait.as_secs() as u64;
    Some(if wait.subsec_nanos() > 0 {
        secs + 1
    } else {
        secs
    })
}

#[cfg(test)]
#[path = "rate_limits_tests.rs"]
mod tests;
