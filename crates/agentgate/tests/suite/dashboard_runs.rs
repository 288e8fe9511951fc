//! The dashboard's runs list in a real browser (headless Chromium over
//! WebDriver) against a real `agentgate serve` running the queue tests'
//! stand-in `claude`: each row answers what the run did (the outcome with
//! its error type, the provider and model that answered, its duration and
//! cost, its labels, its submit time relative to now with the exact time on
//! hover), each figure compared with the run's own JSON from `GET
//! /v1/runs/{id}`; a label holding markup shows as text; a row opens from
//! the keyboard; and rows loaded with "More" stay while the list refreshes
//! itself (a new run joins at the top, nothing jumps back to one page).

use serde_json::{Value, json};

use super::dashboard::{artifact, click_in_page};
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::serve_support::get;
use super::webdriver::Browser;

/// A label value that is markup: it must show as text.
const MARKUP: &str = "<img src=x onerror=\"window.injected=1\">";

/// The cells of the row of `id`, by column title.
fn row_cells(browser: &Browser, id: &str) -> serde_json::Map<String, Value> {
    let cells = browser.script(
        "const titles = [...document.querySelectorAll('#runs thead th')].map(t => t.textContent);
         const row = document.querySelector(`#runs tr[data-run-id=\"${arguments[0]}\"]`);
         if (!row) return null;
         const out = {};
         [...row.cells].forEach((c, i) => {
           const time = c.querySelector('time');
           out[titles[i]] = c.textContent;
           if (time) out[titles[i] + ' title'] = time.title;
           const tip = c.querySelector('[title]');
           if (tip && !time) out[titles[i] + ' title'] = tip.title;
         });
         return out;",
        json!([id]),
    );
    cells.as_object().cloned().unwrap_or_default()
}

/// `durationText` of runs.js, for durations under a minute.
fn duration_text(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{:.1} s", ms as f64 / 1000.0)
    }
}

fn run_json(url: &str, id: &str) -> Value {
    let r = get(url, &format!("/v1/runs/{id}"), Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    r.json()
}

#[test]
fn each_row_answers_what_the_run_did_and_more_rows_stay_through_refreshes() {
    let home = QueueHome::new("queue:\n  max_attempts: 1\n");
    let serve = home.serve(false, &[]);
    let costly = submit_ok(
        &serve.url,
        "costly tag-c",
        json!({"labels": {"ticket": "T-1", "note": MARKUP}}),
    );
    let failed = submit_ok(&serve.url, "flaky tag-f", json!({}));
    home.wait_for_state(&costly, agentgate_store::JobState::Succeeded);
    home.wait_for_state(&failed, agentgate_store::JobState::Failed);

    let browser = Browser::start();
    browser.set_viewport_size(1280, 800);
    browser.login(&serve.url, TOKEN);
    browser.wait_text("#runs", "both runs", |t| {
        t.contains(&costly) && t.contains(&failed)
    });

    // The succeeded run: its figures as its JSON gives them.
    let run = run_json(&serve.url, &costly);
    let env = &run["envelope"];
    let cells = row_cells(&browser, &costly);
    assert_eq!(cells["Outcome"], "succeeded", "{cells:?}");
    assert_eq!(
        cells["Answered by"],
        format!(
            "{} · {}",
            env["provider"].as_str().unwrap(),
            env["model"].as_str().unwrap()
        ),
        "{cells:?}"
    );
    assert_eq!(cells["Cost"], "$0.0600", "{cells:?}");
    let ms = env["duration_ms"].as_u64().unwrap();
    if ms < 60_000 {
        assert_eq!(cells["Duration"], duration_text(ms), "{cells:?}");
    }
    assert_eq!(
        cells["Labels"],
        format!("note={MARKUP}ticket=T-1"),
        "{cells:?}"
    );
    assert_eq!(
        cells["Submitted title"],
        run["created_at"].as_str().unwrap(),
        "the exact time on hover"
    );
    let submitted = cells["Submitted"].as_str().unwrap();
    assert!(
        submitted == "just now" || submitted.ends_with(" s ago") || submitted.ends_with(" min ago"),
        "{submitted}"
    );
    // The markup is text: no element made from it, nothing run.
    let injected = browser.script(
        "return [window.injected === undefined, document.querySelectorAll('#runs img').length];",
        json!([]),
    );
    assert_eq!(injected, json!([true, 0]));

    // The failed run: its error type beside its status, its error on hover.
    let run = run_json(&serve.url, &failed);
    let env = &run["envelope"];
    let cells = row_cells(&browser, &failed);
    let error_type = env["error_type"].as_str().unwrap();
    assert_eq!(cells["Outcome"], format!("failed{error_type}"), "{cells:?}");
    assert_eq!(cells["Outcome title"], env["error"].as_str().unwrap());
    assert_eq!(cells["Cost"], "", "no cost reported: {cells:?}");

    // From the keyboard: the row takes the focus, Enter opens the run.
    browser.script(
        "document.querySelector(`#runs tr[data-run-id=\"${arguments[0]}\"]`).focus();",
        json!([failed]),
    );
    browser.type_into(&format!("#runs tr[data-run-id='{failed}']"), "\u{E007}");
    browser.wait_text("#run-id", "the run opened", |t| t == failed);
    browser.screenshot(&artifact("dashboard-runs.png"));

    // 51 runs more: 53 in all, a page being 50. "More" loads the rest; a
    // refresh keeps them, and a new run joins at the top.
    for i in 0..51 {
        submit_ok(&serve.url, &format!("say tag-m{i}"), json!({}));
    }
    let count = || {
        browser
            .script(
                "return document.querySelectorAll('#runs tbody tr').length;",
                json!([]),
            )
            .as_u64()
            .unwrap()
    };
    browser.wait_text("#runs-more", "the More button", |_| {
        browser.script(
            "return !document.getElementById('runs-more').hidden;",
            json!([]),
        ) == json!(true)
    });
    click_in_page(&browser, "#runs-more");
    browser.wait_text("#runs", "53 rows", |_| count() == 53);
    let newest = submit_ok(&serve.url, "say tag-new", json!({}));
    browser.wait_text("#runs", "the new run", |t| t.contains(&newest));
    assert_eq!(count(), 54, "the rows loaded with More stayed");
    let first = browser.script(
        "return document.querySelector('#runs tbody tr').dataset.runId;",
        json!([]),
    );
    assert_eq!(first, json!(newest), "the new run is at the top");
    // Two refreshes later the list is still whole.
    let loads = || {
        browser
            .script(
                "return Number(document.getElementById('runs').dataset.loads);",
                json!([]),
            )
            .as_u64()
            .unwrap()
    };
    let before = loads();
    browser.wait_text("#runs", "two refreshes", |_| loads() >= before + 2);
    assert_eq!(count(), 54);
}

/// The queue over the last hour: `GET /v1/queue`'s `history` holds the
/// server's samples of the store's counts (sampled every 100 ms here), and
/// the Usage view draws them, a point per sample with its counts.
#[test]
fn the_queue_over_the_last_hour_is_sampled_and_charted() {
    let home = QueueHome::new("queue:\n  max_running: 1\n");
    let serve = home.serve_with_vars(
        false,
        vec![("AGENTGATE_TEST_QUEUE_SAMPLE_MS", "100".to_owned())],
        &[],
    );
    submit_ok(&serve.url, "hold tag-a", json!({}));
    submit_ok(&serve.url, "hold tag-b", json!({}));
    home.wait_for_starts(1);
    let history = || {
        let r = get(&serve.url, "/v1/queue", Some(TOKEN));
        assert_eq!(r.status, 200, "{r:?}");
        r.json()["history"].as_array().unwrap().clone()
    };
    let has = |queued: u64, running: u64| {
        history()
            .iter()
            .any(|s| s["queued"] == queued && s["running"] == running)
    };
    super::serve_queue_support::wait_until("a sample of one queued, one running", || {
        has(1, 1).then_some(())
    });

    let browser = Browser::start();
    browser.goto(&format!("{}/#usage", serve.url));
    browser.type_into("#token-input", TOKEN);
    browser.click("#token-form button");
    browser.wait_text("#queue-history", "the samples", |_| {
        browser.script(
            "return document.querySelectorAll('#queue-history circle[data-queued=\"1\"][data-running=\"1\"]').length;",
            json!([]),
        ) != json!(0)
    });
    let lines = browser.script(
        "return [...document.querySelectorAll('#queue-history polyline')].map(l => l.dataset.series);",
        json!([]),
    );
    assert_eq!(lines, json!(["queued", "running"]));

    std::fs::write(home.file("release"), "").unwrap();
    super::serve_queue_support::wait_until("a sample of an empty queue", || {
        has(0, 0).then_some(())
    });
    // Oldest first.
    let times: Vec<String> = history()
        .iter()
        .map(|s| s["at"].as_str().unwrap().to_owned())
        .collect();
    let mut sorted = times.clone();
    sorted.sort();
    assert_eq!(times, sorted);
}
