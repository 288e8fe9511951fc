//! What a run learns about a provider's usage limit, and which providers
//! it skips because their quota is known to be exhausted.

use agentgate_protocol::{ErrorInfo, ErrorKind, RateLimitEvent};
use agentgate_store::{QuotaState, QuotaStatus, RunStore};
use jiff::Timestamp;

/// Remember what the run learnt about the provider's usage limit: a quota or
/// rate-limit error, else a `rate_limit` event, else (on success) that an
/// exhausted limit whose reset time passed is available again.
pub(super) fn record_quota(
    store: &dyn RunStore,
    provider: &str,
    run_id: &str,
    error: Option<&ErrorInfo>,
    rate_limit: Option<&RateLimitEvent>,
    now: Timestamp,
) {
    let parse = |t: Option<&String>| t.and_then(|t| t.parse::<Timestamp>().ok());
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
            })
        }
        (_, Some(r)) => Some(QuotaState {
            status: r.status.into(),
            reset_at: parse(r.resets_at.as_ref()),
            source: format!("event:{run_id}"),
            updated_at: now,
            message: r.window.as_ref().map(|w| format!("window {w}")),
        }),
        (None, None) => match store.get_quota(provider) {
            Ok(Some(old))
                if old.status == QuotaStatus::Exhausted
                    && old.reset_at.is_some_and(|t| t <= now) =>
            {
                Some(QuotaState {
                    status: QuotaStatus::Available,
                    reset_at: None,
                    source: format!("success:{run_id}"),
                    updated_at: now,
                    message: None,
                })
            }
            _ => None,
        },
        (Some(_), None) => None,
    };
    if let Some(state) = state
        && let Err(e) = store.put_quota(provider, &state)
    {
        tracing::warn!("failed to record {provider}'s quota state: {e}");
    }
}

/// The recorded state that makes a run skip `provider`: exhausted, with a
/// reset time still ahead of `now`. An exhausted quota whose reset time is
/// unknown is not skipped: nothing says when trying again makes sense, and
/// the provider's own answer is the better evidence.
pub fn exhausted_quota(store: &dyn RunStore, provider: &str, now: Timestamp) -> Option<QuotaState> {
    match store.get_quota(provider) {
        Ok(Some(s))
            if s.status == QuotaStatus::Exhausted && s.reset_at.is_some_and(|t| t > now) =>
        {
            Some(s)
        }
        Ok(_) => None,
        Err(e) => {
            tracing::warn!("failed to read {provider}'s quota state: {e}");
            None
        }
    }
}
