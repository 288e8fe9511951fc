//! The dashboard in a real browser (headless Chromium over WebDriver)
//! against a real `agentgate serve`.

use std::path::PathBuf;

use super::serve_support::{Env, Serve, get};
use super::webdriver::Browser;

const TOKEN: &str = "dashboard-test-token-0123456789";

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
fn artifact(name: &str) -> PathBuf {
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
fn click_in_page(browser: &Browser, css: &str) {
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
    browser.goto(&format!("{}/", serve.url));
    browser.type_into("#token-input", QUEUE_TOKEN);
    browser.click("#token-form button");
    browser.wait_text("#server-state", "connected", |t| t == "connected");

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
    browser.wait_text("#run-events", "the start event", |t| t.contains("start"));
    assert_eq!(
        browser.text("#run-text"),
        "",
        "no answer before the CLI answers"
    );
    std::fs::write(home.file("release"), "").unwrap();
    browser.wait_text("#run-text", "the answer", |t| t.contains("done tag-a"));
    browser.wait_text("#run-status", "succeeded", |t| t == "succeeded");
    let events = browser.text("#run-events");
    assert!(
        events.contains("session") && events.contains("result"),
        "{events}"
    );

    // The queue panel counts them; the runs table lists both.
    browser.wait_text("#queue-states", "the counts", |t| {
        t.contains("succeeded1") && t.contains("cancelled1")
    });
    let runs = browser.text("#runs");
    assert!(runs.contains(&held) && runs.contains(&live), "{runs}");
    let shot = artifact("dashboard.png");
    browser.screenshot(&shot);
    // `AGENTGATE_SCREENSHOT=docs/dashboard.png` refreshes the README's.
    if let Ok(to) = std::env::var("AGENTGATE_SCREENSHOT") {
        std::fs::copy(&shot, super::support::workspace_root().join(to)).unwrap();
    }
}
