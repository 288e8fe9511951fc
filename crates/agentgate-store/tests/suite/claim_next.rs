//! `JobQueue::claim_next`: each limit at its boundary, the claim order,
//! session order, quota waits, a claimer's providers and the jobs it
//! passes over, jobs queued before their facts were stored, racing
//! claimers on several handles (as workers on several hosts), on each
//! backend. The claim's query plans with 10,000 queued jobs are checked
//! beside the statements (`src/sqlite/claim_next.rs`,
//! `src/postgres/claim_next.rs`).

use std::sync::{Arc, Barrier};

use agentgate_store::{
    ClaimLimits, ClaimedJob, FinalState, JobOutcome, JobState, NewJob, NextClaim, PlannedFacts,
    StoreBackend,
};
use jiff::{SignedDuration, Timestamp};

use super::jobs::LEASE;
use super::support::{Backend, TestStore, ts, with_pg_client};

crate::on_both_backends!(
    max_running_holds_at_its_boundary,
    priority_then_submission_order,
    a_providers_limit_holds_and_other_providers_go_past,
    a_session_runs_its_oldest_job_first_and_one_at_a_time,
    one_job_at_a_time_writes_in_a_folder,
    a_job_not_before_a_time_waits_for_it,
    exhausted_providers_are_skipped_and_all_exhausted_waits_for_the_earliest_reset,
    a_claimer_of_some_providers_passes_over_the_others_jobs,
    passed_over_jobs_keep_their_place_for_others,
    jobs_queued_before_their_facts_wait_until_planned,
    racing_claimers_never_pass_a_limit,
);

fn at() -> Timestamp {
    ts("2026-05-01T12:00:00Z")
}

fn later(seconds: i64) -> Timestamp {
    at().checked_add(SignedDuration::from_secs(seconds))
        .unwrap()
}

fn job(id: &str, providers: &[&str]) -> NewJob {
    NewJob {
        job_id: id.to_owned(),
        request: serde_json::json!({"prompt": id}),
        priority: 0,
        not_before: None,
        idempotency_key: None,
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        session: None,
        writes_in: None,
        ignore_quota: false,
        planned: true,
        labels: Default::default(),
    }
}

/// Enqueues `jobs` one second apart (submission order = list order).
fn enqueue(store: &dyn StoreBackend, jobs: Vec<NewJob>) {
    for (i, job) in jobs.into_iter().enumerate() {
        let when = at()
            .checked_sub(SignedDuration::from_secs(100 - i as i64))
            .unwrap();
        store.enqueue(&job, when).unwrap();
    }
}

fn limits(max_running: u32) -> ClaimLimits {
    ClaimLimits {
        max_running,
        ..ClaimLimits::default()
    }
}

fn next(store: &dyn StoreBackend, limits: &ClaimLimits) -> NextClaim {
    store.claim_next("w", LEASE, at(), limits).unwrap()
}

/// The id of the job the next claim takes; `None` if it takes none.
fn claimed(store: &dyn StoreBackend, limits: &ClaimLimits) -> Option<ClaimedJob> {
    match next(store, limits) {
        NextClaim::Claimed(job) => Some(*job),
        NextClaim::Nothing => None,
        other => panic!("expected a claim or nothing: {other:?}"),
    }
}

fn id(store: &dyn StoreBackend, limits: &ClaimLimits) -> Option<String> {
    claimed(store, limits).map(|c| c.job.job_id)
}

fn finish(store: &dyn StoreBackend, job: &ClaimedJob) {
    let outcome = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store
        .finish(&job.job.job_id, &job.token, &outcome, at())
        .unwrap();
}

fn max_running_holds_at_its_boundary(store: &TestStore) {
    enqueue(
        &**store,
        vec![job("a", &[]), job("b", &[]), job("c", &["claude"])],
    );
    let l = limits(2);
    let a = claimed(&**store, &l).unwrap();
    assert_eq!(a.job.job_id, "a");
    assert_eq!(a.job.attempts, 1);
    assert_eq!(id(&**store, &l).as_deref(), Some("b"));
    assert_eq!(id(&**store, &l), None);
    finish(&**store, &a);
    let c = claimed(&**store, &l).unwrap();
    assert_eq!(c.job.job_id, "c");
    assert_eq!(c.job.charged_provider.as_deref(), Some("claude"));
}

fn priority_then_submission_order(store: &TestStore) {
    let urgent = NewJob {
        priority: 5,
        ..job("urgent", &["claude"])
    };
    enqueue(
        &**store,
        vec![
            job("first", &["claude"]),
            urgent,
            job("second", &["claude"]),
        ],
    );
    let l = limits(10);
    let order: Vec<Option<String>> = (0..4).map(|_| id(&**store, &l)).collect();
    assert_eq!(
        order,
        [
            Some("urgent".to_owned()),
            Some("first".to_owned()),
            Some("second".to_owned()),
            None
        ]
    );
}

fn a_providers_limit_holds_and_other_providers_go_past(store: &TestStore) {
    enqueue(
        &**store,
        vec![
            job("a", &["claude"]),
            job("b", &["claude"]),
            job("c", &["codex"]),
            job("d", &["claude"]),
        ],
    );
    let l = ClaimLimits {
        provider_limits: vec![("claude".to_owned(), 2)],
        ..limits(10)
    };
    assert_eq!(id(&**store, &l).as_deref(), Some("a"));
    let b = claimed(&**store, &l).unwrap();
    assert_eq!(b.job.job_id, "b");
    // Claude is full: codex goes past, d waits.
    assert_eq!(id(&**store, &l).as_deref(), Some("c"));
    assert_eq!(id(&**store, &l), None);
    finish(&**store, &b);
    assert_eq!(id(&**store, &l).as_deref(), Some("d"));
}

fn a_session_runs_its_oldest_job_first_and_one_at_a_time(store: &TestStore) {
    let of = |id: &str| NewJob {
        session: Some("nightly".to_owned()),
        ..job(id, &["claude"])
    };
    // s2 has the higher priority, but s1 is its session's oldest.
    let s2 = NewJob {
        priority: 9,
        ..of("s2")
    };
    enqueue(&**store, vec![of("s1"), s2, job("lone", &["claude"])]);
    let l = limits(10);
    let s1 = claimed(&**store, &l).unwrap();
    assert_eq!(s1.job.job_id, "s1");
    assert_eq!(id(&**store, &l).as_deref(), Some("lone"));
    assert_eq!(id(&**store, &l), None, "s2 waits while s1 runs");
    finish(&**store, &s1);
    assert_eq!(id(&**store, &l).as_deref(), Some("s2"));
}

fn one_job_at_a_time_writes_in_a_folder(store: &TestStore) {
    let writer = |id: &str| NewJob {
        writes_in: Some("/work/repo".to_owned()),
        ..job(id, &["claude"])
    };
    enqueue(
        &**store,
        vec![writer("w1"), writer("w2"), job("reader", &["claude"])],
    );
    let l = limits(10);
    let w1 = claimed(&**store, &l).unwrap();
    assert_eq!(w1.job.writes_in.as_deref(), Some("/work/repo"));
    assert_eq!(id(&**store, &l).as_deref(), Some("reader"));
    assert_eq!(id(&**store, &l), None);
    finish(&**store, &w1);
    assert_eq!(id(&**store, &l).as_deref(), Some("w2"));
}

fn a_job_not_before_a_time_waits_for_it(store: &TestStore) {
    let held = NewJob {
        not_before: Some(later(60)),
        ..job("held", &["claude"])
    };
    enqueue(&**store, vec![held]);
    let l = limits(10);
    assert_eq!(id(&**store, &l), None);
    let due = store.claim_next("w", LEASE, later(60), &l).unwrap();
    assert!(matches!(due, NextClaim::Claimed(j) if j.job.job_id == "held"));
}

fn exhausted_providers_are_skipped_and_all_exhausted_waits_for_the_earliest_reset(
    store: &TestStore,
) {
    let forced = NewJob {
        ignore_quota: true,
        ..job("forced", &["claude"])
    };
    enqueue(
        &**store,
        vec![
            job("chain", &["claude", "codex"]),
            job("stuck", &["claude", "gemini"]),
            forced,
            job("after", &["codex"]),
        ],
    );
    let l = ClaimLimits {
        exhausted: vec![
            ("claude".to_owned(), later(600)),
            ("gemini".to_owned(), later(300)),
        ],
        ..limits(10)
    };
    let chain = claimed(&**store, &l).unwrap();
    assert_eq!(
        (
            chain.job.job_id.as_str(),
            chain.job.charged_provider.as_deref()
        ),
        ("chain", Some("codex"))
    );
    assert_eq!(
        next(&**store, &l),
        NextClaim::WaitingForQuota {
            job_id: "stuck".to_owned(),
            until: later(300),
        }
    );
    let stuck = store.get_job("stuck").unwrap().unwrap();
    assert_eq!(stuck.state, JobState::Queued);
    assert_eq!(stuck.waiting_for.as_deref(), Some("quota"));
    assert_eq!((stuck.not_before, stuck.attempts), (later(300), 0));
    let forced = claimed(&**store, &l).unwrap();
    assert_eq!(
        (
            forced.job.job_id.as_str(),
            forced.job.charged_provider.as_deref()
        ),
        ("forced", Some("claude"))
    );
    assert_eq!(id(&**store, &l).as_deref(), Some("after"));
    assert_eq!(id(&**store, &l), None);
}

fn a_claimer_of_some_providers_passes_over_the_others_jobs(store: &TestStore) {
    enqueue(
        &**store,
        vec![
            job("claude1", &["claude"]),
            job("workflow", &[]),
            job("codex1", &["codex"]),
            job("chain", &["claude", "codex"]),
        ],
    );
    let codex_only = ClaimLimits {
        only_providers: Some(vec!["codex".to_owned()]),
        exhausted: vec![("claude".to_owned(), later(600))],
        ..limits(10)
    };
    // claude1 waits for its quota (every provider exhausted), whoever
    // claims; the workflow names no provider: not this claimer's.
    assert!(matches!(
        next(&**store, &codex_only),
        NextClaim::WaitingForQuota { job_id, .. } if job_id == "claude1"
    ));
    assert_eq!(id(&**store, &codex_only).as_deref(), Some("codex1"));
    // The chain's first provider is exhausted: it counts against codex.
    assert_eq!(id(&**store, &codex_only).as_deref(), Some("chain"));
    assert_eq!(id(&**store, &codex_only), None);
    assert_eq!(id(&**store, &limits(10)).as_deref(), Some("workflow"));
}

fn passed_over_jobs_keep_their_place_for_others(store: &TestStore) {
    enqueue(
        &**store,
        vec![job("sealed", &["claude"]), job("open", &["claude"])],
    );
    let skipping = ClaimLimits {
        skip: vec!["sealed".to_owned()],
        ..limits(10)
    };
    assert_eq!(id(&**store, &skipping).as_deref(), Some("open"));
    assert_eq!(id(&**store, &skipping), None);
    assert_eq!(id(&**store, &limits(10)).as_deref(), Some("sealed"));
}

/// Marks `ids` as queued by a version that stored no claim facts.
fn unplan(store: &TestStore, ids: &[&str]) {
    let ids: Vec<String> = ids.iter().map(|i| (*i).to_owned()).collect();
    match store.backend {
        Backend::Sqlite => {
            let conn = rusqlite::Connection::open(&store.location).unwrap();
            for id in &ids {
                conn.execute("UPDATE jobs SET planned = 0 WHERE job_id = ?1", [id])
                    .unwrap();
            }
        }
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            client
                .execute(
                    "UPDATE jobs SET planned = false WHERE job_id = ANY($1)",
                    &[&ids],
                )
                .await
                .unwrap();
        }),
    }
}

fn jobs_queued_before_their_facts_wait_until_planned(store: &TestStore) {
    enqueue(
        &**store,
        vec![job("old", &["claude"]), job("new", &["claude"])],
    );
    unplan(store, &["old"]);
    let unplanned = store.unplanned_jobs(10).unwrap();
    assert_eq!(
        unplanned
            .iter()
            .map(|j| j.job_id.as_str())
            .collect::<Vec<_>>(),
        ["old"]
    );
    let l = limits(10);
    assert_eq!(id(&**store, &l).as_deref(), Some("new"));
    assert_eq!(id(&**store, &l), None);
    let facts = PlannedFacts {
        providers: vec!["codex".to_owned()],
        writes_in: Some("/work/old".to_owned()),
        ignore_quota: false,
    };
    assert!(store.set_job_facts("old", &facts).unwrap());
    assert!(!store.set_job_facts("old", &facts).unwrap(), "once");
    assert!(store.unplanned_jobs(10).unwrap().is_empty());
    let old = claimed(&**store, &l).unwrap();
    assert_eq!(old.job.providers, ["codex"]);
    assert_eq!(old.job.charged_provider.as_deref(), Some("codex"));
    assert_eq!(old.job.writes_in.as_deref(), Some("/work/old"));
}

/// Claimers on 8 handles at once, each claiming until nothing is left:
/// with 60 jobs (claude's limited to 2, one folder shared by some, 3 at
/// most in all) no limit is ever passed, whatever the interleaving; one
/// more claimer then fills what room a race left, and no more.
fn racing_claimers_never_pass_a_limit(store: &TestStore) {
    let mut jobs = Vec::new();
    for i in 0..60 {
        let provider = if i % 2 == 0 { "claude" } else { "codex" };
        let mut j = job(&format!("j{i:02}"), &[provider]);
        if i % 3 == 0 {
            j.writes_in = Some("/work/shared".to_owned());
        }
        jobs.push(j);
    }
    enqueue(&**store, jobs);
    let l = ClaimLimits {
        provider_limits: vec![("claude".to_owned(), 2)],
        ..limits(3)
    };
    let handles: Vec<Arc<dyn StoreBackend>> = (0..8).map(|_| store.reopen()).collect();
    let barrier = Arc::new(Barrier::new(handles.len()));
    let threads: Vec<_> = handles
        .into_iter()
        .map(|handle| {
            let (barrier, l) = (barrier.clone(), l.clone());
            std::thread::spawn(move || {
                barrier.wait();
                let mut mine = Vec::new();
                while let Some(job) = claimed(&*handle, &l) {
                    mine.push(job.job);
                }
                mine
            })
        })
        .collect();
    let all: Vec<_> = threads
        .into_iter()
        .flat_map(|t| t.join().unwrap())
        .collect();
    assert!(all.len() <= 3, "max_running: {all:?}");
    let mut all = all;
    while let Some(job) = claimed(&**store, &l) {
        all.push(job.job);
    }
    assert_eq!(all.len(), 3, "max_running: {all:?}");
    let on_claude = all
        .iter()
        .filter(|j| j.charged_provider.as_deref() == Some("claude"))
        .count();
    assert!(on_claude <= 2, "{all:?}");
    let in_folder = all.iter().filter(|j| j.writes_in.is_some()).count();
    assert!(in_folder <= 1, "{all:?}");
    let running = store
        .count_active_jobs()
        .unwrap()
        .iter()
        .filter(|c| c.state == JobState::Running)
        .map(|c| c.jobs)
        .sum::<u64>();
    assert_eq!(running, 3);
}
