//! The stream decoders of Claude Code, Codex and Gemini CLI on real
//! captured output (tests/fixtures/decode/), on edited and broken streams,
//! and under a bounded pseudo-random mutation loop.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on unexpected input"
)]

use std::path::{Path, PathBuf};

use agentgate_protocol::{
    EventBody, MessageEvent, RateLimitEvent, RateLimitStatus, RawEvent, RawStream, SessionEvent,
    StatusEvent, TextDeltaEvent, ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent, Usage,
    UsageEvent, UsageScope,
};
use agentgate_providers::claude::ClaudeDecoder;
use agentgate_providers::codex::CodexDecoder;
use agentgate_providers::decode::{Decoded, Decoder, ProviderError, ProviderFinal};
use agentgate_providers::gemini::GeminiDecoder;
use agentgate_providers::gemini::session::{
    GeminiTokens, find_session_file, parse_session, read_session, recovered_thoughts,
};
use serde_json::{Value, json};

// ---------------------------------------------------------------- helpers

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/decode")
}

fn read(cli: &str, name: &str) -> Vec<u8> {
    let path = fixture_dir().join(cli).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()))
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn decoder(cli: &str) -> Box<dyn Decoder> {
    match cli {
        "claude" => Box::new(ClaudeDecoder::new()),
        "codex" => Box::new(CodexDecoder::new()),
        "gemini" => Box::new(GeminiDecoder::new()),
        other => panic!("no decoder for {other}"),
    }
}

/// Decodes `stdout` then `stderr` then finishes.
fn decode_bytes(cli: &str, stdout: &[u8], stderr: &[u8]) -> Vec<Decoded> {
    let mut d = decoder(cli);
    let mut out = Vec::new();
    for line in lines(stdout) {
        d.stdout_line(line, &mut out);
    }
    for line in lines(stderr) {
        d.stderr_line(line, &mut out);
    }
    d.finish(&mut out);
    out
}

/// Decodes a capture's stdout (and stderr).
fn decode(cli: &str, case: &str) -> Vec<Decoded> {
    let stdout = read(cli, &format!("{case}.stdout"));
    let stderr = read(cli, &format!("{case}.stderr"));
    let mut items = decode_bytes(cli, &stdout, &stderr);
    // serde_json parses a decimal to the nearest double only with its
    // `float_roundtrip` feature, which some builds of the workspace enable
    // and others not: compare costs to a nanodollar.
    for d in &mut items {
        let usage = match d {
            Decoded::Final(f) => f.usage.as_mut(),
            Decoded::Event(EventBody::Usage(u)) => Some(&mut u.usage),
            _ => None,
        };
        if let Some(u) = usage
            && let Some(c) = u.cost_usd.as_mut()
        {
            *c = (*c * 1e9).round() / 1e9;
        }
    }
    items
}

/// The decoded items that are not raw lines.
fn decoded(items: &[Decoded]) -> Vec<Decoded> {
    items
        .iter()
        .filter(|d| !matches!(d, Decoded::Event(EventBody::Raw(_))))
        .cloned()
        .collect()
}

fn raws(items: &[Decoded]) -> Vec<RawEvent> {
    items
        .iter()
        .filter_map(|d| match d {
            Decoded::Event(EventBody::Raw(r)) => Some(r.clone()),
            _ => None,
        })
        .collect()
}

/// A field of the first JSON line of a capture (ids that change when the
/// `fake_*` fixtures are made again).
fn first_field(cli: &str, case: &str, field: &str) -> String {
    let stdout = read(cli, &format!("{case}.stdout"));
    if let Ok(whole) = serde_json::from_slice::<Value>(&stdout) {
        return whole[field].as_str().unwrap().to_owned();
    }
    lines(&stdout)
        .into_iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .find_map(|v| v.get(field).and_then(Value::as_str).map(str::to_owned))
        .unwrap()
}

fn ev(body: EventBody) -> Decoded {
    Decoded::Event(body)
}

fn session(id: &str, model: Option<&str>) -> Decoded {
    ev(EventBody::Session(SessionEvent {
        session_id: id.into(),
        model: model.map(Into::into),
    }))
}

fn message(text: &str) -> Decoded {
    ev(EventBody::Message(MessageEvent { text: text.into() }))
}

fn delta(text: &str) -> Decoded {
    ev(EventBody::TextDelta(TextDeltaEvent { text: text.into() }))
}

fn thinking(text: &str) -> Decoded {
    ev(EventBody::Thinking(ThinkingEvent { text: text.into() }))
}

fn tool_use(id: &str, name: &str, class: ToolClass, input: Value) -> Decoded {
    ev(EventBody::ToolUse(ToolUseEvent {
        id: id.into(),
        name: name.into(),
        class,
        input,
    }))
}

fn tool_result(id: &str, ok: bool, output: &str, exit_code: Option<i32>) -> Decoded {
    ev(EventBody::ToolResult(ToolResultEvent {
        id: id.into(),
        ok,
        output: output.into(),
        truncated: false,
        original_bytes: None,
        exit_code,
    }))
}

/// Usage in the protocol's terms from uncached input, cache reads, cache
/// writes and output.
fn usage(input: u64, cache_read: u64, cache_write: u64, output: u64) -> Usage {
    let input_tokens = input + cache_read + cache_write;
    Usage {
        input_tokens,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        cache_creation_input_tokens: cache_write,
        total_tokens: input_tokens + output,
        ..Usage::default()
    }
}

fn turn_usage(u: Usage) -> Decoded {
    let context = u.input_tokens + u.output_tokens;
    ev(EventBody::Usage(UsageEvent {
        scope: UsageScope::Turn,
        usage: Usage {
            context_tokens: Some(context),
            ..u
        },
    }))
}

fn retry(
    attempt: u32,
    max: Option<u32>,
    delay: Option<u64>,
    status: Option<u16>,
    detail: &str,
) -> Decoded {
    ev(EventBody::Status(StatusEvent::Retry {
        retry_attempt: Some(attempt),
        max_retries: max,
        delay_ms: delay,
        provider_status: status,
        detail: Some(detail.into()),
    }))
}

fn perr(message: &str, status: Option<u16>, code: Option<&str>, terminal: bool) -> Decoded {
    Decoded::ProviderError(ProviderError {
        message: message.into(),
        http_status: status,
        code: code.map(Into::into),
        terminal,
    })
}

fn finals(items: &[Decoded]) -> Vec<ProviderFinal> {
    items
        .iter()
        .filter_map(|d| match d {
            Decoded::Final(f) => Some(f.clone()),
            _ => None,
        })
        .collect()
}

fn errors(items: &[Decoded]) -> Vec<ProviderError> {
    items
        .iter()
        .filter_map(|d| match d {
            Decoded::ProviderError(e) => Some(e.clone()),
            _ => None,
        })
        .collect()
}

fn all_cases(cli: &str) -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(fixture_dir().join(cli))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".stdout").map(str::to_owned)
        })
        .collect();
    cases.sort();
    cases
}

// ----------------------------------------------------------------- Claude

#[test]
fn claude_plain_answer() {
    let items = decode("claude", "text_stream_json");
    let id = "9b40332f-0a4a-40ec-befc-135af2dd08ef";
    assert_eq!(
        items,
        vec![
            session(id, Some("claude-opus-4-8[1m]")),
            turn_usage(usage(18988, 0, 0, 1)),
            message("done"),
            Decoded::Final(ProviderFinal {
                text: Some("done".into()),
                session_id: Some(id.into()),
                is_error: false,
                usage: Some(Usage {
                    cost_usd: Some(0.095115),
                    context_tokens: Some(18989),
                    ..usage(18988, 0, 0, 7)
                }),
                num_turns: Some(1),
            }),
        ]
    );
}

#[test]
fn claude_tool_call_with_thinking_one_usage_per_message() {
    let items = decode("claude", "tool_stream_json");
    let id = "358ff9e1-c88e-4a8a-b341-e15832f54555";
    let tool = "toolu_1a0e89e60cc14b24af90";
    assert_eq!(
        decoded(&items),
        vec![
            session(id, Some("claude-opus-4-8[1m]")),
            turn_usage(usage(18996, 0, 0, 1)),
            thinking("Fake reasoning: the user wants a short answer."),
            message("I'll run the command."),
            tool_use(
                tool,
                "Bash",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result(tool, true, "(Bash completed with no output)", Some(0)),
            turn_usage(usage(19108, 0, 0, 1)),
            message("done"),
            Decoded::Final(ProviderFinal {
                text: Some("done".into()),
                session_id: Some(id.into()),
                is_error: false,
                usage: Some(Usage {
                    // `0.19086999999999998` as serde_json reads it.
                    cost_usd: Some(0.19087),
                    context_tokens: Some(19109),
                    ..usage(38104, 0, 0, 14)
                }),
                num_turns: Some(2),
            }),
        ]
    );
    // The one line the decoder has no event for is kept.
    let raw = raws(&items);
    assert_eq!(raw.len(), 1);
    assert!(
        raw[0].line.contains(r#""subtype":"thinking_tokens""#),
        "{raw:?}"
    );
}

#[test]
fn claude_tools_cache_figures_failed_command_and_write() {
    let items = decode("claude", "fake_tools_stream_json");
    let id = first_field("claude", "fake_tools_stream_json", "session_id");
    let billing = Usage {
        cost_usd: Some(0.0040725),
        context_tokens: Some(751),
        ..usage(1000, 800, 30, 48)
    };
    assert_eq!(
        decoded(&items),
        vec![
            session(&id, Some("claude-sonnet-4-5")),
            turn_usage(usage(100, 50, 20, 1)),
            thinking("Plan: create the file with echo."),
            message("I'll create the file."),
            tool_use(
                "call_000000000001",
                "Bash",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result(
                "call_000000000001",
                true,
                "(Bash completed with no output)",
                Some(0)
            ),
            turn_usage(usage(200, 150, 0, 1)),
            message("Now a failing command."),
            tool_use(
                "call_000000000003",
                "Bash",
                ToolClass::Shell,
                json!({"command": "ls /nonexistent-agentgate-dir"})
            ),
            tool_result(
                "call_000000000003",
                false,
                "Exit code 2\nls: cannot access '/nonexistent-agentgate-dir': No such file or directory",
                Some(2)
            ),
            turn_usage(usage(300, 250, 10, 1)),
            tool_use(
                "call_000000000005",
                "Write",
                ToolClass::Write,
                json!({"file_path": "notes.txt", "content": "some notes\n"})
            ),
            tool_result(
                "call_000000000005",
                true,
                "File created successfully at: notes.txt (file state is current in your context — no need to Read it back)",
                None
            ),
            turn_usage(usage(400, 350, 0, 1)),
            thinking("All three tools ran."),
            message("Created hello.txt and notes.txt."),
            Decoded::Final(ProviderFinal {
                text: Some("Created hello.txt and notes.txt.".into()),
                session_id: Some(id.clone()),
                is_error: false,
                usage: Some(billing.clone()),
                num_turns: Some(4),
            }),
        ]
    );

    // `--output-format json`: the same result object, decoded the same way
    // (no assistant lines, so no context size).
    let json_mode = decode("claude", "fake_tools_json");
    let id = first_field("claude", "fake_tools_json", "session_id");
    assert_eq!(
        json_mode,
        vec![
            session(&id, None),
            Decoded::Final(ProviderFinal {
                text: Some("Created hello.txt and notes.txt.".into()),
                session_id: Some(id.clone()),
                is_error: false,
                usage: Some(Usage {
                    context_tokens: None,
                    ..billing
                }),
                num_turns: Some(4),
            }),
        ]
    );
}

#[test]
fn claude_auth_error_stream_and_json() {
    let items = decode("claude", "err_401_stream_json");
    let msg = "Invalid API key · Fix external API key";
    assert_eq!(
        errors(&items),
        vec![
            ProviderError {
                message: msg.into(),
                http_status: None,
                code: Some("authentication_failed".into()),
                terminal: false
            },
            ProviderError {
                message: msg.into(),
                http_status: Some(401),
                code: Some("authentication_failed".into()),
                terminal: true
            },
        ]
    );
    // The synthetic message is an error, not an answer.
    assert!(
        !items
            .iter()
            .any(|d| matches!(d, Decoded::Event(EventBody::Message(_))))
    );
    let f = &finals(&items)[0];
    assert!(f.is_error);
    assert_eq!(f.text.as_deref(), Some(msg));

    let json_mode = decode("claude", "err_401_json");
    assert_eq!(
        decoded(&json_mode)[..2],
        [
            session("a42a8af2-ebfc-460a-bd63-958927b40f57", None),
            perr(msg, Some(401), None, true),
        ]
    );
}

#[test]
fn claude_rate_limit_retries_then_fails() {
    let items = decode("claude", "err_429_maxretry2_stream_json");
    let msg = "API Error: Request rejected (429) · This request would exceed the rate limit for your organization of 50 requests per minute. Please try again later.";
    assert_eq!(
        decoded(&items)[1..5],
        [
            retry(1, Some(2), Some(1000), Some(429), "rate_limit"),
            retry(2, Some(2), Some(1178), Some(429), "rate_limit"),
            perr(msg, None, Some("rate_limit"), false),
            perr(msg, Some(429), Some("rate_limit"), true),
        ]
    );
    // Ten retries when the CLI is left at its default.
    let long = decode("claude", "err_429_stream_json");
    let retries: Vec<Option<u32>> = long
        .iter()
        .filter_map(|d| match d {
            Decoded::Event(EventBody::Status(StatusEvent::Retry {
                retry_attempt,
                max_retries,
                provider_status,
                ..
            })) => {
                assert_eq!((*max_retries, *provider_status), (Some(10), Some(429)));
                Some(*retry_attempt)
            }
            _ => None,
        })
        .collect();
    assert_eq!(retries, (1..=10).map(Some).collect::<Vec<_>>());
}

#[test]
fn claude_overloaded_unknown_model_and_cut_connection() {
    let overloaded = decode("claude", "fake_overloaded_stream_json");
    let e = errors(&overloaded);
    assert_eq!(
        decoded(&overloaded)[1],
        retry(
            1,
            Some(1),
            decoded_delay(&overloaded),
            Some(529),
            "overloaded"
        )
    );
    assert_eq!(
        (e[1].http_status, e[1].code.as_deref(), e[1].terminal),
        (Some(529), Some("server_error"), true)
    );
    assert!(
        e[1].message.starts_with("API Error: 529 Overloaded."),
        "{e:?}"
    );

    let bad = errors(&decode("claude", "fake_badmodel_stream_json"));
    assert_eq!(
        bad[1],
        ProviderError {
            message: "There's an issue with the selected model (claude-sonnet-4-5). It may not exist or you may not have access to it. Run --model to pick a different model.".into(),
            http_status: Some(404),
            code: Some("model_not_found".into()),
            terminal: true,
        }
    );
    let cut = errors(&decode("claude", "fake_cut_stream_json"));
    assert_eq!(
        cut[1],
        ProviderError {
            message: "API Error: Connection to the API was lost (ECONNRESET). This is usually temporary — try again.".into(),
            http_status: None,
            code: Some("server_error".into()),
            terminal: true,
        }
    );
}

/// The (random) delay of the first retry notice, as the decoder rounds it.
fn decoded_delay(items: &[Decoded]) -> Option<u64> {
    items.iter().find_map(|d| match d {
        Decoded::Event(EventBody::Status(StatusEvent::Retry { delay_ms, .. })) => *delay_ms,
        _ => None,
    })
}

#[test]
fn claude_compaction_and_billing_from_model_usage() {
    let items = decode("claude", "fake_compact_stream_json");
    let id = "11111111-2222-4333-8444-555555555556";
    assert_eq!(
        decoded(&items)[..4],
        [
            ev(EventBody::Status(StatusEvent::Notice {
                detail: "compacting".into()
            })),
            ev(EventBody::Status(StatusEvent::Notice {
                detail: "compaction success".into()
            })),
            session(id, Some("claude-sonnet-4-5")),
            ev(EventBody::Status(StatusEvent::Compaction {
                tokens_before: Some(12329),
                detail: Some("manual".into()),
            })),
        ]
    );
    // `result.usage` is all zeros here while `modelUsage` holds the
    // summarizing call that `total_cost_usd` bills.
    let f = &finals(&items)[0];
    assert_eq!(
        f.usage,
        Some(Usage {
            cost_usd: Some(0.042231),
            ..usage(13812, 0, 0, 53)
        })
    );
    // The summary and the command output come back as user text: raw.
    assert_eq!(raws(&items).len(), 2);
}

#[test]
fn claude_rate_limit_event_and_unknown_lines() {
    let stdout = br#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning","resetsAt":1771390800,"rateLimitType":"five_hour","utilization":0.91,"isUsingOverage":false},"uuid":"u","session_id":"s"}
{"type":"rate_limit_event","status":"rejected","resets_at":1771390800000,"rate_limit_type":"seven_day"}
{"type":"brand_new_event","x":1}
{"type":"system","subtype":"hook_started","hook":"x"}"#;
    let items = decode_bytes("claude", stdout, b"");
    assert_eq!(
        items[..2],
        [
            ev(EventBody::RateLimit(RateLimitEvent {
                status: RateLimitStatus::Warning,
                resets_at: Some("2026-02-18T05:00:00Z".into()),
                window: Some("five_hour".into()),
                utilization: Some(0.91),
            })),
            ev(EventBody::RateLimit(RateLimitEvent {
                status: RateLimitStatus::Rejected,
                resets_at: Some("2026-02-18T05:00:00Z".into()),
                window: Some("seven_day".into()),
                utilization: None,
            })),
        ]
    );
    let raw = raws(&items);
    assert_eq!(raw.len(), 2);
    assert!(raw[0].line.contains("brand_new_event") && raw[1].line.contains("hook_started"));
}

#[test]
fn claude_tool_output_is_capped() {
    let big = "x".repeat(100_000);
    let stdout = format!(
        "{}\n{}",
        json!({"type":"assistant","message":{"id":"m","model":"claude","content":[{"type":"tool_use","id":"t1","name":"Read","input":{}}]}}),
        json!({"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":big}]}]}})
    );
    let mut d = ClaudeDecoder::new().with_tool_output_cap(10);
    let mut out = Vec::new();
    for line in lines(stdout.as_bytes()) {
        d.stdout_line(line, &mut out);
    }
    assert_eq!(
        out.last(),
        Some(&ev(EventBody::ToolResult(ToolResultEvent {
            id: "t1".into(),
            ok: true,
            output: "x".repeat(10),
            truncated: true,
            original_bytes: Some(100_000),
            exit_code: None,
        })))
    );
}

// ------------------------------------------------------------------ Codex

#[test]
fn codex_plain_answer_and_thread_totals() {
    let items = decode("codex", "text_json");
    let id = "01a20020-6a5b-72f0-9c3a-8dbde26affda";
    assert_eq!(
        decoded(&items),
        vec![
            session(id, None),
            message("done"),
            Decoded::ThreadTotals(usage(9510, 0, 0, 9)),
            Decoded::Final(ProviderFinal {
                text: Some("done".into()),
                session_id: Some(id.into()),
                ..ProviderFinal::default()
            }),
        ]
    );
    assert_eq!(raws(&items)[0].line, r#"{"type":"turn.started"}"#);

    // A resumed thread reports the totals of the whole thread.
    let resumed = decode("codex", "resume_json");
    assert!(resumed.contains(&Decoded::ThreadTotals(Usage {
        reasoning_tokens: 6,
        ..usage(28958, 0, 0, 27)
    })));
}

#[test]
fn codex_commands_patch_reasoning_and_usage() {
    let items = decode("codex", "fake_tools_json");
    let id = first_field("codex", "fake_tools_json", "thread_id");
    assert_eq!(
        decoded(&items),
        vec![
            session(&id, None),
            thinking("Plan: create the file with echo."),
            message("I'll create the file."),
            tool_use(
                "item_2",
                "exec_command",
                ToolClass::Shell,
                json!({"command": "/bin/bash -lc 'echo hello > hello.txt'"})
            ),
            tool_result("item_2", true, "", Some(0)),
            message("Now a failing command."),
            tool_use(
                "item_4",
                "exec_command",
                ToolClass::Shell,
                json!({"command": "/bin/bash -lc 'ls /nonexistent-agentgate-dir'"})
            ),
            tool_result(
                "item_4",
                false,
                "ls: cannot access '/nonexistent-agentgate-dir': No such file or directory\n",
                Some(2)
            ),
            tool_use(
                "item_5",
                "apply_patch",
                ToolClass::Write,
                json!({"changes": [{"path": "/home/dev/demo/work/notes.txt", "kind": "add"}]})
            ),
            tool_result("item_5", true, "add /home/dev/demo/work/notes.txt", None),
            thinking("All three tools ran."),
            message("Created hello.txt and notes.txt."),
            // Input includes cache reads and writes; output includes
            // reasoning: the script's figures add up to these.
            Decoded::ThreadTotals(Usage {
                reasoning_tokens: 9,
                ..usage(1000, 800, 30, 48)
            }),
            Decoded::Final(ProviderFinal {
                text: Some("Created hello.txt and notes.txt.".into()),
                session_id: Some(id.clone()),
                ..ProviderFinal::default()
            }),
        ]
    );
}

#[test]
fn codex_reconnects_then_fails() {
    let items = decode("codex", "err_401_json");
    let msg = "unexpected status 401 Unauthorized: Incorrect API key provided: test. You can find your API key at https://platform.openai.com/account/api-keys., url: http://127.0.0.1:18081/v1/responses";
    let mut expected: Vec<Decoded> = (1..=5)
        .map(|n| retry(n, Some(5), None, Some(401), msg))
        .collect();
    expected.push(perr(msg, Some(401), None, false));
    expected.push(perr(msg, Some(401), None, true));
    assert_eq!(decoded(&items)[1..], expected[..]);

    let items = decode("codex", "err_429_json");
    let msg = "exceeded retry limit, last status: 429 Too Many Requests";
    assert_eq!(decoded(&items)[1], retry(1, Some(5), None, Some(429), msg));
    assert_eq!(
        errors(&items).last(),
        Some(&ProviderError {
            message: msg.into(),
            http_status: Some(429),
            code: None,
            terminal: true
        })
    );
    assert!(finals(&items).is_empty());

    let cut = decode("codex", "fake_cut_json");
    let msg = "stream disconnected before completion: Transport error: network error: error decoding response body";
    assert_eq!(
        decoded(&cut)[1..],
        [
            retry(1, Some(1), None, None, msg),
            perr(msg, None, None, false),
            perr(msg, None, None, true)
        ]
    );
}

#[test]
fn codex_model_errors() {
    let items = decode("codex", "err_400_json");
    let msg = "The requested model 'gpt-nonexistent' does not exist.";
    assert_eq!(
        decoded(&items)[1..],
        [perr(msg, None, None, false), perr(msg, None, None, true)]
    );

    // An error item is a warning: the turn goes on.
    let items = decode("codex", "unknown_model_warning");
    assert_eq!(
        decoded(&items)[1],
        perr(
            "Model metadata for `gpt-5-codex` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.",
            None,
            None,
            false
        )
    );
    assert_eq!(finals(&items)[0].text.as_deref(), Some("done"));
}

#[test]
fn codex_mcp_web_search_and_todo_items() {
    let stdout = br#"{"type":"item.started","item":{"id":"item_1","type":"mcp_tool_call","server":"playwright","tool":"browser_navigate","arguments":{"url":"http://localhost"},"result":null,"error":null,"status":"in_progress"}}
{"type":"item.completed","item":{"id":"item_1","type":"mcp_tool_call","server":"playwright","tool":"browser_navigate","arguments":{"url":"http://localhost"},"result":{"content":[{"type":"text","text":"navigated"}],"structured_content":null},"error":null,"status":"completed"}}
{"type":"item.completed","item":{"id":"item_2","type":"mcp_tool_call","server":"github","tool":"create_issue","arguments":{},"result":null,"error":{"message":"forbidden"},"status":"failed"}}
{"type":"item.started","item":{"id":"item_3","type":"web_search","query":"rust serde"}}
{"type":"item.completed","item":{"id":"item_3","type":"web_search","query":"rust serde"}}
{"type":"item.started","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":false}]}}
{"type":"item.updated","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":true}]}}
{"type":"item.completed","item":{"id":"item_4","type":"todo_list","items":[{"text":"a","completed":true},{"text":"b","completed":false}]}}
{"type":"item.completed","item":{"id":"item_5","type":"brand_new_item"}}"#;
    let items = decode_bytes("codex", stdout, b"");
    assert_eq!(
        decoded(&items),
        vec![
            tool_use(
                "item_1",
                "mcp__playwright__browser_navigate",
                ToolClass::Browser,
                json!({"url": "http://localhost"})
            ),
            tool_result("item_1", true, "navigated", None),
            tool_use(
                "item_2",
                "mcp__github__create_issue",
                // Classed by the wrappers' patterns on its tool part.
                ToolClass::Write,
                json!({})
            ),
            tool_result("item_2", false, "forbidden", None),
            tool_use(
                "item_3",
                "web_search",
                ToolClass::Web,
                json!({"query": "rust serde", "action": null})
            ),
            tool_result("item_3", true, "", None),
            tool_use(
                "item_4",
                "todo_list",
                ToolClass::Other,
                json!({"items": [{"text": "a", "completed": false}]})
            ),
            tool_result("item_4", true, "[x] a\n[ ] b", None),
        ]
    );
    // The to-do update and the unknown item type stay raw.
    let raw = raws(&items);
    assert_eq!(raw.len(), 2);
    assert!(raw[0].line.contains("item.updated") && raw[1].line.contains("brand_new_item"));
}

// ----------------------------------------------------------------- Gemini

#[test]
fn gemini_plain_answer() {
    let items = decode("gemini", "text_stream_json");
    let id = "08529184-ae3d-4271-866d-ea56addc8cf1";
    assert_eq!(
        decoded(&items),
        vec![
            session(id, Some("auto")),
            delta("done"),
            Decoded::Final(ProviderFinal {
                text: Some("done".into()),
                session_id: Some(id.into()),
                is_error: false,
                usage: Some(usage(12380, 0, 0, 10)),
                num_turns: None,
            }),
        ]
    );
    // The prompt echoed back is kept raw.
    assert!(raws(&items)[0].line.contains(r#""role":"user""#));
}

#[test]
fn gemini_tools_deltas_and_thoughts_in_usage() {
    let items = decode("gemini", "fake_tools_stream_json");
    let id = first_field("gemini", "fake_tools_stream_json", "session_id");
    let sh = "run_shell_command__call_000000000001";
    let sh2 = "run_shell_command__call_000000000003";
    let wr = "write_file__call_000000000005";
    assert_eq!(
        decoded(&items),
        vec![
            session(&id, Some("gemini-2.5-flash")),
            delta("I'll create the file."),
            tool_use(
                sh,
                "run_shell_command",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result(sh, true, "", None),
            delta("Now a failing command."),
            tool_use(
                sh2,
                "run_shell_command",
                ToolClass::Shell,
                json!({"command": "ls /nonexistent-agentgate-dir"})
            ),
            tool_result(
                sh2,
                true,
                "ls: cannot access '/nonexistent-agentgate-dir': No such file or directory",
                None
            ),
            tool_use(
                wr,
                "write_file",
                ToolClass::Write,
                json!({"file_path": "notes.txt", "content": "some notes\n"})
            ),
            tool_result(wr, true, "", None),
            delta("Created "),
            delta("hello.txt"),
            delta(" and notes.txt."),
            Decoded::Final(ProviderFinal {
                // The text after the last tool call, as json mode reports it.
                text: Some("Created hello.txt and notes.txt.".into()),
                session_id: Some(id.clone()),
                is_error: false,
                // Thoughts (9) are in total_tokens but not output_tokens.
                usage: Some(Usage {
                    reasoning_tokens: 9,
                    ..usage(1030, 800, 0, 48)
                }),
                num_turns: None,
            }),
        ]
    );

    // json mode: one pretty-printed object over many lines.
    let json_mode = decode("gemini", "fake_tools_json");
    let id = first_field("gemini", "fake_tools_json", "session_id");
    assert_eq!(
        json_mode,
        vec![
            session(&id, None),
            Decoded::Final(ProviderFinal {
                text: Some("Created hello.txt and notes.txt.".into()),
                session_id: Some(id.clone()),
                is_error: false,
                usage: Some(Usage {
                    reasoning_tokens: 9,
                    ..usage(1030, 800, 0, 48)
                }),
                num_turns: None,
            }),
        ]
    );
    // Several models (the router and the main model) add up.
    let text = decode("gemini", "text_json");
    assert_eq!(finals(&text)[0].usage, Some(usage(849 + 11538, 0, 0, 10)));
}

#[test]
fn gemini_stream_errors() {
    let items = decode("gemini", "err_401_stream_json");
    let msg = r#"[API Error: {"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}]"#;
    // The terminal error of the result, then the stack report of stderr.
    assert_eq!(
        errors(&items),
        vec![
            ProviderError {
                message: msg.into(),
                http_status: Some(401),
                code: Some("UNAUTHENTICATED".into()),
                terminal: true
            },
            ProviderError {
                message: "API key not valid. Please pass a valid API key.".into(),
                http_status: Some(401),
                code: Some("UNAUTHENTICATED".into()),
                terminal: false,
            },
        ]
    );
    let f = &finals(&items)[0];
    assert!(f.is_error && f.text.is_none());

    let items = decode("gemini", "err_400_stream_json");
    assert_eq!(
        (
            errors(&items)[0].http_status,
            errors(&items)[0].code.as_deref()
        ),
        (Some(400), Some("INVALID_ARGUMENT"))
    );

    let items = decode("gemini", "fake_overloaded_stream_json");
    assert_eq!(
        errors(&items)[0],
        ProviderError {
            message: "[API Error: The model is overloaded. Please try again later.]".into(),
            http_status: None,
            code: None,
            terminal: true,
        }
    );
}

#[test]
fn gemini_retry_notices_on_stderr() {
    let items = decode("gemini", "err_429_maxattempts2_stream_json");
    let quota = "You exceeded your current quota, please check your plan and billing details.";
    let retries: Vec<Decoded> = items
        .iter()
        .filter(|d| matches!(d, Decoded::Event(EventBody::Status(_))))
        .cloned()
        .collect();
    // Four retries of the model router, then one of the main request.
    assert_eq!(
        retries,
        [1, 2, 3, 4, 1]
            .map(|n| retry(n, None, None, Some(429), quota))
            .to_vec()
    );
    let e = errors(&items);
    assert!(
        e[0].terminal
            && e[0]
                .message
                .starts_with("[API Error: You exceeded your current quota")
    );
    assert_eq!(
        e[1],
        ProviderError {
            message: quota.into(),
            http_status: Some(429),
            code: Some("RetryableQuotaError".into()),
            terminal: false
        }
    );
}

#[test]
fn gemini_json_mode_errors_come_from_stderr() {
    let items = decode("gemini", "err_401_json");
    let body = r#"{"error":{"code":401,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}"#;
    assert_eq!(
        items[1..],
        [
            session("58613bfb-1a6c-44c4-afa0-7fef7acd8499", None),
            perr(body, Some(401), Some("UNAUTHENTICATED"), true),
        ]
    );
    let items = decode("gemini", "fake_overloaded_json");
    let msg = "The model is overloaded. Please try again later.";
    assert_eq!(
        errors(&items),
        vec![
            ProviderError {
                message: msg.into(),
                http_status: Some(503),
                code: Some("RetryableQuotaError".into()),
                terminal: false
            },
            ProviderError {
                message: msg.into(),
                http_status: Some(503),
                code: None,
                terminal: true
            },
        ]
    );
    let items = decode("gemini", "err_429_maxattempts2_json");
    assert_eq!(
        errors(&items).last().map(|e| (e.http_status, e.terminal)),
        Some((Some(429), true))
    );
}

#[test]
fn gemini_warning_and_error_events() {
    let stdout = br#"{"type":"error","timestamp":"t","severity":"warning","message":"Loop detected"}
{"type":"error","timestamp":"t","severity":"error","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"boom\",\"status\":\"INTERNAL\"}}]"}
{"type":"message","role":"assistant","content":"whole answer"}
{"type":"tool_result","tool_id":"t9","status":"error","error":{"type":"invalid_tool_params","message":"bad params"}}"#;
    let items = decode_bytes("gemini", stdout, b"");
    assert_eq!(
        items,
        vec![
            ev(EventBody::Status(StatusEvent::Notice {
                detail: "Loop detected".into()
            })),
            perr(
                r#"[API Error: {"error":{"code":500,"message":"boom","status":"INTERNAL"}}]"#,
                Some(500),
                Some("INTERNAL"),
                false
            ),
            message("whole answer"),
            tool_result("t9", false, "bad params", None),
        ]
    );
}

// ---------------------------------------------------------- Gemini session

#[test]
fn gemini_session_thoughts_and_tokens() {
    let path = fixture_dir().join("gemini/sessions/tool_stream_json.session.jsonl");
    let s = read_session(&path).unwrap();
    assert_eq!(
        s.session_id.as_deref(),
        Some("71d1cd8e-5943-4833-8948-686b07e5959f")
    );
    // The repeated record of a message replaces the first one.
    let model: Vec<_> = s.messages.iter().filter(|m| m.kind == "gemini").collect();
    assert_eq!(model.len(), 2);
    assert_eq!(
        model[0].tokens,
        Some(GeminiTokens {
            input: 11540,
            output: 5,
            cached: 0,
            thoughts: 3,
            tool: 0,
            total: 11545
        })
    );
    assert_eq!(s.thoughts, vec!["Fake reasoning: short answer wanted."; 2]);

    // A resume rewrites the message list and appends the new turn.
    let resumed =
        read_session(&fixture_dir().join("gemini/sessions/text_json_plus_resume.session.jsonl"))
            .unwrap();
    let turn = resumed.last_turn();
    assert_eq!(turn.len(), 1);
    assert_eq!(turn[0].tokens.map(|t| t.input), Some(11561));
    assert!(resumed.last_turn_thoughts().is_empty());
}

#[test]
fn gemini_session_is_found_and_thoughts_recovered() {
    let home = tempfile::tempdir().unwrap();
    let chats = home.path().join("tmp/work/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let sessions = fixture_dir().join("gemini/sessions");
    let mut fake = None;
    for entry in std::fs::read_dir(&sessions).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(real) = name.strip_prefix("fake_") {
            std::fs::copy(&path, chats.join(real)).unwrap();
            let s = read_session(&path).unwrap();
            if !s.thoughts.is_empty() {
                fake = Some(s);
            }
        }
    }
    let fake = fake.unwrap();
    let id = fake.session_id.clone().unwrap();
    let found = find_session_file(home.path(), &id).unwrap();
    assert!(
        found
            .file_name()
            .unwrap()
            .to_string_lossy()
            .contains(&id[..8]),
        "{found:?}"
    );
    // A home folder that holds `.gemini` works too.
    let outer = tempfile::tempdir().unwrap();
    let nested = outer.path().join(".gemini/tmp/p/chats");
    std::fs::create_dir_all(&nested).unwrap();
    std::fs::copy(&found, nested.join("session-x.jsonl")).unwrap();
    assert!(find_session_file(outer.path(), &id).is_some());
    assert_eq!(
        find_session_file(home.path(), "00000000-no-such-session"),
        None
    );

    assert_eq!(
        fake.thoughts,
        vec!["Plan: create the file with echo.", "All three tools ran."]
    );
    assert_eq!(
        recovered_thoughts(home.path(), &id),
        vec![
            thinking("Plan: create the file with echo."),
            thinking("All three tools ran.")
        ]
    );
    assert!(recovered_thoughts(home.path(), "missing").is_empty());
}

#[test]
fn gemini_session_json_form_and_junk() {
    let json_form = json!({
        "sessionId": "abc",
        "projectHash": "h",
        "messages": [
            {"id": "1", "type": "user", "content": "first"},
            {"id": "2", "type": "gemini", "content": "a", "thoughts": [{"subject": "Plan", "description": "do it"}],
             "tokens": {"input": 10, "output": 2, "cached": 1, "thoughts": 3, "tool": 0, "total": 15}, "extra": {"x": 1}},
            {"id": "3", "type": "user", "content": [{"text": "second"}]},
            {"id": "4", "type": "gemini", "content": "b", "thoughts": [{"subject": "", "description": "again"}]},
        ],
    });
    let s = parse_session(json_form.to_string().as_bytes());
    assert_eq!(s.session_id.as_deref(), Some("abc"));
    assert_eq!(s.thoughts, vec!["Plan\ndo it", "again"]);
    assert_eq!(s.last_turn_thoughts(), vec!["again"]);
    assert_eq!(
        s.messages[1].tokens.map(|t| (t.thoughts, t.total)),
        Some((3, 15))
    );

    let junk = b"{\"sessionId\":\"j\"}\nnot json\n{\"id\":\"1\",\"type\":\"gemini\",\"thoughts\":[\"plain\"]}\n{\"id\":\"2\",\"type\":\"gem";
    let s = parse_session(junk);
    assert_eq!(
        (s.session_id.as_deref(), s.thoughts.clone()),
        (Some("j"), vec!["plain".to_owned()])
    );
    assert!(
        read_session(Path::new("/nonexistent/session.json"))
            .unwrap_err()
            .to_string()
            .starts_with("failed to read Gemini session file /nonexistent/session.json")
    );
}

// ------------------------------------------------------- every capture

/// Lines that the decoders keep raw on purpose, by a substring.
const EXPECTED_RAW: &[&str] = &[
    r#""subtype":"thinking_tokens""#,
    r#""type":"user","message":{"role":"user","content":""#,
    r#""type":"turn.started""#,
    r#""role":"user""#,
];

#[test]
fn every_capture_decodes_without_unexpected_raw_lines() {
    let mut checked = 0;
    for cli in ["claude", "codex", "gemini"] {
        for case in all_cases(cli) {
            let items = decode(cli, &case);
            for r in raws(&items) {
                assert!(
                    EXPECTED_RAW.iter().any(|p| r.line.contains(p)),
                    "{cli}/{case}: unexpected raw line {:?}",
                    r.line
                );
            }
            let stdout = read(cli, &format!("{case}.stdout"));
            if !stdout.is_empty() {
                assert!(!decoded(&items).is_empty(), "{cli}/{case} decoded nothing");
            }
            checked += 1;
        }
    }
    assert!(checked >= 45, "only {checked} captures");
}

// ------------------------------------------------------------ robustness

#[test]
fn unknown_types_and_truncated_lines_are_raw_and_the_rest_decodes() {
    for (cli, case) in [
        ("claude", "tool_stream_json"),
        ("codex", "tool_json"),
        ("gemini", "tool_stream_json"),
    ] {
        let stdout = read(cli, &format!("{case}.stdout"));
        let full = decoded(&decode_bytes(cli, &stdout, b""));
        let src = lines(&stdout);
        // An unknown event and a line cut in the middle, before the last
        // line (the result).
        let cut_line = src[src.len() - 2];
        let cut = &cut_line[..cut_line.len() / 2];
        let mut edited: Vec<&[u8]> = src[..src.len() - 2].to_vec();
        edited.push(br#"{"type":"from_the_future","n":1}"#);
        edited.push(cut);
        edited.push(src[src.len() - 1]);
        let items = decode_bytes(cli, &edited.join(&b'\n'), b"");
        let raw = raws(&items);
        assert!(
            raw.iter()
                .any(|r| r.line == r#"{"type":"from_the_future","n":1}"#),
            "{cli}"
        );
        assert!(raw.iter().any(|r| r.line.as_bytes() == cut), "{cli}");
        // The final record still decodes, as it did from the whole stream.
        assert_eq!(
            finals(&items).last().map(|f| &f.session_id),
            finals(&full).last().map(|f| &f.session_id),
            "{cli}"
        );
        assert!(finals(&items).last().is_some_and(|f| !f.is_error), "{cli}");

        // A stream cut mid-line at its end: the piece is raw, nothing lost.
        let last = src[src.len() - 1];
        let mut truncated = src[..src.len() - 1].to_vec();
        truncated.push(&last[..last.len() - 7]);
        let items = decode_bytes(cli, &truncated.join(&b'\n'), b"");
        assert!(finals(&items).is_empty(), "{cli}");
        assert_eq!(
            raws(&items).last().map(|r| r.line.as_bytes().to_vec()),
            Some(last[..last.len() - 7].to_vec()),
            "{cli}"
        );
    }
}

#[test]
fn invalid_utf8_lines_keep_their_bytes() {
    let bytes: &[u8] = b"{\"type\":\"assistant\",\"x\":\"\xff\xfe\"}";
    for cli in ["claude", "codex", "gemini"] {
        let items = decode_bytes(cli, bytes, b"");
        assert_eq!(items.len(), 1, "{cli}");
        let raw = &raws(&items)[0];
        assert_eq!(raw.stream, RawStream::Stdout);
        assert!(raw.bytes_base64.is_some(), "{cli}");
        assert_eq!(raw.bytes().unwrap(), bytes, "{cli}");
    }
}

#[test]
fn gemini_unfinished_json_document_is_kept_line_by_line() {
    let stdout = b"{\n  \"session_id\": \"x\",\n  \"response\": \"cut";
    let items = decode_bytes("gemini", stdout, b"");
    let lines: Vec<String> = raws(&items).into_iter().map(|r| r.line).collect();
    assert_eq!(
        lines,
        ["{", "  \"session_id\": \"x\",", "  \"response\": \"cut"]
    );
    // A document interrupted by a line at column 0 is raw too, and that
    // line is decoded on its own.
    let stdout = b"{\n  \"a\": 1,\n{\"type\":\"init\",\"session_id\":\"s\",\"model\":\"m\"}";
    let items = decode_bytes("gemini", stdout, b"");
    assert_eq!(raws(&items).len(), 2);
    assert_eq!(items.last(), Some(&session("s", Some("m"))));
    // Only a `{` at column 0 opens a document (found by fuzzing).
    let items = decode_bytes("gemini", b"\r\r{", b"");
    assert_eq!(raws(&items).len(), 1);
}

#[test]
fn a_64_mib_line_is_decoded() {
    let big = "y".repeat(64 * 1024 * 1024);
    // A Claude tool result of 64 MiB: capped.
    let stdout = format!(
        "{}\n{}",
        json!({"type":"assistant","message":{"id":"m","model":"c","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}),
        json!({"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":big,"is_error":false}]}})
    );
    let items = decode_bytes("claude", stdout.as_bytes(), b"");
    match items.last() {
        Some(Decoded::Event(EventBody::ToolResult(r))) => {
            assert!(r.truncated);
            assert_eq!(r.original_bytes, Some(64 * 1024 * 1024));
            assert_eq!(r.output.len(), 64 * 1024);
        }
        other => panic!("expected a tool result, got {other:?}"),
    }
    // A 64 MiB line that is not JSON: raw, for every decoder.
    for cli in ["claude", "codex", "gemini"] {
        let items = decode_bytes(cli, big.as_bytes(), big.as_bytes());
        assert_eq!(items.len(), 1, "{cli}");
        assert_eq!(raws(&items)[0].line.len(), big.len(), "{cli}");
    }
}

// ------------------------------------------------------------ mutations

/// xorshift64*: a fixed sequence, no extra crate.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
        }
    }
}

/// One mutated line.
fn mutate_line(rng: &mut Rng, line: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut l = line.to_vec();
    match rng.below(9) {
        0 => {
            // Flip some bytes.
            for _ in 0..=rng.below(4) {
                if !l.is_empty() {
                    let i = rng.below(l.len());
                    l[i] ^= 1 << rng.below(8);
                }
            }
        }
        1 => l.truncate(rng.below(l.len() + 1)),
        2 => {
            let i = rng.below(l.len() + 1);
            let junk: Vec<u8> = (0..rng.below(16))
                .map(|_| u8::try_from(rng.below(256)).unwrap())
                .collect();
            l.splice(i..i, junk);
        }
        3 => {
            // Replace a value by a JSON value of another type.
            let s = String::from_utf8_lossy(&l).into_owned();
            let swaps = [
                ("\"", "1"),
                ("true", "\"x\""),
                ("{", "["),
                ("0", "-1e309"),
                (":", ":null,\"z\":"),
            ];
            let (a, b) = swaps[rng.below(swaps.len())];
            l = s.replacen(a, b, 1 + rng.below(3)).into_bytes();
        }
        4 => {
            let other = &corpus[rng.below(corpus.len())];
            let cut = rng.below(other.len() + 1);
            l.truncate(rng.below(l.len() + 1));
            l.extend_from_slice(&other[cut..]);
        }
        5 => l = b"{".to_vec(),
        6 => l = b"}".to_vec(),
        7 => l.insert(0, b' '),
        _ => {}
    }
    l.retain(|&b| b != b'\n');
    l
}

/// Feeds mutated captures to a decoder and checks that no line goes
/// unaccounted for: every non-empty line yields a decoded item, or is
/// held (a multi-line document) until a later line or `finish` yields one.
fn mutation_loop(cli: &str, seed: u64, inputs: usize) {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for case in all_cases(cli) {
        for l in lines(&read(cli, &format!("{case}.stdout"))) {
            if l.len() < 4096 {
                corpus.push(l.to_vec());
            }
        }
    }
    assert!(!corpus.is_empty());
    let mut rng = Rng(seed);
    for input in 0..inputs {
        let mut d = decoder(cli);
        let mut out = Vec::new();
        let mut held = 0usize;
        for _ in 0..1 + rng.below(12) {
            let base = &corpus[rng.below(corpus.len())];
            let line = if rng.below(3) == 0 {
                base.clone()
            } else {
                mutate_line(&mut rng, base, &corpus)
            };
            let before = out.len();
            d.stdout_line(&line, &mut out);
            if rng.below(4) == 0 {
                let mut err_out = Vec::new();
                d.stderr_line(&line, &mut err_out);
            }
            if out.len() > before {
                held = 0;
            } else if !line.is_empty() {
                held += 1;
                // Only Gemini holds lines: those of a pretty-printed object.
                assert!(
                    cli == "gemini"
                        && line
                            .first()
                            .is_some_and(|b| matches!(b, b'{' | b' ' | b'\t')),
                    "{cli} input {input}: line yielded nothing: {:?}",
                    String::from_utf8_lossy(&line)
                );
            }
        }
        let before = out.len();
        d.finish(&mut out);
        assert!(
            held == 0 || out.len() > before,
            "{cli} input {input}: {held} held lines never came out"
        );
    }
}

#[test]
fn claude_survives_mutations() {
    mutation_loop("claude", 0x5eed_c1a0, 2000);
}

#[test]
fn codex_survives_mutations() {
    mutation_loop("codex", 0x5eed_c0de, 2000);
}

#[test]
fn gemini_survives_mutations() {
    mutation_loop("gemini", 0x5eed_9e11, 2000);
}
