//! `agentgate serve` with `schedules:` and `watch:` in its config: a real
//! process creates the jobs in the store (read here from the database
//! file) and its executor runs them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use agentgate_store::{JobFilter, JobQueue, JobRecord, SqliteStore};

use super::serve_queue_support::QueueHome;
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
                (
                    "AGENTGATE_TOKEN",
                    "automation-test-token-0123456789abc".to_owned(),
                ),
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
fn watched_files_become_runs_and_move_to_done_or_failed() {
    // The server's own executor runs the jobs, with a stand-in Claude that
    // answers `done TAG`, or fails (529) for a prompt that says `flaky`.
    let home = QueueHome::new(
        "watch:\n  inbox:\n    folder: inbox\n    poll: 100ms\n    settle: 200ms\n    request:\n      providers: [claude]\n      no_unattended_instruction: true\n      max_provider_retries: 0\n",
    );
    let inbox = home.file("inbox");
    std::fs::create_dir(&inbox).unwrap();
    let server = home.serve(false, &[]);

    // Written under a name the watcher leaves alone, then renamed: taken
    // whole.
    std::fs::write(inbox.join("task.md.part"), "summarise tag-ok").unwrap();
    std::fs::rename(inbox.join("task.md.part"), inbox.join("task.md")).unwrap();
    std::fs::write(inbox.join("bad.md"), "flaky tag-bad").unwrap();

    wait_for("task.md in done/", || {
        inbox.join("done/task.md").exists().then_some(())
    });
    wait_for("bad.md in failed/", || {
        inbox.join("failed/bad.md").exists().then_some(())
    });
    assert!(!inbox.join("task.md").exists() && !inbox.join("bad.md").exists());
    let record: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(inbox.join("failed/bad.md.error.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(record["state"], "failed", "{record}");
    assert!(
        record["error"].as_str().unwrap().contains("529"),
        "{record}"
    );

    let store = home.store();
    let jobs = store
        .list_jobs(&JobFilter::default(), 10, None)
        .unwrap()
        .jobs;
    assert_eq!(jobs.len(), 2, "one job per file");
    let ok = jobs
        .iter()
        .find(|j| j.request["prompt"] == "summarise tag-ok")
        .unwrap();
    assert!(ok.idempotency_key.as_deref().unwrap().ends_with(":task.md"));
    assert_eq!(ok.envelope.as_ref().unwrap().response, "done tag-ok");
    // The CLI ran once per file.
    assert_eq!(home.cli_runs().len(), 2);

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

#[test]
fn serve_warns_at_start_of_a_schedule_that_sandbox_require_would_refuse() {
    let home = Home::new();
    let config = home.write_config(
        "version: 1\nsandbox:\n  require: workspace\nschedules:\n  nightly:\n    cron: \"0 2 * * *\"\n    request:\n      prompt: review\n      providers: [claude]\n      sandbox: off\n",
    );
    let env = home.env();
    let server = Serve::start(&env, &["--config", &config]);
    // The warning is said before the server listens: its log holds it by
    // the time the server answers.
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("schedule `nightly`: its runs would be refused when it fires")
            && stderr.contains("`sandbox.require: workspace`"),
        "{stderr}"
    );
}
