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
