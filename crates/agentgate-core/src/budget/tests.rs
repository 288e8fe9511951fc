use super::*;

fn at(text: &str) -> jiff::Timestamp {
    text.parse().unwrap()
}

#[test]
fn windows_start_and_end_on_utc_days_and_months() {
    let now = at("2026-02-28T23:59:59Z");
    assert_eq!(period_start(Period::Day, now), at("2026-02-28T00:00:00Z"));
    assert_eq!(
        window_end(Period::Day, now),
        Some(at("2026-03-01T00:00:00Z"))
    );
    assert_eq!(period_start(Period::Month, now), at("2026-02-01T00:00:00Z"));
    assert_eq!(
        window_end(Period::Month, now),
        Some(at("2026-03-01T00:00:00Z"))
    );
    let dec = at("2026-12-31T12:00:00Z");
    assert_eq!(
        window_end(Period::Month, dec),
        Some(at("2027-01-01T00:00:00Z"))
    );
    assert_eq!(period_start(Period::Life, now), jiff::Timestamp::UNIX_EPOCH);
    assert_eq!(window_end(Period::Life, now), None);
}

#[test]
fn a_line_reports_the_larger_share_first_and_a_zero_limit_is_used_by_anything() {
    let line = BudgetLine {
        name: "--max-cost".into(),
        limits: Limits {
            max_cost_usd: Some(1.0),
            max_tokens: Some(1000),
        },
        spent_usd: 0.25,
        spent_tokens: 100,
        resets_at: None,
    };
    let used = line.used(0.25, 800);
    assert_eq!(used[0], (Measure::Tokens, 0.9));
    assert_eq!(used[1], (Measure::Cost, 0.5));
    assert_eq!(
        line.describe(Measure::Cost, 0.25, 0),
        "--max-cost: $0.5000 of $1"
    );
    assert_eq!(
        line.describe(Measure::Tokens, 0.0, 800),
        "--max-cost: 900 tokens of 1000"
    );
    let zero = BudgetLine {
        limits: Limits {
            max_cost_usd: Some(0.0),
            max_tokens: None,
        },
        spent_usd: 0.0,
        ..line
    };
    assert_eq!(zero.used(0.0, 0)[0].1, 1.0);
    assert!(zero.used(0.0001, 0)[0].1.is_infinite());
}

#[test]
fn flags_win_over_the_configs_run_limits_each_on_its_own() {
    let flags = Limits {
        max_cost_usd: Some(0.1),
        max_tokens: None,
    };
    let config = Limits {
        max_cost_usd: Some(5.0),
        max_tokens: Some(9),
    };
    assert_eq!(
        flags.over(config),
        Limits {
            max_cost_usd: Some(0.1),
            max_tokens: Some(9)
        }
    );
}

#[test]
fn a_requests_limits_are_checked() {
    assert_eq!(
        Limits::checked(Some(0.5), Some(10)),
        Ok(Limits {
            max_cost_usd: Some(0.5),
            max_tokens: Some(10)
        })
    );
    for bad in [-0.01, f64::NAN, f64::INFINITY] {
        assert!(Limits::checked(Some(bad), None).is_err(), "{bad}");
    }
}
