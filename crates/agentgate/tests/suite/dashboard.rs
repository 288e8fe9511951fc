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
