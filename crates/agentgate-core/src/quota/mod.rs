//! What agentgate knows of providers' usage limits: what a run learns
//! from its CLI (a quota error, a rate-limit event, a success after the
//! reset: [`record_quota`]), what its gateway reads off the wire for every
//! model call (the rate-limit windows, a 429, a hold above
//! `gateway.quota_hold_above`: [`record_wire_quota`], in `wire.rs`), and
//! which providers a run skips because their quota is known exhausted or
//! held ([`exhausted_quota`]).
//!
//! The wire is the better evidence: a state the wire made exhausted (a used
//! up window, or a hold) is not lowered by what a CLI printed
//! ([`record_quota`] only replaces it with another exhausted state) until
//! its reset passes or a later model call's windows say otherwise.

mod wire;

use agentgate_protocol::{ErrorInfo, ErrorKind, RateLimitEvent};
use agentgate_store::{QuotaState, QuotaStatus, RunStore};
use jiff::Timestamp;

pub use wire::{record_wire_quota, usage_percent, window_utilization};

/// How the message of a state held by `gateway.quota_hold_above` begins.
pub(crate) const HOLD_PREFIX: &str = "held: ";

/// The source of every state read off the wire: `wire:<run_id>`.
const WIRE_SOURCE: &str = "wire:";

/// Whether `state` is a hold: [`record_wire_quota`] saw a window used
/// above `gateway.quota_hold_above` (not used up).
pub fn is_quota_hold(state: &QuotaState) -> bool {
    state.status == QuotaStatus::Held
}

/// The quota state is stored under a quota key: the provider's name, or
/// `provider@account` when the host names the account its CLI is logged in
/// to (see the config's `Config::quota_key`).
///
/// Remember what the run learnt about the provider's usage limit: a quota or
/// rate-limit error, else a `rate_limit` event, else (on success) that an
/// exhausted limit whose reset time passed is available again.
///
/// The windows stored with the state (read off the wire) are kept. A state
/// the wire made exhausted (source `wire:`) whose reset is still ahead of
/// `now` is replaced only by an exhausted one: a CLI's `rate_limit` event
/// (read from the same headers, earlier) or a rate-limit error does not lift
/// a hold or a used-up window the gateway saw.
pub fn record_quota(
    store: &dyn RunStore,
    quota_key: &str,
    run_id: &str,
    error: Option<&ErrorInfo>,
    rate_limit: Option<&RateLimitEvent>,
    now: Timestamp,
) {
    let parse = |t: Option<&String>| t.and_then(|t| t.parse::<Timestamp>().ok());
    let old = match store.get_quota(quota_key) {
        Ok(old) => old,
        Err(e) => {
            tracing::warn!("failed to read {quota_key}'s quota state: {e}");
            None
        }
    };
    let state = match (error, rate_limit) {
        (Some(e), _) if matches!(e.kind, ErrorKind::Quota | ErrorKind::RateLimit) => {
            Some(QuotaState {
                status: if e.kind == ErrorKind::Quota {
                    QuotaStatus::Exhausted
                } else {
                    QuotaStatus::Warning
                },
                reset_at: parse(e.reset_at.as_ref()),
                source: format!("error:{run_id}"),
                updated_at: now,
                message: Some(e.message.clone()),
                windows: Vec::new(),
            })
        }
        (_, Some(r)) => Some(QuotaState {
            status: r.status.into(),
            reset_at: parse(r.resets_at.as_ref()),
            source: format!("event:{run_id}"),
            updated_at: now,
            message: r.window.as_ref().map(|w| format!("window {w}")),
            windows: Vec::new(),
        }),
        (None, None) => match &old {
            Some(old) if old.status.is_closed() && old.reset_at.is_some_and(|t| t <= now) => {
                Some(QuotaState {
                    status: QuotaStatus::Available,
                    reset_at: None,
                    source: format!("success:{run_id}"),
                    updated_at: now,
                    message: None,
                    windows: Vec::new(),
                })
            }
            _ => None,
        },
        (Some(_), None) => None,
    };
    let Some(mut state) = state else {
        return;
    };
    if let Some(old) = old {
        let wire_closed = old.status.is_closed()
            && old.source.starts_with(WIRE_SOURCE)
            && old.reset_at.is_some_and(|t| t > now);
        if wire_closed && state.status != QuotaStatus::Exhausted {
            return;
        }
        state.windows = old.windows;
    }
    if let Err(e) = store.put_quota(quota_key, &state) {
        tracing::warn!("failed to record {quota_key}'s quota state: {e}");
    }
}

/// The recorded state that makes a run skip the provider of `quota_key`
/// (and the queue hold its jobs until `reset_at`): exhausted, or held by
/// `gateway.quota_hold_above`, with a reset time
/// still ahead of `now`. An exhausted quota whose reset time is
/// unknown is not skipped: nothing says when trying again makes sense, and
/// the provider's own answer is the better evidence.
pub fn exhausted_quota(
    store: &dyn RunStore,
    quota_key: &str,
    now: Timestamp,
) -> Option<QuotaState> {
    match store.get_quota(quota_key) {
        Ok(Some(s)) if s.status.is_closed() && s.reset_at.is_some_and(|t| t > now) => Some(s),
        Ok(_) => None,
        Err(e) => {
            tracing::warn!("failed to read {quota_key}'s quota state: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod wire_tests;
