//! The runs list by when a run was submitted, end to end: `GET /v1/runs`
//! with `since` and `until` against a real `agentgate serve` whose runs
//! were submitted at set times (the test clock: each run's `created_at`,
//! as the server reports it, is the evidence the windows are built from),
//! its 400s; `agentgate runs --since/--until` with `--server` and on the
//! local store; and the dashboard's "when" filter in headless Chromium.

use std::path::Path;
use std::process::{Command, Output, Stdio};

use agentgate_store::{JobState, RunStore};
use jiff::{Timestamp, ToSpan};
use serde_json::{Value, json};

use super::dashboard::click_in_page;
use super::dashboard_keys::{loads, row_ids};
use super::serve_queue_support::{QueueHome, TOKEN, submit_ok};
use super::serve_support::get;
use super::webdriver::Browser;

/// The run ids of `GET /v1/runs?QUERY`, every page followed.
fn listed(url: &str, query: &str) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..20 {
        let path = match &cursor {
            Some(c) => format!("/v1/runs?{query}&cursor={c}"),
            None => format!("/v1/runs?{query}"),
        };
        let r = get(url, &path, Some(TOKEN));
        assert_eq!(r.status, 200, "{path}: {r:?}");
        let page = r.json();
        ids.extend(
            page["runs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|run| run["run_id"].as_str().unwrap().to_owned()),
        );
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_owned()),
            None => return ids,
        }
    }
    panic!("more than 20 pages of {query}");
}

/// The run's `created_at`, as the server reports it.
fn created_at(url: &str, id: &str) -> Timestamp {
    let r = get(url, &format!("/v1/runs/{id}"), Some(TOKEN));
    assert_eq!(r.status, 200, "{r:?}");
    r.json()["created_at"].as_str().unwrap().parse().unwrap()
}

/// Three runs submitted at 09:00, 10:00 and 11:00 on the server's clock:
/// their ids, oldest first, after checking each one's reported time.
fn three_runs(home: &QueueHome, url: &str) -> [String; 3] {
    let mut ids = Vec::new();
    for (hour, tag) in [("09", "a"), ("10", "b"), ("11", "c")] {
        let at = format!("2026-11-30T{hour}:00:00Z");
        home.set_clock(&at);
        let id = submit_ok(url, &format!("say tag-{tag}"), json!({}));
        assert_eq!(created_at(url, &id), at.parse::<Timestamp>().unwrap());
        ids.push(id);
    }
    ids.try_into().unwrap()
}

fn agentgate(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_agentgate"))
        .args(args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("AGENTGATE_HOME", home.join("data"))
        .env("AGENTGATE_TOKEN", TOKEN)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// The run ids `agentgate runs ARGS --json` prints, in order.
fn cli_listed(home: &Path, args: &[&str]) -> Vec<String> {
    let out = agentgate(home, &[args, &["--json"]].concat());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|line| {
            let run: Value = serde_json::from_str(line).unwrap();
            let id = &run["run_id"];
            // Local runs are summaries: the id is in their record.
            id.as_str()
                .or(run["record"]["run_id"].as_str())
                .unwrap()
                .to_owned()
        })
        .collect()
}

#[test]
fn the_api_lists_exactly_the_runs_submitted_in_a_window_and_refuses_a_bad_one() {
    let home = QueueHome::new("queue:\n  max_attempts: 1\n");
    home.set_clock("2026-11-30T09:00:00Z");
    let serve = home.serve(true, &[]);
    let url = serve.url.as_str();
    let [a, b, c] = three_runs(&home, url);

    let ids = |query: &str| listed(url, query);
    assert_eq!(
        ids("since=2026-11-30T10:00:00Z"),
        [c.as_str(), b.as_str()],
        "since is in"
    );
    assert_eq!(
        ids("until=2026-11-30T10:00:00Z"),
        [a.as_str()],
        "until is out"
    );
    assert_eq!(
        ids("since=2026-11-30T09:00:00Z&until=2026-11-30T11:00:00Z"),
        [b.as_str(), a.as_str()]
    );
    // With an offset (`+` URL-encoded): 10:30 UTC.
    assert_eq!(ids("since=2026-11-30T11:30:00%2B01:00"), [c.as_str()]);
    // A date: its day, from its start to its end.
    assert_eq!(
        ids("since=2026-11-30&until=2026-11-30"),
        [c.as_str(), b.as_str(), a.as_str()]
    );
    assert!(ids("until=2026-11-29").is_empty());
    assert!(ids("since=2026-12-01").is_empty());
    // Paged one at a time across the window: each run once, in order.
    assert_eq!(
        ids("since=2026-11-30T09:00:00Z&until=2026-11-30T11:00:00.000001Z&limit=1"),
        [c.as_str(), b.as_str(), a.as_str()]
    );
    // With another filter: the window's succeeded runs.
    for id in [a.as_str(), b.as_str(), c.as_str()] {
        home.wait_for_state(id, JobState::Succeeded);
    }
    assert_eq!(
        ids("status=succeeded&since=2026-11-30T10:00:00Z&limit=1"),
        [c.as_str(), b.as_str()]
    );
    assert!(ids("status=failed&since=2026-11-30T10:00:00Z").is_empty());

    // A bad value, or a window that is empty: a 400 naming its parameter.
    for (query, field) in [
        ("since=yesterday", "since"),
        ("until=2026-11-31", "until"),
        // A `+` not URL-encoded is a space.
        ("since=2026-11-30T11:30:00+01:00", "since"),
        (
            "since=2026-11-30T10:00:00Z&until=2026-11-30T10:00:00Z",
            "until",
        ),
        (
            "since=2026-11-30T11:00:00Z&until=2026-11-30T10:00:00Z",
            "until",
        ),
    ] {
        let r = get(url, &format!("/v1/runs?{query}"), Some(TOKEN));
        assert_eq!(r.status, 400, "{query}: {r:?}");
        let error = &r.json()["error"];
        assert_eq!(error["type"], "invalid_parameter", "{query}: {error}");
        assert_eq!(error["field"], field, "{query}: {error}");
        assert!(
            error["message"]
                .as_str()
                .unwrap()
                .starts_with(&format!("invalid {field}:")),
            "{error}"
        );
    }
}

#[test]
fn agentgate_runs_since_and_until_list_the_window_from_a_server_and_locally() {
    let home = QueueHome::new("queue:\n  max_attempts: 1\n");
    home.set_clock("2026-11-30T09:00:00Z");
    let serve = home.serve(true, &[]);
    let url = serve.url.as_str();
    let [a, b, c] = three_runs(&home, url);
    let dir = home.path();

    // From the server: by submit time, the API's window.
    let remote = |window: &[&str]| cli_listed(dir, &[&["runs", "--server", url], window].concat());
    assert_eq!(
        remote(&["--since", "2026-11-30T10:00:00Z"]),
        [c.as_str(), b.as_str()]
    );
    assert_eq!(
        remote(&[
            "--since",
            "2026-11-30T09:30:00Z",
            "--until",
            "2026-11-30T11:00:00+00:00"
        ]),
        [b.as_str()]
    );
    assert_eq!(
        remote(&["--until", "2026-11-30"]),
        [c.as_str(), b.as_str(), a.as_str()]
    );
    assert!(remote(&["--since", "2026-12-01"]).is_empty());

    // Locally: by start time. The evidence: the stored start times.
    for id in [a.as_str(), b.as_str(), c.as_str()] {
        home.wait_for_state(id, JobState::Succeeded);
    }
    let mut started: Vec<(Timestamp, String)> = home
        .store()
        .list_runs(10, 0)
        .unwrap()
        .runs
        .into_iter()
        .map(|r| (r.record.started_at, r.record.run_id))
        .collect();
    started.sort();
    assert_eq!(started.len(), 3, "{started:?}");
    // The middle run's start to the newest's (a nanosecond past it, were
    // they one time: a window is never empty).
    let since = started[1].0;
    let until = if started[2].0 > since {
        started[2].0
    } else {
        since.checked_add(1.nanosecond()).unwrap()
    };
    let expected: Vec<String> = started
        .iter()
        .rev()
        .filter(|(at, _)| *at >= since && *at < until)
        .map(|(_, id)| id.clone())
        .collect();
    assert!(expected.contains(&started[1].1), "{started:?}");
    let store = home.file("data/agentgate.db");
    let (since, until) = (since.to_string(), until.to_string());
    let local = cli_listed(
        dir,
        &[
            "--store",
            store.to_str().unwrap(),
            "runs",
            "--since",
            &since,
            "--until",
            &until,
        ],
    );
    assert_eq!(local, expected);
    let local_since = cli_listed(
        dir,
        &[
            "--store",
            store.to_str().unwrap(),
            "runs",
            "--since",
            &since,
        ],
    );
    let expected: Vec<String> = started
        .iter()
        .rev()
        .filter(|(at, _)| *at >= started[1].0)
        .map(|(_, id)| id.clone())
        .collect();
    assert_eq!(local_since, expected, "{started:?}");

    // A bad value names its flag; an empty window is refused.
    let out = agentgate(dir, &["runs", "--server", url, "--since", "yesterday"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--since"),
        "{out:?}"
    );
    let out = agentgate(
        dir,
        &[
            "runs",
            "--server",
            url,
            "--since",
            "2026-11-30T11:00:00Z",
            "--until",
            "2026-11-30T10:00:00Z",
        ],
    );
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--until"),
        "{out:?}"
    );
}

/// Picks `value` in the "when" select, as a reader's choice does.
fn pick_when(browser: &Browser, value: &str) {
    browser.script(
        "const s = document.getElementById('filter-when');
         s.value = arguments[0];
         s.dispatchEvent(new Event('change'));",
        json!([value]),
    );
}

#[test]
fn the_dashboards_when_filter_shows_the_runs_submitted_between_two_times_or_lately() {
    let home = QueueHome::new("queue:\n  max_attempts: 1\n");
    // Three runs submitted 3 h, 20 min and 10 min ago (on the server's
    // clock, set to those times; the browser's clock is the real one).
    let now = Timestamp::now();
    let at = |minutes: i64| now.checked_sub(minutes.minutes()).unwrap();
    home.set_clock(&at(180).to_string());
    let serve = home.serve(true, &[]);
    let old = submit_ok(&serve.url, "say tag-o", json!({}));
    home.set_clock(&at(20).to_string());
    let first = submit_ok(&serve.url, "say tag-f", json!({}));
    home.set_clock(&at(10).to_string());
    let second = submit_ok(&serve.url, "say tag-s", json!({}));
    let first_at = created_at(&serve.url, &first);
    let second_at = created_at(&serve.url, &second);
    assert_eq!(first_at, at(20));
    assert_eq!(second_at, at(10));

    let browser = Browser::start();
    browser.login(&serve.url, TOKEN);
    browser.wait_text("#runs", "every run", |_| row_ids(&browser).len() == 3);
    let hidden = |css: &str| {
        browser.script(
            "return document.querySelector(arguments[0]).hidden;",
            json!([css]),
        ) == json!(true)
    };
    assert!(hidden("#filter-between"));

    // Between a minute after the first and a minute after the second (the
    // inputs' local time, to the second): the second run alone.
    pick_when(&browser, "between");
    assert!(!hidden("#filter-between"));
    let from_ms = first_at.as_millisecond() + 60_000;
    let to_ms = second_at.as_millisecond() + 60_000;
    browser.script(
        "const local = (ms) => {
           const d = new Date(ms);
           const p = (n) => String(n).padStart(2, '0');
           return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T` +
             `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
         };
         document.getElementById('filter-from').value = local(arguments[0]);
         document.getElementById('filter-to').value = local(arguments[1]);
         performance.clearResourceTimings();",
        json!([from_ms, to_ms]),
    );
    click_in_page(&browser, "#run-filters button[type=submit]");
    browser.wait_text("#runs", "the second run alone", |_| {
        row_ids(&browser) == [second.clone()]
    });
    // It stays so through a refresh.
    let before = loads(&browser);
    browser.wait_text("#runs", "a refresh", |_| loads(&browser) > before);
    assert_eq!(row_ids(&browser), [second.as_str()]);
    // The inputs' local times went to the server in UTC, to the second.
    let sent = browser.script(
        "const runs = performance.getEntriesByType('resource')
           .map(e => new URL(e.name)).filter(u => u.pathname === '/v1/runs');
         const last = runs[runs.length - 1].searchParams;
         return [last.get('since'), last.get('until')];",
        json!([]),
    );
    let utc = |ms: i64| {
        Timestamp::from_second(ms.div_euclid(1000))
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S.000Z")
            .to_string()
    };
    assert_eq!(sent, json!([utc(from_ms), utc(to_ms)]));

    // The last hour: both recent runs, not the old one; the inputs hide.
    pick_when(&browser, "3600");
    assert!(hidden("#filter-between"));
    click_in_page(&browser, "#run-filters button[type=submit]");
    browser.wait_text("#runs", "the two recent runs", |_| {
        row_ids(&browser) == [second.clone(), first.clone()]
    });
    let before = loads(&browser);
    browser.wait_text("#runs", "a refresh", |_| loads(&browser) > before);
    assert_eq!(row_ids(&browser), [second.clone(), first.clone()]);
    assert!(!row_ids(&browser).contains(&old));
}

/// A sliding window's start passing a row loaded with "More": the row
/// drops out at the next refresh (rows past the first page stay through
/// refreshes only while they are in the window). The page's clock is
/// moved on (its `Date.now`), not waited for.
#[test]
fn a_row_loaded_with_more_leaves_the_list_when_the_sliding_window_passes_it() {
    let home = QueueHome::new("queue:\n  max_attempts: 1\n");
    let now = Timestamp::now();
    let at = |minutes: i64| now.checked_sub(minutes.minutes()).unwrap();
    // One run 50 minutes ago, then a page's worth 40 minutes ago.
    home.set_clock(&at(50).to_string());
    let serve = home.serve(true, &[]);
    let oldest = submit_ok(&serve.url, "say tag-o", json!({}));
    home.set_clock(&at(40).to_string());
    for i in 0..50 {
        submit_ok(&serve.url, &format!("say tag-n{i}"), json!({}));
    }
    assert_eq!(created_at(&serve.url, &oldest), at(50));

    let browser = Browser::start();
    browser.login(&serve.url, TOKEN);
    browser.wait_text("#runs", "a page of runs", |_| row_ids(&browser).len() == 50);
    pick_when(&browser, "3600");
    click_in_page(&browser, "#run-filters button[type=submit]");
    browser.wait_text("#runs-more", "the More button", |_| {
        browser.script(
            "return !document.getElementById('runs-more').hidden;",
            json!([]),
        ) == json!(true)
    });
    click_in_page(&browser, "#runs-more");
    browser.wait_text("#runs", "the oldest run, loaded with More", |_| {
        row_ids(&browser).len() == 51 && row_ids(&browser).last() == Some(&oldest)
    });
    // A refresh keeps it: it is in the last hour.
    let before = loads(&browser);
    browser.wait_text("#runs", "a refresh", |_| loads(&browser) > before);
    assert_eq!(row_ids(&browser).len(), 51);

    // 15 minutes later on the page's clock, the last hour starts 45
    // minutes ago: the oldest run is out, the others stay.
    browser.script(
        "const real = Date.now.bind(Date);
         const shift = arguments[0];
         Date.now = () => real() + shift;",
        json!([15 * 60 * 1000]),
    );
    browser.wait_text("#runs", "the oldest run gone", |_| {
        !row_ids(&browser).contains(&oldest)
    });
    assert_eq!(row_ids(&browser).len(), 50);
}
