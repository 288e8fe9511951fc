//! Session locks: one holder per name across store handles (as across
//! processes), and a holder that dies releases its lock.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use agentgate_store::{RunStore, Store, lock_file_name};

#[test]
fn a_held_session_is_refused_to_every_other_handle_until_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("agentgate.db");
    let first = Store::open(&db).unwrap();
    let second = Store::open(&db).unwrap();

    let held = first.try_lock_session("nightly").unwrap().unwrap();
    assert_eq!(held.name(), "nightly");
    assert!(second.try_lock_session("nightly").unwrap().is_none());
    assert!(first.try_lock_session("nightly").unwrap().is_none());
    // Another name is another lock.
    let other = second.try_lock_session("nightly/2").unwrap();
    assert!(other.is_some());

    drop(held);
    assert!(second.try_lock_session("nightly").unwrap().is_some());
    assert!(
        dir.path()
            .join("locks")
            .join(lock_file_name("nightly"))
            .is_file()
    );
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
