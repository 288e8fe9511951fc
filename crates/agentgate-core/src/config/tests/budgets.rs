//! `budgets:`: the policy, the run's own limits and the windows; names
//! that the file does not define and bad values refused at their line.

use super::{invalid, parse};
use crate::budget::{Limits, PeriodLimits, WhenOver};

const AGENTS: &str =
    "agents:\n  reviewer:\n    provider: claude\nchains:\n  main:\n    agents: [reviewer]\n";

#[test]
fn budgets_take_the_policy_the_run_limits_and_each_window() {
    let cfg = parse(&format!(
        "version: 1\n{AGENTS}budgets:\n  when_over: wait\n  warn_at: 0.5\n  \
         run: {{max_cost: 0.25}}\n  global: {{day: {{max_cost: 20}}, month: {{max_tokens: 9000000}}}}\n  \
         agents:\n    reviewer: {{day: {{max_cost: 5, max_tokens: 100000}}}}\n  \
         chains:\n    main: {{month: {{max_cost: 50}}}}\n  sessions: {{max_cost: 2}}\n  \
         teams:\n    pay-ops: {{day: {{max_cost: 8}}}}\n"
    ))
    .unwrap();
    let b = &cfg.budgets;
    assert_eq!(b.when_over, WhenOver::Wait);
    assert_eq!(b.warn_at, 0.5);
    assert_eq!(
        b.run,
        Limits {
            max_cost_usd: Some(0.25),
            max_tokens: None
        }
    );
    assert_eq!(b.global.day.max_cost_usd, Some(20.0));
    assert_eq!(b.global.month.max_tokens, Some(9_000_000));
    assert_eq!(
        b.agents["reviewer"],
        PeriodLimits {
            day: Limits {
                max_cost_usd: Some(5.0),
                max_tokens: Some(100_000)
            },
            month: Limits::default(),
        }
    );
    assert_eq!(b.chains["main"].month.max_cost_usd, Some(50.0));
    assert_eq!(b.sessions.max_cost_usd, Some(2.0));
    assert_eq!(b.teams["pay-ops"].day.max_cost_usd, Some(8.0));
    assert!(b.has_windows());
    // None given: refuse, warn at 80%, nothing limited.
    let none = parse("version: 1\n").unwrap().budgets;
    assert_eq!((none.when_over, none.warn_at), (WhenOver::Refuse, 0.8));
    assert!(!none.has_windows() && !none.run.any());
}

#[test]
fn bad_budgets_are_refused_at_their_line() {
    for (bad, line, wanted) in [
        ("  when_over: later\n", 9, "use refuse or wait"),
        ("  warn_at: 1.5\n", 9, "above 0 and at most 1"),
        ("  run: {max_cost: -1}\n", 9, "0 or more"),
        (
            "  agents:\n    writer: {day: {max_cost: 1}}\n",
            10,
            "names no agent",
        ),
        (
            "  chains:\n    other: {day: {max_cost: 1}}\n",
            10,
            "names no chain",
        ),
        ("  global: {week: {max_cost: 1}}\n", 9, "week"),
        (
            "  teams:\n    pay ops: {day: {max_cost: 1}}\n",
            10,
            "team `pay ops` is not valid",
        ),
        (
            "  teams:\n    pay: {day: {max_cost: -2}}\n",
            10,
            "teams.pay.day.max_cost is -2",
        ),
    ] {
        let (at, message) = invalid(&format!("version: 1\n{AGENTS}budgets:\n{bad}"));
        assert!(message.contains(wanted), "{bad}: {message}");
        assert_eq!(at, Some(line), "{bad}: {message}");
    }
}
