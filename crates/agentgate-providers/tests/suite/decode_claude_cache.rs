//! Claude Code's cache writes by lifetime: lines shaped like the captures
//! (`assistant` lines repeating a message's usage, the `result` record
//! with `usage` and `modelUsage`) whose `cache_creation` splits the writes
//! into 5-minute and 1-hour ones. The decoder keeps the 1-hour part
//! (`cache_creation_1h_input_tokens`) in each message's usage event and in
//! the final record, each message once, and the envelope carries it.
#![expect(clippy::panic, reason = "tests fail loudly on unexpected input")]

use agentgate_protocol::{EventBody, UsageScope};
use agentgate_providers::claude::ClaudeDecoder;
use agentgate_providers::decode::{Decoded, Decoder};
use agentgate_providers::{Accumulator, Finish};
use serde_json::{Value, json};

/// An `assistant` line of message `id` with one text block and `usage`.
fn assistant(id: &str, text: &str, usage: Value) -> String {
    json!({
        "type": "assistant",
        "message": {
            "id": id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{"type": "text", "text": text}],
            "stop_reason": null, "usage": usage,
        },
        "parent_tool_use_id": null,
        "session_id": "11111111-2222-4333-8444-555555555557",
    })
    .to_string()
}

/// A message's usage as Claude Code prints it: `write_5m` and `write_1h`
/// cache writes (the split under `cache_creation` when `split`).
fn message_usage(input: u64, read: u64, write_5m: u64, write_1h: u64, split: bool) -> Value {
    let mut u = json!({
        "input_tokens": input,
        "cache_creation_input_tokens": write_5m + write_1h,
        "cache_read_input_tokens": read,
        "output_tokens": 1,
        "service_tier": "standard",
    });
    if split {
        u["cache_creation"] = json!({
            "ephemeral_5m_input_tokens": write_5m,
            "ephemeral_1h_input_tokens": write_1h,
        });
    }
    u
}

/// The `result` record: `usage` (with the split when `split`) and the
/// per-model totals, whose cache writes are `model_writes`.
fn result(usage: Value, model_writes: u64) -> String {
    json!({
        "type": "result", "subtype": "success", "is_error": false,
        "duration_ms": 2711, "num_turns": 2, "result": "Cached.",
        "session_id": "11111111-2222-4333-8444-555555555557",
        "total_cost_usd": 0.0421,
        "usage": usage,
        "modelUsage": {"claude-sonnet-4-5-20250929": {
            "inputTokens": 30, "outputTokens": 14, "cacheReadInputTokens": 9000,
            "cacheCreationInputTokens": model_writes, "webSearchRequests": 0,
            "costUSD": 0.0421, "contextWindow": 200000,
        }},
    })
    .to_string()
}

/// Two messages: the first (two lines, one id) writes 1000 tokens for 5
/// minutes and 3000 for an hour, the second 500 for an hour.
fn messages(split: bool) -> Vec<String> {
    let first = message_usage(10, 4000, 1000, 3000, split);
    vec![
        assistant("msg_01", "Reading.", first.clone()),
        assistant("msg_01", "Still reading.", first),
        assistant("msg_02", "Cached.", message_usage(20, 5000, 0, 500, split)),
    ]
}

fn decode(lines: &[String]) -> Vec<Decoded> {
    let mut d = ClaudeDecoder::new();
    let mut out = Vec::new();
    for line in lines {
        d.stdout_line(line.as_bytes(), &mut out);
    }
    d.finish(&mut out);
    out
}

/// The 1-hour writes of each message's usage event, in order.
fn turn_1h(items: &[Decoded]) -> Vec<u64> {
    items
        .iter()
        .filter_map(|i| match i {
            Decoded::Event(EventBody::Usage(u)) if u.scope == UsageScope::Turn => {
                Some(u.usage.cache_creation_1h_input_tokens)
            }
            _ => None,
        })
        .collect()
}

/// The final record's usage as (cache writes, of which 1-hour).
fn final_writes(items: &[Decoded]) -> (u64, u64) {
    let u = items
        .iter()
        .find_map(|i| match i {
            Decoded::Final(f) => f.usage.clone(),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no final usage in {items:#?}"));
    (
        u.cache_creation_input_tokens,
        u.cache_creation_1h_input_tokens,
    )
}

#[test]
fn the_results_split_gives_the_one_hour_writes_each_message_once() {
    let mut lines = messages(true);
    lines.push(result(message_usage(30, 9000, 1000, 3500, true), 4500));
    let items = decode(&lines);
    // One usage event per message id, each with its own 1-hour part.
    assert_eq!(turn_1h(&items), [3000, 500]);
    assert_eq!(final_writes(&items), (4500, 3500));
    // The envelope keeps it, as a part of the writes.
    let mut acc = Accumulator::new("claude");
    for i in &items {
        acc.observe(i);
    }
    let env = acc.finish(Finish::default());
    assert_eq!(env.tokens_used.cache_creation_input_tokens, 4500);
    assert_eq!(env.tokens_used.cache_creation_1h_input_tokens, 3500);
    assert_eq!(env.tokens_used.input_tokens, 30 + 9000 + 4500);
    let json = serde_json::to_value(&env.tokens_used).unwrap();
    assert_eq!(json["cache_creation_1h_input_tokens"], 3500);
}

#[test]
fn without_the_results_split_the_messages_give_it() {
    // A result whose usage does not split the writes (an older Claude
    // Code): the messages' 1-hour writes, the repeated line counted once.
    let mut lines = messages(true);
    lines.push(result(message_usage(30, 9000, 1000, 3500, false), 4500));
    assert_eq!(final_writes(&decode(&lines)), (4500, 3500));
    // Nobody splits: every write is a 5-minute one.
    let mut lines = messages(false);
    lines.push(result(message_usage(30, 9000, 1000, 3500, false), 4500));
    let items = decode(&lines);
    assert_eq!(turn_1h(&items), [0, 0]);
    assert_eq!(final_writes(&items), (4500, 0));
}

#[test]
fn the_one_hour_part_is_never_more_than_the_writes() {
    // `modelUsage` (what the final record's figures come from) says 2000
    // writes; the result's split says 3500 of an hour.
    let mut lines = messages(true);
    lines.push(result(message_usage(30, 9000, 1000, 3500, true), 2000));
    assert_eq!(final_writes(&decode(&lines)), (2000, 2000));
    // A message whose split says more than its writes.
    let odd = json!({"input_tokens": 5, "cache_creation_input_tokens": 10,
        "cache_creation": {"ephemeral_5m_input_tokens": 0, "ephemeral_1h_input_tokens": 99}});
    let items = decode(&[assistant("msg_09", "x", odd)]);
    assert_eq!(turn_1h(&items), [10]);
}
