//! Budgets in the queue (`budgets.when_over: wait`): a job over a day's
//! budget waits in the queue for the next day, without starting its CLI,
//! and runs once the test clock moves past the day; under `refuse` it
//! fails with `budget` at once.
//!
//! The clock starts at the real time: runs record their start by the
//! system's clock, the budget's day is the server's (test) clock's, and a
//! move of two days puts the day after any run started here, even across a
//! midnight during the test.

use jiff::{Timestamp, ToSpan};
use serde_json::json;

use super::serve_queue_support::{QueueHome, submit_ok, wait_until};
use agentgate_store::JobState;

const BUDGET: &str = "budgets:\n  when_over: @POLICY@\n  global: {day: {max_cost: 0.05}}\n";

fn home(policy: &str) -> QueueHome {
    QueueHome::new(&BUDGET.replace("@POLICY@", policy))
}

#[test]
fn a_job_over_the_days_budget_waits_for_the_next_day() {
    let home = home("wait");
    let now = Timestamp::now();
    home.set_clock(&now.to_string());
    let server = home.serve(true, &[]);
    // $0.06 of the day's $0.05: the job itself ran (nothing was spent
    // before it), and the day is spent.
    let first = submit_ok(&server.url, "costly tag-c", json!({}));
    let done = home.wait_for_state(&first, JobState::Succeeded);
    assert_eq!(done.envelope.unwrap().tokens_used.cost_usd, Some(0.06));

    let second = submit_ok(&server.url, "say tag-s", json!({}));
    let job = wait_until("the job to wait for the budget", || {
        let job = home.job(&second);
        (job.waiting_for.as_deref() == Some("budget")).then_some(job)
    });
    assert_eq!(job.state, JobState::Queued);
    assert_eq!(job.attempts, 0, "a budget wait is not charged");
    let tomorrow = now
        .to_zoned(jiff::tz::TimeZone::UTC)
        .date()
        .tomorrow()
        .unwrap()
        .to_zoned(jiff::tz::TimeZone::UTC)
        .unwrap()
        .timestamp();
    assert_eq!(
        job.not_before, tomorrow,
        "until the day's budget starts again"
    );
    let refused = home.store();
    let run = agentgate_store::RunStore::get_run(&refused, &second)
        .unwrap()
        .unwrap();
    let error = run.envelope.unwrap().error.unwrap();
    assert!(
        error.starts_with(
            "over budget: the global day budget: $0.0600 of $0.05 spent already by 1 run"
        ),
        "{error}"
    );
    assert_eq!(
        home.cli_runs().len(),
        1,
        "no CLI started for the waiting job"
    );

    home.set_clock(&now.checked_add(48.hours()).unwrap().to_string());
    let job = home.wait_for_state(&second, JobState::Succeeded);
    assert_eq!(job.attempts, 1);
    let tags: Vec<String> = home.cli_runs().into_iter().map(|r| r.tag).collect();
    assert_eq!(tags, ["tag-c", "tag-s"]);
}

#[test]
fn under_refuse_a_job_over_the_days_budget_fails_at_once() {
    let home = home("refuse");
    home.set_clock(&Timestamp::now().to_string());
    let server = home.serve(true, &[]);
    let first = submit_ok(&server.url, "costly tag-c", json!({}));
    home.wait_for_state(&first, JobState::Succeeded);
    let second = submit_ok(&server.url, "say tag-s", json!({}));
    let job = home.wait_for_state(&second, JobState::Failed);
    let envelope = job.envelope.unwrap();
    assert_eq!(
        envelope.error_type,
        Some(agentgate_protocol::ErrorKind::Budget)
    );
    assert!(envelope.reset_at.is_some(), "{envelope:?}");
    assert_eq!(home.cli_runs().len(), 1);
}

/// Makes the API token `name` (team `pay`, scopes submit and read) with
/// `budget`; its token.
fn make_token(url: &str, name: &str, budget: serde_json::Value) -> String {
    let body = json!({"name": name, "team": "pay", "scopes": ["submit", "read"], "budget": budget});
    let made = super::serve_queue_support::post(url, "/v1/tokens", &body.to_string());
    assert_eq!(made.status, 201, "{made:?}");
    made.json()["token"].as_str().unwrap().to_owned()
}

/// Submits `prompt` with `token`; the job's id.
fn submit_as(url: &str, token: &str, prompt: &str) -> String {
    let body = json!({
        "prompt": prompt,
        "providers": ["claude"],
        "no_unattended_instruction": true,
        "max_provider_retries": 0,
    });
    let r = super::serve_support::post_json(url, "/v1/runs", token, &body.to_string());
    assert_eq!(r.status, 201, "{r:?}");
    r.json()["run_id"].as_str().unwrap().to_owned()
}

/// A token's own day budget and its team's (`budgets.teams`) hold over
/// every run of its jobs, a retried run (`id.2`) too: each run records
/// the token and team (not in its envelope), the token's and the team's
/// spending add up, and `GET /v1/usage?group=token|team` reports them.
#[test]
fn a_tokens_and_its_teams_day_budgets_count_every_run_of_their_jobs() {
    let home = QueueHome::new(
        "queue:\n  max_attempts: 3\n  backoff: 0s\n  backoff_max: 0s\n\
         budgets:\n  teams:\n    pay: {day: {max_cost: 0.15}}\n",
    );
    // The clock stays at the real time: the retry's backoff of 0s is due
    // at once, and the budgets' day is the day the runs start in.
    home.set_clock(&Timestamp::now().to_string());
    let server = home.serve(true, &[]);
    let bot = make_token(&server.url, "bot", json!({"day": {"max_cost_usd": 0.10}}));
    let ops = make_token(&server.url, "ops", json!({}));

    // Fails once (529, no cost), then its second run spends $0.06.
    let a = submit_as(&server.url, &bot, "flaky costly tag-a");
    let job = home.wait_for_state(&a, JobState::Succeeded);
    assert_eq!(job.attempts, 2);
    let store = home.store();
    // The labels side table, as the store wrote it (its readers leave the
    // reserved labels out of a run's summary).
    let db = rusqlite::Connection::open(home.file("data/agentgate.db")).unwrap();
    for id in [a.clone(), format!("{a}.2")] {
        let mut stmt = db
            .prepare("SELECT key, value FROM labels WHERE id = ?1 ORDER BY key")
            .unwrap();
        let labels: Vec<(String, String)> = stmt
            .query_map([&id], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        let expected = [("agentgate.team", "pay"), ("agentgate.token", "bot")]
            .map(|(k, v)| (k.to_owned(), v.to_owned()));
        assert_eq!(labels, expected, "{id}");
        let run = agentgate_store::RunStore::get_run(&store, &id)
            .unwrap()
            .unwrap();
        let envelope = run.envelope.unwrap();
        assert!(envelope.labels.is_empty(), "{id}: {:?}", envelope.labels);
    }

    // $0.06 of the token's $0.10 spent: the next job runs ($0.12), the
    // one after is refused by the token's budget before its CLI starts.
    let b = submit_as(&server.url, &bot, "costly tag-b");
    home.wait_for_state(&b, JobState::Succeeded);
    let c = submit_as(&server.url, &bot, "say tag-c");
    let refused = home.wait_for_state(&c, JobState::Failed).envelope.unwrap();
    assert_eq!(
        refused.error_type,
        Some(agentgate_protocol::ErrorKind::Budget)
    );
    let error = refused.error.unwrap();
    assert!(
        error.starts_with(
            "over budget: the day budget of token bot: $0.1200 of $0.1 spent already by 3 runs"
        ),
        "{error}"
    );

    // `ops` has no budget of its own; the team's $0.15 holds it: $0.12
    // spent by `bot`, its first job runs ($0.18), its second is refused.
    let d = submit_as(&server.url, &ops, "costly tag-d");
    home.wait_for_state(&d, JobState::Succeeded);
    let e = submit_as(&server.url, &ops, "say tag-e");
    let error = home
        .wait_for_state(&e, JobState::Failed)
        .envelope
        .unwrap()
        .error
        .unwrap();
    assert!(
        error.starts_with(
            "over budget: the day budget of team pay: $0.1800 of $0.15 spent already by 5 runs"
        ),
        "{error}"
    );
    // The server's own token belongs to no team and has no budget.
    let f = submit_ok(&server.url, "say tag-f", json!({}));
    home.wait_for_state(&f, JobState::Succeeded);
    let tags: Vec<String> = home.cli_runs().into_iter().map(|r| r.tag).collect();
    assert_eq!(tags, ["tag-a", "tag-a", "tag-b", "tag-d", "tag-f"]);

    // The usage report by token and by team.
    let usage_as = |token: &str, group: &str| {
        let r = super::serve_support::get(
            &server.url,
            &format!("/v1/usage?group={group}"),
            Some(token),
        );
        assert_eq!(r.status, 200, "{r:?}");
        // Summed over the buckets (a day's bucket each, should the test
        // cross a midnight).
        let mut rows: std::collections::BTreeMap<String, (u64, f64)> = Default::default();
        for row in r.json()["rows"].as_array().unwrap() {
            let sums = rows
                .entry(row["group"].as_str().unwrap_or("-").to_owned())
                .or_default();
            sums.0 += row["runs"].as_u64().unwrap();
            sums.1 += row["cost_usd"].as_f64().unwrap_or(0.0);
        }
        rows.into_iter()
            .map(|(group, (runs, usd))| (group, runs, usd))
            .collect::<Vec<_>>()
    };
    let usage = |group: &str| usage_as(super::serve_queue_support::TOKEN, group);
    let by_token = usage("token");
    let names: Vec<(&str, u64)> = by_token.iter().map(|r| (r.0.as_str(), r.1)).collect();
    assert_eq!(
        names,
        [("bot", 4), ("ops", 2), ("serve", 1)],
        "{by_token:?}"
    );
    assert!((by_token[0].2 - 0.12).abs() < 1e-9, "{by_token:?}");
    assert!((by_token[1].2 - 0.06).abs() < 1e-9, "{by_token:?}");
    let by_team = usage("team");
    let teams: Vec<(&str, u64)> = by_team.iter().map(|r| (r.0.as_str(), r.1)).collect();
    assert_eq!(teams, [("-", 1), ("pay", 6)], "{by_team:?}");
    assert!((by_team[1].2 - 0.18).abs() < 1e-9, "{by_team:?}");

    // A team's reader's report covers its team's runs only.
    let reader = |name: &str, team: &str| {
        let body = json!({"name": name, "team": team, "scopes": ["read"]});
        let made = super::serve_queue_support::post(&server.url, "/v1/tokens", &body.to_string());
        assert_eq!(made.status, 201, "{made:?}");
        made.json()["token"].as_str().unwrap().to_owned()
    };
    let pay_reader = reader("pay-reader", "pay");
    let seen: Vec<(String, u64)> = usage_as(&pay_reader, "token")
        .into_iter()
        .map(|r| (r.0, r.1))
        .collect();
    assert_eq!(seen, [("bot".to_owned(), 4), ("ops".to_owned(), 2)]);
    let other_reader = reader("other-reader", "other");
    assert_eq!(usage_as(&other_reader, "token"), []);
}
