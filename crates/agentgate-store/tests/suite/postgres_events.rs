//! Run events on PostgreSQL: rows any handle (any host) reads, written in
//! batches by a writer task, failures reported on the next call.

use std::time::{Duration, Instant};

use agentgate_store::StoreError;

use super::files::events;
use super::support::{Backend, PgLock, TestStore, delta, with_pg_client};

#[test]
fn events_written_by_one_handle_are_read_by_another() {
    let store = TestStore::new(Backend::Postgres);
    // Another process, on another host, with its own store handle.
    let elsewhere = store.reopen();
    let mut files = store.create_run_files("run_far").unwrap();
    let written = events("run_far");
    for event in &written[..2] {
        files.write_event(event).unwrap();
    }
    files.sync().unwrap();
    assert_eq!(
        elsewhere.read_events("run_far").unwrap().events,
        &written[..2]
    );

    // A follower polls `read_event_lines` from the last seq it saw; the rest
    // arrives without a sync, once the writer task has stored it.
    for event in &written[2..] {
        files.write_event(event).unwrap();
    }
    let mut seen = 1;
    let start = Instant::now();
    while seen < 4 {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "events written without a sync never reached the table"
        );
        for line in elsewhere
            .read_event_lines("run_far", Some(seen), 10)
            .unwrap()
        {
            assert_eq!(line.seq, seen + 1, "in seq order, no gap");
            seen = line.seq;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(files);
}

/// 1000 events that arrive while an insert waits are stored by at most two
/// inserts (one transaction each, so the distinct `xmin`s of the rows count
/// them), in seq order. Without batching it would take 1000.
#[test]
fn events_are_batched_and_stored_in_seq_order() {
    let store = TestStore::new(Backend::Postgres);
    let mut files = store.create_run_files("run_many").unwrap();
    // Hold the table so the first insert waits while the rest arrive.
    let lock = PgLock::hold(&store.location, "LOCK TABLE run_events IN EXCLUSIVE MODE");
    for seq in 0..1000 {
        files.write_event(&delta("run_many", seq)).unwrap();
    }
    lock.release();
    files.sync().unwrap();

    let lines = store.read_event_lines("run_many", None, 2000).unwrap();
    assert_eq!(lines.len(), 1000);
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(line.seq, i as u64);
        assert_eq!(
            line.line,
            serde_json::to_string(&delta("run_many", line.seq)).unwrap()
        );
    }
    let inserts: i64 = with_pg_client(&store.location, async |client| {
        client
            .query_one(
                "SELECT count(DISTINCT xmin::text) FROM run_events WHERE run_id = 'run_many'",
                &[],
            )
            .await
            .unwrap()
            .get(0)
    });
    assert!(inserts <= 2, "1000 events took {inserts} inserts");
}

/// A failed insert (here a duplicate `seq`) is reported by the next sync
/// and every call after it, never a panic.
#[test]
fn a_failed_insert_is_reported_on_the_next_calls() {
    let store = TestStore::new(Backend::Postgres);
    let mut files = store.create_run_files("run_dup").unwrap();
    files.write_event(&delta("run_dup", 0)).unwrap();
    files.sync().unwrap();
    files.write_event(&delta("run_dup", 0)).unwrap();
    let err = files.sync().unwrap_err();
    assert!(matches!(err, StoreError::Postgres { .. }), "{err:?}");
    let message = err.to_string();
    assert!(
        message.contains("run_dup") && message.contains("23505"),
        "{message}"
    );
    let err = files.write_event(&delta("run_dup", 1)).unwrap_err();
    assert!(err.to_string().contains("23505"), "{err}");
    assert_eq!(
        store.read_event_lines("run_dup", None, 10).unwrap().len(),
        1
    );
}

/// A row that is not an event is an error naming its place; an event of a
/// type this version does not know is kept.
#[test]
fn a_damaged_row_is_an_error_naming_the_run_and_line() {
    let store = TestStore::new(Backend::Postgres);
    with_pg_client(&store.location, async |client| {
        client
            .batch_execute(
                "INSERT INTO run_events (run_id, seq, line) VALUES \
                 ('run_bad', 0, '{\"v\":1,\"ts\":\"2026-05-01T12:00:00Z\",\"run_id\":\"run_bad\",\"seq\":0,\"type\":\"from_the_future\"}'), \
                 ('run_bad', 1, 'not json')",
            )
            .await
            .unwrap();
    });
    let err = store.read_events("run_bad").unwrap_err();
    assert!(
        matches!(err, StoreError::BadEventLine { line: 2, .. }),
        "{err:?}"
    );
    assert!(err.to_string().contains("run_bad"), "{err}");
    let lines = store.read_event_lines("run_bad", None, 1).unwrap();
    assert!(lines[0].line.contains("from_the_future"));
}
