//! A hold from the wire (`gateway.quota_hold_above`): the quota state
//! `record_wire_quota` stores holds a provider's queued jobs until the
//! window's reset, as an exhausted quota does, and a later model call whose
//! windows are below the threshold lifts it.

use std::time::Duration;

use agentgate_core::record_wire_quota;
use agentgate_protocol::{ModelCallEvent, RateLimitWindow, WireApi};
use agentgate_store::{JobQueue, Store};
use jiff::Timestamp;
use serde_json::json;

use super::super::*;
use super::{HeldClock, job, t, wait_for};

/// A model call whose response said the 5-hour window is used at
/// `utilization` and resets at `resets_at`.
fn call(utilization: f64, resets_at: Timestamp) -> ModelCallEvent {
    ModelCallEvent {
        call: 1,
        api: WireApi::AnthropicMessages,
        model: None,
        path: "/v1/messages".into(),
        stream: false,
        status: Some(200),
        request_bytes: 10,
        response_bytes: 10,
        latency_ms: 1,
        ttft_ms: None,
        usage: None,
        cache_write_5m_tokens: None,
        cache_write_1h_tokens: None,
        rate_limits: vec![RateLimitWindow {
            name: "5h".into(),
            utilization: Some(utilization),
            resets_at: Some(resets_at.to_string()),
            status: Some("allowed_warning".into()),
            ..RateLimitWindow::default()
        }],
        retry_after_s: None,
        error: None,
        refused_by: None,
    }
}

#[test]
fn a_window_held_above_the_threshold_holds_jobs_until_its_reset_and_a_later_call_lifts_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(dir.path().join("agentgate.db")).unwrap());
    let config = Config::parse(
        "version: 1\nproviders:\n  claude:\n    binary: /bin/true\n",
        agentgate_core::ConfigSource::Flag("/cfg/agentgate.yaml".into()),
    )
    .unwrap();
    // A run's gateway saw the window at 97% with the threshold at 95%.
    record_wire_quota(
        store.as_ref(),
        "claude",
        "r0",
        &call(0.97, t(3600)),
        Some(0.95),
        t(0),
    );
    let prompt = json!({"prompt": "hi", "providers": ["claude"], "permission_mode": "plan"});
    store.enqueue(&job("held", prompt.clone()), t(0)).unwrap();
    let clock = Arc::new(HeldClock(Mutex::new(t(10))));
    let executor = Executor::start(
        store.clone(),
        config.clone(),
        clock.clone(),
        ExecutorOptions::default(),
    )
    .unwrap();
    let waiting = wait_for(&store, "held", |j| j.waiting_for.is_some());
    assert_eq!(waiting.waiting_for.as_deref(), Some("quota"));
    assert_eq!(waiting.not_before, t(3600), "until the window's reset");
    assert_eq!(waiting.attempts, 0, "no attempt charged");
    executor.drain(Duration::ZERO);

    // A later call (a run started before the hold) sees the window below
    // the threshold: the hold is lifted and the next job runs at once.
    record_wire_quota(
        store.as_ref(),
        "claude",
        "r1",
        &call(0.10, t(7200)),
        Some(0.95),
        t(10),
    );
    store.enqueue(&job("runs", prompt), t(10)).unwrap();
    let executor =
        Executor::start(store.clone(), config, clock, ExecutorOptions::default()).unwrap();
    let ran = wait_for(&store, "runs", |j| j.state.is_final());
    assert_eq!(ran.attempts, 1, "{ran:?}");
    assert_eq!(ran.waiting_for, None, "{ran:?}");
    executor.drain(Duration::ZERO);
}
