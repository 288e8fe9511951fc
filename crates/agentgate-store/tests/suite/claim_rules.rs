//! Claims within rules (`JobQueue::claim_job_within`): the limits checked
//! in the claiming transaction against every running job, from several
//! handles on one store (as workers on several hosts have), on each
//! backend.

use std::sync::{Arc, Barrier};

use agentgate_store::{ClaimRules, FinalState, JobOutcome, JobState, NewJob, StoreBackend};
use jiff::Timestamp;

use super::jobs::{LEASE, new_job};
use super::support::{TestStore, ts};

crate::on_both_backends!(
    a_providers_limit_counts_the_running_jobs_of_every_handle,
    max_running_counts_every_running_job,
    one_job_at_a_time_writes_in_a_folder,
    a_session_runs_its_oldest_job_first_and_one_at_a_time,
    the_claim_keeps_what_it_charged_and_a_claim_without_rules_clears_it,
    racing_claimers_never_pass_a_providers_limit,
);

fn at() -> Timestamp {
    ts("2026-05-01T12:00:00Z")
}

fn on(provider: &str, limit: u32) -> ClaimRules {
    ClaimRules {
        provider: Some(provider.to_owned()),
        provider_limit: Some(limit),
        ..ClaimRules::default()
    }
}

fn claim(store: &dyn StoreBackend, id: &str, rules: &ClaimRules) -> bool {
    store
        .claim_job_within(id, "w", LEASE, at(), rules)
        .unwrap()
        .is_some()
}

fn finish(store: &dyn StoreBackend, id: &str, token: &agentgate_store::LeaseToken) {
    let outcome = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store.finish(id, token, &outcome, at()).unwrap();
}

fn enqueue(store: &dyn StoreBackend, jobs: &[&str]) {
    for id in jobs {
        store.enqueue(&new_job(id), at()).unwrap();
    }
}

fn a_providers_limit_counts_the_running_jobs_of_every_handle(store: &TestStore) {
    let other = store.reopen();
    enqueue(&**store, &["a", "b", "c", "d"]);
    let first = store
        .claim_job_within("a", "host1", LEASE, at(), &on("claude", 2))
        .unwrap()
        .unwrap();
    assert!(claim(&*other, "b", &on("claude", 2)));
    // Two run against claude, one from each handle: no third.
    assert!(!claim(&**store, "c", &on("claude", 2)));
    assert!(!claim(&*other, "c", &on("claude", 2)));
    assert_eq!(store.get_job("c").unwrap().unwrap().state, JobState::Queued);
    // Another provider has room.
    assert!(claim(&*other, "d", &on("codex", 1)));
    // A claude job ends: room again.
    finish(&*other, "a", &first.token);
    assert!(claim(&*other, "c", &on("claude", 2)));
}

fn max_running_counts_every_running_job(store: &TestStore) {
    let other = store.reopen();
    enqueue(&**store, &["a", "b", "c"]);
    let max2 = |provider: &str| ClaimRules {
        max_running: Some(2),
        ..on(provider, 10)
    };
    assert!(claim(&**store, "a", &max2("claude")));
    // A claim without rules still runs, and counts.
    assert!(store.claim_job("b", "w", LEASE, at()).unwrap().is_some());
    assert!(!claim(&*other, "c", &max2("codex")));
    assert!(claim(&*other, "c", &ClaimRules::default()));
}

fn one_job_at_a_time_writes_in_a_folder(store: &TestStore) {
    enqueue(&**store, &["a", "b", "c"]);
    let folder = |dir: &str| ClaimRules {
        writes_in: Some(dir.to_owned()),
        ..ClaimRules::default()
    };
    assert!(claim(&**store, "a", &folder("/work/repo")));
    assert!(!claim(&*store.reopen(), "b", &folder("/work/repo")));
    assert!(claim(&**store, "c", &folder("/work/other")));
}

fn a_session_runs_its_oldest_job_first_and_one_at_a_time(store: &TestStore) {
    for (i, id) in ["s1", "s2", "lone"].iter().enumerate() {
        let job = NewJob {
            session: (*id != "lone").then(|| "nightly".to_owned()),
            ..new_job(id)
        };
        let when = at()
            .checked_sub(jiff::SignedDuration::from_secs(10 - i as i64))
            .unwrap();
        store.enqueue(&job, when).unwrap();
    }
    let rules = ClaimRules::default();
    // s2 is not its session's oldest queued job.
    assert!(!claim(&**store, "s2", &rules));
    let s1 = store
        .claim_job_within("s1", "w", LEASE, at(), &rules)
        .unwrap()
        .unwrap();
    // s1 runs: its session has no room, from any handle.
    assert!(!claim(&*store.reopen(), "s2", &rules));
    assert!(claim(&**store, "lone", &rules));
    finish(&**store, "s1", &s1.token);
    assert!(claim(&**store, "s2", &rules));
}

fn the_claim_keeps_what_it_charged_and_a_claim_without_rules_clears_it(store: &TestStore) {
    enqueue(&**store, &["a"]);
    let rules = ClaimRules {
        writes_in: Some("/work/repo".to_owned()),
        ..on("codex", 3)
    };
    let claimed = store
        .claim_job_within("a", "w", LEASE, at(), &rules)
        .unwrap()
        .unwrap();
    assert_eq!(claimed.job.charged_provider.as_deref(), Some("codex"));
    assert_eq!(claimed.job.writes_in.as_deref(), Some("/work/repo"));
    let read = store.get_job("a").unwrap().unwrap();
    assert_eq!(
        (read.charged_provider.as_deref(), read.writes_in.as_deref()),
        (Some("codex"), Some("/work/repo"))
    );
    store
        .release("a", &claimed.token, at(), None, at())
        .unwrap();
    let again = store.claim_job("a", "w", LEASE, at()).unwrap().unwrap();
    assert_eq!(
        (again.job.charged_provider, again.job.writes_in),
        (None, None)
    );
}

/// Eight handles race for 40 jobs of one provider limited to 2, each
/// claiming in a loop: at no point do more than 2 run, so exactly 2 are
/// claimed in all.
fn racing_claimers_never_pass_a_providers_limit(store: &TestStore) {
    let ids: Vec<String> = (0..40).map(|i| format!("j{i:02}")).collect();
    for id in &ids {
        store.enqueue(&new_job(id), at()).unwrap();
    }
    let handles: Vec<Arc<dyn StoreBackend>> = (0..8).map(|_| store.reopen()).collect();
    let barrier = Arc::new(Barrier::new(handles.len()));
    let threads: Vec<_> = handles
        .into_iter()
        .enumerate()
        .map(|(n, handle)| {
            let (ids, barrier) = (ids.clone(), barrier.clone());
            std::thread::spawn(move || {
                barrier.wait();
                // Each starts at its own place in the list.
                (0..ids.len())
                    .map(|i| &ids[(i + n * 5) % ids.len()])
                    .filter(|id| claim(&*handle, id, &on("claude", 2)))
                    .count()
            })
        })
        .collect();
    let claimed: usize = threads.into_iter().map(|t| t.join().unwrap()).sum();
    assert_eq!(claimed, 2);
    let running = ids
        .iter()
        .filter(|id| store.get_job(id).unwrap().unwrap().state == JobState::Running)
        .count();
    assert_eq!(running, 2);
}
