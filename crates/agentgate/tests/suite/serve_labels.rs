//! Labels through a real `agentgate serve` over HTTP, with the queue tests'
//! stand-in `claude`: labels on submit (the API and `agentgate submit
//! --label`), the `?label=` filter of `GET /v1/runs` and `agentgate runs
//! --server --label`, and `agentgate cancel --label` reaching a running
//! and a queued run (and only those with every label).

use std::process::{Command, Output, Stdio};

use agentgate_store::{JobState, RunStore};
use serde_json::{Value, json};

use super::serve_queue_support::{
    QueueHome, TOKEN, post, process_alive, submit, submit_ok, wait_until,
};
use super::serve_support::get;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

/// `agentgate ARGS` as a client of `url`.
fn client(home: &QueueHome, url: &str, args: &[&str]) -> Output {
    Command::new(AGENTGATE)
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home.path())
        .env("AGENTGATE_HOME", home.file("client"))
        .env("AGENTGATE_SERVER", url)
        .env("AGENTGATE_TOKEN", TOKEN)
        .current_dir(home.path())
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The run ids of `GET /v1/runs?QUERY`, as listed (newest first).
fn listed(url: &str, query: &str) -> Vec<String> {
    let r = get(url, &format!("/v1/runs?{query}"), Some(TOKEN));
    assert_eq!(r.status, 200, "{query}: {r:?}");
    r.json()["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|run| run["run_id"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn submitted_labels_are_stored_enveloped_and_filtered_by() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let a = submit_ok(
        &server.url,
        "say tag-a",
        json!({"labels": {"chat": "42", "topic": "x"}}),
    );
    let b = submit_ok(&server.url, "say tag-b", json!({"labels": {"chat": "42"}}));
    let c = submit_ok(&server.url, "say tag-c", json!({"labels": {"chat": "7"}}));
    let plain = submit_ok(&server.url, "say tag-d", json!({}));
    // `agentgate submit --label`: the same labels, from the flags.
    let out = client(
        &home,
        &server.url,
        &[
            "submit",
            "-p",
            "claude",
            "--label",
            "chat=42",
            "--label",
            "via=cli",
            "say tag-e",
        ],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let e = serde_json::from_slice::<Value>(&out.stdout).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    for id in [&a, &b, &c, &plain, &e] {
        home.wait_for_state(id, JobState::Succeeded);
    }

    // The filter: every label given must match; values match whole.
    assert_eq!(
        listed(&server.url, "label=chat=42"),
        [e.clone(), b.clone(), a.clone()]
    );
    assert_eq!(
        listed(&server.url, "label=chat%3D42&label=topic=x"),
        std::slice::from_ref(&a)
    );
    assert_eq!(
        listed(&server.url, "label=chat=42&status=succeeded&limit=1"),
        std::slice::from_ref(&e)
    );
    assert!(listed(&server.url, "label=chat=4").is_empty());
    assert_eq!(listed(&server.url, "").len(), 5);
    let r = get(&server.url, "/v1/runs?label=chat", Some(TOKEN));
    assert_eq!(r.status, 400, "{r:?}");
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .starts_with("invalid label:")
    );

    // The envelope carries them; an unlabelled run's has no `labels` key.
    let run = get(&server.url, &format!("/v1/runs/{a}"), Some(TOKEN)).json();
    assert_eq!(
        run["envelope"]["labels"],
        json!({"chat": "42", "topic": "x"})
    );
    let run = get(&server.url, &format!("/v1/runs/{plain}"), Some(TOKEN)).json();
    assert!(run["envelope"].get("labels").is_none(), "{run}");
    // The run's record in the store, found through the label index.
    let labels = [("via".to_owned(), "cli".to_owned())].into_iter().collect();
    let found = home.store().list_runs_labelled(&labels, 10, 0).unwrap();
    assert_eq!(found.runs.len(), 1);
    assert_eq!(found.runs[0].record.run_id, e);
    assert_eq!(
        found.runs[0].record.labels.get("chat").map(String::as_str),
        Some("42")
    );

    // `agentgate runs --server --label`.
    let out = client(
        &home,
        &server.url,
        &["runs", "--server", "--json", "--label", "topic=x"],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["run_id"], a.as_str());

    // Bad labels are refused, naming the field, and nothing is queued.
    for labels in [
        json!({"": "1"}),
        json!({"a/b": "1"}),
        json!({"k": ""}),
        json!({"k": "v".repeat(257)}),
    ] {
        let r = submit(&server.url, "say tag-bad", json!({"labels": labels}));
        assert_eq!(r.status, 422, "{labels}: {r:?}");
        assert_eq!(r.json()["error"]["field"], "labels", "{r:?}");
    }
    assert_eq!(home.job_count(), 5);
    let out = client(&home, &server.url, &["submit", "--label", "chat", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("write key=value"));
}

#[test]
fn cancel_by_label_stops_the_running_run_and_ends_the_queued_one() {
    let home = QueueHome::new("queue:\n  max_running: 1\n");
    let server = home.serve(false, &[]);
    let running = submit_ok(
        &server.url,
        "hold tag-run",
        json!({"labels": {"chat": "42", "topic": "a"}}),
    );
    let queued = submit_ok(
        &server.url,
        "say tag-queued",
        json!({"labels": {"chat": "42"}}),
    );
    let other = submit_ok(
        &server.url,
        "say tag-other",
        json!({"labels": {"chat": "7"}}),
    );
    let cli = home.wait_for_starts(1).remove(0);
    assert_eq!(cli.tag, "tag-run");

    let out = client(&home, &server.url, &["cancel", "--label", "chat=42"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let answer: Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut ids: Vec<&str> = answer["cancelled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap())
        .collect();
    ids.sort_unstable();
    let mut wanted = vec![running.as_str(), queued.as_str()];
    wanted.sort_unstable();
    assert_eq!(ids, wanted, "{answer}");
    assert!(stderr.contains(&format!("{queued}: cancelled")), "{stderr}");
    assert!(
        stderr.contains(&format!("{running}: running, being stopped")),
        "{stderr}"
    );

    // The queued run ended at once, never started.
    let job = home.job(&queued);
    assert_eq!((job.state, job.attempts), (JobState::Cancelled, 0));
    // The running one is stopped through its supervisor: its CLI exits,
    // its envelope says cancelled.
    let job = home.wait_for_state(&running, JobState::Cancelled);
    assert_eq!(
        job.envelope.unwrap().error_type,
        Some(agentgate_protocol::ErrorKind::Cancelled)
    );
    wait_until("the cancelled CLI to exit", || {
        (!process_alive(cli.pid)).then_some(())
    });
    // The run without the label runs on to its end.
    home.wait_for_state(&other, JobState::Succeeded);
    assert!(home.cli_runs().iter().all(|r| r.tag != "tag-queued"));

    // Nothing left to cancel: an empty list. No labels: refused.
    let r = post(
        &server.url,
        "/v1/runs/cancel",
        r#"{"labels": {"chat": "42"}}"#,
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["cancelled"], json!([]));
    let r = post(&server.url, "/v1/runs/cancel", r#"{"labels": {}}"#);
    assert_eq!(
        (r.status, r.json()["error"]["field"].clone()),
        (422, json!("labels"))
    );
    let out = client(&home, &server.url, &["cancel"]);
    assert_eq!(out.status.code(), Some(2), "a run id or --label is needed");
}

#[test]
fn a_session_keeps_the_labels_of_the_run_that_created_it() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let first = submit_ok(
        &server.url,
        "say tag-one",
        json!({"session": "chat-42", "labels": {"chat": "42"}}),
    );
    home.wait_for_state(&first, JobState::Succeeded);
    // A later turn with other labels: the session keeps the first run's.
    let second = submit_ok(
        &server.url,
        "say tag-two",
        json!({"session": "chat-42", "labels": {"chat": "99"}}),
    );
    home.wait_for_state(&second, JobState::Succeeded);
    let sessions = get(&server.url, "/v1/sessions", Some(TOKEN)).json();
    let session = &sessions["sessions"][0];
    assert_eq!(session["name"], "chat-42", "{sessions}");
    assert_eq!(session["turns"], 2, "{sessions}");
    assert_eq!(session["labels"], json!({"chat": "42"}), "{sessions}");
}

/// A run cancelled while still queued (by its id, by its labels) ends with
/// an envelope that carries its labels, as a run's own envelope does.
#[test]
fn a_run_cancelled_while_queued_has_its_labels_in_its_envelope() {
    let home = QueueHome::new("queue:\n  max_running: 1\n");
    let server = home.serve(false, &[]);
    let holding = submit_ok(&server.url, "hold tag-hold", json!({}));
    let by_id = submit_ok(
        &server.url,
        "say tag-byid",
        json!({"labels": {"chat": "5", "topic": "release notes"}}),
    );
    let by_label = submit_ok(
        &server.url,
        "say tag-bylabel",
        json!({"labels": {"chat": "6"}}),
    );
    home.wait_for_starts(1);

    let r = super::serve_queue_support::cancel(&server.url, &by_id);
    assert_eq!(r.status, 200, "{r:?}");
    let r = post(
        &server.url,
        "/v1/runs/cancel",
        r#"{"labels": {"chat": "6"}}"#,
    );
    assert_eq!(r.status, 200, "{r:?}");
    for (id, labels) in [
        (&by_id, json!({"chat": "5", "topic": "release notes"})),
        (&by_label, json!({"chat": "6"})),
    ] {
        let job = home.job(id);
        assert_eq!((job.state, job.attempts), (JobState::Cancelled, 0));
        let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
        assert_eq!(envelope["labels"], labels, "{envelope}");
        assert_eq!(envelope["error_type"], "cancelled", "{envelope}");
        // The API's answer shows the same envelope.
        let shown = get(&server.url, &format!("/v1/runs/{id}"), Some(TOKEN));
        assert_eq!(shown.json()["envelope"]["labels"], labels, "{shown:?}");
    }
    std::fs::write(home.file("release"), "").unwrap();
    home.wait_for_state(&holding, JobState::Succeeded);
}

/// A served workflow with labels (`POST /v1/workflows`): its envelope and
/// its step's run carry them (the store finds the step by label), and a
/// cancel by label stops the workflow's running step.
#[test]
fn a_labelled_workflow_labels_its_steps_and_is_cancelled_by_label() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let base_dir = home.path().display().to_string();
    let workflow = |name: &str, prompt: &str, labels: Value| {
        let body = json!({
            "workflow": {"version": 1, "name": name, "steps": [
                {"id": "ask", "agent": {"provider": "claude", "prompt": prompt,
                 "no_unattended_instruction": true, "max_provider_retries": 0}},
            ]},
            "base_dir": base_dir,
            "labels": labels,
        });
        let r = post(&server.url, "/v1/workflows", &body.to_string());
        assert_eq!(r.status, 201, "{r:?}");
        r.json()["run_id"].as_str().unwrap().to_owned()
    };
    let labels = json!({"chat": "88", "topic": "two words"});
    let done = workflow("said", "say tag-wfsay", labels.clone());
    let job = home.wait_for_state(&done, JobState::Succeeded);
    let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
    assert_eq!(envelope["labels"], labels, "{envelope}");
    // The step's run: found by the workflow's labels, with them in its
    // record and its envelope.
    let wanted: agentgate_protocol::Labels = serde_json::from_value(labels.clone()).unwrap();
    let store = home.store();
    let found = store.list_runs_labelled(&wanted, 50, 0).unwrap().runs;
    let step = found
        .iter()
        .find(|r| r.record.parent_run_id.as_deref() == Some(done.as_str()))
        .unwrap_or_else(|| panic!("no step run by label: {found:?}"));
    assert_eq!(step.record.labels, wanted);
    let step_envelope = store
        .get_run(&step.record.run_id)
        .unwrap()
        .unwrap()
        .envelope
        .unwrap();
    assert_eq!(step_envelope.labels, wanted);
    assert!(found.iter().any(|r| r.record.run_id == done), "{found:?}");
    // `GET /v1/runs?label=` lists the workflow.
    assert_eq!(listed(&server.url, "label=chat%3D88"), [done.as_str()]);

    // A held step; the cancel by label reaches it.
    let held = workflow("held", "hold tag-wfhold", json!({"chat": "89"}));
    let cli = wait_until("the held step's CLI", || {
        home.cli_runs().into_iter().find(|r| r.tag == "tag-wfhold")
    });
    let r = post(
        &server.url,
        "/v1/runs/cancel",
        r#"{"labels": {"chat": "89"}}"#,
    );
    assert_eq!(r.status, 200, "{r:?}");
    assert_eq!(r.json()["cancelled"][0]["run_id"], held.as_str(), "{r:?}");
    let job = home.wait_for_state(&held, JobState::Cancelled);
    let envelope = serde_json::to_value(job.envelope.unwrap()).unwrap();
    assert_eq!(envelope["labels"], json!({"chat": "89"}), "{envelope}");
    wait_until("the step's CLI to exit", || {
        (!process_alive(cli.pid)).then_some(())
    });
    let step = home
        .store()
        .list_runs_labelled(
            &serde_json::from_value(json!({"chat": "89"})).unwrap(),
            50,
            0,
        )
        .unwrap()
        .runs
        .into_iter()
        .find(|r| r.record.parent_run_id.as_deref() == Some(held.as_str()))
        .expect("the held step's run, by label");
    assert_eq!(step.status, agentgate_store::RunStatus::Cancelled);
}

/// `agentgate runs --server`'s table shows each run's labels in its LABELS
/// column (a run's from its request, a workflow's from its envelope).
#[test]
fn the_server_runs_table_shows_the_labels() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let labelled = submit_ok(
        &server.url,
        "say tag-table",
        json!({"labels": {"chat": "42", "topic": "two words"}}),
    );
    let plain = submit_ok(&server.url, "say tag-plain", json!({}));
    home.wait_for_state(&labelled, JobState::Succeeded);
    home.wait_for_state(&plain, JobState::Succeeded);
    let out = client(&home, &server.url, &["runs", "--server", &server.url]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{table}");
    assert!(table.lines().next().unwrap().contains("LABELS"), "{table}");
    let row = |id: &str| {
        table
            .lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id}: {table}"))
            .to_owned()
    };
    assert!(
        row(&labelled).contains("chat=42,topic=two words"),
        "{table}"
    );
    assert!(!row(&plain).contains('='), "{table}");
}
