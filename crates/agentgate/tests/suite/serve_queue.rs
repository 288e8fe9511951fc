//! The queue of `agentgate serve`, through a real server process over HTTP
//! with a stand-in `claude`: submit and run, idempotency, refusals, cancel,
//! the limits (measured from the CLI processes that overlapped), quota
//! waits and retries under the test clock, shutdown and `kill -9`.

use std::process::Command;

use agentgate_store::JobState;
use serde_json::{Value, json};

use super::serve_queue_support::{
    QueueHome, cancel, max_overlap, post, process_alive, submit, submit_ok, wait_until,
};

#[test]
fn a_submitted_run_runs_to_success_with_the_envelope_of_agentgate_run() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let first = submit(
        &server.url,
        "say tag-one",
        json!({"idempotency_key": "k-1"}),
    );
    assert_eq!(first.status, 201, "{first:?}");
    let body = first.json();
    let id = body["run_id"].as_str().unwrap().to_owned();
    assert_eq!(body["status"], "queued");
    assert_eq!(body["created"], true);
    assert_eq!(body["providers"], json!(["claude"]));
    let again = submit(
        &server.url,
        "another prompt",
        json!({"idempotency_key": "k-1"}),
    );
    assert_eq!(again.status, 200, "{again:?}");
    assert_eq!(again.json()["run_id"], id.as_str());
    assert_eq!(again.json()["created"], false);

    let job = home.wait_for_state(&id, JobState::Succeeded);
    assert_eq!(job.attempts, 1);
    let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
    assert_eq!(envelope["run_id"], id.as_str(), "the run id is the job id");
    assert_eq!(envelope["response"], "done tag-one");
    assert!(
        home.run_recorded(&id),
        "the run is recorded under the job id"
    );
    assert_eq!(home.cli_runs().len(), 1, "the repeated key ran nothing");

    // The same request through `agentgate run`: the same envelope shape.
    let out = Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(["run", "-p", "claude", "--no-unattended-instruction"])
        .args(["--max-provider-retries", "0", "say tag-cli"])
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", home.file("bin").display()),
        )
        .env("AGENTGATE_HOME", home.file("cli-data"))
        .env("AGENTGATE_CONFIG", home.file("agentgate.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let cli: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = |v: &Value| {
        let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        k.sort();
        k
    };
    assert_eq!(keys(&envelope), keys(&cli));
    for same in ["error_type", "exit_code", "provider", "model", "session_id"] {
        assert_eq!(envelope[same], cli[same], "{same}");
    }
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn bad_requests_are_400_or_422_naming_the_field_and_queue_nothing() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let r = post(&server.url, "/v1/runs", "{not json");
    assert_eq!(r.status, 400, "{r:?}");
    assert_eq!(r.json()["error"]["field"], "request");
    for (body, field) in [
        (json!({"providers": ["claude"]}), "prompt"),
        (json!({"prompt": "hi", "timeout": "soon"}), "timeout"),
        (json!({"prompt": "hi", "colour": "red"}), "colour"),
        (json!({"prompt": "hi", "priority": 5000}), "priority"),
        (json!({"prompt": "hi", "providers": ["nope"]}), "providers"),
        (json!({"prompt": "hi", "chain": "nope"}), "chain"),
        (json!({"prompt": "hi", "agents": ["nope"]}), "agents"),
        (
            json!({"prompt": "hi", "providers": ["claude"], "system_file": "/no/such/file"}),
            "system_file",
        ),
    ] {
        let r = post(&server.url, "/v1/runs", &body.to_string());
        assert_eq!(r.status, 422, "{body}: {r:?}");
        let error = &r.json()["error"];
        assert_eq!(error["type"], "invalid_request", "{body}: {r:?}");
        assert_eq!(error["field"], field, "{body}: {r:?}");
        assert!(!error["message"].as_str().unwrap().is_empty());
    }
    assert_eq!(home.job_count(), 0, "nothing was queued");
}

#[test]
fn cancel_ends_a_queued_run_at_once_and_stops_a_running_one() {
    let home = QueueHome::new("queue:\n  max_running: 1\n");
    let server = home.serve(false, &[]);
    let running = submit_ok(&server.url, "hold tag-run", json!({}));
    let queued = submit_ok(&server.url, "say tag-queued", json!({}));
    let cli = home.wait_for_starts(1).remove(0);
    assert_eq!(cli.tag, "tag-run");

    let r = cancel(&server.url, &queued);
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["status"], "cancelled");
    let job = home.job(&queued);
    assert_eq!((job.state, job.attempts), (JobState::Cancelled, 0));
    let envelope = job.envelope.unwrap();
    assert_eq!(envelope.run_id, queued);
    assert_eq!(
        envelope.error_type,
        Some(agentgate_protocol::ErrorKind::Cancelled)
    );
    assert_eq!(envelope.exit_code, Some(130));
    assert!(envelope.attempts.is_empty(), "it never started");

    let r = cancel(&server.url, &running);
    assert_eq!(r.status, 202, "{r:?}");
    let job = home.wait_for_state(&running, JobState::Cancelled);
    let envelope = job.envelope.unwrap();
    assert_eq!(
        envelope.error_type,
        Some(agentgate_protocol::ErrorKind::Cancelled)
    );
    assert_eq!(envelope.attempts.len(), 1);
    wait_until("the cancelled CLI to exit", || {
        (!process_alive(cli.pid)).then_some(())
    });
    assert!(
        home.cli_runs().iter().all(|r| r.tag != "tag-queued"),
        "the cancelled queued run never started"
    );

    // Again: unchanged, 200. Unknown: 404. Ended otherwise: 409.
    assert_eq!(cancel(&server.url, &running).status, 200);
    let r = cancel(&server.url, "r-no-such-run");
    assert_eq!(r.status, 404, "{r:?}");
    let done = submit_ok(&server.url, "say tag-done", json!({}));
    home.wait_for_state(&done, JobState::Succeeded);
    let r = cancel(&server.url, &done);
    assert_eq!(r.status, 409, "{r:?}");
    assert_eq!(home.job(&done).state, JobState::Succeeded);
}

#[test]
fn a_providers_limit_bounds_the_clis_that_run_at_once() {
    let home = QueueHome::new("queue:\n  max_running: 10\n  providers: {claude: 2}\n");
    let server = home.serve(false, &[]);
    // Read-only runs: the one-writer-per-folder rule does not apply.
    let ids: Vec<String> = (0..5)
        .map(|i| {
            let fields = json!({"permission_mode": "plan"});
            submit_ok(&server.url, &format!("nap tag-{i}"), fields)
        })
        .collect();
    for id in &ids {
        home.wait_for_state(id, JobState::Succeeded);
    }
    let runs = home.cli_runs();
    assert_eq!(runs.len(), 5);
    let most = max_overlap(&runs);
    assert!(
        most <= 2,
        "{most} CLIs ran at once over a limit of 2: {runs:?}"
    );
}

#[test]
fn a_session_runs_one_turn_at_a_time_in_submission_order() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    // Later turns have higher priorities: the session's order still wins.
    let ids: Vec<String> = (0..3)
        .map(|i| {
            let fields = json!({"session": "chat", "priority": i * 10, "permission_mode": "plan"});
            submit_ok(&server.url, &format!("nap tag-{i}"), fields)
        })
        .collect();
    for id in &ids {
        home.wait_for_state(id, JobState::Succeeded);
    }
    let runs = home.cli_runs();
    let tags: Vec<&str> = runs.iter().map(|r| r.tag.as_str()).collect();
    assert_eq!(tags, ["tag-0", "tag-1", "tag-2"]);
    assert_eq!(max_overlap(&runs), 1, "{runs:?}");
}

#[test]
fn runs_that_may_write_in_one_folder_run_one_at_a_time() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let writer = submit_ok(&server.url, "hold tag-w1", json!({}));
    home.wait_for_starts(1);
    let second_writer = submit_ok(&server.url, "say tag-w2", json!({}));
    // Submitted after the second writer, claimed after it in every pass: it
    // ends while the first writer still holds the folder.
    let reader = submit_ok(&server.url, "say tag-r", json!({"permission_mode": "plan"}));
    home.wait_for_state(&reader, JobState::Succeeded);
    assert_eq!(home.job(&second_writer).state, JobState::Queued);
    let tags: Vec<String> = home.cli_runs().into_iter().map(|r| r.tag).collect();
    assert_eq!(tags, ["tag-w1", "tag-r"]);
    std::fs::write(home.file("release"), "").unwrap();
    home.wait_for_state(&writer, JobState::Succeeded);
    home.wait_for_state(&second_writer, JobState::Succeeded);
    assert_eq!(
        max_overlap(&home.cli_runs()[..]),
        2,
        "the reader overlapped"
    );
}

#[test]
fn a_quota_error_holds_the_job_until_the_reset_without_charging_an_attempt() {
    let home = QueueHome::new("");
    home.set_clock("2030-01-01T00:00:00Z");
    // An hour later (2030-01-01T01:00:00Z).
    std::fs::write(home.file("reset"), "1893459600").unwrap();
    let server = home.serve(true, &[]);
    let id = submit_ok(&server.url, "quota tag-q", json!({}));
    let job = wait_until("the job to wait for the quota", || {
        let job = home.job(&id);
        (job.waiting_for.as_deref() == Some("quota")).then_some(job)
    });
    assert_eq!(job.state, JobState::Queued);
    assert_eq!(job.attempts, 0, "a quota wait is not charged");
    assert_eq!(job.not_before.to_string(), "2030-01-01T01:00:00Z");
    assert_eq!(home.cli_runs().len(), 1);
    assert!(home.run_recorded(&id), "the run that hit the quota is kept");

    // Before the reset, a new job of the same provider waits as well,
    // without starting a CLI.
    let other = submit_ok(&server.url, "say tag-other", json!({}));
    let waiting = wait_until("the second job to wait", || {
        let job = home.job(&other);
        (job.waiting_for.as_deref() == Some("quota")).then_some(job)
    });
    assert_eq!(waiting.attempts, 0);
    assert_eq!(home.cli_runs().len(), 1);

    home.set_clock("2030-01-01T01:00:01Z");
    let job = home.wait_for_state(&id, JobState::Succeeded);
    assert_eq!(job.attempts, 1);
    home.wait_for_state(&other, JobState::Succeeded);
    let envelope = job.envelope.unwrap();
    assert_eq!(
        envelope.run_id,
        format!("{id}.2"),
        "the second run of the job"
    );
    assert!(home.run_recorded(&format!("{id}.2")));
}

#[test]
fn a_recoverable_failure_is_retried_after_the_backoff() {
    let home = QueueHome::new("queue:\n  max_attempts: 3\n  backoff: 10m\n  backoff_max: 1h\n");
    home.set_clock("2030-01-01T00:00:00Z");
    let server = home.serve(true, &[]);
    let id = submit_ok(&server.url, "flaky tag-f", json!({}));
    let job = wait_until("the retry to be queued", || {
        let job = home.job(&id);
        (job.state == JobState::Queued && job.attempts == 1).then_some(job)
    });
    let earliest: jiff::Timestamp = "2030-01-01T00:10:00Z".parse().unwrap();
    let latest: jiff::Timestamp = "2030-01-01T00:12:30Z".parse().unwrap();
    assert!(
        job.not_before >= earliest && job.not_before <= latest,
        "backoff of 10m plus at most 25%: {}",
        job.not_before
    );
    assert!(job.error.as_deref().unwrap().contains("529"), "{job:?}");
    assert_eq!(home.cli_runs().len(), 1);

    home.set_clock("2030-01-01T00:13:00Z");
    let job = home.wait_for_state(&id, JobState::Succeeded);
    assert_eq!(job.attempts, 2);
    assert_eq!(home.cli_runs().len(), 2);
    // Both tries are visible as runs.
    assert!(home.run_recorded(&id));
    assert!(home.run_recorded(&format!("{id}.2")));
}

#[test]
fn sigterm_lets_jobs_finish_within_the_grace_then_requeues_them() {
    let home = QueueHome::new("");
    let server = home.serve(false, &["--grace", "1"]);
    let id = submit_ok(&server.url, "hold tag-h", json!({}));
    let cli = home.wait_for_starts(1).remove(0);
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
    let job = home.job(&id);
    assert_eq!((job.state, job.attempts), (JobState::Queued, 0), "{job:?}");
    assert!(!process_alive(cli.pid), "the CLI was stopped");

    // The next start runs it again.
    std::fs::write(home.file("release"), "").unwrap();
    let _server = home.serve(false, &[]);
    let job = home.wait_for_state(&id, JobState::Succeeded);
    assert_eq!(job.envelope.unwrap().run_id, format!("{id}.2"));
}

#[test]
fn kill_9_mid_run_then_restart_requeues_or_abandons_and_no_cli_survives() {
    for (policy, end) in [
        ("requeue", JobState::Succeeded),
        ("abandon", JobState::Abandoned),
    ] {
        let home = QueueHome::new(&format!("queue:\n  on_lease_expiry: {policy}\n"));
        let server = home.serve(false, &[]);
        let id = submit_ok(&server.url, "hold tag-k", json!({}));
        let first = home.wait_for_starts(1).remove(0);
        let (status, _, _) = server.stop("KILL");
        assert_eq!(status.code(), None, "{policy}: killed by a signal");
        std::fs::write(home.file("release"), "").unwrap();
        // Restarted at once: the dead server's lease is taken back without
        // waiting for it to expire.
        let _server = home.serve(false, &[]);
        let job = home.wait_for_state(&id, end);
        wait_until("the first CLI to be gone", || {
            (!process_alive(first.pid)).then_some(())
        });
        let runs = home.cli_runs();
        match end {
            JobState::Succeeded => {
                assert_eq!(runs.len(), 2, "{policy}: {runs:?}");
                assert_eq!(
                    runs[1].alive_at_start, 0,
                    "{policy}: the job ran twice at once: {runs:?}"
                );
                assert_eq!(job.attempts, 2, "{policy}");
            }
            _ => {
                assert_eq!(runs.len(), 1, "{policy}: {runs:?}");
                assert!(job.error.unwrap().contains("abandoned"));
            }
        }
    }
}
