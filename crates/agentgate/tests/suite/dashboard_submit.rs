//! Starting and stopping work from the dashboard, in a real browser
//! (headless Chromium over WebDriver) against a real `agentgate serve`
//! running the queue tests' stand-in `claude`: the New run form offers the
//! config's agents, chains and providers, starts a run of an agent with
//! labels (the run then opens and is listed, and the stored request says
//! what the form chose), shows the server's refusal of a bad one, starts a
//! workflow from a file on the server; a running run is cancelled from its
//! row without opening it; a token that may only read is offered neither.

use serde_json::{Value, json};

use agentgate_store::JobState;

use super::dashboard::click_in_page;
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::serve_support::get;
use super::webdriver::Browser;

const CONFIG: &str =
    "agents:\n  helper:\n    provider: claude\nchains:\n  main:\n    agents: [helper]\n";

fn log_in(browser: &Browser, url: &str, token: &str) {
    browser.goto(&format!("{url}/"));
    browser.type_into("#token-input", token);
    browser.click("#token-form button");
    browser.wait_text("#whoami", "the token's name", |t| t.starts_with("as "));
}

fn shown(browser: &Browser, css: &str) -> bool {
    browser.script(
        "const e = document.querySelector(arguments[0]); return !!e && e.getClientRects().length > 0;",
        json!([css]),
    ) == json!(true)
}

fn run_json(url: &str, id: &str) -> Value {
    let r = get(url, &format!("/v1/runs/{id}"), Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    r.json()
}

#[test]
fn the_form_starts_runs_and_workflows_and_a_row_cancels_its_run() {
    let home = QueueHome::new(CONFIG);
    let reader = super::serve_tokens::make_token(home.path(), None, "reader", &["read"], &[]);
    std::fs::write(
        home.file("wf.yaml"),
        "version: 1\nname: from-the-page\nsteps:\n  - id: ask\n    agent: {agent: helper, prompt: say tag-wf}\n",
    )
    .unwrap();
    let serve = home.serve(false, &[]);
    let browser = Browser::start();
    log_in(&browser, &serve.url, TOKEN);

    click_in_page(&browser, "#new-run");
    browser.wait_text("#submit-target", "the choices", |t| t.contains("helper"));
    let options = browser.script(
        "return [...document.querySelectorAll('#submit-target option')].map(o => o.value);",
        json!([]),
    );
    let options: Vec<String> = serde_json::from_value(options).unwrap();
    assert_eq!(options[..2], ["agent:helper", "chain:main"], "{options:?}");
    assert!(
        options.contains(&"provider:claude".to_owned()),
        "{options:?}"
    );

    // A bad request: the server's refusal, shown as it says it.
    browser.script(
        "document.getElementById('submit-target').value = 'agent:helper';",
        json!([]),
    );
    click_in_page(&browser, "#submit-form button[type=submit]");
    let refused = browser.wait_text("#submit-result", "the refusal", |t| !t.is_empty());
    assert!(refused.contains("prompt"), "{refused}");
    assert_eq!(
        browser.script(
            "return document.getElementById('submit-result').className;",
            json!([])
        ),
        json!("error")
    );

    // A run of the agent, with labels: it starts, opens and is listed.
    browser.type_into("#submit-prompt", "say tag-form");
    browser.type_into("#submit-labels", "ticket=T-9 team=web");
    browser.set_viewport_size(1280, 800);
    browser.screenshot(&super::dashboard::artifact("dashboard-submit.png"));
    click_in_page(&browser, "#submit-form button[type=submit]");
    let started = browser.wait_text("#submit-result", "the new run", |t| {
        t.starts_with("started ")
    });
    let id = started.trim_start_matches("started ").to_owned();
    browser.wait_text("#run-id", "the run opened", |t| t == id);
    browser.wait_text("#runs", "the run listed", |t| t.contains(&id));
    let job = home.wait_for_state(&id, JobState::Succeeded);
    assert_eq!(job.envelope.unwrap().response, "done tag-form");
    let run = run_json(&serve.url, &id);
    assert_eq!(run["request"]["agents"], json!(["helper"]));
    assert_eq!(
        run["request"]["labels"],
        json!({"team": "web", "ticket": "T-9"})
    );

    // A workflow from a file the server can read.
    click_in_page(&browser, "input[name=submit-kind][value=workflow]");
    assert!(shown(&browser, "#submit-file") && !shown(&browser, "#submit-prompt"));
    let file = home.file("wf.yaml");
    browser.type_into("#submit-file", file.to_str().unwrap());
    click_in_page(&browser, "#submit-form button[type=submit]");
    let started = browser.wait_text("#submit-result", "the workflow", |t| {
        t.starts_with("started ") && !t.ends_with(&id)
    });
    let wf = started.trim_start_matches("started ").to_owned();
    home.wait_for_state(&wf, JobState::Succeeded);
    assert_eq!(run_json(&serve.url, &wf)["kind"], "workflow");

    // A running run, cancelled from its row: the run shown stays the same.
    let held = submit_ok(&serve.url, "hold tag-h", json!({}));
    home.wait_for_starts(3);
    let button = format!("#runs tr[data-run-id='{held}'] button.row-cancel");
    browser.wait_text(&button, "the row's Cancel", |t| t == "Cancel");
    click_in_page(&browser, &button);
    home.wait_for_state(&held, JobState::Cancelled);
    assert_eq!(
        browser.text("#run-id"),
        wf,
        "the row's cancel opened no run"
    );

    // A token that may only read: no New run, no Cancel.
    let other = Browser::start();
    log_in(&other, &serve.url, &reader);
    let held = submit_ok(&serve.url, "hold tag-r", json!({}));
    other.wait_text("#runs", "the held run", |t| t.contains(&held));
    assert!(!shown(&other, "#new-run"));
    let cancels = other.script(
        "return document.querySelectorAll('#runs button.row-cancel').length;",
        json!([]),
    );
    assert_eq!(cancels, json!(0));
    std::fs::write(home.file("release"), "").unwrap();
}
