//! A person answers `ask` decisions through a real `agentgate serve`: a
//! run in permission mode `ask` with the REAL Claude Code against
//! `agentgate fake-llm`, a policy whose default is `ask`; the test sees
//! each request in `GET /v1/runs/{id}/approvals`, allows the first write
//! and denies the second with `POST /v1/runs/{id}/approvals/{request_id}`.
//! The allowed file exists, the denied one does not, the events say a
//! human decided, and answers that cannot apply change nothing.

use agentgate_fakellm::clients::Cli;
use serde_json::{Value, json};

use super::serve_queue_support::{TOKEN, wait_until};
use super::serve_support::{Serve, get, post_json, serve_with_cli_env};
use super::sse_client::stream;
use super::support::{Client, FakeServer};
use super::webdriver::Browser;

const CONFIG: &str = "version: 1\napprovals:\n  default: ask\n  ask_timeout: 2m\n";

fn script(target: &std::path::Path) -> String {
    let t = target.display();
    format!(
        "turns:
  - match: {{contains: \"WRITE\"}}
    times: 1
    tool_call: {{name: Write, args: {{file_path: \"{t}/allowed.txt\", content: \"yes\"}}}}
  - match: {{tool_result: true}}
    times: 1
    tool_call: {{name: Write, args: {{file_path: \"{t}/denied.txt\", content: \"no\"}}}}
  - match: {{tool_result: true}}
    text: \"done\"
"
    )
}

/// The run's pending requests, once there is one other than `after`.
fn next_pending(url: &str, run: &str, after: Option<&str>) -> String {
    let start = std::time::Instant::now();
    loop {
        let r = get(url, &format!("/v1/runs/{run}/approvals"), Some(TOKEN));
        assert_eq!(r.status, 200, "{}", r.body);
        let pending = r.json()["pending"].as_array().cloned().unwrap_or_default();
        if let Some(id) = pending
            .iter()
            .filter_map(Value::as_str)
            .find(|id| Some(*id) != after)
        {
            return id.to_owned();
        }
        if start.elapsed() > std::time::Duration::from_secs(60) {
            let state = get(url, &format!("/v1/runs/{run}"), Some(TOKEN)).body;
            panic!("no pending approval after 60s; the run: {state}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

fn answer(url: &str, run: &str, request: &str, body: Value) -> (u16, Value) {
    let r = post_json(
        url,
        &format!("/v1/runs/{run}/approvals/{request}"),
        TOKEN,
        &body.to_string(),
    );
    (r.status, r.json())
}

/// A served run in mode `ask` with the real Claude Code, started.
struct AskRun {
    serve: Serve,
    run: String,
    target: tempfile::TempDir,
    _server: FakeServer,
    _client: Client,
    _home: tempfile::TempDir,
}

impl AskRun {
    fn start() -> AskRun {
        let target = tempfile::tempdir().unwrap();
        let server = FakeServer::start(&script(target.path()));
        let client = Client::new(Cli::Claude, &server);
        let home = tempfile::tempdir().unwrap();
        let config = home.path().join("agentgate.yaml");
        std::fs::write(&config, CONFIG).unwrap();
        let serve = serve_with_cli_env(
            home.path(),
            &client.setup.env,
            TOKEN,
            &["--config", config.to_str().unwrap()],
        );
        let submitted = post_json(
            &serve.url,
            "/v1/runs",
            TOKEN,
            &json!({
                "prompt": "please WRITE two files",
                "providers": ["claude"],
                "permission_mode": "ask",
                "model": client.setup.model,
                "binary": client.program,
                "cwd": client.setup.workdir,
                "timeout": "150s",
            })
            .to_string(),
        );
        assert_eq!(submitted.status, 201, "{}", submitted.body);
        let run = submitted.json()["run_id"].as_str().unwrap().to_owned();
        AskRun {
            serve,
            run,
            target,
            _server: server,
            _client: client,
            _home: home,
        }
    }

    /// The run's envelope, once it ended.
    fn envelope(&self) -> Value {
        wait_until("the run's end", || {
            let r = get(
                &self.serve.url,
                &format!("/v1/runs/{}", self.run),
                Some(TOKEN),
            );
            let v = r.json();
            (!v["envelope"].is_null()).then(|| v["envelope"].clone())
        })
    }

    /// The first write was made, the second not.
    fn assert_files(&self, context: &str) {
        let t = self.target.path();
        assert_eq!(
            std::fs::read_to_string(t.join("allowed.txt"))
                .ok()
                .as_deref(),
            Some("yes"),
            "{context}"
        );
        assert!(!t.join("denied.txt").exists(), "{context}");
    }
}

#[test]
fn a_person_allows_one_write_and_denies_another_through_the_api() {
    let ask = AskRun::start();
    let (url, run) = (ask.serve.url.clone(), ask.run.clone());

    // Answers that cannot apply: an unknown run, a bad decision.
    let (status, _) = answer(&url, "run_nope", "r1", json!({"decision": "allow"}));
    assert_eq!(status, 404);
    let (status, body) = answer(&url, &run, "r1", json!({"decision": "maybe"}));
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["error"]["field"], "decision", "{body}");

    let first = next_pending(&url, &run, None);
    let (status, body) = answer(&url, &run, &first, json!({"decision": "allow"}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["decision"], "allow", "{body}");
    // The same request again: no longer waited on.
    let (status, body) = answer(&url, &run, &first, json!({"decision": "deny"}));
    assert_eq!(status, 409, "{body}");

    let second = next_pending(&url, &run, Some(&first));
    let (status, body) = answer(
        &url,
        &run,
        &second,
        json!({"decision": "deny", "message": "not that one"}),
    );
    assert_eq!(status, 200, "{body}");

    let envelope = ask.envelope();
    let context = format!("{envelope:#}");
    assert_eq!(envelope["response"], "done", "{context}");
    assert_eq!(envelope["approvals"]["asked"], 2, "{context}");
    assert_eq!(envelope["approvals"]["allowed"], 1, "{context}");
    assert_eq!(envelope["approvals"]["denied"], 1, "{context}");
    ask.assert_files(&context);

    // The events: both decisions by a human, for the requests answered.
    let mut events = stream(&url, &format!("/v1/runs/{run}/events"), TOKEN, None);
    let mut decisions = Vec::new();
    while let Some(m) = events.next() {
        if m.event.as_deref() == Some("end") {
            break;
        }
        let Some(data) = m.data.as_deref() else {
            continue;
        };
        let Ok(e) = serde_json::from_str::<Value>(data) else {
            continue;
        };
        if e["type"] == "approval_decision" {
            decisions.push((
                e["request_id"].as_str().unwrap_or("").to_owned(),
                e["decision"].as_str().unwrap_or("").to_owned(),
                e["by"].as_str().unwrap_or("").to_owned(),
            ));
        }
        if e["type"] == "result" {
            break;
        }
    }
    assert_eq!(
        decisions,
        [
            (first.clone(), "allow".to_owned(), "human".to_owned()),
            (second.clone(), "deny".to_owned(), "human".to_owned()),
        ],
        "{context}"
    );
    let pending = get(&url, &format!("/v1/runs/{run}/approvals"), Some(TOKEN)).json();
    assert_eq!(pending["pending"], json!([]), "nothing waits after the end");
}

#[test]
fn the_dashboard_answers_with_its_allow_and_deny_buttons() {
    let ask = AskRun::start();
    let browser = Browser::start();
    browser.login(&ask.serve.url, TOKEN);
    let row = format!("tr[data-run-id='{}']", ask.run);
    browser.find(&row);
    let clicked = browser.script(
        "const e = document.querySelector(arguments[0]); if (!e) return false; e.click(); return true;",
        json!([row]),
    );
    assert_eq!(clicked, json!(true));
    // Each request in turn, in the transcript where it was asked: its
    // button, pressed once it is there.
    let mut answered: Option<String> = None;
    for (decision, file) in [("allow", "allowed.txt"), ("deny", "denied.txt")] {
        let request = next_pending(&ask.serve.url, &ask.run, answered.as_deref());
        let item = format!("#transcript .t-approval[data-request='{request}']");
        let button = format!("{item} button[data-decision='{decision}']");
        browser.find(&button);
        browser.click(&button);
        browser.wait_text(&item, "the decision shown", |t| {
            t.contains(&format!("{decision} by human"))
        });
        // Shown after the tool call it guards.
        let tool = browser.script(
            "let e = document.querySelector(arguments[0]); while (e && !e.classList.contains('t-tool')) e = e.previousElementSibling; return e ? e.textContent : null;",
            json!([item]),
        );
        assert!(
            tool.as_str().is_some_and(|t| t.contains(file)),
            "{request}: {tool}"
        );
        answered = Some(request);
    }
    browser.wait_text("#run-status", "succeeded", |t| t == "succeeded");
    let envelope = ask.envelope();
    let context = format!("{envelope:#}");
    assert_eq!(envelope["approvals"]["allowed"], 1, "{context}");
    assert_eq!(envelope["approvals"]["denied"], 1, "{context}");
    ask.assert_files(&context);
}
