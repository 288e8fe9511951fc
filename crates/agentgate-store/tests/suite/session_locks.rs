//! Session locks: one holder per name across store handles (as across
//! processes), and a holder that dies releases its lock.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_store::{RunStore, Store, lock_file_name};

use super::support::{Backend, TestStore, with_pg_client};

crate::on_both_backends!(a_held_session_is_refused_to_every_other_handle_until_dropped);

fn a_held_session_is_refused_to_every_other_handle_until_dropped(store: &TestStore) {
    let first = &**store;
    let second = store.reopen();

    let held = first.try_lock_session("nightly").unwrap().unwrap();
    assert_eq!(held.name(), "nightly");
    assert!(second.try_lock_session("nightly").unwrap().is_none());
    assert!(first.try_lock_session("nightly").unwrap().is_none());
    // Another name is another lock.
    let other = second.try_lock_session("nightly/2").unwrap();
    assert!(other.is_some());

    drop(held);
    assert!(second.try_lock_session("nightly").unwrap().is_some());
    if store.backend == Backend::Sqlite {
        assert!(
            store
                .dir
                .path()
                .join("locks")
                .join(lock_file_name("nightly"))
                .is_file()
        );
    }
}

#[test]
fn a_killed_postgres_holder_leaves_the_session_free() {
    let store = TestStore::new(Backend::Postgres);
    let held = store.try_lock_session("crash").unwrap().unwrap();
    let other = store.reopen();
    assert!(other.try_lock_session("crash").unwrap().is_none());

    // The server ends the holder's connection, as it does when the holder's
    // host dies or its process is killed.
    let terminated = with_pg_client(&store.location, async |client| {
        let holders = client
            .query(
                "SELECT l.pid FROM pg_locks l JOIN pg_database d ON l.database = d.oid \
                 WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.granted \
                 AND d.datname = current_database()",
                &[],
            )
            .await
            .unwrap();
        for holder in &holders {
            let pid: i32 = holder.get(0);
            client
                .execute("SELECT pg_terminate_backend($1)", &[&pid])
                .await
                .unwrap();
        }
        holders.len()
    });
    assert_eq!(terminated, 1, "one connection held the session's lock");
    let start = Instant::now();
    while other.try_lock_session("crash").unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the lock stayed held after its connection was terminated"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    // Dropping a lock whose connection is gone is harmless.
    drop(held);
}

#[test]
fn a_killed_holder_leaves_the_session_free() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("agentgate.db")).unwrap();
    // Creates the locks folder and the file.
    drop(store.try_lock_session("crash").unwrap().unwrap());
    let file = dir.path().join("locks").join(lock_file_name("crash"));

    // Another process takes the same flock, then is SIGKILLed holding it:
    // bash locks a descriptor of the file and becomes `sleep`, which keeps
    // it (one process, the spawned pid).
    let mut holder = Command::new("bash")
        .args(["-c", "exec 9>>\"$1\" && flock 9 && exec sleep 1000", "_"])
        .arg(&file)
        .stdin(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while store.try_lock_session("crash").unwrap().is_some() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "flock(1) did not take the lock within 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    holder.kill().unwrap();
    holder.wait().unwrap();
    let start = Instant::now();
    while store.try_lock_session("crash").unwrap().is_none() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "the lock stayed held after its holder was killed"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}
