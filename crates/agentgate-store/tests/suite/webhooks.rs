//! The webhook outbox on both backends: a message written twice is stored
//! once, a claim leases due deliveries to one owner until the lease
//! expires, a try is recorded only by the lease's holder, the listing's
//! filters and pages; and two handles on one store (two servers on one
//! PostgreSQL database) claiming at once never take the same delivery.

use std::time::Duration;

use agentgate_store::{
    AfterAttempt, DeliveryAttempt, DeliveryFilter, DeliveryState, NewWebhookDelivery,
};
use jiff::Timestamp;

use super::support::TestStore;

fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn delivery(id: &str, event: &str, url: &str) -> NewWebhookDelivery {
    NewWebhookDelivery {
        message_id: id.to_owned(),
        event: event.to_owned(),
        url: url.to_owned(),
        payload: format!("{{\"type\":\"{event}\"}}"),
        job_id: Some("job_1".to_owned()),
    }
}

fn attempt(n: u32, at: &str, status: Option<u16>, outcome: &str) -> DeliveryAttempt {
    DeliveryAttempt {
        n,
        at: ts(at),
        status_code: status,
        error: status
            .filter(|s| *s >= 300)
            .map(|s| format!("answered {s}")),
        outcome: outcome.to_owned(),
    }
}

const LEASE: Duration = Duration::from_secs(60);

fn a_message_is_stored_once_and_claimed_by_one_owner_until_its_lease_ends(store: &TestStore) {
    let t0 = "2026-05-01T10:00:00Z";
    let batch = [
        delivery("msg_a", "run.ended", "https://a.example/h"),
        delivery("msg_a", "run.ended", "https://b.example/h"),
    ];
    assert_eq!(store.enqueue_webhooks(&batch, ts(t0)).unwrap(), 2);
    assert_eq!(
        store.enqueue_webhooks(&batch[..1], ts(t0)).unwrap(),
        0,
        "the same message and URL again is ignored"
    );
    assert_eq!(store.next_webhook_due().unwrap(), Some(ts(t0)));
    let first = store.claim_webhooks("one", LEASE, 10, ts(t0)).unwrap();
    assert_eq!(first.len(), 2);
    assert_eq!(first[0].message_id, "msg_a");
    assert_eq!(first[0].attempts, 0);
    assert!(
        store
            .claim_webhooks("two", LEASE, 10, ts("2026-05-01T10:00:59Z"))
            .unwrap()
            .is_empty(),
        "leased to one"
    );
    // The lease ended (its holder died): another takes the deliveries.
    let again = store
        .claim_webhooks("two", LEASE, 1, ts("2026-05-01T10:01:00Z"))
        .unwrap();
    assert_eq!(again.len(), 1, "the limit holds");
    let id = again[0].delivery_id;
    // The first owner's record is refused: the lease is another's.
    let late = attempt(1, "2026-05-01T10:01:01Z", Some(200), "delivered");
    assert!(
        !store
            .record_webhook_attempt(
                id,
                "one",
                &late,
                AfterAttempt::Done(DeliveryState::Delivered)
            )
            .unwrap()
    );
    let failed = attempt(1, "2026-05-01T10:01:01Z", Some(500), "failed");
    let retry = ts("2026-05-01T10:01:06Z");
    assert!(
        store
            .record_webhook_attempt(id, "two", &failed, AfterAttempt::RetryAt(retry))
            .unwrap()
    );
    // Not due before its retry time.
    let before = store
        .claim_webhooks("two", LEASE, 10, ts("2026-05-01T10:01:05Z"))
        .unwrap();
    assert!(before.iter().all(|d| d.delivery_id != id));
    let due = store
        .claim_webhooks("three", LEASE, 10, retry)
        .unwrap()
        .into_iter()
        .find(|d| d.delivery_id == id);
    let Some(due) = due else {
        panic!("not due at its retry time")
    };
    assert_eq!(due.attempts, 1);
    let ok = attempt(2, "2026-05-01T10:01:06Z", Some(204), "delivered");
    assert!(
        store
            .record_webhook_attempt(
                id,
                "three",
                &ok,
                AfterAttempt::Done(DeliveryState::Delivered)
            )
            .unwrap()
    );
    let listed = store
        .list_webhook_deliveries(&DeliveryFilter {
            state: Some(DeliveryState::Delivered),
            limit: 10,
            ..DeliveryFilter::default()
        })
        .unwrap();
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].delivery_id, id);
    assert_eq!(listed[0].attempts, vec![failed, ok]);
    assert_eq!(listed[0].next_attempt_at, None);
    assert_eq!(listed[0].job_id.as_deref(), Some("job_1"));
}

fn deliveries_are_listed_newest_first_filtered_and_paged(store: &TestStore) {
    let t0 = ts("2026-05-01T10:00:00Z");
    store
        .enqueue_webhooks(
            &[
                delivery("m1", "run.ended", "https://a.example/"),
                delivery("m2", "job.waiting", "https://a.example/"),
                delivery("m3", "run.ended", "https://b.example/"),
            ],
            t0,
        )
        .unwrap();
    let all = |filter: DeliveryFilter| -> Vec<String> {
        store
            .list_webhook_deliveries(&filter)
            .unwrap()
            .into_iter()
            .map(|d| d.message_id)
            .collect()
    };
    let page = |limit| DeliveryFilter {
        limit,
        ..DeliveryFilter::default()
    };
    assert_eq!(all(page(10)), ["m3", "m2", "m1"]);
    assert_eq!(
        all(DeliveryFilter {
            event: Some("run.ended".to_owned()),
            ..page(10)
        }),
        ["m3", "m1"]
    );
    assert_eq!(
        all(DeliveryFilter {
            url: Some("https://a.example/".to_owned()),
            ..page(10)
        }),
        ["m2", "m1"]
    );
    assert_eq!(
        all(DeliveryFilter {
            state: Some(DeliveryState::Refused),
            ..page(10)
        }),
        Vec::<String>::new()
    );
    let first = store.list_webhook_deliveries(&page(2)).unwrap();
    assert_eq!(first.len(), 2);
    assert_eq!(
        all(DeliveryFilter {
            before: Some(first[1].delivery_id),
            ..page(2)
        }),
        ["m1"]
    );
    let pending = store.list_webhook_deliveries(&page(1)).unwrap();
    assert_eq!(pending[0].state, DeliveryState::Pending);
    assert_eq!(pending[0].next_attempt_at, Some(t0));
}

crate::on_both_backends!(
    a_message_is_stored_once_and_claimed_by_one_owner_until_its_lease_ends,
    deliveries_are_listed_newest_first_filtered_and_paged,
    two_handles_claiming_at_once_never_take_the_same_delivery,
);

/// Two handles on one store (two servers on one database) claim at once,
/// many times: every delivery is claimed by exactly one.
fn two_handles_claiming_at_once_never_take_the_same_delivery(first: &TestStore) {
    let second = first.reopen();
    let t0 = ts("2026-05-01T10:00:00Z");
    let batch: Vec<NewWebhookDelivery> = (0..200)
        .map(|i| delivery(&format!("m{i}"), "run.ended", "https://a.example/"))
        .collect();
    assert_eq!(first.enqueue_webhooks(&batch, t0).unwrap(), 200);
    let claim_all = |store: std::sync::Arc<dyn agentgate_store::StoreBackend>,
                     owner: &'static str| {
        std::thread::spawn(move || {
            let mut ids = Vec::new();
            for _ in 0..100 {
                let got = store.claim_webhooks(owner, LEASE, 3, t0).unwrap();
                if got.is_empty() {
                    break;
                }
                ids.extend(got.into_iter().map(|d| d.delivery_id));
            }
            ids
        })
    };
    let a = claim_all(first.store.clone(), "a");
    let b = claim_all(second, "b");
    let (a, b) = (a.join().unwrap(), b.join().unwrap());
    let mut all: Vec<i64> = a.iter().chain(&b).copied().collect();
    all.sort_unstable();
    let claimed = all.len();
    all.dedup();
    assert_eq!(claimed, all.len(), "a delivery was claimed twice");
    assert_eq!(all.len(), 200, "every delivery was claimed");
}
