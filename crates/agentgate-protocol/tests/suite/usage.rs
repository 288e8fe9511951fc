use agentgate_protocol::Usage;
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
