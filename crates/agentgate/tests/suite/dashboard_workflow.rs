//! A workflow in the dashboard, in headless Chromium, against a real
//! `agentgate serve` (issue 39's "a workflow with a parallel group shows
//! its steps and their states"): a tool step, a parallel group whose two
//! members are drawn side by side, a tool that fails once and is retried,
//! a decision answered by the real Claude Code against `fake-llm`, a gate
//! that holds the workflow running, and a step skipped by its `when:`.
//! While the gate holds: every step's state, tries and duration (the
//! running one ticking, with its progress line), the retried step's two
//! runs, the decision's question, choices and answer. A step's run opens
//! as its own transcript (the decision's agent answering; the scan tool's
//! progress) with a way back to the workflow. A team's reader may follow
//! the runs its team's workflow made; another team's may not. The agent
//! step's run records the token that submitted the workflow.
//!
//! `AGENTGATE_SCREENSHOT_WORKFLOW=docs/workflow.png` refreshes the book's.

use std::time::{Duration, Instant};

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::dashboard::{artifact, click_in_page};
use super::mcp_servers::model;
use super::serve_support::{Env, Serve, get};
use super::serve_tokens::{call, make_token};
use super::serve_workflow::GATE;
use super::support::{Client, FakeServer};
use super::webdriver::Browser;
use super::workflow_support::project;

const TOKEN: &str = "workflow-dashboard-token-0123456789";
const PATIENCE: Duration = Duration::from_secs(150);

const SCRIPT: &str = r#"turns:
  - match: {contains: "choose_strategy"}
    text: '{"choice": "careful", "reason": "three files are few"}'
"#;

fn workflow_file(claude: &str, model: &str, release: &str) -> String {
    format!(
        r#"version: 1
name: release
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
  - id: flaky
    tool: flaky
    retries: 2
    backoff: 200ms
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
  - id: gate
    tool: gate
    args: ["{release}"]
  - id: publish
    when: "${{steps.scan.output.files}} == 0"
    tool: publisher
"#
    )
}

/// What `script` returns, polled until `done` says so (at most PATIENCE).
fn wait_for(browser: &Browser, what: &str, script: &str, done: impl Fn(&Value) -> bool) -> Value {
    let start = Instant::now();
    loop {
        let value = browser.script(script, json!([]));
        if done(&value) {
            return value;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "{what} never came: {value:#}\nsteps: {}",
            browser.text("#run-workflow")
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Every step as the page draws it: id → {status, kind, meta, note,
/// runs (the run links' text), group (the step it is drawn in), box}.
const STEPS: &str = r#"
const out = {};
for (const li of document.querySelectorAll('#run-steps li[data-step]')) {
  const r = li.getBoundingClientRect();
  const q = (sel) => { const e = li.querySelector(':scope > ' + sel); return e ? e.textContent : null; };
  out[li.dataset.step] = {
    status: li.dataset.status, kind: li.dataset.kind,
    meta: q('.step-head > .step-meta'), note: q('.step-note'),
    runs: [...li.querySelectorAll(':scope > .step-runs > button')].map((b) => [b.textContent, b.dataset.run]),
    decision: q('.step-decision'),
    group: (li.parentElement.closest('li') || {dataset: {}}).dataset.step || null,
    left: Math.round(r.left), top: Math.round(r.top), width: Math.round(r.width),
  };
}
return out;"#;

#[test]
fn a_workflow_shows_its_steps_live_and_opens_each_steps_run() {
    let llm = FakeServer::start(SCRIPT);
    let client = Client::new(Cli::Claude, &llm);
    let p = project();
    p.tool("gate", "", GATE);
    let release = p.root().join("release");
    let m = model(Cli::Claude, &client.setup.model).unwrap_or_default();
    let file = workflow_file(
        &client.program.to_string_lossy(),
        &m,
        &release.display().to_string(),
    );
    let bin = p.root().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let mut vars: Vec<(&str, String)> = client
        .setup
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.clone()))
        .collect();
    vars.push(("AGENTGATE_TOKEN", TOKEN.to_owned()));
    let config = p.root().join("agentgate.yaml");
    std::fs::write(&config, "version: 1\n").unwrap();
    vars.push(("AGENTGATE_CONFIG", config.display().to_string()));
    // Tokens of two teams, in the store serve opens (`home/data`).
    let red_bot = make_token(p.root(), None, "red-bot", &["submit"], &["--team", "red"]);
    let red_reader = make_token(p.root(), None, "red-reader", &["read"], &["--team", "red"]);
    let blue_reader = make_token(
        p.root(),
        None,
        "blue-reader",
        &["read"],
        &["--team", "blue"],
    );
    let server = Serve::start(
        &Env {
            home: p.root(),
            bin: &bin,
            vars,
        },
        &[],
    );
    let browser = Browser::start();
    browser.set_viewport_size(1280, 800);
    browser.login(&server.url, TOKEN);

    let body = json!({"workflow": file, "base_dir": p.root().display().to_string()});
    let accepted = call(
        &server.url,
        "POST",
        "/v1/workflows",
        &red_bot,
        &body.to_string(),
    );
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();
    let row = format!("#runs tr[data-run-id='{id}']");
    browser.wait_text(&row, "the workflow's row", |t| t.contains("workflow"));
    click_in_page(&browser, &row);
    browser.wait_text("#run-id", "the workflow shown", |t| t == id);

    // Live: the gate holds the workflow; the steps before it are done.
    let steps = wait_for(&browser, "the gate running", STEPS, |s| {
        s["gate"]["status"] == "running" && s["gate"]["note"].as_str().unwrap_or("").contains("pid")
    });
    let context = format!("{steps:#}");
    assert!(browser.text("#run-steps-state").starts_with("running"));
    for done in [
        "scan", "fix", "fix_a", "fix_b", "flaky", "migrate", "choose",
    ] {
        assert_eq!(steps[done]["status"], "ok", "{done}: {context}");
        let meta = steps[done]["meta"].as_str().unwrap();
        assert!(
            !meta.contains("so far") && (meta.contains(" ms") || meta.contains(" s")),
            "{done}'s duration: {context}"
        );
    }
    assert_eq!(steps["publish"]["status"], "pending", "{context}");
    let gate_meta = steps["gate"]["meta"].as_str().unwrap();
    assert!(
        gate_meta.starts_with("1 try · ") && gate_meta.ends_with("so far"),
        "{context}"
    );
    // The group's members inside it, side by side.
    for member in ["fix_a", "fix_b"] {
        assert_eq!(steps[member]["group"], "fix", "{context}");
        assert_eq!(steps[member]["kind"], "tool", "{context}");
    }
    assert_eq!(steps["fix"]["kind"], "parallel", "{context}");
    assert_eq!(steps["fix_a"]["top"], steps["fix_b"]["top"], "{context}");
    let (a_left, a_width) = (
        steps["fix_a"]["left"].as_i64().unwrap(),
        steps["fix_a"]["width"].as_i64().unwrap(),
    );
    assert!(
        steps["fix_b"]["left"].as_i64().unwrap() >= a_left + a_width,
        "fix_b right of fix_a: {context}"
    );
    // The retried step: two tries, a run each.
    assert!(
        steps["flaky"]["meta"]
            .as_str()
            .unwrap()
            .starts_with("2 tries"),
        "{context}"
    );
    let flaky_runs: Vec<&str> = steps["flaky"]["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r[0].as_str().unwrap())
        .collect();
    assert_eq!(
        flaky_runs,
        ["try 1 · tool run", "try 2 · tool run"],
        "{context}"
    );
    // The decision: the tool's question, the choices, the agent's answer,
    // and its two runs (the agent's, then the tool's with the answer).
    let decision = steps["choose"]["decision"].as_str().unwrap();
    for part in [
        "Asked: choose_strategy",
        r#"{"files":3}"#,
        "Choices: careful, fast",
        "Answer: careful (three files are few)",
    ] {
        assert!(decision.contains(part), "{part}: {context}");
    }
    let choose_runs = steps["choose"]["runs"].as_array().unwrap();
    assert_eq!(choose_runs[0][0], "try 1 · agent run", "{context}");
    assert_eq!(choose_runs[1][0], "try 1 · tool run", "{context}");
    let agent_run = choose_runs[0][1].as_str().unwrap().to_owned();
    // The decision's agent run records the token and team that submitted
    // the workflow (its budgets apply to it), in the labels table only.
    let db = rusqlite::Connection::open(p.root().join("data/agentgate.db")).unwrap();
    let recorded: Vec<(String, String)> = db
        .prepare(
            "SELECT key, value FROM labels WHERE id = ?1 AND key LIKE 'agentgate.%' ORDER BY key",
        )
        .unwrap()
        .query_map([&agent_run], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert_eq!(
        recorded,
        [
            ("agentgate.team".to_owned(), "red".to_owned()),
            ("agentgate.token".to_owned(), "red-bot".to_owned()),
        ],
        "{agent_run}"
    );
    let scan_run = steps["scan"]["runs"][0][1].as_str().unwrap().to_owned();

    // A team's reader follows its team's step runs; another team's cannot.
    let events = format!("/v1/runs/{scan_run}/events");
    let seen = call(&server.url, "GET", &events, &blue_reader, "");
    assert_eq!(seen.status, 404, "{}", seen.body);
    let mut stream = super::sse_client::stream(&server.url, &events, &red_reader, None);
    let first = stream.next_event().expect("the scan run's first event");
    assert_eq!(first.json()["run_id"], scan_run.as_str());

    // The decision's agent run, as its own transcript, and back.
    let link = format!("#run-steps li[data-step='choose'] button[data-run='{agent_run}']");
    click_in_page(&browser, &link);
    browser.wait_text("#run-id", "the agent's run", |t| t == agent_run);
    let said = browser.wait_text("#transcript", "the agent's answer", |t| {
        t.contains("three files are few") && t.contains("Result")
    });
    assert!(
        said.contains("Prompt (as the workflow file writes it)")
            && said.contains("${action.action}"),
        "the step's prompt as the file writes it: {said}"
    );
    assert_eq!(browser.text("#run-status"), "succeeded");
    let within = browser.text("#run-within");
    assert!(
        within.contains("choose") && within.contains(&id),
        "{within}"
    );
    assert_eq!(
        browser.script(
            "return document.getElementById('run-cancel').hidden;",
            json!([])
        ),
        json!(true),
        "a step's run is cancelled with its workflow"
    );
    click_in_page(&browser, "#run-back");
    browser.wait_text("#run-id", "the workflow again", |t| t == id);
    wait_for(&browser, "the steps again", STEPS, |s| {
        s["gate"]["status"] == "running"
    });

    // A tool step's run: its progress line.
    let link = format!("#run-steps li[data-step='scan'] button[data-run='{scan_run}']");
    click_in_page(&browser, &link);
    browser.wait_text("#transcript", "the scan's progress", |t| {
        t.contains("counting")
    });
    assert!(
        browser
            .text("#transcript")
            .contains("scanner --input data.json")
    );
    click_in_page(&browser, "#run-back");
    browser.wait_text("#run-id", "the workflow again", |t| t == id);

    // The gate opens: the workflow completes, the last step is skipped.
    std::fs::write(&release, "").unwrap();
    let steps = wait_for(&browser, "the workflow's end", STEPS, |s| {
        s["publish"]["status"] == "skipped" && s["gate"]["status"] == "ok"
    });
    browser.wait_text("#run-steps-state", "completed", |t| {
        t.starts_with("completed")
    });
    let gate_meta = steps["gate"]["meta"].as_str().unwrap();
    assert!(!gate_meta.contains("so far"), "{steps:#}");
    assert!(
        steps["publish"]["note"]
            .as_str()
            .unwrap()
            .contains("is false"),
        "{steps:#}"
    );
    let view = get(&server.url, &format!("/v1/runs/{id}"), Some(TOKEN)).json();
    assert_eq!(
        view["envelope"]["workflow"]["state"], "completed",
        "{view:#}"
    );
    // The workflow's cost (its decision's agent run's) on its row.
    let cost = view["envelope"]["tokens_used"]["cost_usd"]
        .as_f64()
        .unwrap();
    assert!(cost > 0.0, "{view:#}");
    browser.wait_text(&row, "the workflow's cost", |t| {
        t.contains(&format!("${cost:.4}"))
    });

    browser.script(
        "document.getElementById('run-panel').scrollIntoView();",
        json!([]),
    );
    let shot = artifact("dashboard-workflow-steps.png");
    browser.screenshot(&shot);
    if let Ok(to) = std::env::var("AGENTGATE_SCREENSHOT_WORKFLOW") {
        std::fs::copy(&shot, super::support::workspace_root().join(to)).unwrap();
    }
}
