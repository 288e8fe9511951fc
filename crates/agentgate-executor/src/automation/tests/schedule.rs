//! Schedules with a fake clock and a real store.

use agentgate_store::{FinalState, JobQueue, JobState};

use super::super::schedule::{FireOutcome, Scheduler, schedule_key};
use super::super::test_support::{TestStore, config, ts};

fn every_five(overlap: &str, catch_up: &str) -> String {
    format!(
        "version: 1\nschedules:\n  tidy:\n    cron: \"*/5 * * * *\"\n    overlap: {overlap}\n    catch_up: {catch_up}\n    request:\n      prompt: tidy up\n      providers: [claude]\n      priority: 3\n"
    )
}

#[test]
fn each_fire_enqueues_one_job_keyed_by_the_schedule_and_the_instant() {
    let s = TestStore::new();
    let cfg = config(&every_five("queue", "0"));
    let mut scheduler = Scheduler::new(&cfg, s.queue(), ts("2026-03-01T10:02:00Z"));
    assert_eq!(
        scheduler.next_fire("tidy"),
        Some(ts("2026-03-01T10:05:00Z"))
    );
    assert!(scheduler.tick(ts("2026-03-01T10:04:59Z")).is_empty());
    assert!(s.jobs().is_empty());

    let fired = scheduler.tick(ts("2026-03-01T10:05:00Z"));
    assert_eq!(fired.len(), 1);
    assert!(matches!(fired[0].outcome, FireOutcome::Enqueued { .. }));
    // A tick later in the same minute fires nothing more.
    assert!(scheduler.tick(ts("2026-03-01T10:05:30Z")).is_empty());
    let jobs = s.jobs();
    assert_eq!(jobs.len(), 1);
    let job = &jobs[0];
    assert_eq!(
        job.idempotency_key.as_deref(),
        Some("schedule:tidy:2026-03-01T10:05:00Z")
    );
    assert_eq!(job.state, JobState::Queued);
    assert_eq!(job.priority, 3);
    assert_eq!(job.providers, ["claude"]);
    assert_eq!(job.request["prompt"], "tidy up");
    assert_eq!(
        job.request["idempotency_key"],
        "schedule:tidy:2026-03-01T10:05:00Z"
    );

    scheduler.tick(ts("2026-03-01T10:10:01Z"));
    let keys: Vec<_> = s
        .jobs()
        .iter()
        .map(|j| j.idempotency_key.clone().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            "schedule:tidy:2026-03-01T10:05:00Z",
            "schedule:tidy:2026-03-01T10:10:00Z"
        ]
    );
}

#[test]
fn a_restarted_scheduler_on_the_same_store_creates_nothing_new() {
    let s = TestStore::new();
    let cfg = config(&every_five("queue", "1h"));
    let mut first = Scheduler::new(&cfg, s.queue(), ts("2026-03-01T10:02:00Z"));
    first.tick(ts("2026-03-01T10:05:00Z"));
    let jobs = s.jobs();
    assert_eq!(jobs.len(), 1);

    // A second instance (a restart) on the same database, same clock: the
    // catch-up fire is 10:05, whose job exists.
    let mut second = Scheduler::new(&cfg, s.reopen(), ts("2026-03-01T10:05:00Z"));
    let fired = second.tick(ts("2026-03-01T10:05:00Z"));
    assert_eq!(fired.len(), 1);
    assert_eq!(
        fired[0].outcome,
        FireOutcome::AlreadyEnqueued {
            job_id: jobs[0].job_id.clone()
        }
    );
    assert_eq!(s.jobs().len(), 1);
}

#[test]
fn catch_up_runs_only_the_most_recent_missed_fire() {
    let s = TestStore::new();
    // Down from 09:00 to 10:32: fires 09:05 ... 10:30 were missed.
    let mut scheduler = Scheduler::new(
        &config(&every_five("queue", "2h")),
        s.queue(),
        ts("2026-03-01T10:32:00Z"),
    );
    let fired = scheduler.tick(ts("2026-03-01T10:32:00Z"));
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].at, ts("2026-03-01T10:30:00Z"));
    let jobs = s.jobs();
    assert_eq!(jobs.len(), 1);
    // Keyed by the fire's scheduled instant, not by the time it ran.
    assert_eq!(
        jobs[0].idempotency_key.as_deref(),
        Some("schedule:tidy:2026-03-01T10:30:00Z")
    );
    assert_eq!(
        scheduler.next_fire("tidy"),
        Some(ts("2026-03-01T10:35:00Z"))
    );

    // Without catch_up, nothing runs for the missed fires.
    let s = TestStore::new();
    let mut scheduler = Scheduler::new(
        &config(&every_five("queue", "0")),
        s.queue(),
        ts("2026-03-01T10:32:00Z"),
    );
    assert!(scheduler.tick(ts("2026-03-01T10:32:00Z")).is_empty());
    assert!(s.jobs().is_empty());
}

#[test]
fn fires_missed_while_running_are_coalesced() {
    let s = TestStore::new();
    let mut scheduler = Scheduler::new(
        &config(&every_five("queue", "0")),
        s.queue(),
        ts("2026-03-01T10:02:00Z"),
    );
    // The machine slept from 10:03 to 13:31.
    let fired = scheduler.tick(ts("2026-03-01T13:31:00Z"));
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].at, ts("2026-03-01T13:30:00Z"));
    assert_eq!(s.jobs().len(), 1);
}

#[test]
fn overlap_skip_waits_for_the_previous_job_to_end() {
    let s = TestStore::new();
    let mut scheduler = Scheduler::new(
        &config(&every_five("skip", "0")),
        s.queue(),
        ts("2026-03-01T10:02:00Z"),
    );
    scheduler.tick(ts("2026-03-01T10:05:00Z"));
    let first = s.jobs()[0].job_id.clone();

    // Still queued at 10:10: skipped.
    let fired = scheduler.tick(ts("2026-03-01T10:10:00Z"));
    assert_eq!(
        fired[0].outcome,
        FireOutcome::Skipped {
            busy_job_id: first.clone()
        }
    );
    assert_eq!(s.jobs().len(), 1);

    // Running at 10:15: skipped.
    let claimed = s
        .store
        .claim(
            "x",
            std::time::Duration::from_secs(600),
            ts("2026-03-01T10:12:00Z"),
        )
        .unwrap()
        .unwrap();
    let fired = scheduler.tick(ts("2026-03-01T10:15:00Z"));
    assert!(matches!(fired[0].outcome, FireOutcome::Skipped { .. }));
    assert_eq!(s.jobs().len(), 1);

    // Ended: the next fire runs.
    s.store
        .finish(
            &claimed.job.job_id,
            &claimed.token,
            &agentgate_store::JobOutcome {
                state: FinalState::Succeeded,
                envelope: None,
                error: None,
            },
            ts("2026-03-01T10:16:00Z"),
        )
        .unwrap();
    let fired = scheduler.tick(ts("2026-03-01T10:20:00Z"));
    assert!(matches!(fired[0].outcome, FireOutcome::Enqueued { .. }));
    assert_eq!(s.jobs().len(), 2);
}

#[test]
fn overlap_queue_enqueues_while_the_previous_job_waits() {
    let s = TestStore::new();
    let mut scheduler = Scheduler::new(
        &config(&every_five("queue", "0")),
        s.queue(),
        ts("2026-03-01T10:02:00Z"),
    );
    scheduler.tick(ts("2026-03-01T10:05:00Z"));
    let fired = scheduler.tick(ts("2026-03-01T10:10:00Z"));
    assert!(matches!(fired[0].outcome, FireOutcome::Enqueued { .. }));
    let states: Vec<_> = s.jobs().iter().map(|j| j.state).collect();
    assert_eq!(states, [JobState::Queued, JobState::Queued]);
}

#[test]
fn a_schedule_in_a_time_zone_fires_at_its_local_time() {
    let s = TestStore::new();
    let yaml = "version: 1\nschedules:\n  morning:\n    cron: \"0 9 * * *\"\n    time_zone: America/New_York\n    overlap: queue\n    request: {prompt: hi}\n";
    // New York springs forward on 2026-03-08: 09:00 is 14:00Z, then 13:00Z.
    let mut scheduler = Scheduler::new(&config(yaml), s.queue(), ts("2026-03-07T12:00:00Z"));
    assert_eq!(
        scheduler.next_fire("morning"),
        Some(ts("2026-03-07T14:00:00Z"))
    );
    scheduler.tick(ts("2026-03-07T14:00:00Z"));
    assert_eq!(
        scheduler.next_fire("morning"),
        Some(ts("2026-03-08T13:00:00Z"))
    );
    scheduler.tick(ts("2026-03-08T13:00:00Z"));
    let keys: Vec<_> = s
        .jobs()
        .iter()
        .map(|j| j.idempotency_key.clone().unwrap())
        .collect();
    assert_eq!(
        keys,
        [
            schedule_key("morning", ts("2026-03-07T14:00:00Z")),
            schedule_key("morning", ts("2026-03-08T13:00:00Z"))
        ]
    );
}
