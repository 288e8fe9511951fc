//! A workflow end to end (issue 15's "Done when"): a tool step; a
//! parallel group of three tools with `max_concurrency: 2` (the overlap
//! measured from the tools' own clocks); an agent step with the REAL
//! Claude Code against `agentgate fake-llm` whose structured answer picks
//! the branch; a decision step whose agent (Claude again) answers a
//! tool's `action_required`, the answer going back to the tool (and
//! another, `answer: next`, whose answer goes to the step after); a tool
//! that fails with a retryable error and succeeds on retry; a `when:` that
//! skips a step. Checked from the envelope, the store (each tool's runs,
//! linked to the workflow) and the workflow's events.

use agentgate_fakellm::clients::Cli;
use agentgate_protocol::EventBody;
use serde_json::Value;

use super::mcp_servers::model;
use super::support::{Client, FakeServer};
use super::workflow_support::{envelope, event_names, project, step, tool_runs, workflow};

const SCRIPT: &str = r#"turns:
  - match: {contains: "Route the plan"}
    text: '{"choice": "fast", "reason": "the next step applies it"}'
  - match: {contains: "pick a branch"}
    text: '{"branch": "fix", "approve": true}'
  - match: {contains: "choose_strategy"}
    text: '{"choice": "careful", "reason": "three files are few"}'
"#;

fn workflow_file(claude: &str, model: &str) -> String {
    format!(
        r#"version: 1
name: triage
steps:
  - id: scan
    tool: scanner
    args: [--input, data.json]
    copy_in: [data.json]
  - id: fix
    parallel:
      max_concurrency: 2
      steps:
        - {{id: fix_a, tool: fixer, args: [a]}}
        - {{id: fix_b, tool: fixer, args: [b]}}
        - {{id: fix_c, tool: fixer, args: [c]}}
  - id: review
    agent:
      provider: claude
      binary: {claude}
      model: {model}
      prompt: "Review ${{steps.scan.output.files}} files and pick a branch: answer JSON."
      output_schema: review.schema.json
  - id: on_fix
    when: "${{steps.review.output.branch}} == fix"
    tool: flaky
    retries: 2
    backoff: 200ms
  - id: on_skip
    when: "${{steps.review.output.branch}} == skip"
    tool: publisher
  - id: migrate
    tool: migrator
    args: [--plan]
  - id: choose
    decision:
      for: migrate
      agent:
        provider: claude
        binary: {claude}
        model: {model}
        prompt: "The migrator asks ${{action.action}} for ${{action.context.files}} files. Answer JSON."
      choices: [careful, fast]
      args: [--strategy, "${{answer.choice}}"]
  - id: plan_b
    tool: migrator
    args: [--plan]
  - id: route
    decision:
      for: plan_b
      answer: next
      agent:
        provider: claude
        binary: {claude}
        model: {model}
        prompt: "Route the plan: ${{action.action}}. Answer JSON."
      choices: [careful, fast]
  - id: apply
    tool: migrator
    args: [--strategy, "${{steps.route.output.choice}}"]
outputs:
  files: "${{steps.scan.output.files}}"
  branch: "${{steps.review.output.branch}}"
  strategy: "${{steps.choose.result.metrics.strategy}}"
  routed: "${{steps.apply.output.strategy}}"
"#
    )
}

const REVIEW_SCHEMA: &str = r#"{"type": "object", "required": ["branch"],
 "properties": {"branch": {"enum": ["fix", "skip"]}, "approve": {"type": "boolean"}}}"#;

#[test]
fn a_workflow_runs_tool_parallel_agent_decision_retry_and_when_steps() {
    let server = FakeServer::start(SCRIPT);
    let client = Client::new(Cli::Claude, &server);
    let p = project();
    let m = model(Cli::Claude, &client.setup.model).unwrap_or_default();
    std::fs::write(
        p.root().join("triage.yaml"),
        workflow_file(&client.program.to_string_lossy(), &m),
    )
    .unwrap();
    std::fs::write(p.root().join("review.schema.json"), REVIEW_SCHEMA).unwrap();
    let env: Vec<(String, String)> = client.setup.env.clone().into_iter().collect();
    let run = workflow(&p, &["run", "triage.yaml"], &env);
    let env_json = envelope(&run);
    let context = format!(
        "{env_json:#}\n{}\nrequests: {:#?}",
        run.stderr,
        server.turn_requests()
    );
    assert_eq!(run.code, Some(0), "{context}");
    let wf = &env_json["workflow"];
    assert_eq!(wf["state"], "completed", "{context}");
    assert_eq!(
        wf["outputs"],
        serde_json::json!({"files": 3, "branch": "fix", "strategy": "careful", "routed": "fast"}),
        "{context}"
    );
    let status = |id: &str| step(&env_json, id)["status"].clone();
    for id in [
        "scan", "fix", "fix_a", "fix_b", "fix_c", "review", "on_fix", "migrate", "choose",
        "plan_b", "route", "apply",
    ] {
        assert_eq!(status(id), "ok", "{id}: {context}");
    }
    assert_eq!(status("on_skip"), "skipped", "{context}");
    assert_eq!(step(&env_json, "on_fix")["attempts"], 2, "{context}");
    assert_eq!(step(&env_json, "fix_b")["group"], "fix", "{context}");

    // Each tool ran as often as the workflow says, linked to it; the
    // skipped step's tool never ran.
    let workflow_run = env_json["run_id"].as_str().unwrap().to_owned();
    let counts = tool_runs(&p, &workflow_run);
    let expected: Vec<(&str, usize)> =
        vec![("fixer", 3), ("flaky", 2), ("migrator", 4), ("scanner", 1)];
    assert_eq!(
        counts
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect::<Vec<_>>(),
        expected,
        "{context}"
    );

    // max_concurrency 2: never three fixers at once, and two did overlap.
    let fixers: Vec<(u128, u128)> = ["fix_a", "fix_b", "fix_c"]
        .iter()
        .map(|id| {
            let run_id = step(&env_json, id)["run_ids"][0]
                .as_str()
                .unwrap()
                .to_owned();
            let result = tool_envelope(&p, &run_id);
            let n = |k: &str| result.metrics[k].as_u64().unwrap() as u128;
            (n("start_ns"), n("end_ns"))
        })
        .collect();
    let most = max_overlap(&fixers);
    assert_eq!(most, 2, "fixers ran {fixers:?}");

    // The agent's structured answer picked the branch: its prompt had the
    // scan's count; the decision's answer reached the tool (arguments and
    // stdin) in the workspace of the run that asked.
    let prompts: Vec<String> = server
        .turn_requests()
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert!(
        prompts.iter().any(|r| r.contains("Review 3 files")),
        "{prompts:#?}"
    );
    assert!(
        prompts
            .iter()
            .any(|r| r.contains("asks choose_strategy for 3 files")),
        "{prompts:#?}"
    );
    let choose = step(&env_json, "choose");
    let answered = choose["run_ids"].as_array().unwrap();
    assert_eq!(
        answered.len(),
        2,
        "an agent run, then the tool's: {choose:#}"
    );
    let tool_run = answered[1].as_str().unwrap();
    let tool_env = tool_envelope(&p, tool_run);
    assert_eq!(tool_env.metrics["strategy"], "careful");
    assert_eq!(tool_env.metrics["stdin_choice"], "careful");
    assert_eq!(tool_env.metrics["stdin_action"], "choose_strategy");
    let migrate_run = step(&env_json, "migrate")["run_ids"][0]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(tool_env.resumed_from.as_deref(), Some(migrate_run.as_str()));

    // `answer: next`: the decision's only run is the agent's (the tool
    // that asked is not run again); the step after took the answer.
    let route = step(&env_json, "route");
    assert_eq!(route["run_ids"].as_array().unwrap().len(), 1, "{route:#}");
    assert_eq!(
        step(&env_json, "plan_b")["run_ids"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let applied = step(&env_json, "apply")["run_ids"][0].as_str().unwrap();
    let applied = tool_envelope(&p, applied);
    assert_eq!(applied.metrics["strategy"], "fast");
    assert_eq!(
        applied.metrics["stdin_choice"], "",
        "no answer on its stdin"
    );

    // The workflow's envelope sums what its agents' runs used, as each
    // run's own envelope says (the tools' runs use nothing).
    let agent_envelopes: Vec<agentgate_protocol::Envelope> = ["review", "choose", "route"]
        .iter()
        .map(|id| {
            let run = step(&env_json, id)["run_ids"][0]
                .as_str()
                .unwrap()
                .to_owned();
            p.events(&run)
                .iter()
                .rev()
                .find_map(|e| match &e.body {
                    EventBody::Result(r) => Some(*r.envelope.clone()),
                    _ => None,
                })
                .unwrap()
        })
        .collect();
    let used = &env_json["tokens_used"];
    for key in ["input_tokens", "output_tokens", "total_tokens"] {
        let sum: u64 = agent_envelopes
            .iter()
            .map(|e| {
                serde_json::to_value(&e.tokens_used).unwrap()[key]
                    .as_u64()
                    .unwrap()
            })
            .sum();
        assert!(sum > 0, "{key}");
        assert_eq!(used[key], sum, "{key}: {context}");
    }
    let cost: f64 = agent_envelopes
        .iter()
        .map(|e| e.tokens_used.cost_usd.unwrap())
        .sum();
    let summed = used["cost_usd"].as_f64().unwrap();
    assert!((summed - cost).abs() < 1e-9, "{summed} != {cost}");
    assert_eq!(env_json["metadata"]["token_usage_available"], true);

    // The stream: the state machine, the task events, nested child events.
    let events = p.events(&workflow_run);
    let names = event_names(&events);
    for needed in [
        "task_submitted:scan",
        "task_started:scan",
        "task_progress:scan",
        "task_done:scan",
        "task_error:on_fix",
        "task_done:on_skip",
        "task_done:choose",
    ] {
        assert!(names.iter().any(|n| n == needed), "{needed} in {names:#?}");
    }
    let states: Vec<&str> = events
        .iter()
        .filter_map(|e| match &e.body {
            EventBody::WorkflowState(s) => Some(s.state.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        states,
        [
            "running",
            "waiting_ai",
            "running",
            "waiting_ai",
            "running",
            "completed"
        ],
        "{names:#?}"
    );
    let retry = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::TaskError(t) if t.task_id == "on_fix" => Some(t.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(retry.code.as_deref(), Some("E_TRANSIENT_NET"));
    assert!(
        retry.retryable && retry.retry_in_ms == Some(200),
        "{retry:?}"
    );
    let nested: Value = events
        .iter()
        .find_map(|e| match &e.body {
            EventBody::TaskProgress(t) if t.task_id == "scan" => {
                Some(serde_json::to_value(&t.event).unwrap())
            }
            _ => None,
        })
        .unwrap();
    assert_eq!(nested["run_id"], step(&env_json, "scan")["run_ids"][0]);

    // The agent runs are linked to the workflow too.
    let review_run = step(&env_json, "review")["run_ids"][0]
        .as_str()
        .unwrap()
        .to_owned();
    let all = super::workflow_support::runs(&p);
    let review = all
        .iter()
        .find(|r| r["run_id"] == review_run.as_str())
        .unwrap();
    assert_eq!(review["parent_run_id"], workflow_run.as_str(), "{review:#}");
    assert_eq!(review["kind"], "agent");
}

/// The result envelope of the tool run `run_id`.
fn tool_envelope(
    p: &super::tool_support::Project,
    run_id: &str,
) -> Box<agentgate_protocol::ToolEnvelope> {
    p.events(run_id)
        .iter()
        .rev()
        .find_map(|e| match &e.body {
            EventBody::Result(r) => r.envelope.tool.clone(),
            _ => None,
        })
        .unwrap()
}

/// The most intervals alive at one instant.
fn max_overlap(spans: &[(u128, u128)]) -> usize {
    let mut edges: Vec<(u128, i32)> = Vec::new();
    for (s, e) in spans {
        edges.push((*s, 1));
        edges.push((*e, -1));
    }
    edges.sort();
    let (mut now, mut most) = (0i32, 0i32);
    for (_, d) in edges {
        now += d;
        most = most.max(now);
    }
    most.max(0) as usize
}
