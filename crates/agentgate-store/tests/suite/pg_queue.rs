//! What only the PostgreSQL queue has: claimers that skip each other's
//! locked rows instead of waiting for them.

use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use super::jobs::{LEASE, new_job};
use super::support::{Backend, TestStore, ts};

/// Whether a session of the client's database waits for a lock.
async fn someone_waits_for_a_lock(client: &tokio_postgres::Client) -> bool {
    let row = client
        .query_one(
            "SELECT count(*) FROM pg_stat_activity \
             WHERE datname = current_database() AND wait_event_type = 'Lock'",
            &[],
        )
        .await
        .unwrap();
    row.get::<_, i64>(0) > 0
}

#[test]
fn a_claim_skips_a_job_another_transaction_holds_instead_of_waiting() {
    let store = TestStore::new(Backend::Postgres);
    let at = ts("2026-05-01T12:00:00Z");
    store.enqueue(&new_job("head"), at).unwrap();
    store
        .enqueue(&new_job("next"), ts("2026-05-01T12:00:01Z"))
        .unwrap();

    // Another session holds the head job's row lock, as a claimer in the
    // middle of its claim would.
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (holder, connection) = rt
        .block_on(tokio_postgres::connect(
            &store.location,
            tokio_postgres::NoTls,
        ))
        .unwrap();
    rt.spawn(connection);
    rt.block_on(holder.batch_execute("BEGIN; SELECT 1 FROM jobs WHERE job_id = 'head' FOR UPDATE"))
        .unwrap();

    // A claim by another handle (its own pool), on a thread: while it has
    // not answered, the test watches whether it waits for the lock.
    let other = store.reopen();
    let (tx, rx) = mpsc::channel();
    let claimer = std::thread::spawn(move || {
        let _ = tx.send(other.claim("w2", LEASE, ts("2026-05-01T12:00:05Z")));
    });
    let mut answer = None;
    let mut waited = false;
    // Bounded: at most 600 rounds of 100 ms.
    for _ in 0..600 {
        match rx.recv_timeout(Duration::from_millis(100)) {
            Ok(claimed) => {
                answer = Some(claimed);
                break;
            }
            Err(RecvTimeoutError::Timeout) => {
                if rt.block_on(someone_waits_for_a_lock(&holder)) {
                    waited = true;
                    break;
                }
            }
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    // Let go of the lock whatever happened, so a waiting claim ends.
    rt.block_on(holder.batch_execute("ROLLBACK")).unwrap();
    claimer.join().unwrap();
    assert!(!waited, "the claim waited for the locked head job");
    let claimed = answer.expect("the claim answered").unwrap().unwrap();
    assert_eq!(claimed.job.job_id, "next");

    // The lock gone, the head job is the next claim's.
    let head = store
        .claim("w1", LEASE, ts("2026-05-01T12:00:06Z"))
        .unwrap()
        .unwrap();
    assert_eq!(head.job.job_id, "head");
}
