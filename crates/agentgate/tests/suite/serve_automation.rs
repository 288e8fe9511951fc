//! `agentgate serve` with `schedules:` and `watch:` in its config: a real
//! process creates the jobs in the store, read here from the database file
//! (the executor, a separate part of the server, runs them; here the test
//! finishes a job through the queue as an executor would).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentgate_store::{FinalState, JobFilter, JobOutcome, JobQueue, JobRecord, SqliteStore};

use super::serve_support::{Env, LIMIT, Serve};

struct Home {
    dir: tempfile::TempDir,
    bin: PathBuf,
}

impl Home {
    fn new() -> Home {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        Home { dir, bin }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn env(&self) -> Env<'_> {
        Env {
            home: self.path(),
            bin: &self.bin,
            vars: vec![
                ("AGENTGATE_TOKEN", "automation-test-token".to_owned()),
                ("AGENTGATE_LOG", "info".to_owned()),
            ],
        }
    }

    fn write_config(&self, yaml: &str) -> String {
        let path = self.path().join("agentgate.yaml");
        std::fs::write(&path, yaml).unwrap();
        path.display().to_string()
    }

    /// How many serve processes' stderr logs mention `text`.
    fn logs_mentioning(&self, text: &str) -> usize {
        std::fs::read_dir(self.path())
            .unwrap()
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("serve-stderr-"))
            .filter(|e| std::fs::read_to_string(e.path()).is_ok_and(|log| log.contains(text)))
            .count()
    }

    /// Every job in serve's store, oldest first.
    fn jobs(&self) -> Vec<JobRecord> {
        let db = self.path().join("data").join("agentgate.db");
        if !db.exists() {
            return Vec::new();
        }
        let store = SqliteStore::open(db).unwrap();
        let mut jobs = store
            .list_jobs(&JobFilter::default(), 1000, None)
            .unwrap()
            .jobs;
        jobs.reverse();
        jobs
    }
}

/// Wait (bounded) until `done` returns something.
fn wait_for<T>(what: &str, mut done: impl FnMut() -> Option<T>) -> T {
    let start = Instant::now();
    loop {
        if let Some(t) = done() {
            return t;
        }
        assert!(start.elapsed() < LIMIT, "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_watched_file_becomes_a_job_and_moves_to_done_when_it_succeeds() {
    let home = Home::new();
    let inbox = home.path().join("inbox");
    std::fs::create_dir(&inbox).unwrap();
    let config = home.write_config(&format!(
        "version: 1\nwatch:\n  inbox:\n    folder: {}\n    poll: 100ms\n    settle: 200ms\n    request:\n      providers: [claude]\n",
        inbox.display()
    ));
    let env = home.env();
    let server = Serve::start(&env, &["--config", &config]);

    std::fs::write(inbox.join("draft.md.part"), "summarise the inbox").unwrap();
    std::fs::rename(inbox.join("draft.md.part"), inbox.join("task.md")).unwrap();
    let job = wait_for("the file's job", || {
        home.jobs()
            .into_iter()
            .find(|j| j.request["prompt"] == "summarise the inbox")
    });
    assert_eq!(job.providers, ["claude"]);
    assert!(
        job.idempotency_key
            .as_deref()
            .unwrap()
            .ends_with(":task.md")
    );
    assert!(
        inbox.join("task.md").exists(),
        "the file stays while its job runs"
    );

    // The job ends as an executor would end it: the file moves to done/.
    let store = SqliteStore::open(home.path().join("data/agentgate.db")).unwrap();
    let claimed = store
        .claim("test", Duration::from_secs(60), jiff::Timestamp::now())
        .unwrap()
        .unwrap();
    assert_eq!(claimed.job.job_id, job.job_id);
    let outcome = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store
        .finish(
            &job.job_id,
            &claimed.token,
            &outcome,
            jiff::Timestamp::now(),
        )
        .unwrap();
    wait_for("the file in done/", || {
        inbox.join("done/task.md").exists().then_some(())
    });
    assert!(!inbox.join("task.md").exists());
    assert_eq!(home.jobs().len(), 1);

    let (status, _, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));
}

#[test]
fn a_schedule_fires_once_per_fire_across_a_restart() {
    let home = Home::new();
    // Every minute; catch_up makes the last minute's fire run at start.
    let config = home.write_config(
        "version: 1\nschedules:\n  minutely:\n    cron: \"* * * * *\"\n    catch_up: 2m\n    overlap: queue\n    request:\n      prompt: check the build\n      providers: [codex]\n",
    );
    let env = home.env();
    let server = Serve::start(&env, &["--config", &config]);
    let first = wait_for("the catch-up fire's job", || home.jobs().into_iter().next());
    let key = first.idempotency_key.clone().unwrap();
    assert!(key.starts_with("schedule:minutely:"), "{key}");
    assert_eq!(first.request["prompt"], "check the build");
    assert_eq!(first.providers, ["codex"]);
    let (status, _, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));

    // Restarted: the same fire (when the minute has not turned) is not
    // enqueued again; whatever fired, every fire has one job.
    let server = Serve::start(&env, &["--config", &config]);
    // Its first tick logs its catch-up fire: enqueued, or found.
    wait_for("the restarted server's first fire", || {
        (home.logs_mentioning("schedule fire") >= 2).then_some(())
    });
    let (status, _, _) = server.stop("TERM");
    assert_eq!(status.code(), Some(0));
    let jobs = home.jobs();
    let mut keys: Vec<String> = jobs
        .iter()
        .map(|j| j.idempotency_key.clone().unwrap())
        .collect();
    let all = keys.len();
    keys.dedup();
    assert_eq!(keys.len(), all, "one job per fire: {keys:?}");
    assert_eq!(
        jobs.iter()
            .filter(|j| j.idempotency_key.as_deref() == Some(key.as_str()))
            .count(),
        1
    );
}

#[test]
fn config_check_counts_them_and_a_bad_schedule_is_a_config_error_with_its_line() {
    let home = Home::new();
    let agentgate = env!("CARGO_BIN_EXE_agentgate");
    let check = |yaml: &str| {
        let config = home.write_config(yaml);
        std::process::Command::new(agentgate)
            .args(["--config", &config, "config", "check"])
            .env_clear()
            .env("HOME", home.path())
            .output()
            .unwrap()
    };
    let ok = check(
        "version: 1\nschedules:\n  s:\n    cron: \"@daily\"\n    request: {prompt: hi}\nwatch:\n  w:\n    folder: /srv/in\n    request: {}\n",
    );
    let stdout = String::from_utf8_lossy(&ok.stdout);
    assert_eq!(ok.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("1 schedules, 1 watched folders"),
        "{stdout}"
    );

    let bad = check(
        "version: 1\nschedules:\n  s:\n    cron: \"@daily\"\n    request:\n      prompt: hi\n      timeout: soon\n",
    );
    let stderr = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("line 7"), "{stderr}");
    assert!(stderr.contains("schedule `s`: request.timeout"), "{stderr}");
}
