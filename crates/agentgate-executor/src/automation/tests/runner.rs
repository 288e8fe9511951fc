//! The automation threads, started and stopped as `serve` does.

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_core::sealed::KeyRing;

use super::super::runner::{Automation, AutomationError};
use super::super::test_support::{FakeClock, TestStore, config};

/// Wait (at most 20 s) until `done` holds.
fn wait_for(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn the_threads_fire_the_schedules_and_scan_the_folders_until_stopped() {
    let s = TestStore::new();
    let inbox = tempfile::tempdir().unwrap();
    let cfg = config(&format!(
        "version: 1\nschedules:\n  tick:\n    cron: \"* * * * *\"\n    overlap: queue\n    request: {{prompt: tick}}\nwatch:\n  inbox:\n    folder: {}\n    poll: 100ms\n    request: {{}}\n",
        inbox.path().display()
    ));
    let clock = FakeClock::at("2026-03-01T10:00:30Z");
    let automation = Automation::start(&cfg, s.queue(), clock.clone(), &KeyRing::default())
        .unwrap()
        .unwrap();

    // The clock reaches 10:01: the schedule thread fires.
    clock.set("2026-03-01T10:01:00Z");
    wait_for("the fire's job", || {
        s.jobs()
            .iter()
            .any(|j| j.idempotency_key.as_deref() == Some("schedule:tick:2026-03-01T10:01:00Z"))
    });

    // A file: the watcher takes it once two of its scans, `settle` (1 s)
    // apart on the clock, saw it unchanged; the clock moves on meanwhile.
    std::fs::write(inbox.path().join("n.md"), "note").unwrap();
    wait_for("the file's job", || {
        clock.advance(2);
        std::thread::sleep(Duration::from_millis(150));
        s.jobs().iter().any(|j| j.request["prompt"] == "note")
    });
    automation.stop();
}

#[test]
fn nothing_starts_without_schedules_or_watched_folders() {
    let s = TestStore::new();
    let cfg = config("version: 1\n");
    assert!(
        Automation::start(
            &cfg,
            s.queue(),
            FakeClock::at("2026-03-01T10:00:00Z"),
            &KeyRing::default(),
        )
        .unwrap()
        .is_none()
    );
}

#[test]
fn a_missing_watched_folder_is_refused_at_start() {
    let s = TestStore::new();
    let cfg =
        config("version: 1\nwatch:\n  inbox:\n    folder: /nonexistent/inbox\n    request: {}\n");
    let err = Automation::start(
        &cfg,
        s.queue(),
        Arc::new(crate::clock::SystemClock),
        &KeyRing::default(),
    )
    .unwrap_err();
    assert!(matches!(err, AutomationError::Folder { .. }));
    assert!(
        err.to_string()
            .contains("watch `inbox`: the folder /nonexistent/inbox"),
        "{err}"
    );
}
