//! The dashboard in a real browser (headless Chromium over WebDriver)
//! against a real `agentgate serve`.

use std::path::PathBuf;

use super::serve_support::{Env, Serve, get};
use super::webdriver::Browser;

const TOKEN: &str = "dashboard-test-token-0123456789ab";

fn serve(home: &std::path::Path) -> Serve {
    let bin = home.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    Serve::start(
        &Env {
            home,
            bin: &bin,
            vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
        },
        &[],
    )
}

/// Where the test keeps its screenshots.
pub(super) fn artifact(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

#[test]
fn the_page_is_served_open_with_a_strict_content_security_policy() {
    let home = tempfile::tempdir().unwrap();
    let serve = serve(home.path());
    for (path, kind) in [
        ("/", "text/html"),
        ("/assets/app.js", "text/javascript"),
        ("/assets/usage.js", "text/javascript"),
        ("/assets/transcript.js", "text/javascript"),
        ("/assets/markdown.js", "text/javascript"),
        ("/assets/timeline.js", "text/javascript"),
        ("/assets/workflow.js", "text/javascript"),
        ("/assets/style.css", "text/css"),
    ] {
        let r = get(&serve.url, path, None);
        assert_eq!(r.status, 200, "{path}");
        assert!(
            r.header("content-type").unwrap().starts_with(kind),
            "{path}"
        );
        let csp = r.header("content-security-policy").unwrap();
        assert!(
            csp.contains("script-src 'self'") && csp.contains("connect-src 'self'"),
            "{csp}"
        );
        assert_eq!(r.header("x-content-type-options"), Some("nosniff"));
    }
    // The page holds no data and no token.
    let page = get(&serve.url, "/", None).body;
    assert!(page.contains("/assets/app.js") && !page.contains(TOKEN));
    // Every asset the page names is served.
    let named: Vec<&str> = page
        .split("\"/assets/")
        .skip(1)
        .filter_map(|rest| rest.split('"').next())
        .collect();
    assert!(named.len() >= 9, "{named:?}");
    for name in named {
        let r = get(&serve.url, &format!("/assets/{name}"), None);
        assert_eq!(r.status, 200, "/assets/{name}");
    }
}

#[test]
fn a_wrong_token_is_refused_in_the_page_and_not_kept() {
    let home = tempfile::tempdir().unwrap();
    let serve = serve(home.path());
    let browser = Browser::start();
    browser.goto(&format!("{}/", serve.url));
    browser.type_into("#token-input", "not-the-token");
    browser.click("#token-form button");
    let error = browser.wait_text("#login-error", "an error", |t| !t.is_empty());
    assert!(error.contains("refused the token"), "{error}");
    let kept = browser.script(
        "return localStorage.getItem('agentgate.token');",
        serde_json::json!([]),
    );
    assert!(kept.is_null(), "a refused token was kept: {kept}");
    // Nothing but the token form is shown.
    let app_shown = browser.script(
        "return document.getElementById('app').getClientRects().length > 0;",
        serde_json::json!([]),
    );
    assert_eq!(app_shown, serde_json::json!(false));
    browser.screenshot(&artifact("dashboard-login-refused.png"));
}

/// Click what `css` matches, from inside the page (the tables are redrawn
/// every two seconds, so an element handle could go stale between finding
/// and clicking it).
pub(super) fn click_in_page(browser: &Browser, css: &str) {
    browser.find(css);
    let clicked = browser.script(
        "const e = document.querySelector(arguments[0]); if (!e) return false; e.click(); return true;",
        serde_json::json!([css]),
    );
    assert_eq!(clicked, serde_json::json!(true), "{css}");
}

#[test]
fn the_page_follows_a_run_live_and_cancels_another() {
    use super::serve_queue_support::{QueueHome, TOKEN as QUEUE_TOKEN, submit_ok};
    let home = QueueHome::new("");
    let serve = home.serve(false, &[]);
    let browser = Browser::start();
    browser.login(&serve.url, QUEUE_TOKEN);

    // A held run, cancelled from the page.
    let held = submit_ok(&serve.url, "hold tag-b", serde_json::json!({}));
    home.wait_for_starts(1);
    click_in_page(&browser, &format!("tr[data-run-id='{held}']"));
    browser.wait_text("#run-id", "the run shown", |t| t == held);
    browser.wait_text("#run-status", "running", |t| t == "running");
    click_in_page(&browser, "#run-cancel");
    browser.wait_text("#run-status", "cancelled", |t| t == "cancelled");
    assert_eq!(home.job(&held).state, agentgate_store::JobState::Cancelled);

    // Another, followed live: only agentgate's `start` until the CLI is
    // released, then its answer and its result as they come.
    let live = submit_ok(&serve.url, "hold tag-a", serde_json::json!({}));
    home.wait_for_starts(2);
    click_in_page(&browser, &format!("tr[data-run-id='{live}']"));
    browser.wait_text(
        "#transcript .t-notice[data-kind='attempt']",
        "the start event",
        |t| t.starts_with("attempt 1"),
    );
    assert_eq!(
        browser.text("#transcript .t-assistant"),
        "",
        "no answer before the CLI answers"
    );
    assert_eq!(browser.text("#transcript .t-result"), "", "no result yet");
    std::fs::write(home.file("release"), "").unwrap();
    browser.wait_text("#transcript .t-result", "the result", |t| !t.is_empty());
    let transcript = browser.text("#transcript");
    assert!(
        transcript.contains("done tag-a"),
        "the answer: {transcript}"
    );
    browser.wait_text("#run-status", "succeeded", |t| t == "succeeded");
    let prompt = browser.text("#transcript .t-prompt");
    assert!(prompt.contains("hold tag-a"), "{prompt}");

    // The queue panel counts them; the runs table lists both.
    browser.wait_text("#queue-states", "the counts", |t| {
        t.contains("succeeded1") && t.contains("cancelled1")
    });
    let runs = browser.text("#runs");
    assert!(runs.contains(&held) && runs.contains(&live), "{runs}");
    let shot = artifact("dashboard.png");
    browser.screenshot(&shot);
    // `AGENTGATE_SCREENSHOT=docs/dashboard.png` refreshes the book's
    // (docs/operating/dashboard.md shows it).
    if let Ok(to) = std::env::var("AGENTGATE_SCREENSHOT") {
        std::fs::copy(&shot, super::support::workspace_root().join(to)).unwrap();
    }
}

#[test]
fn the_page_shows_a_workflow_as_a_live_tree_of_steps() {
    use super::serve_workflow::{GATE, TOKEN as WF_TOKEN, post, serve, wait_for_run};
    let p = super::workflow_support::project();
    p.tool("gate", "", GATE);
    let release = p.root().join("release");
    let tree = format!(
        "version: 1\nname: tree\nsteps:\n  - id: scan\n    tool: scanner\n    args: [--input, data.json]\n    copy_in: [data.json]\n  - id: fix\n    parallel:\n      max_concurrency: 2\n      steps:\n        - {{id: fix_a, tool: fixer, args: [a]}}\n        - {{id: fix_b, tool: fixer, args: [b]}}\n  - id: gate\n    tool: gate\n    args: [\"{}\"]\n  - id: publish\n    when: \"${{steps.scan.output.files}} == 0\"\n    tool: publisher\n",
        release.display()
    );
    let server = serve(&p);
    let browser = Browser::start();
    browser.login(&server.url, WF_TOKEN);

    let body = serde_json::json!({"workflow": tree, "base_dir": p.root().display().to_string()});
    let accepted = post(&server.url, "/v1/workflows", &body);
    assert_eq!(accepted.status, 201, "{}", accepted.body);
    let id = accepted.json()["run_id"].as_str().unwrap().to_owned();
    let row = format!("tr[data-run-id='{id}']");
    browser.wait_text(&row, "the workflow's row", |t| t.contains("workflow"));
    click_in_page(&browser, &row);
    browser.wait_text("#run-id", "the run shown", |t| t == id);

    // Live: the gate step runs while the steps before it are done.
    let status_of = |step: &str| {
        browser.script(
            "const li = document.querySelector(`#run-steps li[data-step=\"${arguments[0]}\"]`); return li ? li.dataset.status : null;",
            serde_json::json!([step]),
        )
    };
    browser.wait_text("#run-steps-state", "running", |t| t.starts_with("running"));
    let start = std::time::Instant::now();
    while status_of("gate") != serde_json::json!("running") {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "the gate step never showed running"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(status_of("scan"), serde_json::json!("ok"));
    assert_eq!(status_of("publish"), serde_json::json!("pending"));
    std::fs::write(&release, "").unwrap();
    browser.wait_text("#run-steps-state", "completed", |t| {
        t.starts_with("completed")
    });
    wait_for_run(&server.url, &id, |r| r["status"] == "succeeded");

    // The tree: the group's members under it, each step's end.
    let items = browser.script(
        "return [...document.querySelectorAll('#run-steps li')].map(li => [li.dataset.step, li.dataset.kind, li.dataset.status, (li.parentElement.closest('li') || {dataset: {}}).dataset.step || null]);",
        serde_json::json!([]),
    );
    assert_eq!(
        items,
        serde_json::json!([
            ["scan", "tool", "ok", null],
            ["fix", "parallel", "ok", null],
            ["fix_a", "tool", "ok", "fix"],
            ["fix_b", "tool", "ok", "fix"],
            ["gate", "tool", "ok", null],
            ["publish", "tool", "skipped", null],
        ])
    );
    let steps = browser.text("#run-steps");
    assert!(steps.contains("1 try"), "{steps}");
    assert!(steps.contains("is false"), "the skip's reason: {steps}");
    browser.screenshot(&artifact("dashboard-workflow.png"));
}

#[test]
fn the_runs_list_filters_by_label() {
    use super::serve_queue_support::{QueueHome, TOKEN as QUEUE_TOKEN, submit_ok};
    let home = QueueHome::new("");
    let serve = home.serve(false, &[]);
    let chat42 = submit_ok(
        &serve.url,
        "say tag-a",
        serde_json::json!({"labels": {"chat": "42", "topic": "x"}}),
    );
    let chat7 = submit_ok(
        &serve.url,
        "say tag-b",
        serde_json::json!({"labels": {"chat": "7"}}),
    );
    let browser = Browser::start();
    browser.login(&serve.url, QUEUE_TOKEN);
    browser.wait_text("#runs", "both runs", |t| {
        t.contains(&chat42) && t.contains(&chat7)
    });

    browser.type_into("#filter-label", "chat=42 topic=x");
    click_in_page(&browser, "#run-filters button");
    let runs = browser.wait_text("#runs", "only the labelled run", |t| {
        t.contains(&chat42) && !t.contains(&chat7)
    });
    assert!(runs.contains(&chat42), "{runs}");
    // A label no run carries: none listed.
    browser.script(
        "document.getElementById('filter-label').value = 'chat=99';",
        serde_json::json!([]),
    );
    click_in_page(&browser, "#run-filters button");
    browser.wait_text("#runs", "no run", |t| {
        !t.contains(&chat42) && !t.contains(&chat7)
    });
}

/// A label value with spaces: quoted (`topic="release notes"`) or written
/// as is (`topic=release notes`), it filters the runs list as one label;
/// the page's parser, asked directly, splits the text as the field's
/// title says.
#[test]
fn the_label_filter_matches_a_value_with_spaces() {
    use super::serve_queue_support::{QueueHome, TOKEN as QUEUE_TOKEN, submit_ok};
    let home = QueueHome::new("");
    let serve = home.serve(false, &[]);
    let notes = submit_ok(
        &serve.url,
        "say tag-notes",
        serde_json::json!({"labels": {"topic": "release notes", "chat": "1"}}),
    );
    let release = submit_ok(
        &serve.url,
        "say tag-release",
        serde_json::json!({"labels": {"topic": "release"}}),
    );
    let browser = Browser::start();
    browser.login(&serve.url, QUEUE_TOKEN);
    browser.wait_text("#runs", "both runs", |t| {
        t.contains(&notes) && t.contains(&release)
    });

    let set_filter = |text: &str| {
        browser.script(
            "document.getElementById('filter-label').value = arguments[0];",
            serde_json::json!([text]),
        );
        click_in_page(&browser, "#run-filters button");
    };
    for filter in [
        r#"topic="release notes""#,
        "topic='release notes' chat=1",
        "topic=release notes",
    ] {
        // Back to both first, so that each filter is seen to act.
        set_filter("");
        browser.wait_text("#runs", "both runs", |t| {
            t.contains(&notes) && t.contains(&release)
        });
        set_filter(filter);
        browser.wait_text("#runs", filter, |t| {
            t.contains(&notes) && !t.contains(&release)
        });
    }
    set_filter("topic=release");
    browser.wait_text("#runs", "the value matched whole", |t| {
        !t.contains(&notes) && t.contains(&release)
    });

    let parsed = browser.script(
        "return arguments[0].map((t) => parseLabelFilter(t));",
        serde_json::json!([[
            "chat=42 topic=x",
            r#"  topic="release notes"  chat=42 "#,
            r#"say="a \"b\"" k=v"#,
            "topic=release notes chat=1",
            "",
        ]]),
    );
    assert_eq!(
        parsed,
        serde_json::json!([
            ["chat=42", "topic=x"],
            ["topic=release notes", "chat=42"],
            ["say=a \"b\"", "k=v"],
            ["topic=release notes", "chat=1"],
            [],
        ])
    );
}
