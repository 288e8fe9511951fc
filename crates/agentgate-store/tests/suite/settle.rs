//! A run's end and its job's, written in one transaction (`JobQueue::settle`),
//! on each backend: the job's state is its run's, whatever the order of the
//! cancel request and the run's end, and nothing lands without the rest.

use agentgate_protocol::ErrorKind;
use agentgate_store::{AfterRun, JobState, RunStatus, SavedResult, Settlement, StoreError};

use super::jobs::{LEASE, new_job};
use super::support::{TestStore, failure_envelope, run_record, success_envelope, ts};

crate::on_both_backends!(
    a_settled_end_records_the_run_and_the_job_with_one_state,
    a_cancel_asked_while_a_run_failed_ends_the_job_failed_not_cancelled,
    a_cancel_asked_before_a_retry_or_release_ends_the_job_as_its_run_did,
    a_run_cancelled_by_its_cancel_ends_its_job_cancelled,
    a_requeue_without_a_cancel_keeps_the_run_recorded_and_the_job_queued,
    a_stale_lease_writes_neither_the_job_nor_the_run,
    a_recovered_result_gives_back_the_claim_that_did_not_run,
    a_saved_result_is_kept_beside_the_run,
);

fn t(seconds: i64) -> jiff::Timestamp {
    ts("2026-05-01T12:00:00Z")
        .checked_add(jiff::SignedDuration::from_secs(seconds))
        .unwrap()
}

fn settlement(run_id: &str, envelope: agentgate_protocol::Envelope, after: AfterRun) -> Settlement {
    Settlement {
        run_id: Some(run_id.to_owned()),
        envelope,
        after,
        recovered: false,
    }
}

/// Enqueue and claim `job_id`, its run recorded as started: the token.
fn running(store: &TestStore, job_id: &str) -> agentgate_store::LeaseToken {
    store.enqueue(&new_job(job_id), t(0)).unwrap();
    let claimed = store.claim_job(job_id, "w", LEASE, t(1)).unwrap().unwrap();
    store
        .insert_run(&run_record(job_id, "2026-05-01T12:00:01Z"))
        .unwrap();
    claimed.token
}

fn run_status(store: &TestStore, run_id: &str) -> RunStatus {
    store.get_run(run_id).unwrap().unwrap().summary.status
}

fn a_settled_end_records_the_run_and_the_job_with_one_state(store: &TestStore) {
    let token = running(store, "j1");
    let job = store
        .settle(
            "j1",
            &token,
            &settlement("j1", success_envelope("j1"), AfterRun::End),
            t(5),
        )
        .unwrap();
    assert_eq!(job.state, JobState::Succeeded);
    assert_eq!(job.ended_at, Some(t(5)));
    assert_eq!(job.attempts, 1);
    assert_eq!(job.envelope.as_ref().unwrap().response, "done");
    assert_eq!(job.lease_expires_at, None);
    assert_eq!(run_status(store, "j1"), RunStatus::Succeeded);
    assert_eq!(store.get_job("j1").unwrap().unwrap(), job);
}

/// The fault drill's disagreement: a cancel reached the executor after the
/// CLI had failed on its own. The run failed; so does the job.
fn a_cancel_asked_while_a_run_failed_ends_the_job_failed_not_cancelled(store: &TestStore) {
    let token = running(store, "j1");
    store.cancel("j1", None, t(2)).unwrap();
    let failed = failure_envelope("j1", ErrorKind::ProviderError, 1);
    let job = store
        .settle("j1", &token, &settlement("j1", failed, AfterRun::End), t(5))
        .unwrap();
    assert_eq!(job.state, JobState::Failed);
    assert_eq!(job.error.as_deref(), Some("provider_error happened"));
    assert_eq!(run_status(store, "j1"), RunStatus::Failed);
}

fn a_cancel_asked_before_a_retry_or_release_ends_the_job_as_its_run_did(store: &TestStore) {
    for (id, after) in [
        ("retried", AfterRun::Retry { not_before: t(60) }),
        (
            "released",
            AfterRun::Release {
                not_before: t(60),
                waiting_for: Some("quota".to_owned()),
            },
        ),
    ] {
        let token = running(store, id);
        store.cancel(id, None, t(2)).unwrap();
        let failed = failure_envelope(id, ErrorKind::Quota, 75);
        let job = store
            .settle(id, &token, &settlement(id, failed, after), t(5))
            .unwrap();
        assert_eq!(job.state, JobState::Failed, "{id}");
        assert_eq!(job.ended_at, Some(t(5)), "{id}");
        assert_eq!(job.waiting_for, None, "{id}");
        assert_eq!(
            job.envelope.as_ref().unwrap().error_type,
            Some(ErrorKind::Quota),
            "{id}"
        );
        assert_eq!(run_status(store, id), RunStatus::Failed, "{id}");
    }
    assert!(store.claim("w", LEASE, t(100)).unwrap().is_none());
}

fn a_run_cancelled_by_its_cancel_ends_its_job_cancelled(store: &TestStore) {
    let token = running(store, "j1");
    store.cancel("j1", None, t(2)).unwrap();
    let cancelled = failure_envelope("j1", ErrorKind::Cancelled, 130);
    // Released as a stopping server would: the cancel asked ends it.
    let after = AfterRun::Release {
        not_before: t(5),
        waiting_for: None,
    };
    let job = store
        .settle("j1", &token, &settlement("j1", cancelled, after), t(5))
        .unwrap();
    assert_eq!(job.state, JobState::Cancelled);
    assert_eq!(run_status(store, "j1"), RunStatus::Cancelled);
}

fn a_requeue_without_a_cancel_keeps_the_run_recorded_and_the_job_queued(store: &TestStore) {
    let token = running(store, "j1");
    let failed = failure_envelope("j1", ErrorKind::Overloaded, 75);
    let job = store
        .settle(
            "j1",
            &token,
            &settlement("j1", failed, AfterRun::Retry { not_before: t(30) }),
            t(5),
        )
        .unwrap();
    assert_eq!(job.state, JobState::Queued);
    assert_eq!((job.attempts, job.not_before), (1, t(30)));
    assert_eq!(job.error.as_deref(), Some("overloaded happened"));
    assert_eq!((job.envelope, job.ended_at), (None, None));
    assert_eq!(run_status(store, "j1"), RunStatus::Failed);

    let again = store.claim("w", LEASE, t(30)).unwrap().unwrap();
    assert_eq!(again.job.attempts, 2);
    let quota = failure_envelope("j1", ErrorKind::Quota, 75);
    let after = AfterRun::Release {
        not_before: t(90),
        waiting_for: Some("quota".to_owned()),
    };
    let job = store
        .settle("j1", &again.token, &settlement("j1.2", quota, after), t(31))
        .unwrap();
    assert_eq!(job.state, JobState::Queued);
    assert_eq!(job.attempts, 1, "a release gives its claim back");
    assert_eq!(job.waiting_for.as_deref(), Some("quota"));
    // A run that was never recorded (j1.2) is skipped, not an error.
    assert!(store.get_run("j1.2").unwrap().is_none());
}

fn a_stale_lease_writes_neither_the_job_nor_the_run(store: &TestStore) {
    let token = running(store, "j1");
    store
        .expire_leases(t(100), agentgate_store::ExpiryPolicy::Requeue)
        .unwrap();
    let err = store
        .settle(
            "j1",
            &token,
            &settlement("j1", success_envelope("j1"), AfterRun::End),
            t(101),
        )
        .unwrap_err();
    assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    assert_eq!(
        store.get_job("j1").unwrap().unwrap().state,
        JobState::Queued
    );
    let run = store.get_run("j1").unwrap().unwrap();
    assert_eq!(
        run.summary.status,
        RunStatus::Running,
        "the run is untouched"
    );
}

fn a_recovered_result_gives_back_the_claim_that_did_not_run(store: &TestStore) {
    let first = running(store, "j1");
    // The first claim's executor died before it settled; its lease expired.
    let _ = first;
    store
        .expire_leases(t(100), agentgate_store::ExpiryPolicy::Requeue)
        .unwrap();
    let second = store.claim("w2", LEASE, t(101)).unwrap().unwrap();
    assert_eq!(second.job.attempts, 2);
    let job = store
        .settle(
            "j1",
            &second.token,
            &Settlement {
                recovered: true,
                ..settlement("j1", success_envelope("j1"), AfterRun::End)
            },
            t(102),
        )
        .unwrap();
    assert_eq!((job.state, job.attempts), (JobState::Succeeded, 1));
    assert_eq!(run_status(store, "j1"), RunStatus::Succeeded);
}

fn a_saved_result_is_kept_beside_the_run(store: &TestStore) {
    store
        .insert_run(&run_record("r1", "2026-05-01T12:00:01Z"))
        .unwrap();
    assert_eq!(store.read_saved_result("r1").unwrap(), None);
    let saved = SavedResult {
        exit_code: 0,
        envelope: success_envelope("r1"),
    };
    let path = store.save_result("r1", &saved).unwrap();
    assert_eq!(path, store.run_dir("r1").unwrap().join("result.json"));
    assert_eq!(store.read_saved_result("r1").unwrap(), Some(saved));
    let err = store.read_saved_result("../x").unwrap_err();
    assert!(matches!(err, StoreError::InvalidRunId { .. }), "{err}");
}
