//! What agentgate knows of providers' usage limits: what a run learns
//! (a quota error, a rate-limit event, a success after the reset), and
//! which providers a run skips because their quota is known exhausted.

use agentgate_protocol::{ErrorInfo, ErrorKind, RateLimitEvent};
use agentgate_store::{QuotaState, QuotaStatus, RunStore};
use jiff::Timestamp;

/// The quota state is stored under a quota key: the provider's name, or
/// `provider@account` when the host names the account its CLI is logged in
/// to (see the config's `Config::quota_key`).
///
/// Remember what the run learnt about the provider's usage limit: a quota or
/// rate-limit error, else a `rate_limit` event, else (on success) that an
/// exhausted limit whose reset time passed is available again.
pub fn record_quota(
    store: &dyn RunStore,
    quota_key: &str,
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
        (None, None) => match store.get_quota(quota_key) {
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
        && let Err(e) = store.put_quota(quota_key, &state)
    {
        tracing::warn!("failed to record {quota_key}'s quota state: {e}");
    }
}

/// The recorded state that makes a run skip the provider of `quota_key`: exhausted, with a
/// reset time still ahead of `now`. An exhausted quota whose reset time is
/// unknown is not skipped: nothing says when trying again makes sense, and
/// the provider's own answer is the better evidence.
pub fn exhausted_quota(
    store: &dyn RunStore,
    quota_key: &str,
    now: Timestamp,
) -> Option<QuotaState> {
    match store.get_quota(quota_key) {
        Ok(Some(s))
            if s.status == QuotaStatus::Exhausted && s.reset_at.is_some_and(|t| t > now) =>
        {
            Some(s)
        }
        Ok(_) => None,
        Err(e) => {
            tracing::warn!("failed to read {quota_key}'s quota state: {e}");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use agentgate_protocol::{ErrorKind, ErrorSource, RateLimitEvent};
    use agentgate_store::QuotaStatus;

    use super::*;

    fn store() -> (tempfile::TempDir, agentgate_store::Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = agentgate_store::Store::open(dir.path().join("agentgate.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn quota_errors_and_rate_limit_events_are_recorded() {
        let (_dir, store) = store();
        let mut quota = ErrorInfo::new(
            ErrorKind::Quota,
            ErrorSource::Pattern,
            "usage limit reached",
        );
        quota.reset_at = Some("2099-01-01T00:00:00Z".into());
        record_quota(&store, "claude", "r1", Some(&quota), None, Timestamp::now());
        let s = store.get_quota("claude").unwrap().unwrap();
        assert_eq!(s.status, QuotaStatus::Exhausted);
        assert_eq!(
            s.reset_at.map(|t| t.to_string()).as_deref(),
            Some("2099-01-01T00:00:00Z")
        );
        assert_eq!(s.source, "error:r1");
        // A rate-limit event of a run that did not fail.
        let event = RateLimitEvent {
            status: agentgate_protocol::RateLimitStatus::Warning,
            resets_at: Some("2099-01-02T00:00:00Z".into()),
            window: Some("five_hour".into()),
            utilization: Some(0.9),
        };
        record_quota(&store, "codex", "r2", None, Some(&event), Timestamp::now());
        let s = store.get_quota("codex").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Warning, "event:r2")
        );
        assert_eq!(s.message.as_deref(), Some("window five_hour"));
        // Other errors record nothing.
        let auth = ErrorInfo::new(ErrorKind::Auth, ErrorSource::Pattern, "bad key");
        record_quota(&store, "gemini", "r3", Some(&auth), None, Timestamp::now());
        assert!(store.get_quota("gemini").unwrap().is_none());
    }

    #[test]
    fn a_success_after_the_reset_makes_the_provider_available_again() {
        let (_dir, store) = store();
        let mut quota = ErrorInfo::new(ErrorKind::Quota, ErrorSource::Pattern, "limit");
        quota.reset_at = Some("2000-01-01T00:00:00Z".into());
        record_quota(&store, "claude", "r1", Some(&quota), None, Timestamp::now());
        record_quota(&store, "claude", "r2", None, None, Timestamp::now());
        let s = store.get_quota("claude").unwrap().unwrap();
        assert_eq!(
            (s.status, s.source.as_str()),
            (QuotaStatus::Available, "success:r2")
        );
        // Not before the reset time.
        quota.reset_at = Some("2099-01-01T00:00:00Z".into());
        record_quota(&store, "codex", "r3", Some(&quota), None, Timestamp::now());
        record_quota(&store, "codex", "r4", None, None, Timestamp::now());
        assert_eq!(
            store.get_quota("codex").unwrap().unwrap().status,
            QuotaStatus::Exhausted
        );
    }
}
