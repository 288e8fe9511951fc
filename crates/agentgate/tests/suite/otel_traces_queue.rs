//! OpenTelemetry traces of queued jobs (issue 38): the W3C trace context
//! of a submit is the parent of the job's span, wherever the job runs.
//!
//! - A run posted to `serve` with a `traceparent` header: the job's span
//!   continues it, the run's hangs under the job's; `agentgate submit`
//!   sends its `TRACEPARENT` as that header.
//! - A workflow submitted with `agentgate workflow submit` under
//!   `TRACEPARENT`: the workflow job's span continues it, the workflow's
//!   span and its steps' under it.
//! - The same through PostgreSQL: `serve --no-executor` (exporting
//!   nothing itself) keeps the header with the job, and `agentgate worker`,
//!   another process, continues the trace.
//!
//! The receiver and the waiting are `otlp_receiver.rs`'s, the constants
//! `otel_traces.rs`'s.

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::otel_traces::{ARRIVAL, LIMIT, PARENT_SPAN, PARENT_TRACE, assert_within, traceparent};
use super::otlp_receiver::{Receiver, agentgate_spans, children, named, otel_env};
use super::run_e2e::last_json;
use super::support::{Client, FakeServer, run_bounded};

#[test]
fn a_served_run_continues_the_traceparent_of_its_submit() {
    use super::serve_queue_support::TOKEN;
    use super::serve_support::{get, request, serve_with_cli_env};

    let receiver = Receiver::http();
    let server = FakeServer::start("turns:\n  - repeat: true\n    text: \"served\"\n");
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    let mut env: Vec<(String, String)> = client.setup.env.clone().into_iter().collect();
    env.extend(otel_env(&receiver, "http/protobuf"));
    let serve = serve_with_cli_env(home.path(), &env, TOKEN, &[]);
    let body = json!({
        "prompt": "hi",
        "providers": ["claude"],
        "binary": client.program,
        "model": client.setup.model,
        "permission_mode": "bypass",
        "cwd": client.setup.workdir,
    })
    .to_string();
    let submitted = request(
        &serve.url,
        "POST",
        "/v1/runs",
        &[
            format!("Authorization: Bearer {TOKEN}"),
            "Content-Type: application/json".to_owned(),
            format!("Content-Length: {}", body.len()),
            format!("traceparent: {}", traceparent()),
            "tracestate: vendor=e2e".to_owned(),
        ],
        body.as_bytes(),
    );
    assert_eq!(submitted.status, 201, "{}", submitted.body);
    let run_id = submitted.json()["run_id"].as_str().unwrap().to_owned();

    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.name == "agentgate.job" && s.attr("agentgate.job_id") == &json!(run_id))
    });
    let ours = agentgate_spans(&received);
    let context = format!("{ours:#?}\n{}", serve.stderr_so_far());
    assert!(ours.iter().all(|s| s.trace_id == PARENT_TRACE), "{context}");
    let job = named(&ours, "agentgate.job");
    assert_eq!(job.parent_span_id, PARENT_SPAN, "{context}");
    assert_eq!(job.kind, 5, "a consumer span: {context}");
    assert_eq!(job.attr("agentgate.job.kind"), &json!("run"), "{context}");
    assert_eq!(job.attr("agentgate.outcome"), &json!("ok"), "{context}");
    let run = named(&ours, "agentgate.run");
    assert_eq!(run.parent_span_id, job.span_id, "{context}");
    assert_eq!(run.attr("agentgate.run_id"), &json!(run_id), "{context}");
    assert_within(run, job);
    let attempts = children(&ours, run);
    assert_eq!(attempts.len(), 1, "{context}");
    assert_eq!(attempts[0].name, "invoke_agent claude", "{context}");

    // The trace context is kept beside the request, not in it.
    let shown = get(&serve.url, &format!("/v1/runs/{run_id}"), Some(TOKEN)).json();
    assert_eq!(shown["request"]["prompt"], "hi", "{shown:#}");
    assert!(shown["request"].get("trace_context").is_none(), "{shown:#}");

    // `agentgate submit` sends its TRACEPARENT as the header.
    let submit_span = "1111222233334444";
    let mut cmd = client.agentgate();
    cmd.args([
        "submit",
        "--server",
        &serve.url,
        "--wait",
        "--provider",
        "claude",
    ])
    .args(["--yolo", "--compact", "--model", &client.setup.model])
    .arg("--binary")
    .arg(&client.program)
    .arg("hi again")
    .env("AGENTGATE_TOKEN", TOKEN)
    .env("TRACEPARENT", format!("00-{PARENT_TRACE}-{submit_span}-01"));
    let submitted = run_bounded(cmd, LIMIT);
    let all = submitted.all_output();
    assert_eq!(submitted.code, Some(0), "{all}");
    let second = last_json(&submitted.stdout).unwrap_or_else(|| panic!("{all}"));
    let second_id = second["run_id"].as_str().unwrap().to_owned();
    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.name == "agentgate.job" && s.attr("agentgate.job_id") == &json!(second_id))
    });
    let job = received
        .iter()
        .find(|s| s.name == "agentgate.job" && s.attr("agentgate.job_id") == &json!(second_id))
        .unwrap();
    assert_eq!(
        (job.trace_id.as_str(), job.parent_span_id.as_str()),
        (PARENT_TRACE, submit_span),
        "{job:#?}"
    );
}

#[test]
fn a_submitted_workflow_job_continues_the_traceparent_of_its_client() {
    use super::serve_support::{Env, Serve};
    use super::workflow_support::{project, workflow_command};

    const TOKEN: &str = "otel-workflow-token-0123456789abcdef";
    let receiver = Receiver::http();
    let p = project();
    std::fs::write(
        p.root().join("scan.yaml"),
        "version: 1\nname: scan\nsteps:\n  - id: scan\n    tool: scanner\n    args: [--input, data.json]\n    copy_in: [data.json]\n  - id: again\n    tool: scanner\n    args: [--input, data.json]\n    copy_in: [data.json]\n",
    )
    .unwrap();
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mut vars = vec![
        ("AGENTGATE_HOME", p.home().display().to_string()),
        ("AGENTGATE_TOKEN", TOKEN.to_owned()),
    ];
    let otel = otel_env(&receiver, "http/protobuf");
    vars.extend(otel.iter().map(|(k, v)| (k.as_str(), v.clone())));
    let serve = Serve::start(
        &Env {
            home: p.root(),
            bin: &bin,
            vars,
        },
        &[],
    );
    let env = [
        ("AGENTGATE_SERVER".to_owned(), serve.url.clone()),
        ("AGENTGATE_TOKEN".to_owned(), TOKEN.to_owned()),
        ("TRACEPARENT".to_owned(), traceparent()),
    ];
    let submitted = run_bounded(workflow_command(&p, &["submit", "scan.yaml"], &env), LIMIT);
    assert_eq!(submitted.code, Some(0), "{}", submitted.all_output());
    let answer: Value = serde_json::from_str(submitted.stdout.trim()).unwrap();
    let id = answer["run_id"].as_str().unwrap().to_owned();

    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.name == "agentgate.job" && s.attr("agentgate.job_id") == &json!(id))
    });
    let ours = agentgate_spans(&received);
    let context = format!("{ours:#?}\n{}", serve.stderr_so_far());
    let job = named(&ours, "agentgate.job");
    assert_eq!(
        (job.trace_id.as_str(), job.parent_span_id.as_str()),
        (PARENT_TRACE, PARENT_SPAN),
        "{context}"
    );
    assert_eq!(
        job.attr("agentgate.job.kind"),
        &json!("workflow"),
        "{context}"
    );
    let workflow = named(&ours, "agentgate.workflow");
    assert_eq!(workflow.parent_span_id, job.span_id, "{context}");
    let mut steps: Vec<&str> = children(&ours, workflow)
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    steps.sort_unstable();
    assert_eq!(
        steps,
        ["workflow step again", "workflow step scan"],
        "{context}"
    );
}

#[test]
fn a_worker_on_postgresql_continues_the_traceparent_a_serve_kept() {
    use super::serve_queue_support::{QueueHome, TOKEN};
    use super::serve_support::request;
    use super::store_postgres::fresh_database;
    use super::worker::Worker;

    let receiver = Receiver::http();
    let store = fresh_database();
    let home = QueueHome::new("queue:\n  lease: 3s\n");
    // The API exports nothing: it only keeps the context with the job.
    let server = home.serve(false, &["--no-executor", "--store", &store]);
    let otel: Vec<(String, String)> = otel_env(&receiver, "http/protobuf");
    let vars: Vec<(&str, &str)> = otel.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let _worker = Worker::start_with(&home, &store, &[], &vars);
    let body = json!({
        "prompt": "tag-traced",
        "providers": ["claude"],
        "no_unattended_instruction": true,
        "max_provider_retries": 0,
    })
    .to_string();
    let submitted = request(
        &server.url,
        "POST",
        "/v1/runs",
        &[
            format!("Authorization: Bearer {TOKEN}"),
            "Content-Type: application/json".to_owned(),
            format!("Content-Length: {}", body.len()),
            format!("traceparent: {}", traceparent()),
        ],
        body.as_bytes(),
    );
    assert_eq!(submitted.status, 201, "{}", submitted.body);
    let run_id = submitted.json()["run_id"].as_str().unwrap().to_owned();

    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.name == "agentgate.job" && s.attr("agentgate.job_id") == &json!(run_id))
    });
    let ours = agentgate_spans(&received);
    let context = format!("{ours:#?}");
    let job = named(&ours, "agentgate.job");
    assert_eq!(
        (job.trace_id.as_str(), job.parent_span_id.as_str()),
        (PARENT_TRACE, PARENT_SPAN),
        "{context}"
    );
    assert_eq!(job.attr("agentgate.outcome"), &json!("ok"), "{context}");
    let run = named(&ours, "agentgate.run");
    assert_eq!(run.parent_span_id, job.span_id, "{context}");
    assert_eq!(children(&ours, run).len(), 1, "{context}");
}
