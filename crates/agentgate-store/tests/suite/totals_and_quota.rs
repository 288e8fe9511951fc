//! Cumulative thread totals and quota states.

use agentgate_protocol::{RateLimitStatus, RateLimitWindow, Usage};
use agentgate_store::{QuotaState, QuotaStatus};

use super::support::{TestStore, ts};

crate::on_both_backends!(
    thread_totals_round_trip_and_are_replaced,
    quota_states_round_trip_are_replaced_and_list_by_provider,
    quota_windows_round_trip_and_are_replaced,
);

fn thread_totals_round_trip_and_are_replaced(store: &TestStore) {
    assert_eq!(store.get_thread_totals("codex", "thread-1").unwrap(), None);

    let first = Usage {
        input_tokens: 1000,
        output_tokens: 100,
        cache_read_input_tokens: 800,
        reasoning_tokens: 40,
        total_tokens: 1100,
        ..Usage::default()
    };
    store
        .put_thread_totals("codex", "thread-1", &first)
        .unwrap();
    assert_eq!(
        store.get_thread_totals("codex", "thread-1").unwrap(),
        Some(first)
    );

    let second = Usage {
        input_tokens: 2500,
        output_tokens: 260,
        total_tokens: 2760,
        cost_usd: Some(0.5),
        context_tokens: Some(1600),
        ..Usage::default()
    };
    store
        .put_thread_totals("codex", "thread-1", &second)
        .unwrap();
    assert_eq!(
        store.get_thread_totals("codex", "thread-1").unwrap(),
        Some(second)
    );
    // The key is (provider, thread): another provider's thread of the same id
    // is another thread.
    assert_eq!(store.get_thread_totals("qwen", "thread-1").unwrap(), None);
}

fn quota_states_round_trip_are_replaced_and_list_by_provider(store: &TestStore) {
    assert_eq!(store.get_quota("claude").unwrap(), None);

    let exhausted = QuotaState {
        status: QuotaStatus::Exhausted,
        reset_at: Some(ts("2026-05-01T15:28:00Z")),
        source: "error:quota".to_owned(),
        updated_at: ts("2026-05-01T12:00:00Z"),
        message: Some("5-hour limit reached ∙ resets 3:28pm".to_owned()),
        windows: Vec::new(),
    };
    let warning = QuotaState {
        status: QuotaStatus::from(RateLimitStatus::Warning),
        reset_at: None,
        source: "rate_limit_event".to_owned(),
        updated_at: ts("2026-05-01T12:00:01Z"),
        message: None,
        windows: Vec::new(),
    };
    store.put_quota("codex", &warning).unwrap();
    store.put_quota("claude", &warning).unwrap();
    store.put_quota("claude", &exhausted).unwrap();

    assert_eq!(store.get_quota("claude").unwrap(), Some(exhausted.clone()));
    assert_eq!(
        store.list_quota().unwrap(),
        vec![
            ("claude".to_owned(), exhausted),
            ("codex".to_owned(), warning)
        ]
    );
}

fn quota_windows_round_trip_and_are_replaced(store: &TestStore) {
    let five_hours = RateLimitWindow {
        name: "5h".to_owned(),
        utilization: Some(0.97),
        resets_at: Some("2026-05-01T15:00:00Z".to_owned()),
        status: Some("allowed_warning".to_owned()),
        ..RateLimitWindow::default()
    };
    let requests = RateLimitWindow {
        name: "requests".to_owned(),
        limit: Some(4000),
        remaining: Some(0),
        utilization: Some(1.0),
        resets_at: Some("2026-05-01T12:00:30Z".to_owned()),
        status: None,
    };
    let held = QuotaState {
        status: QuotaStatus::Exhausted,
        reset_at: Some(ts("2026-05-01T15:00:00Z")),
        source: "wire:r1".to_owned(),
        updated_at: ts("2026-05-01T12:00:00Z"),
        message: Some("held: window 5h at 97%".to_owned()),
        windows: vec![five_hours.clone(), requests],
    };
    store.put_quota("claude@team-a", &held).unwrap();
    assert_eq!(
        store.get_quota("claude@team-a").unwrap(),
        Some(held.clone())
    );
    assert_eq!(
        store.list_quota().unwrap(),
        vec![("claude@team-a".to_owned(), held)]
    );

    // A later state replaces the windows, an empty list included.
    let fewer = QuotaState {
        status: QuotaStatus::Available,
        reset_at: None,
        source: "wire:r2".to_owned(),
        updated_at: ts("2026-05-01T15:00:01Z"),
        message: None,
        windows: vec![five_hours],
    };
    store.put_quota("claude@team-a", &fewer).unwrap();
    assert_eq!(
        store.get_quota("claude@team-a").unwrap(),
        Some(fewer.clone())
    );
    let none = QuotaState {
        windows: Vec::new(),
        ..fewer
    };
    store.put_quota("claude@team-a", &none).unwrap();
    assert_eq!(store.get_quota("claude@team-a").unwrap(), Some(none));
}
