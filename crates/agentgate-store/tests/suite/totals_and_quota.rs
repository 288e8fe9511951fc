//! Cumulative thread totals and quota states.

use agentgate_protocol::{RateLimitStatus, Usage};
use agentgate_store::{QuotaState, QuotaStatus};

use super::support::{TestStore, ts};

crate::on_both_backends!(
    thread_totals_round_trip_and_are_replaced,
    quota_states_round_trip_are_replaced_and_list_by_provider,
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
    };
    let warning = QuotaState {
        status: QuotaStatus::from(RateLimitStatus::Warning),
        reset_at: None,
        source: "rate_limit_event".to_owned(),
        updated_at: ts("2026-05-01T12:00:01Z"),
        message: None,
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
