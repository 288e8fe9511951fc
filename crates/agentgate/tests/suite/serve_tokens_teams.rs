//! API tokens and teams through a real `agentgate serve` over HTTP, on
//! SQLite and on PostgreSQL (the store code differs): a team's reader
//! sees only its team's runs (list, detail, events, approvals: others are
//! 404 like a run that does not exist), every run names the token that
//! submitted it, a revoked token is refused at its next request, an
//! expired one once the server's (test) clock passes its expiry, and no
//! token is stored in clear.

use std::process::Command;
use std::time::Duration;

use serde_json::json;

use super::serve_queue_support::{QueueHome, TOKEN};
use super::serve_support::Serve;
use super::serve_tokens::{call, make_token, runs_listed, token_cmd};
use super::store_postgres::fresh_database;
use super::support::run_bounded;

/// Submit a run of the stand-in with `token`; its id.
fn submit_as(url: &str, token: &str, prompt: &str) -> String {
    let body = json!({
        "prompt": prompt,
        "providers": ["claude"],
        "no_unattended_instruction": true,
        "labels": {"ticket": "T-1"},
    });
    let r = call(url, "POST", "/v1/runs", token, &body.to_string());
    assert_eq!(r.status, 201, "{r:?}");
    r.json()["run_id"].as_str().unwrap().to_owned()
}

/// The team checks on one server whose store is `store` (None: SQLite in
/// `home`).
fn teams_see_their_runs_only(home: &QueueHome, store: Option<&str>) {
    let p = home.path();
    let red_bot = make_token(p, store, "red-bot", &["submit"], &["--team", "red"]);
    let blue_bot = make_token(p, store, "blue-bot", &["submit"], &["--team", "blue"]);
    let red_reader = make_token(p, store, "red-reader", &["read"], &["--team", "red"]);
    let red_all = make_token(
        p,
        store,
        "red-all",
        &["read", "read:all"],
        &["--team", "red"],
    );
    let anyone = make_token(p, store, "anyone", &["read"], &[]);
    let red_cancel = make_token(p, store, "red-cancel", &["cancel"], &["--team", "red"]);
    let mut args = vec!["--no-executor"];
    if let Some(url) = store {
        args.extend(["--store", url]);
    }
    let server: Serve = home.serve(false, &args);
    let url = server.url.as_str();
    let red_run = submit_as(url, &red_bot, "say red");
    let blue_run = submit_as(url, &blue_bot, "say blue");
    let server_run = submit_as(url, TOKEN, "say serve");

    // The list: the team's runs only, unless read:all or no team.
    let listed = |token: &str, query: &str| {
        let r = call(url, "GET", &format!("/v1/runs{query}"), token, "");
        assert_eq!(r.status, 200, "{r:?}");
        let mut ids = runs_listed(&r);
        ids.sort();
        ids
    };
    assert_eq!(listed(&red_reader, ""), vec![red_run.clone()]);
    // A label filter naming another team does not widen it.
    assert_eq!(
        listed(&red_reader, "?label=agentgate.team%3Dblue"),
        Vec::<String>::new()
    );
    let mut all = vec![red_run.clone(), blue_run.clone(), server_run.clone()];
    all.sort();
    assert_eq!(listed(&red_all, ""), all);
    assert_eq!(listed(&anyone, ""), all);

    // Detail, events and approvals of another team's run: 404, the same
    // answer as a run that does not exist.
    for suffix in ["", "/events", "/approvals"] {
        let other = call(
            url,
            "GET",
            &format!("/v1/runs/{blue_run}{suffix}"),
            &red_reader,
            "",
        );
        let missing = call(
            url,
            "GET",
            &format!("/v1/runs/{}{suffix}", "0".repeat(blue_run.len())),
            &red_reader,
            "",
        );
        assert_eq!(other.status, 404, "{suffix}: {other:?}");
        assert_eq!(missing.status, 404, "{suffix}: {missing:?}");
        assert_eq!(
            other.body.replace(&blue_run, "ID"),
            missing.body.replace(&"0".repeat(blue_run.len()), "ID"),
            "{suffix}"
        );
    }
    // Its own team's run, with who submitted it.
    let own = call(url, "GET", &format!("/v1/runs/{red_run}"), &red_reader, "");
    assert_eq!(own.status, 200, "{own:?}");
    assert_eq!(
        own.json()["submitted_by"],
        json!({"token": "red-bot", "team": "red"})
    );
    let shown = call(url, "GET", &format!("/v1/runs/{blue_run}"), &red_all, "");
    assert_eq!(shown.status, 200, "{shown:?}");
    assert_eq!(
        shown.json()["submitted_by"],
        json!({"token": "blue-bot", "team": "blue"})
    );
    let page = call(url, "GET", "/v1/runs", &anyone, "").json();
    let of_server = page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["run_id"] == server_run.as_str())
        .unwrap();
    assert_eq!(of_server["submitted_by"], json!({"token": "serve"}));
    // The caller's labels are kept, and its own `agentgate.` ones refused.
    assert_eq!(own.json()["request"]["labels"], json!({"ticket": "T-1"}));
    let forged = call(
        url,
        "POST",
        "/v1/runs",
        &red_bot,
        &json!({"prompt": "x", "providers": ["claude"], "labels": {"agentgate.team": "blue"}})
            .to_string(),
    );
    assert_eq!(forged.status, 422, "{forged:?}");
    assert_eq!(forged.json()["error"]["field"], "labels");
    // The usage report: a team's reader's covers its team's runs (see
    // suite::serve_budget for its figures).
    assert_eq!(call(url, "GET", "/v1/usage", &red_reader, "").status, 200);
    assert_eq!(call(url, "GET", "/v1/usage", &anyone, "").status, 200);

    // A team's cancel token: another team's run is 404 and stays queued;
    // a cancel by label reaches its team's runs only.
    let r = call(
        url,
        "POST",
        &format!("/v1/runs/{blue_run}/cancel"),
        &red_cancel,
        "",
    );
    assert_eq!(r.status, 404, "{r:?}");
    let r = call(
        url,
        "POST",
        "/v1/runs/cancel",
        &red_cancel,
        r#"{"labels": {"ticket": "T-1"}}"#,
    );
    assert_eq!(r.status, 200, "{r:?}");
    let cancelled: Vec<String> = r.json()["cancelled"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["run_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(cancelled, vec![red_run.clone()]);
    let blue = call(url, "GET", &format!("/v1/runs/{blue_run}"), &anyone, "").json();
    assert_eq!(blue["status"], "queued", "{blue}");
}

/// A revoked token is refused at its next request, without a restart.
fn revoked_at_once(home: &QueueHome, store: Option<&str>) {
    let token = make_token(home.path(), store, "short-lived", &["read"], &[]);
    let mut args = vec!["--no-executor"];
    if let Some(url) = store {
        args.extend(["--store", url]);
    }
    let server = home.serve(false, &args);
    assert_eq!(call(&server.url, "GET", "/v1/runs", &token, "").status, 200);
    token_cmd(home.path(), store, &["revoke", "short-lived"]);
    let r = call(&server.url, "GET", "/v1/runs", &token, "");
    assert_eq!(r.status, 401, "{r:?}");
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("revoked")
    );
    let listed = token_cmd(home.path(), store, &["list", "--json"]);
    assert!(listed.contains("\"revoked_at\":\"20"), "{listed}");
    assert!(listed.contains("\"last_used_at\":\"20"), "{listed}");
}

/// The SHA-256 of `text`, hex (the stored form, to prove the search looks
/// where the tokens are).
fn sha256_hex(text: &str) -> String {
    let out = Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write;
            child.stdin.take().unwrap().write_all(text.as_bytes())?;
            child.wait_with_output()
        })
        .unwrap();
    String::from_utf8(out.stdout).unwrap()[..64].to_owned()
}

#[test]
fn a_teams_reader_sees_only_its_teams_runs() {
    let home = QueueHome::new("");
    teams_see_their_runs_only(&home, None);
}

#[test]
fn a_teams_reader_sees_only_its_teams_runs_on_postgres() {
    let home = QueueHome::new("");
    let store = fresh_database();
    teams_see_their_runs_only(&home, Some(&store));
}

#[test]
fn a_revoked_token_is_refused_at_once() {
    let home = QueueHome::new("");
    revoked_at_once(&home, None);
}

#[test]
fn a_revoked_token_is_refused_at_once_on_postgres() {
    let home = QueueHome::new("");
    let store = fresh_database();
    revoked_at_once(&home, Some(&store));
}

#[test]
fn no_token_is_stored_in_clear_in_sqlite() {
    let home = QueueHome::new("");
    let by_cli = make_token(home.path(), None, "cli-made", &["read"], &[]);
    let server = home.serve(false, &["--no-executor"]);
    let made = call(
        &server.url,
        "POST",
        "/v1/tokens",
        TOKEN,
        r#"{"name": "api-made", "scopes": ["read"]}"#,
    );
    assert_eq!(made.status, 201, "{made:?}");
    let by_api = made.json()["token"].as_str().unwrap().to_owned();
    assert_eq!(
        call(&server.url, "GET", "/v1/runs", &by_api, "").status,
        200
    );
    drop(server);
    // Every file of the data folder (the database, its WAL), as bytes.
    let mut bytes = Vec::new();
    for entry in std::fs::read_dir(home.file("data")).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            bytes.extend(std::fs::read(&path).unwrap());
        }
    }
    let text = String::from_utf8_lossy(&bytes);
    for secret in [&by_cli, &by_api] {
        assert!(
            !text.contains(secret.as_str()),
            "a token is stored in clear"
        );
        assert!(
            !text.contains(&secret[4..]),
            "a token's random part is stored"
        );
        assert!(
            text.contains(&sha256_hex(secret)),
            "its hash is where tokens are"
        );
    }
}

#[test]
fn no_token_is_stored_in_clear_in_postgres() {
    let home = QueueHome::new("");
    let store = fresh_database();
    let by_cli = make_token(home.path(), Some(&store), "cli-made", &["read"], &[]);
    let mut dump = Command::new("pg_dump");
    dump.args(["--data-only", "--dbname", &store]);
    let out = run_bounded(dump, Duration::from_secs(60));
    assert_eq!(out.code, Some(0), "{}", out.all_output());
    let text = out.all_output();
    assert!(
        text.contains("cli-made"),
        "the dump holds the tokens' table"
    );
    assert!(!text.contains(&by_cli), "a token is stored in clear");
    assert!(
        !text.contains(&by_cli[4..]),
        "a token's random part is stored"
    );
    assert!(text.contains(&sha256_hex(&by_cli)));
}

#[test]
fn an_expired_token_is_refused_once_the_clock_passes_its_expiry() {
    let home = QueueHome::new("");
    let now = jiff::Timestamp::now();
    home.set_clock(&now.to_string());
    let expires = now + jiff::SignedDuration::from_hours(2);
    let token = make_token(
        home.path(),
        None,
        "two-hours",
        &["read"],
        &["--expires", &expires.to_string()],
    );
    let server = home.serve(true, &["--no-executor"]);
    assert_eq!(call(&server.url, "GET", "/v1/runs", &token, "").status, 200);
    home.set_clock(&(now + jiff::SignedDuration::from_hours(3)).to_string());
    let r = call(&server.url, "GET", "/v1/runs", &token, "");
    assert_eq!(r.status, 401, "{r:?}");
    assert!(
        r.json()["error"]["message"]
            .as_str()
            .unwrap()
            .contains("expired")
    );
    // The server's own token is not affected.
    assert_eq!(call(&server.url, "GET", "/v1/runs", TOKEN, "").status, 200);
}

#[test]
fn a_token_past_its_max_running_is_refused_until_one_ends() {
    let home = QueueHome::new("");
    let bot = make_token(
        home.path(),
        None,
        "one-at-a-time",
        &["submit", "cancel"],
        &["--max-running", "1"],
    );
    let server = home.serve(false, &["--no-executor"]);
    let first = submit_as(&server.url, &bot, "say one");
    let body = json!({"prompt": "say two", "providers": ["claude"]}).to_string();
    let refused = call(&server.url, "POST", "/v1/runs", &bot, &body);
    assert_eq!(refused.status, 429, "{refused:?}");
    assert_eq!(refused.json()["error"]["type"], "token_limit");
    // Another token is not held back by it.
    assert_eq!(
        call(&server.url, "POST", "/v1/runs", TOKEN, &body).status,
        201
    );
    let cancelled = call(
        &server.url,
        "POST",
        &format!("/v1/runs/{first}/cancel"),
        &bot,
        "",
    );
    assert_eq!(cancelled.status, 200, "{cancelled:?}");
    assert_eq!(
        call(&server.url, "POST", "/v1/runs", &bot, &body).status,
        201
    );
}

/// A token's budget, from `agentgate token create` and from `POST
/// /v1/tokens`, is stored and shown; a negative cost or an unknown key is
/// refused naming `budget`.
#[test]
fn a_tokens_budget_is_kept_as_given_and_a_bad_one_refused() {
    let home = QueueHome::new("");
    make_token(
        home.path(),
        None,
        "capped",
        &["submit"],
        &["--day-max-cost", "0.5", "--month-max-tokens", "100000"],
    );
    let listed: serde_json::Value =
        serde_json::from_str(token_cmd(home.path(), None, &["list", "--json"]).trim()).unwrap();
    assert_eq!(
        listed["limits"]["budget"],
        json!({"day": {"max_cost_usd": 0.5}, "month": {"max_tokens": 100000}})
    );
    let server = home.serve(false, &["--no-executor"]);
    let tokens = call(&server.url, "GET", "/v1/tokens", TOKEN, "").json();
    assert_eq!(
        tokens["tokens"][0]["budget"],
        json!({"day": {"max_cost_usd": 0.5}, "month": {"max_tokens": 100000}})
    );
    for (budget, wanted) in [
        (
            json!({"day": {"max_cost_usd": -1}}),
            "budget.day.max_cost_usd is -1",
        ),
        (json!({"week": {"max_cost_usd": 1}}), "week"),
        // An object, never an array (which a derived struct would take).
        (json!([null, null]), "a map"),
        (json!({"day": [1, 2]}), "a map"),
    ] {
        let body = json!({"name": "bad", "scopes": ["submit"], "budget": budget}).to_string();
        let r = call(&server.url, "POST", "/v1/tokens", TOKEN, &body);
        assert_eq!(r.status, 422, "{r:?}");
        let error = &r.json()["error"];
        assert!(
            error["message"].as_str().unwrap().contains(wanted),
            "{error}"
        );
    }
    let made = call(
        &server.url,
        "POST",
        "/v1/tokens",
        TOKEN,
        &json!({"name": "api", "scopes": ["read"], "budget": {"month": {"max_cost_usd": 20}}})
            .to_string(),
    );
    assert_eq!(made.status, 201, "{made:?}");
    assert_eq!(
        made.json()["budget"],
        json!({"month": {"max_cost_usd": 20.0}})
    );
}
