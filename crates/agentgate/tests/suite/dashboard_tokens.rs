//! The dashboard offers only what its token may do (headless Chromium
//! against a real `agentgate serve`): it names the token (`GET
//! /v1/whoami`), and a token without `cancel` sees no Cancel button on a
//! queued run that the server's own token (an admin) may cancel.

use serde_json::json;

use super::dashboard::click_in_page;
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::serve_tokens::make_token;
use super::webdriver::Browser;

/// Log in with `token`, open run `id`; whether its Cancel button is shown.
fn cancel_shown(browser: &Browser, url: &str, token: &str, name: &str, id: &str) -> bool {
    browser.goto(&format!("{url}/"));
    browser.script("localStorage.clear(); return true;", json!([]));
    browser.goto(&format!("{url}/"));
    browser.type_into("#token-input", token);
    browser.click("#token-form button");
    browser.wait_text("#whoami", "the token's name", |t| t.contains(name));
    browser.wait_text("#server-state", "connected", |t| t == "connected");
    click_in_page(browser, &format!("tr[data-run-id='{id}']"));
    browser.wait_text("#run-id", "the run shown", |t| t == id);
    let hidden = browser.script(
        "return document.getElementById('run-cancel').hidden;",
        json!([]),
    );
    hidden == json!(false)
}

#[test]
fn the_page_offers_cancel_only_to_a_token_that_may_cancel() {
    let home = QueueHome::new("");
    let viewer = make_token(home.path(), None, "viewer", &["read"], &[]);
    let server = home.serve(false, &["--no-executor"]);
    let queued = submit_ok(&server.url, "say queued", json!({}));
    let browser = Browser::start();
    assert!(!cancel_shown(
        &browser,
        &server.url,
        &viewer,
        "viewer",
        &queued
    ));
    assert!(cancel_shown(&browser, &server.url, TOKEN, "serve", &queued));
}
