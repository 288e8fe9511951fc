//! The dashboard's Usage view in a real browser (headless Chromium over
//! WebDriver) against a real `agentgate serve`: an empty store says so;
//! then runs of known cost and tokens, written on three recent days (and
//! one 40 days ago) for three providers through the store's own
//! `insert_run` + `finish_run`, must show as exactly those figures: each
//! bar's provider, day and value, the outcome and error-type counts, the
//! top agents and sessions, the 90-day range taking in the old run; a name
//! holding markup shows as text. Screenshots at 1280x800, light and dark;
//! `AGENTGATE_SCREENSHOT_USAGE=docs/usage-charts.png` refreshes the book's.
//!
//! The runs sit 1 to 3 days before today (UTC) and 40 days before, so a
//! midnight passing during the test leaves each inside (or outside) the
//! 30-day range the page asks for: the figures do not depend on the hour.

use std::path::Path;

use agentgate_protocol::{Envelope, ErrorKind, TokensUsed};
use agentgate_store::{RunKind, RunRecord, StoreBackend, StoreLocation, store_choice};
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};
use serde_json::{Value, json};

use super::dashboard::{artifact, click_in_page};
use super::serve_support::{Env, Serve};
use super::webdriver::Browser;

const TOKEN: &str = "dashboard-usage-token-0123456789ab";
/// A session name that is markup: it must show as text.
const MARKUP: &str = "<img src=x onerror=\"window.injected=1\">";

/// One stored run: its day (days before today), provider, agent, session,
/// input and output tokens, cost and error.
struct Run {
    days_ago: i64,
    provider: &'static str,
    agent: Option<&'static str>,
    session: Option<&'static str>,
    input: u64,
    output: u64,
    cost: Option<f64>,
    error: Option<ErrorKind>,
}

fn runs() -> Vec<Run> {
    let run = |days_ago, provider, agent, session, input, output, cost, error| Run {
        days_ago,
        provider,
        agent,
        session,
        input,
        output,
        cost,
        error,
    };
    vec![
        run(
            3,
            "claude",
            Some("reviewer"),
            Some("s-alpha"),
            1000,
            200,
            Some(0.5),
            None,
        ),
        run(3, "codex", Some("fixer"), None, 3000, 500, Some(0.25), None),
        run(
            2,
            "claude",
            Some("reviewer"),
            Some("s-alpha"),
            4000,
            1000,
            Some(1.25),
            Some(ErrorKind::RateLimit),
        ),
        run(
            2,
            "claude",
            Some("writer"),
            None,
            500,
            100,
            Some(0.125),
            None,
        ),
        run(
            2,
            "gemini",
            None,
            Some(MARKUP),
            10000,
            2000,
            Some(2.0),
            None,
        ),
        run(
            1,
            "codex",
            Some("fixer"),
            None,
            2000,
            300,
            Some(0.75),
            Some(ErrorKind::Timeout),
        ),
        run(
            1,
            "claude",
            None,
            None,
            100,
            0,
            None,
            Some(ErrorKind::Cancelled),
        ),
        run(
            40,
            "claude",
            Some("reviewer"),
            None,
            50000,
            5000,
            Some(9.0),
            None,
        ),
    ]
}

fn today() -> Date {
    Timestamp::now().to_zoned(TimeZone::UTC).date()
}

/// The day `days_ago` days before `base`, as YYYY-MM-DD.
fn day_before(base: Date, days_ago: i64) -> String {
    base.checked_sub(days_ago.days()).unwrap().to_string()
}

/// Write [`runs`], their days counted back from `base`.
fn write_runs(db: &Path, base: Date) {
    let store: std::sync::Arc<dyn StoreBackend> =
        store_choice::open(&StoreLocation::parse(db.to_str().unwrap()).unwrap()).unwrap();
    for (i, run) in runs().iter().enumerate() {
        let started = base
            .checked_sub(run.days_ago.days())
            .unwrap()
            .at(12, i as i8, 0, 0)
            .to_zoned(TimeZone::UTC)
            .unwrap()
            .timestamp();
        let envelope = Envelope {
            provider: Some(run.provider.to_owned()),
            model: Some("m".to_owned()),
            agent: run.agent.map(str::to_owned),
            error_type: run.error,
            tokens_used: TokensUsed {
                input_tokens: run.input,
                output_tokens: run.output,
                total_tokens: run.input + run.output,
                cost_usd: run.cost,
                ..TokensUsed::default()
            },
            ..Envelope::default()
        };
        let id = format!("usage-run-{i}");
        store
            .insert_run(&RunRecord {
                run_id: id.clone(),
                started_at: started,
                providers: vec![run.provider.to_owned()],
                model: None,
                session: run.session.map(str::to_owned),
                cwd: None,
                prompt_bytes: 5,
                kind: RunKind::Agent,
                parent_run_id: None,
                labels: Default::default(),
            })
            .unwrap();
        store.finish_run(&id, &envelope).unwrap();
    }
}

/// `[data-day, data-provider, data-value]` (as written) of each bar of a chart, in the
/// page's order (day, then provider by name).
fn bars(browser: &Browser, chart: &str) -> Value {
    browser.script(
        "return [...document.querySelectorAll(`#${arguments[0]} rect.bar`)].map(r => [r.dataset.day, r.dataset.provider, r.dataset.value]);",
        json!([chart]),
    )
}

/// `[name, value]` of each horizontal bar in the outcome chart's `index`th body.
fn counts(browser: &Browser, index: usize) -> Value {
    browser.script(
        "return [...document.querySelectorAll('#usage-outcomes .chart-body')[arguments[0]].querySelectorAll('rect.bar')].map(r => [r.dataset.name, Number(r.dataset.value)]);",
        json!([index]),
    )
}

/// `[name, data-cost, runs]` (as written) of each row of a top table.
fn top(browser: &Browser, table: &str) -> Value {
    browser.script(
        "return [...document.querySelectorAll(`#${arguments[0]} tbody tr[data-name]`)].map(r => [r.cells[0].textContent, r.dataset.cost, r.cells[1].textContent]);",
        json!([table]),
    )
}

/// Wait until the usage view has loaded `loads` times (each load sets it).
fn wait_loaded(browser: &Browser, loads: u64) {
    browser.wait_text("#usage-state", "the report loaded", |_| {
        browser.script(
            "return Number(document.getElementById('usage-panel').dataset.loads || 0);",
            json!([]),
        ) == json!(loads)
    });
}

/// The last day of the range the view shows (its `data-range`'s end).
fn shown_until(browser: &Browser) -> Date {
    let range = browser.script(
        "return document.getElementById('usage-panel').dataset.range;",
        json!([]),
    );
    let (_, until) = range.as_str().unwrap().split_once('/').unwrap();
    until.parse().unwrap()
}

/// Choose the range of the last `days` days, and wait for its load (the
/// view's `loads`th).
fn choose_range(browser: &Browser, days: u32, loads: u64) {
    browser.script(
        "const s = document.getElementById('usage-days'); s.value = arguments[0]; s.dispatchEvent(new Event('change'));",
        json!([days.to_string()]),
    );
    wait_loaded(browser, loads);
}

#[test]
fn the_usage_view_charts_the_stored_runs_figures() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let serve = Serve::start(
        &Env {
            home: home.path(),
            bin: &bin,
            vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
        },
        &["--no-executor"],
    );
    let browser = Browser::start();
    browser.set_viewport_size(1280, 800);
    browser.login(&serve.url, TOKEN);

    // An empty store: the view says so, and draws nothing.
    click_in_page(&browser, "#views button[data-view='usage']");
    wait_loaded(&browser, 1);
    browser.find("#usage-empty");
    assert_eq!(browser.text("#usage-empty"), "No runs in this range.");
    assert_eq!(bars(&browser, "usage-cost"), json!([]));
    let overview_hidden = browser.script(
        "return document.getElementById('queue-panel').getClientRects().length === 0;",
        json!([]),
    );
    assert_eq!(
        overview_hidden,
        json!(true),
        "the usage view alone is shown"
    );

    // The runs, written while the server runs; Refresh reads them.
    let written = today();
    write_runs(&data.join("agentgate.db"), written);
    let day = |days_ago| day_before(written, days_ago);
    click_in_page(&browser, "#usage-form button");
    wait_loaded(&browser, 2);
    browser.find("#usage-charts");
    // The range ends on the browser's today: the day the runs were written
    // on, or the next one if midnight has passed since.
    let until = shown_until(&browser);
    assert!(
        until == written || until == written.tomorrow().unwrap(),
        "{until} is not {written} or the day after"
    );
    assert_eq!(
        browser.text("#usage-range-text"),
        format!("{} to {until} (UTC)", day_before(until, 29))
    );
    let (d1, d2, d3) = (day(1), day(2), day(3));
    assert_eq!(
        bars(&browser, "usage-cost"),
        json!([
            [d3, "claude", "0.5"],
            [d3, "codex", "0.25"],
            [d2, "claude", "1.375"],
            [d2, "gemini", "2"],
            [d1, "codex", "0.75"],
        ]),
        "cost per day by provider (the cancelled run recorded no cost)"
    );
    assert_eq!(
        bars(&browser, "usage-tokens"),
        json!([
            [d3, "claude", "1200"],
            [d3, "codex", "3500"],
            [d2, "claude", "5600"],
            [d2, "gemini", "12000"],
            [d1, "claude", "100"],
            [d1, "codex", "2300"],
        ])
    );
    // The numbers on hover: a bar's title, and its day's column's.
    let title = |css: &str| {
        browser.script(
            "const e = document.querySelector(arguments[0]); return e ? e.querySelector(':scope > title').textContent : null;",
            json!([css]),
        )
    };
    assert_eq!(
        title(&format!(
            "#usage-cost rect.bar[data-day='{d2}'][data-provider='claude']"
        )),
        json!(format!("{d2} claude: $1.375 (2 runs)"))
    );
    assert_eq!(
        title(&format!("#usage-cost g[data-day='{d2}'] rect.hit")),
        json!(format!("{d2}: $3.375\nclaude: $1.375\ngemini: $2.00"))
    );
    assert_eq!(
        title(&format!(
            "#usage-tokens rect.bar[data-day='{d1}'][data-provider='codex']"
        )),
        json!(format!(
            "{d1} codex: 2,300 tokens (input 2,000, output 300, cache read 0, cache write 0)"
        ))
    );
    let legend = browser.script(
        "return [...document.querySelectorAll('#usage-cost .legend li')].map(li => li.textContent);",
        json!([]),
    );
    assert_eq!(legend, json!(["claude", "codex", "gemini"]));
    assert_eq!(
        browser.text("#usage-cost .chart-note"),
        "(1 of 7 runs recorded no cost)"
    );
    assert_eq!(
        counts(&browser, 0),
        json!([["succeeded", 4], ["failed", 2], ["cancelled", 1]])
    );
    assert_eq!(
        counts(&browser, 1),
        json!([["cancelled", 1], ["rate_limit", 1], ["timeout", 1]])
    );
    assert_eq!(
        top(&browser, "usage-agents"),
        json!([
            ["reviewer", "1.75", "2"],
            ["fixer", "1", "2"],
            ["writer", "0.125", "1"]
        ])
    );
    assert_eq!(
        top(&browser, "usage-sessions"),
        json!([[MARKUP, "2", "1"], ["s-alpha", "1.75", "2"]])
    );
    // The markup in a session's name is text: no element was made of it.
    let injected = browser.script(
        "return [document.querySelectorAll('#usage-panel img').length, window.injected === undefined];",
        json!([]),
    );
    assert_eq!(injected, json!([0, true]));

    // 7 days hold the same bars (the runs are 1 to 3 days old), wider: the
    // book's screenshot.
    let thirty_days = bars(&browser, "usage-cost");
    choose_range(&browser, 7, 3);
    assert_eq!(bars(&browser, "usage-cost"), thirty_days);
    let columns = browser.script(
        "return [...document.querySelectorAll('#usage-cost g.day')].map(g => g.dataset.day);",
        json!([]),
    );
    let until = shown_until(&browser);
    let week: Vec<String> = (0..7).rev().map(|n| day_before(until, n)).collect();
    assert_eq!(columns, json!(week));
    let shot = artifact("usage-charts.png");
    browser.screenshot(&shot);
    let png = std::fs::read(&shot).unwrap();
    let size = |at: usize| u32::from_be_bytes(png[at..at + 4].try_into().unwrap());
    assert_eq!((size(16), size(20)), (1280, 800), "the screenshot's size");
    // `AGENTGATE_SCREENSHOT_USAGE=docs/usage-charts.png` refreshes the
    // book's (docs/operating/dashboard.md and docs/guide/usage.md show it).
    if let Ok(to) = std::env::var("AGENTGATE_SCREENSHOT_USAGE") {
        std::fs::copy(&shot, super::support::workspace_root().join(to)).unwrap();
    }

    // The dark system theme: the panel and the bars change colour.
    let colours = || {
        browser.script(
            "return [getComputedStyle(document.getElementById('usage-panel')).backgroundColor, getComputedStyle(document.querySelector('#usage-cost rect.bar')).fill];",
            json!([]),
        )
    };
    let light = colours();
    browser.prefer_color_scheme("dark");
    let dark = colours();
    assert_eq!(light[0], json!("rgb(255, 255, 255)"));
    assert_eq!(dark[0], json!("rgb(27, 31, 39)"));
    assert_ne!(light[1], dark[1], "the bars' colour follows the theme");
    browser.screenshot(&artifact("usage-charts-dark.png"));
    browser.prefer_color_scheme("light");

    // 90 days take in the run of 40 days ago.
    choose_range(&browser, 90, 4);
    let d40 = day(40);
    assert_eq!(bars(&browser, "usage-cost")[0], json!([d40, "claude", "9"]));
    assert_eq!(
        top(&browser, "usage-agents")[0],
        json!(["reviewer", "10.75", "3"])
    );
    assert_eq!(
        counts(&browser, 0),
        json!([["succeeded", 5], ["failed", 2], ["cancelled", 1]])
    );

    // Back to the overview: the panels again, the usage view hidden.
    click_in_page(&browser, "#views button[data-view='overview']");
    browser.find("#queue-panel");
    let usage_hidden = browser.script(
        "return document.getElementById('usage-panel').getClientRects().length === 0;",
        json!([]),
    );
    assert_eq!(usage_hidden, json!(true));
}
