//! A budget in a warm session's turn (`--warm`), with the real Claude Code
//! against fake-llm: the turn that passes its `--max-cost` is interrupted
//! with `budget` after a `budget_warning`, the process lives on, and the
//! next turn, in the same process, counts its budget afresh.

use agentgate_core::Config;
use agentgate_core::budget::Limits;
use agentgate_fakellm::clients::Cli;
use agentgate_providers::PermissionMode;

use super::warm_run::Bench;

/// Every call asks for the shell tool again, 20,000 input tokens a call:
/// $0.06 a call at Claude Sonnet 4.5's $3 per million.
const LOOP: &str = "turns:\n  - repeat: true\n    text: \"Once more.\"\n    tool_call: {name: Bash, command: \"true\"}\n    usage: {input: 20000, output: 10}\n";

#[test]
fn a_warm_turn_past_its_budget_is_interrupted_and_the_process_lives_on() {
    let b = Bench::new(Cli::Claude, LOOP);
    let mut pgids = Vec::new();
    for turn in ["first", "second"] {
        let before = b.server.turn_requests().len();
        let mut plan = b.plan("Keep going.", PermissionMode::Bypass, &Config::default());
        plan.budget.run = Limits {
            max_cost_usd: Some(0.14),
            max_tokens: None,
        };
        plan.budget.run_source = "the run's limit";
        let (outcome, events) = b.turn_with(&plan);
        let env = serde_json::to_value(&outcome.envelope).unwrap();
        assert_eq!(env["error_type"], "budget", "{turn}: {env:#}");
        assert_eq!(outcome.exit_code, 1);
        let warned = events
            .iter()
            .filter(|e| e["type"] == "status" && e["kind"] == "budget_warning")
            .count();
        assert_eq!(warned, 1, "{turn}");
        // Its own calls: stopped at the third (or as the fourth began),
        // never refused at once for the turn before.
        let calls = b.server.turn_requests().len() - before;
        assert!((3..=4).contains(&calls), "{turn}: {calls} calls");
        pgids.push(env["warm"]["pgid"].clone());
        let state = env["warm"]["process"].as_str().unwrap().to_owned();
        assert_eq!(
            state,
            if turn == "first" { "started" } else { "reused" },
            "{env:#}"
        );
    }
    assert_eq!(pgids[0], pgids[1], "one process served both turns");
}
