//! The quota state one model call tells, as the run's gateway saw it on
//! the wire: its rate-limit windows, its status (a 429) and its
//! `retry-after` ([`record_wire_quota`]). The decision is a pure function
//! of the call ([`wire_state`]); the store is read only to keep the
//! windows of the last call that reported some.

use agentgate_protocol::{ModelCallEvent, RateLimitWindow};
use agentgate_store::{QuotaState, QuotaStatus, RunStore};
use jiff::{SignedDuration, Timestamp};

use super::{HOLD_PREFIX, WIRE_SOURCE};

/// HTTP 429 Too Many Requests.
const TOO_MANY_REQUESTS: u16 = 429;

/// Record in `store`, under `quota_key`, what the model call `call` of run
/// `run_id` says about the provider's usage limit. The run calls it for
/// every model call its gateway saw; `hold_above` is the config's
/// `gateway.quota_hold_above`.
///
/// - Nothing is recorded when the call carries no rate-limit window and is
///   not a 429 (a `retry-after` alone, e.g. on a 503 or 529, is about load,
///   not quota).
/// - A 429, or a window used up (utilization >= 1.0, `remaining` 0, or the
///   API's status `rejected`): `exhausted` until the reset of the used-up
///   window (the latest, if several), message `window 5h at 100%, resets
///   …`. When no used-up window says when it resets, the `retry-after` is
///   the reset (now + its seconds) and the state is `warning` (a rate
///   limit, as a CLI's rate-limit error records); with neither, a used-up
///   window is `exhausted` with no reset (not skipped: see
///   [`super::exhausted_quota`]) and a bare 429 a `warning`.
/// - Else, with `hold_above` set and a window used at or above it: a hold,
///   stored as `held` until that window's reset (the latest, if
///   several), so runs skip the provider and the queue holds its jobs until
///   then exactly as for a quota wait; message `held: window 5h at 97%
///   (quota_hold_above 0.95), resets …`. A window over the threshold that
///   says no reset is not held (nothing says until when): `warning`.
/// - Else `available` (`warning` when a window's own status says so, e.g.
///   Anthropic's `allowed_warning`) until the earliest window reset, with a
///   message naming the most used window. So the first call after a reset
///   lifts a hold.
///
/// The source is `wire:<run_id>`. The call's windows are always stored;
/// a call that reported none (a bare 429) keeps those stored before. A
/// store error is logged, never returned: the run goes on.
pub fn record_wire_quota(
    store: &dyn RunStore,
    quota_key: &str,
    run_id: &str,
    call: &ModelCallEvent,
    hold_above: Option<f64>,
    now: Timestamp,
) {
    let Some(mut state) = wire_state(call, run_id, hold_above, now) else {
        return;
    };
    if state.windows.is_empty() {
        match store.get_quota(quota_key) {
            Ok(Some(old)) => state.windows = old.windows,
            Ok(None) => {}
            Err(e) => tracing::warn!("failed to read {quota_key}'s quota state: {e}"),
        }
    }
    if let Err(e) = store.put_quota(quota_key, &state) {
        tracing::warn!("failed to record {quota_key}'s quota state: {e}");
    }
}

/// The state `call` tells (see [`record_wire_quota`]), with the call's own
/// windows; `None`: it tells nothing.
fn wire_state(
    call: &ModelCallEvent,
    run_id: &str,
    hold_above: Option<f64>,
    now: Timestamp,
) -> Option<QuotaState> {
    let windows = &call.rate_limits;
    let too_many = call.status == Some(TOO_MANY_REQUESTS);
    if windows.is_empty() && !too_many {
        return None;
    }
    let state = |status, reset_at, message| QuotaState {
        status,
        reset_at,
        source: format!("{WIRE_SOURCE}{run_id}"),
        updated_at: now,
        message: Some(message),
        windows: windows.clone(),
    };
    let used_up: Vec<&RateLimitWindow> = windows.iter().filter(|w| is_used_up(w)).collect();
    if too_many || !used_up.is_empty() {
        if let Some((reset, window)) = latest_reset(&used_up) {
            return Some(state(QuotaStatus::Exhausted, Some(reset), describe(window)));
        }
        let what = match used_up.first() {
            Some(w) => format!("window {} used up", w.name),
            None => "rate limited (HTTP 429)".to_owned(),
        };
        let retry = call.retry_after_s.map(|s| {
            let wait = SignedDuration::from_secs(i64::try_from(s).unwrap_or(i64::MAX));
            (s, now.checked_add(wait).unwrap_or(Timestamp::MAX))
        });
        return Some(match retry {
            Some((s, at)) => state(
                QuotaStatus::Warning,
                Some(at),
                format!("{what}, retry after {s}s"),
            ),
            None if !used_up.is_empty() => state(
                QuotaStatus::Exhausted,
                None,
                format!("{what}, reset time unknown"),
            ),
            None => state(QuotaStatus::Warning, None, what),
        });
    }
    if let Some(threshold) = hold_above {
        let over: Vec<&RateLimitWindow> = windows
            .iter()
            .filter(|w| window_utilization(w).is_some_and(|u| u >= threshold))
            .collect();
        if let Some((reset, window)) = latest_reset(&over) {
            let message = format!(
                "{HOLD_PREFIX}window {} at {} (quota_hold_above {threshold}), resets {reset}",
                window.name,
                usage_percent(window_utilization(window).unwrap_or(1.0)),
            );
            return Some(state(QuotaStatus::Held, Some(reset), message));
        }
        if let Some(window) = over.first() {
            let message = format!(
                "window {} at {} is over quota_hold_above {threshold}, but says no reset time: not held",
                window.name,
                usage_percent(window_utilization(window).unwrap_or(1.0)),
            );
            return Some(state(
                QuotaStatus::Warning,
                earliest_reset(windows),
                message,
            ));
        }
    }
    let warned = windows
        .iter()
        .any(|w| w.status.as_deref().is_some_and(|s| s.ends_with("warning")));
    let status = if warned {
        QuotaStatus::Warning
    } else {
        QuotaStatus::Available
    };
    let most_used = windows
        .iter()
        .filter_map(|w| window_utilization(w).map(|u| (u, w)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, w)| w)
        .or(windows.first());
    let message = most_used.map_or_else(String::new, describe);
    Some(state(status, earliest_reset(windows), message))
}

/// How much of `window` is used, from 0.0: as the API says, else
/// `1 - remaining / limit`.
pub fn window_utilization(window: &RateLimitWindow) -> Option<f64> {
    window
        .utilization
        .or_else(|| match (window.remaining, window.limit) {
            (Some(remaining), Some(limit)) if limit > 0 => {
                Some(1.0 - remaining.min(limit) as f64 / limit as f64)
            }
            _ => None,
        })
}

/// Whether nothing is left of `window`.
fn is_used_up(window: &RateLimitWindow) -> bool {
    window_utilization(window).is_some_and(|u| u >= 1.0)
        || window.remaining == Some(0)
        || window.status.as_deref() == Some("rejected")
}

/// When `window` resets, if it says (and the time reads).
fn reset_of(window: &RateLimitWindow) -> Option<Timestamp> {
    window.resets_at.as_deref()?.parse().ok()
}

/// The latest reset of `windows`, and its window.
fn latest_reset<'w>(windows: &[&'w RateLimitWindow]) -> Option<(Timestamp, &'w RateLimitWindow)> {
    windows
        .iter()
        .filter_map(|w| reset_of(w).map(|t| (t, *w)))
        .max_by_key(|(t, _)| *t)
}

/// The earliest reset of `windows`.
fn earliest_reset(windows: &[RateLimitWindow]) -> Option<Timestamp> {
    windows.iter().filter_map(reset_of).min()
}

/// `window 5h at 97%, resets 2026-05-01T15:00:00Z`.
fn describe(window: &RateLimitWindow) -> String {
    let used = match window_utilization(window) {
        Some(u) => format!("at {}", usage_percent(u)),
        None if is_used_up(window) => "used up".to_owned(),
        None => "reported".to_owned(),
    };
    match reset_of(window) {
        Some(reset) => format!("window {} {used}, resets {reset}", window.name),
        None => format!("window {} {used}", window.name),
    }
}

/// A share of a window as a percentage: `97%`, `99.9%` (one decimal at
/// most; a window short of full never reads 100%).
pub fn usage_percent(share: f64) -> String {
    let tenths = (share * 1000.0).round();
    let tenths = if share < 1.0 {
        tenths.min(999.0)
    } else {
        tenths
    };
    if tenths % 10.0 == 0.0 {
        format!("{:.0}%", tenths / 10.0)
    } else {
        format!("{:.1}%", tenths / 10.0)
    }
}
