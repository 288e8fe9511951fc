//! The rate card: the built-in card parses, lookup by alias, prefix and
//! date, the config's entries in front, each token class priced at its
//! rate, an unknown model left unpriced with the reason, the CLI-vs-card
//! flag, a failover's attempts summed, and cache writes priced by their
//! lifetime (1-hour writes at the 1-hour rate, never at the 5-minute one).

use agentgate_protocol::{AttemptCost, CostSource, Usage};
use jiff::civil::date;

use super::*;

const CARD: &str = r#"
version: "test-1"
providers:
  anthropic:
    - model: claude-test
      aliases: [claude-test-20250101]
      until: 2025-06-01
      usd_per_million: {input: 2, cache_read: 0.2, cache_write_5m: 2.5, cache_write_1h: 4, output: 10}
    - model: claude-test
      aliases: [claude-test-20250101]
      from: 2025-06-01
      usd_per_million: {input: 3, cache_read: 0.3, cache_write_5m: 3.75, cache_write_1h: 6, output: 15}
    - model: claude-no-hour
      usd_per_million: {input: 3, cache_read: 0.3, cache_write_5m: 3.75, output: 15}
  thinker:
    - model: think-1
      usd_per_million: {input: 1, output: 4, reasoning: 8}
      prompt_tokens_up_to: 1000
"#;

fn pricing() -> Pricing {
    Pricing {
        card: parse_card(CARD).unwrap(),
        card_error: None,
        flag_above: FlagThreshold::default(),
    }
}

fn usage(input: u64, read: u64, write: u64, output: u64, reasoning: u64) -> Usage {
    Usage {
        input_tokens: input,
        cache_read_input_tokens: read,
        cache_creation_input_tokens: write,
        output_tokens: output,
        reasoning_tokens: reasoning,
        total_tokens: input + output,
        ..Usage::default()
    }
}

fn priced(p: &Pricing, u: &Usage, model: &str, cli: Option<f64>) -> agentgate_protocol::CostReport {
    p.price(&PricedAttempt {
        usage: Some(u),
        no_usage_reason: "",
        model: Some(model),
        day: Some(date(2025, 7, 1)),
        cli_usd: cli,
    })
}

#[test]
fn the_builtin_card_parses_and_prices_each_vendors_current_models() {
    let card = builtin_card().unwrap();
    assert!(!card.version.is_empty());
    let day = date(2025, 11, 29);
    for model in [
        "claude-sonnet-4-5-20250929",
        "claude-opus-4-1",
        "claude-haiku-4-5",
        "gpt-5-codex",
        "gpt-5",
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        "qwen3-coder-plus",
        "anthropic/claude-sonnet-4-5",
    ] {
        let Lookup::Found(e) = card.lookup(model, day) else {
            panic!("{model} is not on the card");
        };
        assert!(e.usd_per_million.input.is_some() && e.usd_per_million.output.is_some());
        assert!(
            e.source
                .as_deref()
                .is_some_and(|s| s.starts_with("https://")),
            "{model}"
        );
        assert!(e.as_of.is_some(), "{model}");
    }
    let Lookup::Found(sonnet) = card.lookup("claude-sonnet-4-5-20250929", day) else {
        panic!()
    };
    assert_eq!(sonnet.model, "claude-sonnet-4-5");
    assert_eq!(sonnet.provider, "anthropic");
    assert_eq!(sonnet.usd_per_million.input, Some(3.0));
    assert_eq!(sonnet.usd_per_million.cache_write_1h, Some(6.0));
}

#[test]
fn lookup_goes_by_alias_and_by_the_runs_date() {
    let p = pricing();
    let Lookup::Found(old) = p.card.lookup("claude-test-20250101", date(2025, 5, 31)) else {
        panic!()
    };
    assert_eq!(old.usd_per_million.input, Some(2.0));
    let Lookup::Found(new) = p.card.lookup("claude-test", date(2025, 6, 1)) else {
        panic!()
    };
    assert_eq!(new.usd_per_million.input, Some(3.0));
    assert_eq!(new.version, "test-1");
    // A vendor prefix is dropped; a near name is not guessed.
    assert!(matches!(
        p.card.lookup("anthropic/claude-test", date(2025, 7, 1)),
        Lookup::Found(_)
    ));
    let Lookup::Missing(why) = p.card.lookup("claude-test-2", date(2025, 7, 1)) else {
        panic!()
    };
    assert!(
        why.contains("does not price model `claude-test-2`"),
        "{why}"
    );
}

#[test]
fn each_token_class_is_priced_at_its_own_rate() {
    let p = pricing();
    // 1M uncached input ($3) + 1M cache read ($0.30) + 1M cache write at
    // the 5-minute rate ($3.75) + 1M output ($15).
    let r = priced(
        &p,
        &usage(3_000_000, 1_000_000, 1_000_000, 1_000_000, 0),
        "claude-test",
        None,
    );
    assert_eq!(r.card_usd, Some(22.05));
    assert_eq!(r.usd, Some(22.05));
    assert_eq!(r.source, Some(CostSource::RateCard));
    assert!(
        r.notes.iter().any(|n| n.contains("5-minute rate")),
        "{:?}",
        r.notes
    );
    let card = r.card.unwrap();
    assert_eq!(
        (
            card.provider.as_str(),
            card.model.as_str(),
            card.version.as_str()
        ),
        ("anthropic", "claude-test", "test-1")
    );
    // Reasoning priced apart: 1M output of which 250k reasoning.
    let r = priced(
        &p,
        &usage(1_000_000, 0, 0, 1_000_000, 250_000),
        "think-1",
        None,
    );
    assert_eq!(r.card_usd, Some(1.0 + 0.75 * 4.0 + 0.25 * 8.0));
    // Without a reasoning price, reasoning is output.
    let r = priced(&p, &usage(0, 0, 0, 1_000_000, 250_000), "claude-test", None);
    assert_eq!(r.card_usd, Some(15.0));
}

#[test]
fn an_unknown_model_or_an_unpriced_class_has_no_card_cost_and_says_why() {
    let p = pricing();
    let r = priced(&p, &usage(100, 0, 0, 10, 0), "mystery-model", None);
    assert_eq!((r.usd, r.card_usd, r.source), (None, None, None));
    assert!(
        r.reason.as_deref().unwrap().contains("mystery-model"),
        "{r:?}"
    );
    // The CLI's own figure stands when the card cannot price.
    let r = priced(&p, &usage(100, 0, 0, 10, 0), "mystery-model", Some(0.5));
    assert_eq!((r.usd, r.source), (Some(0.5), Some(CostSource::Cli)));
    assert!(r.reason.is_some());
    // think-1 has no cache-read price.
    let r = priced(&p, &usage(100, 50, 0, 10, 0), "think-1", None);
    assert_eq!(r.usd, None);
    assert!(r.reason.as_deref().unwrap().contains("cache read"), "{r:?}");
    // Past the prompt limit of the entry.
    let mut u = usage(100, 0, 0, 10, 0);
    u.context_tokens = Some(5000);
    let r = priced(&p, &u, "think-1", None);
    assert_eq!(r.usd, None);
    assert!(r.reason.as_deref().unwrap().contains("up to 1000"), "{r:?}");
    // No token figures.
    let r = p.price(&PricedAttempt {
        usage: None,
        no_usage_reason: "the run reported no token figures",
        model: Some("claude-test"),
        day: Some(date(2025, 7, 1)),
        cli_usd: None,
    });
    assert_eq!(r.usd, None);
    assert_eq!(
        r.reason.as_deref(),
        Some("the run reported no token figures")
    );
}

#[test]
fn the_clis_cost_beside_the_cards_is_flagged_past_the_threshold() {
    let p = pricing();
    let u = usage(1_000_000, 0, 0, 0, 0); // $3 on the card
    let close = priced(&p, &u, "claude-test", Some(3.05));
    assert_eq!(close.source, Some(CostSource::Both));
    assert_eq!(close.usd, Some(3.0));
    assert_eq!(close.cli_usd, Some(3.05));
    assert_eq!(close.difference_usd, Some(0.05));
    assert!(!close.flagged, "5 cents is under 5% of $3");
    let far = priced(&p, &u, "claude-test", Some(3.5));
    assert!(far.flagged);
    assert_eq!(far.difference_usd, Some(0.5));
}

#[test]
fn config_entries_override_and_extend_the_card() {
    let raw: RawProviders = serde_saphyr::from_str(
        "anthropic:\n  - model: claude-test\n    usd_per_million: {input: 30, output: 150}\nfake:\n  - model: fake-model\n    usd_per_million: {input: 1, output: 2}\n",
    )
    .unwrap();
    let extra = convert(&raw, CONFIG_VERSION).unwrap();
    let p = Pricing {
        card: pricing().card.with_overrides(&extra),
        ..pricing()
    };
    let r = priced(
        &p,
        &usage(1_000_000, 0, 0, 0, 0),
        "claude-test-20250101",
        None,
    );
    // The alias is the card's: the override names the model only.
    assert_eq!(r.card_usd, Some(3.0));
    let r = priced(&p, &usage(1_000_000, 0, 0, 0, 0), "claude-test", None);
    assert_eq!(r.card_usd, Some(30.0));
    assert_eq!(r.card.unwrap().version, CONFIG_VERSION);
    let r = priced(
        &p,
        &usage(1_000_000, 0, 0, 1_000_000, 0),
        "fake/fake-model",
        None,
    );
    assert_eq!(r.card_usd, Some(3.0));
}

#[test]
fn a_bad_entry_is_refused_with_what_is_wrong() {
    let bad = |text: &str| {
        let raw: RawProviders = serde_saphyr::from_str(text).unwrap();
        convert(&raw, CONFIG_VERSION).unwrap_err()
    };
    assert!(bad("x:\n  - model: m\n    usd_per_million: {input: -1}\n").contains("input is -1"));
    assert!(
        bad("x:\n  - model: m\n    from: 2025-13-01\n    usd_per_million: {}\n")
            .contains("not a date")
    );
    assert!(
        bad("x:\n  - model: m\n    from: 2025-02-01\n    until: 2025-01-01\n    usd_per_million: {}\n")
            .contains("not before")
    );
}

#[test]
fn a_failovers_attempts_are_summed_each_at_its_own_price() {
    let p = pricing();
    let first = priced(&p, &usage(1_000_000, 0, 0, 0, 0), "claude-test", Some(3.2));
    let second = priced(
        &p,
        &usage(1_000_000, 0, 0, 1_000_000, 250_000),
        "think-1",
        None,
    );
    let nothing = agentgate_protocol::CostReport {
        reason: Some("the run reported no token figures".to_owned()),
        ..Default::default()
    };
    let attempt = |provider: &str, cost| AttemptCost {
        provider: provider.to_owned(),
        model: None,
        cost,
    };
    let run = sum_attempts(
        vec![
            (attempt("gemini", nothing), false),
            (attempt("claude", first), true),
            (attempt("codex", second), true),
        ],
        FlagThreshold::default(),
    )
    .unwrap();
    assert_eq!(run.usd, Some(3.0 + 6.0));
    assert_eq!(run.card_usd, Some(9.0));
    assert_eq!(run.cli_usd, Some(3.2));
    assert_eq!(run.attempts.len(), 3);
    assert!(
        run.notes.iter().any(|n| n.contains("attempt 1 (gemini)")),
        "{:?}",
        run.notes
    );
    assert!(run.flagged, "attempt 2's CLI figure is 20 cents over");
    // An attempt the card cannot price, with tokens: the sum is unknown.
    let unknown = priced(&p, &usage(100, 0, 0, 1, 0), "mystery", None);
    let ok = priced(&p, &usage(100, 0, 0, 1, 0), "claude-test", None);
    let run = sum_attempts(
        vec![(attempt("a", unknown), true), (attempt("b", ok), true)],
        FlagThreshold::default(),
    )
    .unwrap();
    assert_eq!(run.usd, None);
    assert!(
        run.reason.as_deref().unwrap().contains("attempt 1 (a)"),
        "{run:?}"
    );
}

/// `usage` whose cache writes are `write_5m` 5-minute and `write_1h`
/// 1-hour ones, on top of `uncached` input and `output`.
fn usage_by_ttl(uncached: u64, write_5m: u64, write_1h: u64, output: u64) -> Usage {
    let write = write_5m + write_1h;
    Usage {
        cache_creation_1h_input_tokens: write_1h,
        ..usage(uncached + write, 0, write, output, 0)
    }
}

/// Whether two dollar figures agree to the cent.
fn same_cents(a: f64, b: f64) -> bool {
    (a * 100.0).round() == (b * 100.0).round()
}

#[test]
fn one_hour_cache_writes_are_priced_at_the_one_hour_rate() {
    let p = pricing();
    // 1M uncached input ($3) + 400k 5-minute writes at $3.75 ($1.50) +
    // 600k 1-hour writes at $6 ($3.60).
    let r = priced(
        &p,
        &usage_by_ttl(1_000_000, 400_000, 600_000, 0),
        "claude-test",
        None,
    );
    assert_eq!(r.card_usd, Some(8.1));
    assert_eq!(r.source, Some(CostSource::RateCard));
    // Every write at the 5-minute rate would have been $6.75.
    let all_5m = priced(
        &p,
        &usage(2_000_000, 0, 1_000_000, 0, 0),
        "claude-test",
        None,
    );
    assert_eq!(all_5m.card_usd, Some(6.75));
    assert!(
        !r.notes.iter().any(|n| n.contains("5-minute rate")),
        "{:?}",
        r.notes
    );
    // Only 1-hour writes: $6 for 1M.
    let r = priced(&p, &usage_by_ttl(0, 0, 1_000_000, 0), "claude-test", None);
    assert_eq!(r.card_usd, Some(6.0));
    // The earlier entry's rates on an earlier day: 1-hour at $4.
    let r = p.price(&PricedAttempt {
        usage: Some(&usage_by_ttl(0, 0, 1_000_000, 0)),
        no_usage_reason: "",
        model: Some("claude-test"),
        day: Some(date(2025, 5, 1)),
        cli_usd: None,
    });
    assert_eq!(r.card_usd, Some(4.0));
}

#[test]
fn the_builtin_cards_one_hour_rate_prices_a_claude_run_to_the_cent() {
    let p = Pricing::default();
    // 30k uncached input, 20k cache writes of which 15k for an hour, 2k
    // output, on Sonnet 4.5 ($3 input, $3.75 5-minute, $6 1-hour, $15
    // output): $0.09 + $0.01875 + $0.09 + $0.03 = $0.22875.
    let u = usage_by_ttl(30_000, 5_000, 15_000, 2_000);
    let r = p.price(&PricedAttempt {
        usage: Some(&u),
        no_usage_reason: "",
        model: Some("claude-sonnet-4-5-20250929"),
        day: Some(date(2025, 11, 29)),
        cli_usd: None,
    });
    let usd = r.card_usd.unwrap();
    assert!(same_cents(usd, 0.22875), "{usd}");
    assert!((usd - 0.22875).abs() < 1e-9, "{usd}");
    // At the 5-minute rate it would be $0.195: 3 cents less.
    assert!(!same_cents(usd, 0.195), "{usd}");
    // Every Anthropic entry: 1-hour writes at 2x input, 5-minute at 1.25x.
    let card = builtin_card().unwrap();
    let anthropic: Vec<&CardEntry> = card
        .entries
        .iter()
        .filter(|e| e.provider == "anthropic")
        .collect();
    assert!(!anthropic.is_empty());
    for e in anthropic {
        let m = &e.usd_per_million;
        let input = m.input.unwrap();
        assert_eq!(m.cache_write_1h, Some(input * 2.0), "{}", e.model);
        assert_eq!(m.cache_write_5m, Some(input * 1.25), "{}", e.model);
    }
}

#[test]
fn an_entry_without_a_one_hour_rate_does_not_price_one_hour_writes() {
    let p = pricing();
    // 5-minute writes only: priced, with the note that no write was
    // told to be a 1-hour one.
    let r = priced(
        &p,
        &usage_by_ttl(1_000_000, 1_000_000, 0, 0),
        "claude-no-hour",
        None,
    );
    assert_eq!(r.card_usd, Some(6.75));
    assert!(
        r.notes.iter().any(|n| n.contains("5-minute rate")),
        "{:?}",
        r.notes
    );
    // 1-hour writes: no card cost (not the 5-minute rate, not a guessed
    // multiple), and why; the CLI's own figure stands.
    let u = usage_by_ttl(1_000_000, 400_000, 600_000, 0);
    let r = priced(&p, &u, "claude-no-hour", Some(8.0));
    assert_eq!(r.card_usd, None);
    assert_eq!((r.usd, r.source), (Some(8.0), Some(CostSource::Cli)));
    let why = r.reason.unwrap();
    assert!(
        why.contains("no 1-hour cache write price (`usd_per_million.cache_write_1h`)")
            && why.contains("600000 1-hour cache write tokens"),
        "{why}"
    );
}
