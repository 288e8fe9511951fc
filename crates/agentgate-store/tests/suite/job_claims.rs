//! Claims and idempotent enqueues from several handles (as several
//! processes, or workers on several hosts, have) on one store at once, on
//! each backend.

use std::collections::HashMap;
use std::sync::{Arc, Barrier};

use agentgate_store::{
    FinalState, JobFilter, JobOutcome, JobState, NewJob, PgOptions, PgStore, Store, StoreBackend,
    StoreError,
};

use super::jobs::{LEASE, new_job};
use super::support::{Backend, TestStore, ts};

/// Handles claiming at once, each with its own connections.
const CLAIMERS: usize = 8;
const JOBS: usize = 200;

crate::on_both_backends!(
    concurrent_claimers_each_get_a_job_exactly_once,
    concurrent_enqueues_with_one_key_create_one_job,
    a_stale_token_changes_nothing_after_another_handle_reclaimed_the_job,
);

fn concurrent_claimers_each_get_a_job_exactly_once(store: &TestStore) {
    let at = ts("2026-05-01T12:00:00Z");
    for i in 0..JOBS {
        store.enqueue(&new_job(&format!("j{i:03}")), at).unwrap();
    }
    let stores: Vec<Arc<dyn StoreBackend>> = (0..CLAIMERS).map(|_| store.reopen()).collect();
    let barrier = Barrier::new(CLAIMERS);
    let claimed: Vec<Vec<String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(n, store)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let mut mine = Vec::new();
                    // Bounded: never more claims than jobs.
                    for _ in 0..=JOBS {
                        match store.claim(&format!("w{n}"), LEASE, at).unwrap() {
                            Some(job) => mine.push(job.job.job_id),
                            None => break,
                        }
                    }
                    mine
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut times: HashMap<String, usize> = HashMap::new();
    for id in claimed.iter().flatten() {
        *times.entry(id.clone()).or_default() += 1;
    }
    assert_eq!(times.len(), JOBS, "every job claimed");
    assert!(times.values().all(|&n| n == 1), "{times:?}");
    for i in 0..JOBS {
        let job = store.get_job(&format!("j{i:03}")).unwrap().unwrap();
        assert_eq!(job.attempts, 1, "{}", job.job_id);
        assert_eq!(job.state, JobState::Running, "{}", job.job_id);
    }
}

fn concurrent_enqueues_with_one_key_create_one_job(store: &TestStore) {
    let at = ts("2026-05-01T12:00:00Z");
    let stores: Vec<Arc<dyn StoreBackend>> = (0..CLAIMERS).map(|_| store.reopen()).collect();
    let barrier = Barrier::new(CLAIMERS);
    let results: Vec<(String, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = stores
            .iter()
            .enumerate()
            .map(|(n, store)| {
                let barrier = &barrier;
                scope.spawn(move || {
                    barrier.wait();
                    let job = NewJob {
                        idempotency_key: Some("the-key".to_owned()),
                        ..new_job(&format!("j{n}"))
                    };
                    let enqueued = store.enqueue(&job, at).unwrap();
                    (enqueued.job.job_id, enqueued.created)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let created: Vec<_> = results.iter().filter(|(_, created)| *created).collect();
    assert_eq!(created.len(), 1, "{results:?}");
    let winner = &created[0].0;
    assert!(results.iter().all(|(id, _)| id == winner), "{results:?}");
    let page = store.list_jobs(&JobFilter::default(), 100, None).unwrap();
    assert_eq!(page.jobs.len(), 1);
}

/// Fencing across handles: a worker whose lease was taken back and whose
/// job another worker claimed can write nothing with its old token.
fn a_stale_token_changes_nothing_after_another_handle_reclaimed_the_job(store: &TestStore) {
    let t = |s: &str| ts(&format!("2026-05-01T12:00:{s}Z"));
    let (slow, fast) = (store.reopen(), store.reopen());
    store.enqueue(&new_job("j1"), t("00")).unwrap();
    let first = slow.claim("slow", LEASE, t("00")).unwrap().unwrap();
    let expired = fast
        .expire_leases(t("30"), agentgate_store::ExpiryPolicy::Requeue)
        .unwrap();
    assert_eq!(expired.len(), 1);
    let second = fast.claim("fast", LEASE, t("31")).unwrap().unwrap();
    assert_eq!(second.job.attempts, 2);
    let before = store.get_job("j1").unwrap().unwrap();

    let done = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    let refused: Vec<StoreError> = vec![
        slow.finish("j1", &first.token, &done, t("32")).unwrap_err(),
        slow.heartbeat("j1", &first.token, LEASE, t("32"))
            .unwrap_err(),
        slow.release("j1", &first.token, t("40"), None, t("32"))
            .unwrap_err(),
        slow.retry("j1", &first.token, t("40"), "late", t("32"))
            .unwrap_err(),
    ];
    for err in refused {
        assert!(matches!(err, StoreError::LeaseLost { .. }), "{err}");
    }
    assert_eq!(store.get_job("j1").unwrap().unwrap(), before);
    assert_eq!(before.lease_owner.as_deref(), Some("fast"));
    let ended = fast.finish("j1", &second.token, &done, t("33")).unwrap();
    assert_eq!(ended.state, JobState::Succeeded);
}

/// Set in the children of the tests below: the backend and the store they
/// claim from.
const CHILD_BACKEND_ENV: &str = "AGENTGATE_TEST_CLAIM_BACKEND";
const CHILD_STORE_ENV: &str = "AGENTGATE_TEST_CLAIM_STORE";
const PROCESSES: usize = 2;
const PROCESS_JOBS: usize = 60;

/// Two processes (this test binary run again, as a child that claims until
/// the queue is empty and prints what it got) claim from one store.
mod two_processes_never_claim_the_same_job {
    use super::*;

    #[test]
    fn sqlite() {
        two_processes(Backend::Sqlite, "sqlite");
    }

    #[test]
    fn postgres() {
        two_processes(Backend::Postgres, "postgres");
    }
}

fn two_processes(backend: Backend, test: &str) {
    let at = ts("2026-05-01T12:00:00Z");
    if let Some(location) = std::env::var_os(CHILD_STORE_ENV) {
        let location = location.to_string_lossy().into_owned();
        let dir = tempfile::tempdir().unwrap();
        let store: Box<dyn StoreBackend> = match std::env::var(CHILD_BACKEND_ENV).as_deref() {
            Ok("postgres") => Box::new(
                PgStore::connect(&location, dir.path().join("runs"), &PgOptions::default())
                    .unwrap(),
            ),
            _ => Box::new(Store::open(&location).unwrap()),
        };
        let owner = format!("pid{}", std::process::id());
        for _ in 0..=PROCESS_JOBS {
            match store.claim(&owner, LEASE, at).unwrap() {
                Some(job) => println!("claimed {}", job.job.job_id),
                None => break,
            }
        }
        return;
    }
    let store = TestStore::new(backend);
    for i in 0..PROCESS_JOBS {
        store.enqueue(&new_job(&format!("p{i:03}")), at).unwrap();
    }
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    &format!("suite::job_claims::two_processes_never_claim_the_same_job::{test}"),
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_STORE_ENV, &store.location)
                .env(CHILD_BACKEND_ENV, test)
                .stdout(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let mut times: HashMap<String, usize> = HashMap::new();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{output:?}");
        // The test harness may print its own text on the first line.
        let stdout = String::from_utf8(output.stdout).unwrap();
        for part in stdout.split("claimed ").skip(1) {
            let id = part.split_whitespace().next().unwrap();
            *times.entry(id.to_owned()).or_default() += 1;
        }
    }
    assert_eq!(times.len(), PROCESS_JOBS, "every job claimed: {times:?}");
    assert!(times.values().all(|&n| n == 1), "{times:?}");
}
