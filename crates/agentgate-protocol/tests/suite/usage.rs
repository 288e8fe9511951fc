use agentgate_protocol::{TokensUsed, Usage};
use serde_json::json;

use super::samples;

#[test]
fn wire_shape() {
    assert_eq!(
        serde_json::to_value(samples::usage()).unwrap(),
        json!({
            "input_tokens": 1200,
            "output_tokens": 450,
            "cache_read_input_tokens": 800,
            "cache_creation_input_tokens": 100,
            "reasoning_tokens": 120,
            "total_tokens": 1650,
            "cost_usd": 0.012,
            "context_tokens": 1650,
            "estimated": false,
        })
    );
}

#[test]
fn unknown_cost_and_context_are_null_not_zero() {
    assert_eq!(
        serde_json::to_value(Usage::default()).unwrap(),
        json!({
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_input_tokens": 0,
            "cache_creation_input_tokens": 0,
            "reasoning_tokens": 0,
            "total_tokens": 0,
            "cost_usd": null,
            "context_tokens": null,
            "estimated": false,
        })
    );
}

#[test]
fn missing_counts_read_as_zero() {
    let usage: Usage = serde_json::from_value(json!({"input_tokens": 5})).unwrap();
    assert_eq!(
        usage,
        Usage {
            input_tokens: 5,
            ..Usage::default()
        }
    );
}

#[test]
fn cache_figures_are_part_of_input() {
    assert_eq!(samples::usage().uncached_input_tokens(), 300);
    let inconsistent = Usage {
        input_tokens: 1,
        cache_read_input_tokens: 5,
        ..Usage::default()
    };
    assert_eq!(inconsistent.uncached_input_tokens(), 0);
}

#[test]
fn one_hour_cache_writes_are_a_part_of_the_cache_writes() {
    // Absent from the JSON when 0, and from old records: read as 0.
    let old: Usage = serde_json::from_value(json!({"cache_creation_input_tokens": 100})).unwrap();
    assert_eq!(old.cache_creation_1h_input_tokens, 0);
    assert_eq!(
        (old.cache_write_5m_tokens(), old.cache_write_1h_tokens()),
        (100, 0)
    );
    let u = Usage {
        input_tokens: 1000,
        cache_creation_input_tokens: 100,
        cache_creation_1h_input_tokens: 60,
        ..Usage::default()
    };
    let v = serde_json::to_value(&u).unwrap();
    assert_eq!(v["cache_creation_1h_input_tokens"], 60);
    assert_eq!(serde_json::from_value::<Usage>(v).unwrap(), u);
    // A part of the writes, not added to them: input stays as it was.
    assert_eq!(
        (u.cache_write_5m_tokens(), u.cache_write_1h_tokens()),
        (40, 60)
    );
    assert_eq!(u.uncached_input_tokens(), 900);
    // Summed like every count.
    let mut sum = u.clone();
    sum.add_counts(&u);
    assert_eq!(sum.cache_creation_1h_input_tokens, 120);
    // Never more than the writes, whatever a source said.
    let odd = Usage {
        cache_creation_input_tokens: 10,
        cache_creation_1h_input_tokens: 50,
        ..Usage::default()
    };
    assert_eq!(
        (odd.cache_write_5m_tokens(), odd.cache_write_1h_tokens()),
        (0, 10)
    );
    // The envelope keeps it.
    let t = TokensUsed::from_usage(&u, "");
    assert_eq!(t.cache_creation_1h_input_tokens, 60);
    let t = serde_json::to_value(&t).unwrap();
    assert_eq!(t["cache_creation_1h_input_tokens"], 60);
    let old: TokensUsed = serde_json::from_value(json!({"input_tokens": 5})).unwrap();
    assert_eq!(old.cache_creation_1h_input_tokens, 0);
}

#[test]
fn envelope_figures_add_up_and_an_unknown_cost_stays_unknown_only_when_every_cost_is() {
    let priced = TokensUsed {
        input_tokens: 100,
        output_tokens: 20,
        estimated_output_tokens: 18,
        total_tokens: 120,
        cost_usd: Some(0.25),
        cache_read_input_tokens: 40,
        cache_creation_input_tokens: 10,
        cache_creation_1h_input_tokens: 4,
        estimated: false,
    };
    let unpriced = TokensUsed {
        input_tokens: 7,
        output_tokens: 3,
        total_tokens: 10,
        cost_usd: None,
        estimated: true,
        ..TokensUsed::default()
    };
    let mut sum = TokensUsed::default();
    sum.add(&unpriced);
    assert_eq!(sum.cost_usd, None, "no cost known yet");
    sum.add(&priced);
    sum.add(&priced);
    assert_eq!(
        sum,
        TokensUsed {
            input_tokens: 207,
            output_tokens: 43,
            estimated_output_tokens: 36,
            total_tokens: 250,
            cost_usd: Some(0.5),
            cache_read_input_tokens: 80,
            cache_creation_input_tokens: 20,
            cache_creation_1h_input_tokens: 8,
            estimated: true,
        }
    );
}
