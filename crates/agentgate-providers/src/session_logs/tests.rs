use std::io::Write;

use serde_json::json;

use super::lines::read_objects_from;
use super::*;

fn write_lines(path: &Path, lines: &[serde_json::Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::File::create(path).unwrap();
    for l in lines {
        writeln!(f, "{l}").unwrap();
    }
}

fn assistant(id: &str, block: serde_json::Value, input: u64, output: u64) -> serde_json::Value {
    json!({"type": "assistant", "isSidechain": false, "message": {"id": id, "role": "assistant",
        "model": "claude-x", "content": [block],
        "usage": {"input_tokens": input, "cache_read_input_tokens": 10,
                  "cache_creation_input_tokens": 0, "output_tokens": output}}})
}

fn user(text: &str) -> serde_json::Value {
    json!({"type": "user", "message": {"role": "user", "content": text}})
}

#[test]
fn claude_last_turn_reasoning_and_usage_per_message() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude/projects/-work-demo/S-1.jsonl");
    write_lines(
        &file,
        &[
            user("first"),
            assistant("m0", json!({"type": "thinking", "thinking": "old"}), 5, 1),
            user("second"),
            assistant(
                "m1",
                json!({"type": "thinking", "thinking": "Plan it."}),
                100,
                7,
            ),
            assistant(
                "m1",
                json!({"type": "tool_use", "name": "Bash", "input": {}}),
                100,
                7,
            ),
            json!({"type": "user", "message": {"content": [{"type": "tool_result", "content": "ok"}]}}),
            assistant("m2", json!({"type": "text", "text": "done"}), 120, 3),
        ],
    );
    let homes = CliHomes {
        home: Some(home.path().to_owned()),
        ..CliHomes::default()
    };
    let log = read_session_log("claude", &homes, Some(Path::new("/work/demo")), "S-1")
        .unwrap()
        .unwrap();
    assert_eq!(log.reasoning, ["Plan it."]);
    let u = log.usage.unwrap();
    // Two messages (m1 once), cache reads added to the input.
    assert_eq!((u.input_tokens, u.output_tokens), (240, 10));
    assert_eq!(u.cache_read_input_tokens, 20);
    assert_eq!(log.model.as_deref(), Some("claude-x"));
    assert_eq!(log.path, file);
    // Found from another folder too; CLAUDE_CONFIG_DIR moves it.
    assert!(
        read_session_log("claude", &homes, None, "S-1")
            .unwrap()
            .is_some()
    );
    let moved = CliHomes {
        home: Some(home.path().to_owned()),
        claude_config_dir: Some(home.path().join("elsewhere")),
        ..CliHomes::default()
    };
    assert!(
        read_session_log("claude", &moved, None, "S-1")
            .unwrap()
            .is_none()
    );
    assert!(
        read_session_log("claude", &homes, None, "../S-1")
            .unwrap()
            .is_none()
    );
}

#[test]
fn claude_session_usage_keeps_the_one_hour_cache_writes() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude/projects/-work-demo/S-2.jsonl");
    let with_writes = |id: &str, write_5m: u64, write_1h: u64| {
        let mut a = assistant(id, json!({"type": "text", "text": "x"}), 50, 2);
        a["message"]["usage"]["cache_creation_input_tokens"] = json!(write_5m + write_1h);
        a["message"]["usage"]["cache_creation"] = json!({
            "ephemeral_5m_input_tokens": write_5m, "ephemeral_1h_input_tokens": write_1h});
        a
    };
    write_lines(
        &file,
        &[
            user("go"),
            with_writes("m1", 100, 300),
            with_writes("m1", 100, 300),
            with_writes("m2", 0, 40),
        ],
    );
    let homes = CliHomes {
        home: Some(home.path().to_owned()),
        ..CliHomes::default()
    };
    let u = read_session_log("claude", &homes, Some(Path::new("/work/demo")), "S-2")
        .unwrap()
        .unwrap()
        .usage
        .unwrap();
    // m1 once: 400 + 40 writes, of which 340 for an hour.
    assert_eq!(u.cache_creation_input_tokens, 440);
    assert_eq!(u.cache_creation_1h_input_tokens, 340);
}

fn event(kind: &str, payload: serde_json::Value) -> serde_json::Value {
    let mut p = payload;
    p["type"] = json!(kind);
    json!({"timestamp": "2026-11-21T22:00:54.820Z", "type": "event_msg", "payload": p})
}

fn totals(input: u64, output: u64) -> serde_json::Value {
    event(
        "token_count",
        json!({"info": {"total_token_usage": {"input_tokens": input, "cached_input_tokens": 0,
            "output_tokens": output, "reasoning_output_tokens": 1, "total_tokens": input + output},
            "last_token_usage": {"input_tokens": 1, "output_tokens": 1}}}),
    )
}

fn reasoning(text: &str) -> serde_json::Value {
    json!({"type": "response_item", "payload": {"type": "reasoning",
        "summary": [{"type": "summary_text", "text": text}], "content": null}})
}

#[test]
fn codex_turn_usage_is_its_total_minus_the_one_before() {
    let home = tempfile::tempdir().unwrap();
    let id = "01a20020-6d01-7843-8a61-1e5f3dd9782d";
    let file = home.path().join(format!(
        "sessions/2026/11/21/rollout-2026-11-21T22-00-54-{id}.jsonl"
    ));
    write_lines(
        &file,
        &[
            json!({"type": "session_meta", "payload": {"id": id}}),
            event("task_started", json!({})),
            reasoning("first thought"),
            totals(9516, 9),
            event("token_count", json!({"info": null})),
            totals(19178, 18),
            event("task_started", json!({})),
            json!({"type": "turn_context", "payload": {"model": "gpt-5.5"}}),
            reasoning("**Plan** answer"),
            event(
                "token_count",
                json!({"info": {"total_token_usage": {"input_tokens": 28958, "output_tokens": 27},
                    "last_token_usage": {"input_tokens": 9700, "cached_input_tokens": 9000,
                        "output_tokens": 20}}}),
            ),
        ],
    );
    let homes = CliHomes {
        codex_home: Some(home.path().to_owned()),
        ..CliHomes::default()
    };
    let log = read_session_log("codex", &homes, None, id)
        .unwrap()
        .unwrap();
    assert_eq!(log.reasoning, ["**Plan** answer"]);
    let u = log.usage.unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.total_tokens),
        (9780, 9, 9789)
    );
    // The context after the turn: its last request's input (cached
    // included) + output, not the turn's sum.
    assert_eq!(u.context_tokens, Some(9720));
    assert_eq!(log.model.as_deref(), Some("gpt-5.5"));
    let rollout = read_rollout(&file).unwrap();
    assert_eq!(rollout.turns.len(), 2);
    assert_eq!(
        rollout.turns[1]
            .total_before
            .as_ref()
            .map(|u| u.input_tokens),
        Some(19178)
    );
    assert_eq!(
        rollout.turns[0].usage().map(|u| u.input_tokens),
        Some(19178)
    );
    assert_eq!(rollout.turns[0].context_tokens(), Some(2));
    assert!(find_rollout(home.path(), "nope").is_none());
}

#[test]
fn bad_lines_are_skipped_with_a_note() {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(b"{\"a\":1}\n");
    bytes.extend_from_slice(b"{\"b\":\xff}\n");
    bytes.extend_from_slice(b"not json\n");
    bytes.extend_from_slice(b"[1]\n");
    bytes.extend_from_slice(format!("{{\"long\":\"{}\"}}\n", "x".repeat(100)).as_bytes());
    bytes.extend_from_slice(b"\n{\"c\":2}");
    let read = read_objects_from(&bytes[..], 64).unwrap();
    let keys: Vec<&str> = read
        .objects
        .iter()
        .map(|o| o.keys().next().unwrap().as_str())
        .collect();
    assert_eq!(keys, ["a", "c"]);
    assert_eq!(read.skipped.len(), 4, "{:?}", read.skipped);
    assert!(read.skipped[0].starts_with("line 2: not UTF-8"));
    assert!(read.skipped[1].starts_with("line 3: not JSON"));
    assert!(read.skipped[2].starts_with("line 4: JSON but not an object"));
    assert!(
        read.skipped[3].starts_with("line 5: 111 bytes, over the 64-byte limit"),
        "{}",
        read.skipped[3]
    );
}

#[test]
fn a_bad_line_in_a_session_file_is_skipped_not_fatal() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join(".claude/projects/p/S2.jsonl");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    let mut text = format!("{}\n", user("go")).into_bytes();
    text.extend_from_slice(b"\xc3\x28 broken\n");
    text.extend_from_slice(
        format!(
            "{}\n",
            assistant("m", json!({"type": "thinking", "thinking": "ok"}), 1, 1)
        )
        .as_bytes(),
    );
    std::fs::write(&file, text).unwrap();
    let homes = CliHomes {
        home: Some(home.path().to_owned()),
        ..CliHomes::default()
    };
    let log = read_session_log("claude", &homes, None, "S2")
        .unwrap()
        .unwrap();
    assert_eq!(log.reasoning, ["ok"]);
    assert_eq!(log.skipped, ["line 2: not UTF-8"]);
}

#[test]
fn gemini_last_turn_thoughts_and_tokens() {
    let home = tempfile::tempdir().unwrap();
    let id = "abcdef12-3456-7890-abcd-ef1234567890";
    let chats = home.path().join(".gemini/tmp/proj/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let tokens = |input: u64| json!({"input": input, "output": 5, "cached": 2, "thoughts": 3, "tool": 1, "total": input + 9});
    let session = json!({"sessionId": id, "messages": [
        {"id": "1", "type": "user", "content": "first"},
        {"id": "2", "type": "gemini", "content": "a", "model": "gemini-x",
         "thoughts": [{"subject": "Old", "description": "old"}], "tokens": tokens(10)},
        {"id": "3", "type": "user", "content": "second"},
        {"id": "4", "type": "gemini", "content": "b", "model": "gemini-y",
         "thoughts": [{"subject": "Plan", "description": "answer b"}], "tokens": tokens(20)},
    ]});
    std::fs::write(
        chats.join("session-2026-11-29T08-00-abcdef12.json"),
        session.to_string(),
    )
    .unwrap();
    let homes = CliHomes {
        home: Some(home.path().to_owned()),
        ..CliHomes::default()
    };
    let log = read_session_log("gemini", &homes, None, id)
        .unwrap()
        .unwrap();
    assert_eq!(log.reasoning, ["Plan\nanswer b"]);
    let u = log.usage.unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.reasoning_tokens),
        (21, 8, 3)
    );
    assert_eq!(u.cache_read_input_tokens, 2);
    // The last model message's prompt + output: 20 + 1 tool, 5 + 3 thoughts.
    assert_eq!(u.context_tokens, Some(29));
    assert_eq!(log.model.as_deref(), Some("gemini-y"));
    assert!(
        read_session_log("gemini", &homes, None, "nope")
            .unwrap()
            .is_none()
    );
}
