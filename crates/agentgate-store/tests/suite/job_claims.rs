//! Claims and idempotent enqueues from several handles (as several
//! processes have) on one file at once.

use std::collections::HashMap;
use std::sync::Barrier;

use agentgate_store::{JobQueue, NewJob, Store};

use super::jobs::{LEASE, new_job};
use super::support::ts;

const CLAIMERS: usize = 4;
const JOBS: usize = 60;

#[test]
fn concurrent_claimers_each_get_a_job_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let at = ts("2026-05-01T12:00:00Z");
    {
        let store = Store::open(&path).unwrap();
        for i in 0..JOBS {
            store.enqueue(&new_job(&format!("j{i:03}")), at).unwrap();
        }
    }
    let stores: Vec<Store> = (0..CLAIMERS).map(|_| Store::open(&path).unwrap()).collect();
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
    let store = Store::open(&path).unwrap();
    for i in 0..JOBS {
        let job = store.get_job(&format!("j{i:03}")).unwrap().unwrap();
        assert_eq!(job.attempts, 1, "{}", job.job_id);
    }
}

#[test]
fn concurrent_enqueues_with_one_key_create_one_job() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let at = ts("2026-05-01T12:00:00Z");
    let stores: Vec<Store> = (0..CLAIMERS).map(|_| Store::open(&path).unwrap()).collect();
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
    let page = stores[0]
        .list_jobs(&agentgate_store::JobFilter::default(), 100, None)
        .unwrap();
    assert_eq!(page.jobs.len(), 1);
}

/// Set in the children of the test below: the database they claim from.
const CHILD_DB_ENV: &str = "AGENTGATE_TEST_CLAIM_DB";
const PROCESSES: usize = 2;

/// Two processes (this test binary run again, as a child that claims until
/// the queue is empty and prints what it got) claim from one file.
#[test]
fn two_processes_never_claim_the_same_job() {
    let at = ts("2026-05-01T12:00:00Z");
    if let Some(path) = std::env::var_os(CHILD_DB_ENV) {
        let store = Store::open(&path).unwrap();
        let owner = format!("pid{}", std::process::id());
        for _ in 0..=JOBS {
            match store.claim(&owner, LEASE, at).unwrap() {
                Some(job) => println!("claimed {}", job.job.job_id),
                None => break,
            }
        }
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let store = Store::open(&path).unwrap();
    for i in 0..JOBS {
        store.enqueue(&new_job(&format!("p{i:03}")), at).unwrap();
    }
    let exe = std::env::current_exe().unwrap();
    let children: Vec<_> = (0..PROCESSES)
        .map(|_| {
            std::process::Command::new(&exe)
                .args([
                    "--exact",
                    "suite::job_claims::two_processes_never_claim_the_same_job",
                    "--nocapture",
                    "--test-threads=1",
                ])
                .env(CHILD_DB_ENV, &path)
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
    assert_eq!(times.len(), JOBS, "every job claimed: {times:?}");
    assert!(times.values().all(|&n| n == 1), "{times:?}");
}
