//! record_quota and exhausted_quota on a real SQLite store.

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
