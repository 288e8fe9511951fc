//! The dashboard from the keyboard and on a phone, in headless Chromium
//! against a real `agentgate serve` (issue 39's "built with care"): `/`
//! reaches the filter and Esc leaves it; the arrows, Home and End move
//! between the runs list's rows, and the focused row keeps the focus
//! through the list's refreshes; Enter opens a run with the focus on its
//! title, Esc closes it and the focus is back on its row. On a phone's
//! screen (390x844, a mobile viewport) and at 1280x800 nothing is wider
//! than the window: the list, an open run's transcript and the New run
//! form fit; on the phone the panels are in one column, the list keeps
//! its five key columns and the form's fields go under their labels.

use serde_json::{Value, json};

use super::dashboard::artifact;
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::webdriver::{Browser, keys};

/// The focused element: its id, or a row's run id as `row:ID`.
fn focused(browser: &Browser) -> String {
    browser
        .script(
            "const e = document.activeElement; if (!e) return ''; \
             return e.dataset && e.dataset.runId ? 'row:' + e.dataset.runId : (e.id || e.tagName);",
            json!([]),
        )
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The list's run ids, top to bottom.
pub(super) fn row_ids(browser: &Browser) -> Vec<String> {
    let ids = browser.script(
        "return [...document.querySelectorAll('#runs tbody tr')].map(r => r.dataset.runId);",
        json!([]),
    );
    serde_json::from_value(ids).unwrap()
}

/// How many times the runs list was loaded (each refresh counts).
pub(super) fn loads(browser: &Browser) -> u64 {
    browser
        .script(
            "return Number(document.getElementById('runs').dataset.loads || 0);",
            json!([]),
        )
        .as_u64()
        .unwrap()
}

#[test]
fn the_runs_list_and_a_run_are_worked_from_the_keyboard() {
    let home = QueueHome::new("");
    let serve = home.serve(false, &[]);
    let ids: Vec<String> = (0..3)
        .map(|i| submit_ok(&serve.url, &format!("say key-{i}"), json!({})))
        .collect();
    for id in &ids {
        home.wait_for_state(id, agentgate_store::JobState::Succeeded);
    }
    let browser = Browser::start();
    browser.login(&serve.url, TOKEN);
    browser.wait_text("#runs", "the three runs", |t| {
        ids.iter().all(|id| t.contains(id))
    });
    let rows = row_ids(&browser);
    assert_eq!(rows.len(), 3, "{rows:?}");

    // `/` goes to the filter; Esc leaves it.
    browser.press("/");
    assert_eq!(focused(&browser), "filter-status");
    browser.press(keys::ESCAPE);
    assert_eq!(focused(&browser), "BODY");

    // The arrows, Home and End move between the rows.
    browser.script(
        "document.querySelector('#runs tbody tr').focus();",
        json!([]),
    );
    assert_eq!(focused(&browser), format!("row:{}", rows[0]));
    browser.press(keys::ARROW_DOWN);
    assert_eq!(focused(&browser), format!("row:{}", rows[1]));
    browser.press(keys::END);
    assert_eq!(focused(&browser), format!("row:{}", rows[2]));
    browser.press(keys::ARROW_UP);
    assert_eq!(focused(&browser), format!("row:{}", rows[1]));
    browser.press(keys::ARROW_DOWN);
    browser.press(keys::ARROW_DOWN);
    assert_eq!(
        focused(&browser),
        format!("row:{}", rows[2]),
        "no row after the last"
    );
    browser.press(keys::HOME);
    assert_eq!(focused(&browser), format!("row:{}", rows[0]));
    browser.press(keys::ARROW_DOWN);

    // The list is drawn again every 2 s: the focused row keeps the focus.
    let before = loads(&browser);
    let start = std::time::Instant::now();
    while loads(&browser) < before + 2 {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "the list was not refreshed"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert_eq!(focused(&browser), format!("row:{}", rows[1]));

    // Enter opens the run, the focus on its title; Esc closes it, the
    // focus back on its row.
    browser.press(keys::ENTER);
    browser.wait_text("#run-id", "the run opened", |t| t == rows[1]);
    browser.wait_text("#transcript", "its result", |t| t.contains("Result"));
    assert_eq!(focused(&browser), "run-title");
    browser.press(keys::ESCAPE);
    assert_eq!(
        browser.script(
            "return document.getElementById('run-panel').hidden;",
            json!([])
        ),
        json!(true)
    );
    assert_eq!(focused(&browser), format!("row:{}", rows[1]));
}

/// How far the page and each shown panel reach past the window (its
/// width inside a vertical scroll bar), in CSS
/// pixels (0: they fit), and the panels' left edges.
const FIT: &str = r#"
// The window's width without a vertical scroll bar.
const width = document.documentElement.clientWidth;
const panels = [...document.querySelectorAll('#app > .panel')].filter((p) => p.offsetParent !== null);
return {
  width,
  page: document.documentElement.scrollWidth - width,
  panels: panels.map((p) => [p.id, Math.round(p.getBoundingClientRect().right - width)]),
  lefts: [...new Set(panels.map((p) => Math.round(p.getBoundingClientRect().left)))],
};"#;

fn fits(browser: &Browser, what: &str) -> Value {
    let fit = browser.script(FIT, json!([]));
    assert_eq!(
        fit["page"], 0,
        "{what}: the page is wider than the window: {fit:#}"
    );
    for panel in fit["panels"].as_array().unwrap() {
        assert!(
            panel[1].as_i64().unwrap() <= 0,
            "{what}: {panel} reaches past the window: {fit:#}"
        );
    }
    fit
}

#[test]
fn the_page_fits_a_phone_and_a_laptop_screen() {
    let home = QueueHome::new("");
    let serve = home.serve(false, &[]);
    let id = submit_ok(
        &serve.url,
        "say phone-sized",
        json!({"labels": {"ticket": "T-1234567890", "topic": "a rather long label value"}}),
    );
    home.wait_for_state(&id, agentgate_store::JobState::Succeeded);

    for (what, phone) in [("a phone", true), ("1280x800", false)] {
        let browser = Browser::start();
        if phone {
            browser.emulate_phone(390, 844);
        } else {
            browser.set_viewport_size(1280, 800);
        }
        browser.login(&serve.url, TOKEN);
        browser.wait_text("#runs", "the run", |t| t.contains(&id));
        let fit = fits(&browser, what);
        // The list's columns shown: on a phone, the run, its outcome,
        // duration, cost and time (and the Cancel button's).
        let columns = browser.script(
            "return [...document.querySelectorAll('#runs thead th')].filter((th) => th.offsetParent !== null).map((th) => th.textContent);",
            json!([]),
        );
        if phone {
            assert_eq!(fit["width"], 390, "{fit:#}");
            assert_eq!(
                fit["lefts"].as_array().unwrap().len(),
                1,
                "one column: {fit:#}"
            );
            assert_eq!(
                columns,
                json!(["Run", "Outcome", "Duration", "Cost", "Submitted", ""])
            );
        } else {
            assert_eq!(columns.as_array().unwrap().len(), 11, "{columns}");
        }
        // A run open, its transcript shown.
        super::dashboard::click_in_page(&browser, &format!("#runs tr[data-run-id='{id}']"));
        browser.wait_text("#transcript", "its result", |t| t.contains("Result"));
        fits(&browser, &format!("{what}, a run open"));
        // The New run form.
        browser.click("#new-run");
        browser.find("#submit-prompt");
        fits(&browser, &format!("{what}, the New run form"));
        // A field under its label on a phone, beside it wider.
        let under = browser.script(
            "const l = document.querySelector('label[for=submit-prompt]').getBoundingClientRect(); \
             const f = document.getElementById('submit-prompt').getBoundingClientRect(); \
             return f.top >= l.bottom;",
            json!([]),
        );
        assert_eq!(under, json!(phone), "{what}: the prompt under its label");
        if phone {
            browser.script(
                "document.getElementById('run-panel').scrollIntoView();",
                json!([]),
            );
            browser.screenshot(&artifact("dashboard-phone.png"));
        }
    }
}
