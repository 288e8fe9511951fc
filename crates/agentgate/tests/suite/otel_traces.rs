//! OpenTelemetry traces end to end (issue 38's "Done when"): agentgate's
//! OTLP export received by a collector the test runs (`otlp_receiver.rs`),
//! with the REAL CLIs against `agentgate fake-llm`.
//!
//! - A failover run over gRPC, under `TRACEPARENT`: Claude Code fails
//!   with a recoverable rate limit, Codex calls its shell tool and
//!   answers, both through the model gateway. The run span's parent is
//!   the given span; one attempt span per attempt under it, the first an
//!   error (`rate_limit`, recoverable), the second ok; the gateway's model
//!   calls under their attempts (the 429 under Claude's), the tool call
//!   under Codex's; the GenAI attributes; the collector's header sent,
//!   and redacted from the run's events (Codex's tool prints its env);
//!   and Claude Code's and Codex's own spans, exported by the CLIs to the
//!   same collector, under the run's span (they read `TRACEPARENT`).
//! - A workflow over HTTP, under `TRACEPARENT`: a span per step under the
//!   workflow's, the retried step's tries counted, the agent step's run
//!   under its step, and Claude Code's own spans under that run.
//! - Claude Code under `--sandbox workspace` (an environment allowlist):
//!   the trace context and its OTel settings pass the allowlist, and its
//!   own spans still hang under the run's.
//! - Gemini CLI's own telemetry (logs; it makes no spans without its
//!   content-recording `traces` setting) reaches the same collector.
//! - Queued jobs (serve, worker, workflow submit): `otel_traces_queue.rs`.
//! - A collector that takes the connection and never answers (and a 10
//!   minute export timeout): the run succeeds and `agentgate run` exits
//!   well within the test's bound (the final flush waits 5 s at most);
//!   the collector's header is in no output, even at `-vv`.
//!
//! Each test waits for the spans it expects with a bounded deadline; the
//! export's own flush at the end of `agentgate run` and `workflow run`
//! makes them arrive before the process exits.

use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::otlp_receiver::{Receiver, Span, agentgate_spans, children, named, otel_env};
use super::run_chain::Chain;
use super::run_e2e::last_json;
use super::support::{Client, FakeServer, run_bounded};

pub(super) const LIMIT: Duration = Duration::from_secs(300);
/// How long the spans may take to arrive once the run ended.
pub(super) const ARRIVAL: Duration = Duration::from_secs(60);

pub(super) const PARENT_TRACE: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
pub(super) const PARENT_SPAN: &str = "00f067aa0ba902b7";

pub(super) fn traceparent() -> String {
    format!("00-{PARENT_TRACE}-{PARENT_SPAN}-01")
}

/// A span's duration is inside its parent's (the clocks are one host's;
/// a millisecond of slack for the events' millisecond timestamps).
pub(super) fn assert_within(child: &Span, parent: &Span) {
    const SLACK: u64 = 1_000_000;
    assert!(
        child.start_ns + SLACK >= parent.start_ns && child.end_ns <= parent.end_ns + SLACK,
        "{} is not within {}: {child:#?} {parent:#?}",
        child.name,
        parent.name
    );
    assert!(child.end_ns >= child.start_ns, "{child:#?}");
}

#[test]
fn a_failover_run_exports_its_span_tree_under_traceparent_over_grpc() {
    let receiver = Receiver::grpc();
    let chain = Chain::new(
        "turns:\n  \
         - match: {api: anthropic}\n    repeat: true\n    error: {kind: rate_limit, retry_after: 0}\n  \
         - match: {api: responses, tool_result: false}\n    text: \"Running it.\"\n    tool_call: {name: exec_command, args: {cmd: \"env\"}}\n    usage: {input: 300, output: 20}\n  \
         - match: {api: responses, tool_result: true}\n    text: \"codex answers\"\n    usage: {input: 400, output: 30}\n",
        &[Cli::Claude, Cli::Codex],
        json!({}),
        json!({"chains": {"main": {"agents": ["claude", "codex"]}}}),
    );
    let mut cmd = chain.command(&["--chain", "main", "--gateway"], "do the task");
    cmd.envs(otel_env(&receiver, "grpc"))
        .env(
            "OTEL_EXPORTER_OTLP_HEADERS",
            "authorization=Bearer otel-e2e",
        )
        .env("TRACEPARENT", traceparent())
        .env("TRACESTATE", "vendor=e2e");
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("no envelope: {all}"));
    assert_eq!(run.code, Some(0), "{env:#}\n{all}");
    assert_eq!(env["response"], "codex answers", "{env:#}");
    // The collector's header is not in the output, nor in the run's events
    // though Codex's tool printed its environment (which inherited it).
    assert!(!all.contains("otel-e2e"), "{all}");
    let run_id = env["run_id"].as_str().unwrap().to_owned();
    let events = std::fs::read_to_string(
        chain
            .store()
            .join("runs")
            .join(&run_id)
            .join("events.jsonl"),
    )
    .unwrap();
    assert!(events.contains("OTEL_EXPORTER_OTLP_HEADERS="), "{events}");
    assert!(!events.contains("otel-e2e"), "{events}");

    // agentgate's run span, and the spans both CLIs export themselves
    // under it (they read TRACEPARENT, which the run set to its span).
    let run_span = |spans: &[Span]| {
        spans
            .iter()
            .find(|s| s.name == "agentgate.run" && s.attr("agentgate.run_id") == &json!(run_id))
            .map(|s| s.span_id.clone())
    };
    let received = receiver.wait_for(ARRIVAL, |spans| {
        run_span(spans).is_some_and(|id| {
            ["claude-code", "codex_exec"].iter().all(|service| {
                spans
                    .iter()
                    .any(|s| s.service == *service && s.parent_span_id == id)
            })
        })
    });
    let ours = agentgate_spans(&received);
    let context = format!("{ours:#?}");
    // One trace: the caller's.
    assert!(ours.iter().all(|s| s.trace_id == PARENT_TRACE), "{context}");
    let root = named(&ours, "agentgate.run");
    assert_eq!(root.parent_span_id, PARENT_SPAN, "{context}");
    // Codex's tool printed the environment its CLI was given: the run's
    // span as TRACEPARENT, and the export bound the test set (the user's
    // value wins over agentgate's 1 s).
    for given in [
        format!("TRACEPARENT=00-{PARENT_TRACE}-{}-01", root.span_id),
        "TRACESTATE=vendor=e2e".to_owned(),
        "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=30000".to_owned(),
    ] {
        assert!(events.contains(&given), "{given} not in {events}");
    }
    assert_eq!(root.attr("agentgate.outcome"), &json!("ok"), "{context}");
    assert_eq!(
        root.attr("agentgate.provider"),
        &json!("codex"),
        "{context}"
    );
    assert_eq!(root.attr("agentgate.chain"), &json!("main"), "{context}");
    assert_eq!(root.attr("agentgate.attempts"), &json!(2), "{context}");
    assert_eq!(root.status.0, 0, "{context}");
    assert_eq!(
        root.attr("gen_ai.usage.input_tokens"),
        &env["tokens_used"]["input_tokens"],
        "{context}"
    );

    let mut attempts = children(&ours, root);
    attempts.sort_by_key(|s| s.start_ns);
    assert_eq!(attempts.len(), 2, "{context}");
    let (claude, codex) = (attempts[0], attempts[1]);
    assert_eq!(claude.name, "invoke_agent claude", "{context}");
    assert_eq!(claude.attr("agentgate.attempt"), &json!(1), "{context}");
    assert_eq!(claude.attr("error.type"), &json!("rate_limit"), "{context}");
    assert_eq!(
        claude.attr("agentgate.recoverable"),
        &json!(true),
        "{context}"
    );
    assert_eq!(
        claude.attr("agentgate.outcome"),
        &json!("failed"),
        "{context}"
    );
    assert_eq!(
        claude.status.0, 2,
        "Claude's attempt is an error: {context}"
    );
    assert_eq!(codex.name, "invoke_agent codex", "{context}");
    assert_eq!(codex.attr("agentgate.attempt"), &json!(2), "{context}");
    assert_eq!(codex.attr("agentgate.outcome"), &json!("ok"), "{context}");
    assert_eq!(
        codex.attr("gen_ai.provider.name"),
        &json!("openai"),
        "{context}"
    );
    assert_eq!(codex.status.0, 0, "{context}");
    assert!(claude.end_ns <= codex.start_ns + 1_000_000, "{context}");
    for a in &attempts {
        assert_within(a, root);
        assert_eq!(a.attr("gen_ai.operation.name"), &json!("invoke_agent"));
    }

    // Claude's model calls: refused with 429, each an error.
    let claude_calls = children(&ours, claude);
    assert!(!claude_calls.is_empty(), "{context}");
    for call in &claude_calls {
        assert!(call.name.starts_with("chat"), "{context}");
        assert_eq!(call.kind, 3, "a client span: {context}");
        assert_eq!(call.attr("gen_ai.provider.name"), &json!("anthropic"));
        assert_eq!(call.attr("http.response.status_code"), &json!(429));
        assert_eq!(call.status.0, 2, "{context}");
        assert_within(call, claude);
    }

    // Codex's: two model calls with the script's tokens, and the tool call.
    let under_codex = children(&ours, codex);
    let calls: Vec<&Span> = under_codex
        .iter()
        .copied()
        .filter(|s| s.attr("gen_ai.operation.name") == &json!("chat"))
        .collect();
    assert_eq!(calls.len(), 2, "{context}");
    let mut outputs: Vec<&Value> = calls
        .iter()
        .map(|c| c.attr("gen_ai.usage.output_tokens"))
        .collect();
    outputs.sort_by_key(|v| v.as_i64());
    assert_eq!(outputs, [&json!(20), &json!(30)], "{context}");
    for call in &calls {
        assert_eq!(call.attr("http.response.status_code"), &json!(200));
        assert_eq!(call.attr("gen_ai.provider.name"), &json!("openai"));
        assert!(call.attr("gen_ai.request.model").is_string(), "{context}");
        assert_within(call, codex);
    }
    let tools: Vec<&Span> = under_codex
        .iter()
        .copied()
        .filter(|s| s.attr("gen_ai.operation.name") == &json!("execute_tool"))
        .collect();
    assert_eq!(tools.len(), 1, "{context}");
    assert_eq!(tools[0].name, "execute_tool exec_command", "{context}");
    assert_eq!(tools[0].attr("gen_ai.tool.name"), &json!("exec_command"));
    assert_within(tools[0], codex);

    // The collector's header came with every export.
    let auth = receiver.authorizations();
    assert!(
        !auth.is_empty() && auth.iter().all(|a| a == "Bearer otel-e2e"),
        "{auth:?}"
    );
}

/// A workflow of a tool step, a tool step that succeeds on its second
/// try, and an agent step (the REAL Claude Code).
fn workflow_file(claude: &str, model: &str) -> String {
    format!(
        r#"version: 1
name: traced
steps:
  - id: scan
    tool: scanner
    args: [--input, data.json]
    copy_in: [data.json]
  - id: on_fix
    tool: flaky
    retries: 2
    backoff: 100ms
  - id: review
    agent:
      provider: claude
      binary: {claude}
      model: {model}
      prompt: "Review ${{steps.scan.output.files}} files."
"#
    )
}

#[test]
fn a_workflow_exports_a_span_per_step_under_traceparent_over_http() {
    use super::workflow_support::{envelope, project, workflow};

    let receiver = Receiver::http();
    let server = FakeServer::start("turns:\n  - repeat: true\n    text: \"reviewed\"\n");
    let client = Client::new(Cli::Claude, &server);
    let p = project();
    let model = super::mcp_servers::model(Cli::Claude, &client.setup.model).unwrap_or_default();
    std::fs::write(
        p.root().join("traced.yaml"),
        workflow_file(&client.program.to_string_lossy(), &model),
    )
    .unwrap();
    let mut env: Vec<(String, String)> = client.setup.env.clone().into_iter().collect();
    env.extend(otel_env(&receiver, "http/protobuf"));
    env.push(("TRACEPARENT".into(), traceparent()));
    let run = workflow(&p, &["run", "traced.yaml"], &env);
    let result = envelope(&run);
    assert_eq!(run.code, Some(0), "{result:#}\n{}", run.stderr);
    assert_eq!(result["workflow"]["state"], "completed", "{result:#}");

    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans.iter().any(|s| s.name == "agentgate.workflow")
    });
    let ours = agentgate_spans(&received);
    let context = format!("{ours:#?}");
    assert!(ours.iter().all(|s| s.trace_id == PARENT_TRACE), "{context}");
    let root = named(&ours, "agentgate.workflow");
    assert_eq!(root.parent_span_id, PARENT_SPAN, "{context}");
    assert_eq!(root.attr("agentgate.steps"), &json!(3), "{context}");
    let steps = children(&ours, root);
    let mut names: Vec<&str> = steps.iter().map(|s| s.name.as_str()).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "workflow step on_fix",
            "workflow step review",
            "workflow step scan"
        ],
        "{context}"
    );
    for step in &steps {
        assert_eq!(step.attr("agentgate.outcome"), &json!("ok"), "{context}");
        assert_eq!(step.status.0, 0, "{context}");
        assert_within(step, root);
    }
    let step = |name: &str| named(&steps, name);
    assert_eq!(
        step("workflow step on_fix").attr("agentgate.step.attempts"),
        &json!(2)
    );
    assert_eq!(
        step("workflow step scan").attr("agentgate.step.attempts"),
        &json!(1)
    );
    // The steps ran in order.
    assert!(step("workflow step scan").end_ns <= step("workflow step on_fix").start_ns);
    // The agent step's run, and its attempt, under the step.
    let review = step("workflow step review");
    let runs = children(&ours, review);
    assert_eq!(runs.len(), 1, "{context}");
    assert_eq!(runs[0].name, "agentgate.run", "{context}");
    assert_eq!(runs[0].attr("agentgate.outcome"), &json!("ok"), "{context}");
    let attempts = children(&ours, runs[0]);
    assert_eq!(attempts.len(), 1, "{context}");
    assert_eq!(attempts[0].name, "invoke_agent claude", "{context}");
    assert_within(attempts[0], runs[0]);

    // Claude Code's own spans, under the agent step's run: the run's span
    // was named before the CLI started, and the CLI was given it.
    let run_span = runs[0].span_id.clone();
    let received = receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.service == "claude-code" && s.parent_span_id == run_span)
    });
    let claude: Vec<&Span> = received
        .iter()
        .filter(|s| s.service == "claude-code")
        .collect();
    assert!(
        claude.iter().all(|s| s.trace_id == PARENT_TRACE),
        "{claude:#?}"
    );
}

#[test]
fn a_collector_that_never_answers_neither_fails_nor_holds_the_run() {
    // Takes connections (the kernel's backlog) and never reads or answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", silent.local_addr().unwrap());
    let server = FakeServer::start("turns:\n  - repeat: true\n    text: \"done anyway\"\n");
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    for protocol in ["http/protobuf", "grpc"] {
        let mut cmd = client.agentgate();
        cmd.args(["-vv", "run", "--provider", "claude", "--yolo", "--compact"])
            .arg("--binary")
            .arg(&client.program)
            .args(["--model", &client.setup.model, "say it"])
            .env("AGENTGATE_HOME", home.path())
            .env("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)
            .env("OTEL_EXPORTER_OTLP_PROTOCOL", protocol)
            .env("OTEL_EXPORTER_OTLP_TIMEOUT", "600000")
            .env(
                "OTEL_EXPORTER_OTLP_HEADERS",
                "x-collector-key=otel-secret-4711",
            )
            .env("TRACEPARENT", traceparent());
        // Far below the export's own timeout: only the bounded flush ends it.
        let run = run_bounded(cmd, Duration::from_secs(120));
        let all = run.all_output();
        assert!(!run.timed_out, "{protocol}: held by the collector: {all}");
        assert_eq!(run.code, Some(0), "{protocol}: {all}");
        let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{protocol}: {all}"));
        assert_eq!(env["response"], "done anyway", "{protocol}: {env:#}");
        assert!(!all.contains("otel-secret-4711"), "{protocol}: {all}");
    }
    drop(silent);
}

#[test]
fn a_sandboxed_cli_gets_the_trace_context_through_the_allowlist() {
    let receiver = Receiver::http();
    let server = FakeServer::start("turns:\n  - repeat: true\n    text: \"confined\"\n");
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", "claude", "--yolo", "--compact"])
        .args(["--sandbox", "workspace"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model, "say it"])
        .env("AGENTGATE_HOME", home.path())
        .envs(otel_env(&receiver, "http/protobuf"))
        .env("TRACEPARENT", traceparent());
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{all}"));
    assert_eq!(run.code, Some(0), "{env:#}\n{all}");
    assert_eq!(env["sandbox"]["level"], "workspace", "{env:#}");
    let run_id = env["run_id"].as_str().unwrap().to_owned();
    let received = receiver.wait_for(ARRIVAL, |spans| {
        let Some(run) = spans
            .iter()
            .find(|s| s.name == "agentgate.run" && s.attr("agentgate.run_id") == &json!(run_id))
        else {
            return false;
        };
        spans
            .iter()
            .any(|s| s.service == "claude-code" && s.parent_span_id == run.span_id)
    });
    let claude: Vec<&Span> = received
        .iter()
        .filter(|s| s.service == "claude-code")
        .collect();
    assert!(
        claude.iter().all(|s| s.trace_id == PARENT_TRACE),
        "{claude:#?}"
    );
}

#[test]
fn gemini_cli_sends_its_own_telemetry_to_the_same_collector() {
    let receiver = Receiver::http();
    let server = FakeServer::start("turns:\n  - repeat: true\n    text: \"gem\"\n");
    let client = Client::new(Cli::Gemini, &server);
    let home = tempfile::tempdir().unwrap();
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", "gemini", "--yolo", "--compact"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model, "say it"])
        .env("AGENTGATE_HOME", home.path())
        .envs(otel_env(&receiver, "http/protobuf"))
        .env("TRACEPARENT", traceparent());
    let run = run_bounded(cmd, LIMIT);
    let all = run.all_output();
    let env = last_json(&run.stdout).unwrap_or_else(|| panic!("{all}"));
    assert_eq!(run.code, Some(0), "{env:#}\n{all}");
    // Its recipe turns telemetry off in its settings; the variables
    // agentgate sets win: its logs reach the collector.
    receiver.wait_for_path(ARRIVAL, "/v1/logs");
    // agentgate's own spans arrive as ever.
    receiver.wait_for(ARRIVAL, |spans| {
        spans
            .iter()
            .any(|s| s.name == "invoke_agent gemini" && s.trace_id == PARENT_TRACE)
    });
}
