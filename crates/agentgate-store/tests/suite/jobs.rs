//! The job queue's rules, on each backend, the clock passed in.

use std::time::Duration;

use agentgate_store::{
    CancelOutcome, ExpiryPolicy, FinalState, JobOutcome, JobState, NewJob, StoreError,
};
use jiff::Timestamp;

use super::support::{TestStore, success_envelope, ts};

crate::on_both_backends!(
    an_enqueued_job_reads_back_as_queued_with_what_was_given,
    an_idempotency_key_seen_before_returns_the_first_job,
    a_job_id_used_before_or_invalid_is_refused,
    claims_take_the_highest_priority_then_the_oldest,
    a_job_is_not_claimed_before_its_not_before,
    a_claim_starts_a_lease_and_charges_an_attempt,
    a_heartbeat_renews_only_with_the_current_token,
    a_job_finishes_exactly_once_and_only_with_the_current_token,
    a_token_from_an_expired_and_reclaimed_lease_is_refused,
    a_release_requeues_without_charging_the_attempt,
    a_retry_requeues_after_the_backoff_keeping_the_attempt_and_its_error,
    cancel_ends_a_queued_job_marks_a_running_one_and_leaves_an_ended_one,
    a_running_job_marked_for_cancel_ends_cancelled_when_released_or_expired,
    expired_leases_are_requeued_or_abandoned_per_policy,
    a_chosen_job_is_claimed_only_while_queued_and_ready,
    a_queued_job_cancelled_keeps_the_envelope_it_was_given,
    a_dead_owners_lease_is_taken_back_before_it_expires,
);

pub const LEASE: Duration = Duration::from_secs(30);

pub fn new_job(job_id: &str) -> NewJob {
    NewJob {
        job_id: job_id.to_owned(),
        request: serde_json::json!({"prompt": format!("do {job_id}"), "provider": ["claude"]}),
        priority: 0,
        not_before: None,
        idempotency_key: None,
        providers: vec!["claude".to_owned(), "codex".to_owned()],
        session: None,
        writes_in: None,
        ignore_quota: false,
        planned: true,
        labels: Default::default(),
    }
}

fn t(seconds: i64) -> Timestamp {
    ts("2026-05-01T12:00:00Z")
        .checked_add(jiff::SignedDuration::from_secs(seconds))
        .unwrap()
}

fn succeeded() -> JobOutcome {
    JobOutcome {
        state: FinalState::Succeeded,
        envelope: Some(success_envelope("j1")),
        error: None,
    }
}

fn an_enqueued_job_reads_back_as_queued_with_what_was_given(store: &TestStore) {
    let job = NewJob {
        priority: 5,
        session: Some("nightly".to_owned()),
        ..new_job("j1")
    };
    let enqueued = store.enqueue(&job, t(0)).unwrap();
    assert!(enqueued.created);
    let got = store.get_job("j1").unwrap().unwrap();
    assert_eq!(got, enqueued.job);
    assert_eq!(got.request, job.request);
    assert_eq!(got.state, JobState::Queued);
    assert_eq!(got.priority, 5);
    assert_eq!(got.created_at, t(0));
    assert_eq!(got.not_before, t(0));
    assert_eq!(got.attempts, 0);
    assert_eq!(got.providers, ["claude", "codex"]);
    assert_eq!(got.session.as_deref(), Some("nightly"));
    assert_eq!(got.lease_expires_at, None);
    assert!(store.get_job("nope").unwrap().is_none());
}

fn an_idempotency_key_seen_before_returns_the_first_job(store: &TestStore) {
    let first = NewJob {
        idempotency_key: Some("k1".to_owned()),
        ..new_job("j1")
    };
    assert!(store.enqueue(&first, t(0)).unwrap().created);
    let again = NewJob {
        idempotency_key: Some("k1".to_owned()),
        priority: 9,
        ..new_job("j2")
    };
    let second = store.enqueue(&again, t(1)).unwrap();
    assert!(!second.created);
    assert_eq!(second.job.job_id, "j1");
    assert_eq!(second.job.priority, 0);
    assert!(store.get_job("j2").unwrap().is_none());
    // Another key is another job.
    let other = NewJob {
        idempotency_key: Some("k2".to_owned()),
        ..new_job("j3")
    };
    assert!(store.enqueue(&other, t(2)).unwrap().created);
}

fn a_job_id_used_before_or_invalid_is_refused(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let err = store.enqueue(&new_job("j1"), t(1)).unwrap_err();
    assert!(matches!(err, StoreError::JobExists { .. }), "{err}");
    let err = store.enqueue(&new_job("../x"), t(1)).unwrap_err();
    assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err}");
}

fn claims_take_the_highest_priority_then_the_oldest(store: &TestStore) {
    let jobs = [
        ("low_old", 0, 0),
        ("high_new", 5, 3),
        ("low_new", 0, 2),
        ("high_old", 5, 1),
    ];
    for (id, priority, at) in jobs {
        store
            .enqueue(
                &NewJob {
                    priority,
                    ..new_job(id)
                },
                t(at),
            )
            .unwrap();
    }
    // Same priority and time: submission order.
    store.enqueue(&new_job("same_b"), t(9)).unwrap();
    store.enqueue(&new_job("same_a"), t(9)).unwrap();
    let order: Vec<String> = std::iter::from_fn(|| store.claim("w", LEASE, t(10)).unwrap())
        .map(|claimed| claimed.job.job_id)
        .collect();
    assert_eq!(
        order,
        [
            "high_old", "high_new", "low_old", "low_new", "same_b", "same_a"
        ]
    );
}

fn a_job_is_not_claimed_before_its_not_before(store: &TestStore) {
    let later = NewJob {
        not_before: Some(t(60)),
        priority: 10,
        ..new_job("later")
    };
    store.enqueue(&later, t(0)).unwrap();
    assert!(store.claim("w", LEASE, t(59)).unwrap().is_none());
    store.enqueue(&new_job("now"), t(1)).unwrap();
    assert_eq!(
        store.claim("w", LEASE, t(59)).unwrap().unwrap().job.job_id,
        "now"
    );
    let claimed = store.claim("w", LEASE, t(60)).unwrap().unwrap();
    assert_eq!(claimed.job.job_id, "later");
}

fn a_claim_starts_a_lease_and_charges_an_attempt(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let claimed = store.claim("host:1", LEASE, t(5)).unwrap().unwrap();
    assert_eq!(claimed.job.state, JobState::Running);
    assert_eq!(claimed.job.attempts, 1);
    assert_eq!(claimed.job.lease_owner.as_deref(), Some("host:1"));
    assert_eq!(claimed.job.lease_expires_at, Some(t(35)));
    assert_eq!(claimed.token.expose().len(), 32);
    assert!(!format!("{claimed:?}").contains(claimed.token.expose()));
    assert_eq!(store.get_job("j1").unwrap().unwrap(), claimed.job);
    assert!(store.claim("host:2", LEASE, t(6)).unwrap().is_none());
    let err = store.claim("w", Duration::ZERO, t(6)).unwrap_err();
    assert!(matches!(err, StoreError::InvalidLease { .. }), "{err}");
}

fn a_heartbeat_renews_only_with_the_current_token(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let claimed = store.claim("w", LEASE, t(0)).unwrap().unwrap();
    let beat = store.heartbeat("j1", &claimed.token, LEASE, t(20)).unwrap();
    assert_eq!(beat.lease_expires_at, t(50));
    assert!(!beat.cancel_requested);
    // Renewed: not expired at the first lease's end.
    assert!(
        store
            .expire_leases(t(40), ExpiryPolicy::Requeue)
            .unwrap()
            .is_empty()
    );

    let stale = agentgate_store::LeaseToken::from_text("0".repeat(32));
    let err = store.heartbeat("j1", &stale, LEASE, t(21)).unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    assert_eq!(
        store.get_job("j1").unwrap().unwrap().lease_expires_at,
        Some(t(50))
    );

    // Late (past the lease's end) but not taken back: still renewed.
    let late = store.heartbeat("j1", &claimed.token, LEASE, t(60)).unwrap();
    assert_eq!(late.lease_expires_at, t(90));
    assert!(
        store
            .expire_leases(t(89), ExpiryPolicy::Requeue)
            .unwrap()
            .is_empty()
    );
}

fn a_job_finishes_exactly_once_and_only_with_the_current_token(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let claimed = store.claim("w", LEASE, t(0)).unwrap().unwrap();
    let stale = agentgate_store::LeaseToken::from_text("f".repeat(32));
    let err = store.finish("j1", &stale, &succeeded(), t(1)).unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    assert_eq!(
        store.get_job("j1").unwrap().unwrap().state,
        JobState::Running
    );

    let done = store
        .finish("j1", &claimed.token, &succeeded(), t(2))
        .unwrap();
    assert_eq!(done.state, JobState::Succeeded);
    assert_eq!(done.ended_at, Some(t(2)));
    assert_eq!(done.envelope, Some(success_envelope("j1")));
    assert_eq!(done.lease_expires_at, None);

    let failed = JobOutcome {
        state: FinalState::Failed,
        envelope: None,
        error: Some("late".to_owned()),
    };
    let err = store
        .finish("j1", &claimed.token, &failed, t(3))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    let err = store
        .heartbeat("j1", &claimed.token, LEASE, t(3))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    assert_eq!(store.get_job("j1").unwrap().unwrap(), done);
}

fn a_token_from_an_expired_and_reclaimed_lease_is_refused(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let first = store.claim("a", LEASE, t(0)).unwrap().unwrap();
    let expired = store.expire_leases(t(30), ExpiryPolicy::Requeue).unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(
        (expired[0].job_id.as_str(), expired[0].state),
        ("j1", JobState::Queued)
    );
    let second = store.claim("b", LEASE, t(31)).unwrap().unwrap();
    assert_ne!(first.token, second.token);
    assert_eq!(second.job.attempts, 2);
    let err = store
        .finish("j1", &first.token, &succeeded(), t(32))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    let err = store
        .release("j1", &first.token, t(40), None, t(32))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    store
        .finish("j1", &second.token, &succeeded(), t(33))
        .unwrap();
}

fn a_release_requeues_without_charging_the_attempt(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let claimed = store.claim("w", LEASE, t(0)).unwrap().unwrap();
    let released = store
        .release("j1", &claimed.token, t(100), Some("quota"), t(1))
        .unwrap();
    assert_eq!(released.state, JobState::Queued);
    assert_eq!(released.attempts, 0);
    assert_eq!(released.not_before, t(100));
    assert_eq!(released.waiting_for.as_deref(), Some("quota"));
    assert_eq!(released.lease_expires_at, None);
    assert!(store.claim("w", LEASE, t(99)).unwrap().is_none());
    let again = store.claim("w", LEASE, t(100)).unwrap().unwrap();
    assert_eq!(again.job.attempts, 1);
    assert_eq!(again.job.waiting_for, None);
    // Released twice with one token: the second is refused.
    store
        .release("j1", &again.token, t(200), None, t(101))
        .unwrap();
    let err = store
        .release("j1", &again.token, t(200), None, t(102))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
}

fn a_retry_requeues_after_the_backoff_keeping_the_attempt_and_its_error(store: &TestStore) {
    store.enqueue(&new_job("j1"), t(0)).unwrap();
    let first = store.claim("w", LEASE, t(0)).unwrap().unwrap();
    let retried = store
        .retry("j1", &first.token, t(10), "provider crashed", t(1))
        .unwrap();
    assert_eq!(retried.state, JobState::Queued);
    assert_eq!(retried.attempts, 1);
    assert_eq!(retried.not_before, t(10));
    assert_eq!(retried.error.as_deref(), Some("provider crashed"));
    assert_eq!(retried.ended_at, None);
    assert!(store.claim("w", LEASE, t(9)).unwrap().is_none());
    let second = store.claim("w", LEASE, t(10)).unwrap().unwrap();
    assert_eq!(second.job.attempts, 2);
    // A release (quota) after it keeps the last error and refunds only its
    // own claim.
    let released = store
        .release("j1", &second.token, t(20), Some("quota"), t(11))
        .unwrap();
    assert_eq!(released.attempts, 1);
    assert_eq!(released.error.as_deref(), Some("provider crashed"));
    let err = store
        .retry("j1", &second.token, t(30), "again", t(12))
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
}

fn cancel_ends_a_queued_job_marks_a_running_one_and_leaves_an_ended_one(store: &TestStore) {
    store.enqueue(&new_job("queued"), t(0)).unwrap();
    store.enqueue(&new_job("running"), t(1)).unwrap();
    store.enqueue(&new_job("ended"), t(2)).unwrap();

    assert_eq!(
        store.cancel("queued", None, t(3)).unwrap(),
        CancelOutcome::Cancelled
    );
    let job = store.get_job("queued").unwrap().unwrap();
    assert_eq!((job.state, job.ended_at), (JobState::Cancelled, Some(t(3))));
    assert_eq!(
        store.cancel("queued", None, t(4)).unwrap(),
        CancelOutcome::AlreadyEnded(JobState::Cancelled)
    );

    let running = store.claim("w", LEASE, t(5)).unwrap().unwrap();
    assert_eq!(running.job.job_id, "running");
    assert_eq!(
        store.cancel("running", None, t(6)).unwrap(),
        CancelOutcome::Requested
    );
    let job = store.get_job("running").unwrap().unwrap();
    assert_eq!(job.state, JobState::Running);
    assert!(job.cancel_requested);
    assert!(
        store
            .heartbeat("running", &running.token, LEASE, t(7))
            .unwrap()
            .cancel_requested
    );

    let ended = store.claim("w", LEASE, t(8)).unwrap().unwrap();
    store
        .finish("ended", &ended.token, &succeeded(), t(9))
        .unwrap();
    assert_eq!(
        store.cancel("ended", None, t(10)).unwrap(),
        CancelOutcome::AlreadyEnded(JobState::Succeeded)
    );
    assert_eq!(
        store.get_job("ended").unwrap().unwrap().state,
        JobState::Succeeded
    );

    let err = store.cancel("nope", None, t(11)).unwrap_err();
    assert!(matches!(err, StoreError::JobNotFound { .. }), "{err}");
}

fn a_running_job_marked_for_cancel_ends_cancelled_when_released_or_expired(store: &TestStore) {
    store.enqueue(&new_job("a"), t(0)).unwrap();
    store.enqueue(&new_job("b"), t(1)).unwrap();
    let a = store.claim("w", LEASE, t(2)).unwrap().unwrap();
    let _b = store.claim("w", LEASE, t(2)).unwrap().unwrap();
    store.cancel("a", None, t(3)).unwrap();
    store.cancel("b", None, t(3)).unwrap();
    let released = store
        .release("a", &a.token, t(50), Some("quota"), t(4))
        .unwrap();
    assert_eq!(
        (released.state, released.ended_at),
        (JobState::Cancelled, Some(t(4)))
    );
    let expired = store.expire_leases(t(40), ExpiryPolicy::Requeue).unwrap();
    assert_eq!(expired.len(), 1);
    assert_eq!(expired[0].state, JobState::Cancelled);
    assert!(store.claim("w", LEASE, t(100)).unwrap().is_none());
}

fn expired_leases_are_requeued_or_abandoned_per_policy(first: &TestStore) {
    for (policy, state) in [
        (ExpiryPolicy::Requeue, JobState::Queued),
        (ExpiryPolicy::Abandon, JobState::Abandoned),
    ] {
        // A fresh store of the same backend for each policy.
        let fresh;
        let store = match policy {
            ExpiryPolicy::Requeue => first,
            ExpiryPolicy::Abandon => {
                fresh = TestStore::new(first.backend);
                &fresh
            }
        };
        store.enqueue(&new_job("short"), t(0)).unwrap();
        store.enqueue(&new_job("long"), t(1)).unwrap();
        store
            .claim("w", Duration::from_secs(10), t(2))
            .unwrap()
            .unwrap();
        store
            .claim("w", Duration::from_secs(60), t(2))
            .unwrap()
            .unwrap();

        assert!(store.expire_leases(t(11), policy).unwrap().is_empty());
        let expired = store.expire_leases(t(12), policy).unwrap();
        assert_eq!(expired.len(), 1, "{policy:?}");
        assert_eq!(
            (expired[0].job_id.as_str(), expired[0].state),
            ("short", state)
        );
        let job = store.get_job("short").unwrap().unwrap();
        assert_eq!(job.state, state);
        assert_eq!(job.lease_expires_at, None);
        assert_eq!(job.attempts, 1, "an expired lease keeps its attempt");
        assert_eq!(
            store.get_job("long").unwrap().unwrap().state,
            JobState::Running
        );
        match policy {
            ExpiryPolicy::Requeue => {
                assert_eq!(job.ended_at, None);
                let again = store.claim("w2", LEASE, t(13)).unwrap().unwrap();
                assert_eq!(
                    (again.job.job_id.as_str(), again.job.attempts),
                    ("short", 2)
                );
            }
            ExpiryPolicy::Abandon => {
                assert_eq!(job.ended_at, Some(t(12)));
                assert!(job.error.is_some());
                assert!(store.claim("w2", LEASE, t(13)).unwrap().is_none());
            }
        }
    }
}

fn a_chosen_job_is_claimed_only_while_queued_and_ready(store: &TestStore) {
    store.enqueue(&new_job("first"), t(0)).unwrap();
    let later = NewJob {
        not_before: Some(t(20)),
        ..new_job("later")
    };
    store.enqueue(&later, t(1)).unwrap();
    // The second job, chosen over the first that claim() would take.
    assert!(
        store
            .claim_job("later", "w", LEASE, t(5))
            .unwrap()
            .is_none()
    );
    let claimed = store
        .claim_job("later", "w", LEASE, t(20))
        .unwrap()
        .unwrap();
    assert_eq!(claimed.job.job_id, "later");
    assert_eq!(
        (claimed.job.state, claimed.job.attempts),
        (JobState::Running, 1)
    );
    assert!(
        store
            .claim_job("later", "x", LEASE, t(21))
            .unwrap()
            .is_none()
    );
    assert!(
        store
            .claim_job("nope", "x", LEASE, t(21))
            .unwrap()
            .is_none()
    );
    assert_eq!(
        store.get_job("first").unwrap().unwrap().state,
        JobState::Queued
    );
}

fn a_queued_job_cancelled_keeps_the_envelope_it_was_given(store: &TestStore) {
    store.enqueue(&new_job("q"), t(0)).unwrap();
    let envelope = success_envelope("q");
    assert_eq!(
        store.cancel("q", Some(&envelope), t(1)).unwrap(),
        CancelOutcome::Cancelled
    );
    let job = store.get_job("q").unwrap().unwrap();
    assert_eq!(job.envelope, Some(envelope));
}

fn a_dead_owners_lease_is_taken_back_before_it_expires(store: &TestStore) {
    store.enqueue(&new_job("a"), t(0)).unwrap();
    store.claim("dead", LEASE, t(1)).unwrap().unwrap();
    assert_eq!(
        store
            .expire_owner("a", "someone-else", t(2), ExpiryPolicy::Requeue)
            .unwrap(),
        None
    );
    let taken = store
        .expire_owner("a", "dead", t(2), ExpiryPolicy::Requeue)
        .unwrap()
        .unwrap();
    assert_eq!(taken.state, JobState::Queued);
    let again = store.claim("live", LEASE, t(3)).unwrap().unwrap();
    assert_eq!((again.job.job_id.as_str(), again.job.attempts), ("a", 2));
}
