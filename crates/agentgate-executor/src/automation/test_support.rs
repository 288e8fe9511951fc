//! What the automation tests share: a clock they move, a real store in a
//! temp folder, a config from YAML, and an executor's end of a job.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agentgate_core::{Config, ConfigSource};
use agentgate_store::{FinalState, JobFilter, JobOutcome, JobQueue, JobRecord, SqliteStore};
use jiff::Timestamp;

use super::Clock;

/// A clock that says what the test set.
#[derive(Debug)]
pub(super) struct FakeClock(Mutex<Timestamp>);

impl FakeClock {
    pub fn at(t: &str) -> Arc<FakeClock> {
        Arc::new(FakeClock(Mutex::new(ts(t))))
    }

    pub fn set(&self, t: &str) {
        *self.0.lock().unwrap() = ts(t);
    }

    pub fn advance(&self, seconds: i64) {
        let mut now = self.0.lock().unwrap();
        *now = now
            .checked_add(jiff::SignedDuration::from_secs(seconds))
            .unwrap();
    }
}

impl Clock for FakeClock {
    fn now(&self) -> Timestamp {
        *self.0.lock().unwrap()
    }
}

pub(super) fn ts(t: &str) -> Timestamp {
    t.parse().unwrap()
}

/// A real SQLite store in a temp folder.
pub(super) struct TestStore {
    pub dir: tempfile::TempDir,
    pub store: Arc<SqliteStore>,
}

impl TestStore {
    pub fn new() -> TestStore {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(SqliteStore::open(dir.path().join("agentgate.db")).unwrap());
        TestStore { dir, store }
    }

    pub fn queue(&self) -> Arc<dyn JobQueue> {
        Arc::clone(&self.store) as Arc<dyn JobQueue>
    }

    /// The same database, opened again (a restarted server).
    pub fn reopen(&self) -> Arc<dyn JobQueue> {
        Arc::new(SqliteStore::open(self.dir.path().join("agentgate.db")).unwrap())
    }

    /// Every job, oldest first.
    pub fn jobs(&self) -> Vec<JobRecord> {
        let mut jobs = self
            .store
            .list_jobs(&JobFilter::default(), 1000, None)
            .unwrap()
            .jobs;
        jobs.reverse();
        jobs
    }

    /// Claim the next job and finish it with `state` and `error`, as an
    /// executor would.
    pub fn run_next(&self, state: FinalState, error: Option<&str>, now: &str) -> String {
        let claimed = self
            .store
            .claim("test-executor", std::time::Duration::from_secs(60), ts(now))
            .unwrap()
            .expect("a job to claim");
        let outcome = JobOutcome {
            state,
            envelope: None,
            error: error.map(str::to_owned),
        };
        self.store
            .finish(&claimed.job.job_id, &claimed.token, &outcome, ts(now))
            .unwrap();
        claimed.job.job_id
    }
}

/// A config read from `yaml` as if from /cfg/agentgate.yaml.
pub(super) fn config(yaml: &str) -> Config {
    Config::parse(
        yaml,
        ConfigSource::Flag(PathBuf::from("/cfg/agentgate.yaml")),
    )
    .unwrap()
}
