use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::*;

fn scope_with(input: Value) -> Scope {
    Scope {
        input,
        steps: BTreeMap::from([(
            "review".to_owned(),
            json!({"status": "succeeded", "output": {"approve": true, "choice": "fix"}}),
        )]),
        ..Scope::default()
    }
}

/// Whether `condition` holds; `None` when it does not parse.
fn holds(condition: &str, input: Value) -> Option<bool> {
    Condition::parse(condition)
        .ok()
        .map(|c| c.eval(&scope_with(input)))
}

#[test]
fn a_lone_operand_is_tested_for_truth() {
    for falsy in [
        json!(null),
        json!(false),
        json!(0),
        json!(0.0),
        json!(""),
        json!([]),
        json!({}),
    ] {
        assert_eq!(
            Some(false),
            holds("${input.x}", json!({"x": falsy.clone()})),
            "{falsy}"
        );
        assert_eq!(
            Some(true),
            holds("!${input.x}", json!({"x": falsy.clone()})),
            "{falsy}"
        );
        assert_eq!(Some(true), holds("not ${input.x}", json!({"x": falsy})));
    }
    for truthy in [
        json!(true),
        json!(1),
        json!(-0.5),
        json!("no"),
        json!("false"),
        json!([0]),
        json!({"a": null}),
    ] {
        assert_eq!(
            Some(true),
            holds("${input.x}", json!({"x": truthy.clone()})),
            "{truthy}"
        );
        assert_eq!(Some(false), holds("! ${input.x}", json!({"x": truthy})));
    }
    assert_eq!(
        Some(true),
        holds("${steps.review.output.approve}", json!({}))
    );
    assert_eq!(Some(true), holds("true", json!({})));
    assert_eq!(Some(false), holds("false", json!({})));
    assert_eq!(Some(false), holds("0", json!({})));
    assert_eq!(Some(true), holds("word", json!({})));
}

#[test]
fn a_missing_value_is_null() {
    assert_eq!(Some(false), holds("${input.missing}", json!({})));
    assert_eq!(
        Some(true),
        holds("!${steps.never_ran.output.ok}", json!({}))
    );
    assert_eq!(Some(true), holds("${input.missing} == null", json!({})));
    assert_eq!(Some(true), holds("${input.a.b.c} != fix", json!({})));
}

#[test]
fn equality_compares_json_values_and_numbers_by_value() {
    assert_eq!(
        Some(true),
        holds("${steps.review.output.choice} == fix", json!({}))
    );
    assert_eq!(
        Some(true),
        holds("${steps.review.output.choice} == 'fix'", json!({}))
    );
    assert_eq!(
        Some(true),
        holds("${steps.review.output.choice}==\"fix\"", json!({}))
    );
    assert_eq!(
        Some(false),
        holds("${steps.review.output.choice} == skip", json!({}))
    );
    assert_eq!(
        Some(true),
        holds("${steps.review.output.choice} != skip", json!({}))
    );
    assert_eq!(
        Some(true),
        holds("fix == ${steps.review.output.choice}", json!({}))
    );
    assert_eq!(Some(true), holds("${input.n} == 3", json!({"n": 3})));
    assert_eq!(Some(true), holds("${input.n} == 3", json!({"n": 3.0})));
    assert_eq!(Some(true), holds("${input.n} == 3.0", json!({"n": 3})));
    assert_eq!(Some(true), holds("${input.n} == -2", json!({"n": -2})));
    assert_eq!(Some(false), holds("${input.n} == 4", json!({"n": 3})));
    assert_eq!(
        Some(true),
        holds(
            "${input.a} == ${input.b}",
            json!({"a": [1, {"x": 2}], "b": [1, {"x": 2}]})
        )
    );
    assert_eq!(
        Some(false),
        holds("${input.a} == ${input.b}", json!({"a": [1], "b": [2]}))
    );
    assert_eq!(
        Some(true),
        holds("${input.ok} == true", json!({"ok": true}))
    );
    assert_eq!(Some(true), holds("${input.v} == null", json!({"v": null})));
    // null is not the string "null", and false is not 0.
    assert_eq!(
        Some(false),
        holds("${input.v} == 'null'", json!({"v": null}))
    );
    assert_eq!(Some(false), holds("${input.v} == 0", json!({"v": false})));
    // Quoted, a number or a keyword is a string.
    assert_eq!(Some(true), holds("${input.s} == '3'", json!({"s": "3"})));
    assert_eq!(
        Some(true),
        holds("${input.s} == 'two words'", json!({"s": "two words"}))
    );
}

#[test]
fn a_string_against_a_number_or_a_boolean_compares_their_text() {
    assert_eq!(Some(true), holds("${input.n} == 3", json!({"n": "3"})));
    assert_eq!(Some(true), holds("${input.n} == '3'", json!({"n": 3})));
    assert_eq!(
        Some(true),
        holds("${input.b} == true", json!({"b": "true"}))
    );
    assert_eq!(
        Some(true),
        holds("${input.b} == 'false'", json!({"b": false}))
    );
    assert_eq!(Some(false), holds("${input.n} == 3", json!({"n": "3.0"})));
    assert_eq!(Some(true), holds("${input.n} != 3", json!({"n": "03"})));
}

#[test]
fn negation_applies_to_the_whole_comparison() {
    assert_eq!(
        Some(false),
        holds("!${input.c} == fix", json!({"c": "fix"}))
    );
    assert_eq!(
        Some(true),
        holds("not ${input.c} == fix", json!({"c": "skip"}))
    );
    assert_eq!(
        Some(true),
        holds("not ${input.c} != fix", json!({"c": "fix"}))
    );
}

#[test]
fn references_are_listed() {
    let c = Condition::parse("${steps.a.output} == ${input.b}").unwrap();
    let texts: Vec<&str> = c.references().map(|r| r.text.as_str()).collect();
    assert_eq!(texts, ["steps.a.output", "input.b"]);
    let c = Condition::parse("!${steps.x.status}").unwrap();
    assert_eq!(c.references().next().unwrap().step(), Some("x"));
    assert_eq!(Condition::parse("a == b").unwrap().references().count(), 0);
}

#[test]
fn malformed_conditions_are_refused() {
    let err = |t: &str| Condition::parse(t).unwrap_err();
    assert!(err("").contains("empty condition"));
    assert!(err("  ").contains("empty condition"));
    assert!(err("!").contains("value is missing"));
    assert!(err("${input.x").contains("unclosed `${`"));
    assert!(err("${nope.x}").contains("unknown root `nope`"));
    assert!(err("${input.x} ==").contains("value is missing"));
    assert!(err("== 3").contains("value is missing"));
    assert!(err("${input.x} = 3").contains("expected `==` or `!=`"));
    assert!(err("${input.x} fix").contains("expected `==` or `!=`"));
    assert!(err("a == b == c").contains("one `==` or `!=`"));
    assert!(err("${input.x}-suffix == a").contains("text right after"));
    assert!(err("'open == a").contains("unclosed '"));
    assert!(err("${input.x} == \"open").contains("unclosed \""));
    assert!(err("'${input.x}' == a").contains("quoted string is literal"));
    assert!(err("pre${input.x} == a").contains("mixes text and a reference"));
}
