//! The Qwen Code decoder on real captured output (tests/fixtures/decode/qwen/:
//! the project's first captures, and `fake_*` runs of the pinned CLI against
//! `agentgate fake-llm` made by `capture.sh` there), with the accumulator
//! and the classifier downstream, and on broken input.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on unexpected input"
)]

use std::path::{Path, PathBuf};

use agentgate_protocol::{
    ActivityClass, ErrorKind, ErrorSource, EventBody, MessageEvent, SessionEvent, StatusEvent,
    ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent, Usage, UsageEvent, UsageScope,
};
use agentgate_providers::decode::{Decoded, Decoder, ProviderError, ProviderFinal};
use agentgate_providers::error_table as table;
use agentgate_providers::qwen::{QwenDecoder, find_session_file, session_totals};
use agentgate_providers::{Accumulator, Finish};
use agentgate_providers::{Classified, ClassifyInput, classify_explained};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::{Value, json};

// ---------------------------------------------------------------- helpers

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read(dir: &str, name: &str) -> Vec<u8> {
    let path = fixtures().join(dir).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()))
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn decode_bytes(stdout: &[u8], stderr: &[u8]) -> Vec<Decoded> {
    let mut d = QwenDecoder::new();
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

/// A capture in `decode/qwen/`.
fn decode(case: &str) -> Vec<Decoded> {
    decode_bytes(
        &read("decode/qwen", &format!("{case}.stdout")),
        &read("decode/qwen", &format!("{case}.stderr")),
    )
}

fn decode_str(text: &str) -> Vec<Decoded> {
    decode_bytes(text.as_bytes(), b"")
}

/// The decoded items that are not raw lines.
fn decoded(items: &[Decoded]) -> Vec<Decoded> {
    items
        .iter()
        .filter(|d| !matches!(d, Decoded::Event(EventBody::Raw(_))))
        .cloned()
        .collect()
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

/// Qwen's figures: input (cache reads included), cache reads, output.
fn usage(input: u64, cache_read: u64, output: u64) -> Usage {
    Usage {
        input_tokens: input,
        output_tokens: output,
        cache_read_input_tokens: cache_read,
        total_tokens: input + output,
        ..Usage::default()
    }
}

fn call_usage(input: u64, cache_read: u64, output: u64) -> Decoded {
    ev(EventBody::Usage(UsageEvent {
        scope: UsageScope::Turn,
        usage: Usage {
            context_tokens: Some(input + output),
            ..usage(input, cache_read, output)
        },
    }))
}

fn final_(text: &str, session: &str, num_turns: u32) -> Decoded {
    Decoded::Final(ProviderFinal {
        text: Some(text.into()),
        session_id: Some(session.into()),
        is_error: false,
        usage: None,
        num_turns: Some(num_turns),
    })
}

/// The session id a capture's records carry (it changes when the `fake_*`
/// fixtures are made again).
fn session_of(case: &str) -> String {
    let stdout = read("decode/qwen", &format!("{case}.stdout"));
    lines(&stdout)
        .into_iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .find_map(|v| v["session_id"].as_str().map(str::to_owned))
        .unwrap()
}

/// What a tool's shell report looks like in a capture (it carries a pgid).
fn tool_output(case: &str, id: &str) -> String {
    let stdout = read("decode/qwen", &format!("{case}.stdout"));
    lines(&stdout)
        .into_iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter(|v| v["type"] == "user")
        .flat_map(|v| v["message"]["content"].as_array().cloned().unwrap())
        .find(|b| b["tool_use_id"] == id)
        .map(|b| b["content"].as_str().unwrap().to_owned())
        .unwrap()
}

/// The envelope the accumulator builds from decoded items; `previous` is
/// the session's totals after its previous turn, as the run store keeps them.
fn envelope(items: &[Decoded], previous: Option<Usage>) -> agentgate_protocol::Envelope {
    let mut acc = Accumulator::new("qwen");
    for d in items {
        acc.observe(d);
    }
    acc.finish(Finish {
        run_id: "r".into(),
        previous_thread_totals: previous,
        exposes_reasoning: true,
        ..Finish::default()
    })
}

fn thread_totals(items: &[Decoded]) -> Option<Usage> {
    items.iter().rev().find_map(|d| match d {
        Decoded::ThreadTotals(u) => Some(u.clone()),
        _ => None,
    })
}

/// Classify a capture the way a run does: the real decoder's errors and
/// final record, the exit code, the output tails.
fn classify(dir: &str, case: &str) -> Option<Classified> {
    let stdout = read(dir, &format!("{case}.stdout"));
    let stderr = read(dir, &format!("{case}.stderr"));
    let items = decode_bytes(&stdout, &stderr);
    let errors: Vec<ProviderError> = items
        .iter()
        .filter_map(|d| match d {
            Decoded::ProviderError(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    let final_ = items.iter().find_map(|d| match d {
        Decoded::Final(f) => Some(f.clone()),
        _ => None,
    });
    let exit = std::fs::read_to_string(fixtures().join(dir).join(format!("{case}.exitcode")))
        .map(|c| c.trim().parse::<i32>().ok())
        .unwrap_or(Some(0));
    let tz = TimeZone::UTC;
    let stdout = String::from_utf8_lossy(&stdout);
    let stderr = String::from_utf8_lossy(&stderr);
    let input = ClassifyInput {
        errors: &errors,
        final_: final_.as_ref(),
        exit_code: exit,
        stdout_tail: &stdout,
        stderr_tail: &stderr,
        ..ClassifyInput::new(
            table("qwen"),
            "2026-01-15T12:00:00Z".parse::<Timestamp>().unwrap(),
            &tz,
        )
    };
    classify_explained(&input)
}

// ---------------------------------------------------------------- successes

#[test]
fn a_plain_answer() {
    let id = "3a83e18f-9eea-475a-b856-73d1f8e0ab2e";
    let items = decode("text_stream_json");
    assert_eq!(
        decoded(&items),
        [
            session(id, Some("qwen3-coder-plus")),
            call_usage(19498, 0, 6),
            message("done"),
            Decoded::ThreadTotals(usage(29457, 0, 12)),
            final_("done", id, 1),
        ]
    );
    // Nothing is left undecoded.
    assert_eq!(decoded(&items).len(), items.len());
}

#[test]
fn json_mode_prints_the_same_records_in_one_array() {
    let id = "397b545b-31b8-441a-80ac-05e9e99ad560";
    assert_eq!(
        decoded(&decode("text_json")),
        [
            session(id, Some("qwen3-coder-plus")),
            call_usage(19501, 0, 6),
            message("done"),
            Decoded::ThreadTotals(usage(29464, 0, 12)),
            final_("done", id, 1),
        ]
    );
}

#[test]
fn thinking_a_shell_call_and_its_result() {
    let id = "49ee27bb-ad63-4a0f-9b99-f72451c27fe4";
    let report = tool_output("tool_stream_json", "call_2648c89cf9c6");
    assert!(report.contains("Exit Code: 0"), "{report}");
    assert_eq!(
        decoded(&decode("tool_stream_json")),
        [
            session(id, Some("qwen3-coder-plus")),
            thinking("Fake reasoning: short answer wanted."),
            call_usage(19504, 0, 6),
            tool_use(
                "call_2648c89cf9c6",
                "run_shell_command",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result("call_2648c89cf9c6", true, &report, Some(0)),
            thinking("Fake reasoning: short answer wanted."),
            call_usage(19621, 0, 6),
            message("done"),
            Decoded::ThreadTotals(usage(39125, 0, 12)),
            final_("done", id, 2),
        ]
    );
}

#[test]
fn every_tool_class_and_failure_of_a_scripted_run() {
    let case = "fake_tools_stream_json";
    let id = session_of(case);
    let report = tool_output(case, "call_000000000001");
    let items = decode(case);
    assert_eq!(
        decoded(&items),
        [
            session(&id, Some("qwen3-coder-plus")),
            thinking("Plan: create the file with echo."),
            message("I'll create the file."),
            // Script: input 100 + cache read 50 + cache write 20 (OpenAI
            // counts all three as prompt tokens), output 8 + reasoning 5.
            call_usage(170, 50, 13),
            tool_use(
                "call_000000000001",
                "run_shell_command",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result("call_000000000001", true, &report, Some(0)),
            message("Now a failing command."),
            call_usage(350, 150, 9),
            tool_use(
                "call_000000000003",
                "run_shell_command",
                ToolClass::Shell,
                json!({"command": "ls /nonexistent-agentgate-dir"})
            ),
            // Qwen reports a command's output alone when it printed
            // something: neither the failure nor the exit code shows.
            tool_result(
                "call_000000000003",
                true,
                "ls: cannot access '/nonexistent-agentgate-dir': No such file or directory",
                None
            ),
            call_usage(560, 250, 10),
            tool_use(
                "call_000000000005",
                "write_file",
                ToolClass::Write,
                json!({"content": "some notes\n", "file_path": "notes.txt"})
            ),
            tool_result(
                "call_000000000005",
                false,
                "File path must be absolute: notes.txt",
                None
            ),
            thinking("All three tools ran."),
            call_usage(750, 350, 16),
            message("Created hello.txt and notes.txt."),
            Decoded::ThreadTotals(usage(1830, 800, 48)),
            final_("Created hello.txt and notes.txt.", &id, 4),
        ]
    );
    let env = envelope(&items, None);
    assert_eq!(env.response, "Created hello.txt and notes.txt.");
    assert_eq!(
        env.reasoning,
        "Plan: create the file with echo.\n\nAll three tools ran."
    );
    let tools = env.metadata.tool_activity.unwrap();
    assert_eq!(
        (tools.call_count, tools.write_count, tools.error_count),
        (3, 1, 1)
    );
    assert_eq!(tools.tool_names, ["run_shell_command", "write_file"]);
    assert_eq!(tools.activity_class, ActivityClass::ToolErrors);
    // A tool turn sends no memory-extraction request: the session totals are
    // the four calls, and the context is the last call's.
    assert_eq!(env.tokens_used.input_tokens, 1830);
    assert_eq!(env.tokens_used.output_tokens, 48);
    assert_eq!(env.tokens_used.cache_read_input_tokens, 800);
    assert_eq!(env.context_tokens, Some(766));
}

#[test]
fn json_mode_of_the_scripted_run_decodes_the_same() {
    let stream: Vec<Decoded> = decoded(&decode("fake_tools_stream_json"))
        .into_iter()
        .filter(|d| !matches!(d, Decoded::Event(EventBody::Session(_)) | Decoded::Final(_)))
        .filter(|d| !matches!(d, Decoded::Event(EventBody::ToolResult(r)) if r.exit_code.is_some()))
        .collect();
    let json: Vec<Decoded> = decoded(&decode("fake_tools_json"))
        .into_iter()
        .filter(|d| !matches!(d, Decoded::Event(EventBody::Session(_)) | Decoded::Final(_)))
        .filter(|d| !matches!(d, Decoded::Event(EventBody::ToolResult(r)) if r.exit_code.is_some()))
        .collect();
    assert_eq!(json, stream);
}

// ---------------------------------------------------------------- usage

/// Qwen's `result.usage` counts the whole session, and the memory-extraction
/// request it sends after a turn without tools: the run reports the
/// difference to the session's totals after its previous turn.
#[test]
fn a_resumed_session_reports_its_own_turn_with_the_background_request() {
    let first = decode("fake_turn1_stream_json");
    let second = decode("fake_resume_stream_json");
    assert_eq!(
        session_of("fake_turn1_stream_json"),
        session_of("fake_resume_stream_json")
    );
    // The scripted calls: 1000/10, then 3000/30.
    assert!(decoded(&first).contains(&call_usage(1000, 0, 10)));
    assert!(decoded(&second).contains(&call_usage(3000, 0, 30)));
    let t1 = thread_totals(&first).unwrap();
    let t2 = thread_totals(&second).unwrap();
    // Each turn's totals exceed its call by the background request.
    let memory1 = t1.input_tokens - 1000;
    assert!(memory1 > 0 && t1.output_tokens > 10, "{t1:?}");
    assert!(t2.input_tokens > t1.input_tokens + 3000, "{t2:?}");
    // The first run of a session reports its totals.
    let env1 = envelope(&first, None);
    assert_eq!(env1.tokens_used.input_tokens, t1.input_tokens);
    assert_eq!(env1.context_tokens, Some(1010));
    // The resumed run reports its own call plus its background request,
    // not the first turn again.
    let env2 = envelope(&second, Some(t1.clone()));
    assert_eq!(
        env2.tokens_used.input_tokens,
        t2.input_tokens - t1.input_tokens
    );
    assert_eq!(
        env2.tokens_used.output_tokens,
        t2.output_tokens - t1.output_tokens
    );
    assert!(env2.tokens_used.input_tokens > 3000);
    assert_eq!(env2.context_tokens, Some(3030));
    // The first captures show the same: 29457 after "say hi", 58980 after
    // the resumed "second turn" (19527 of its own call).
    let resume = decode("resume_stream_json");
    assert_eq!(thread_totals(&resume), Some(usage(58980, 0, 24)));
    let env = envelope(&resume, Some(usage(29457, 0, 12)));
    assert_eq!(env.tokens_used.input_tokens, 29523);
    assert_eq!(env.tokens_used.output_tokens, 12);
}

/// A Qwen folder holding one session file of `sessions/`, as `id`.
fn qwen_dir_with(file: &str, id: &str) -> tempfile::TempDir {
    qwen_dir_from("decode/qwen/sessions", file, id)
}

/// A Qwen folder holding the session file `dir/file`, as `id`.
fn qwen_dir_from(dir: &str, file: &str, id: &str) -> tempfile::TempDir {
    let qwen = tempfile::tempdir().unwrap();
    let chats = qwen.path().join("projects/-home-dev-demo-work/chats");
    std::fs::create_dir_all(&chats).unwrap();
    std::fs::write(chats.join(format!("{id}.jsonl")), read(dir, file)).unwrap();
    qwen
}

/// Qwen's session file records every response's figures; their sums are
/// `result.usage` exactly, plus the reasoning tokens stream-json leaves out.
#[test]
fn session_files_give_the_totals_with_reasoning() {
    let id = session_of("fake_tools_stream_json");
    let dir = qwen_dir_with(&format!("fake_{id}.jsonl"), &id);
    let stream = thread_totals(&decode("fake_tools_stream_json")).unwrap();
    let file = session_totals(dir.path(), &id).unwrap();
    // The script's reasoning: 5 in the first call, 4 in the last.
    assert_eq!(
        file,
        Usage {
            reasoning_tokens: 9,
            ..stream
        }
    );
    for (file, id, case) in [
        (
            "fake_11111111-2222-4333-8444-555555555557.jsonl",
            "11111111-2222-4333-8444-555555555557",
            "fake_resume_stream_json",
        ),
        (
            "text_json_plus_resume.session.jsonl",
            "397b545b-31b8-441a-80ac-05e9e99ad560",
            "resume_stream_json",
        ),
        (
            "tool_stream_json.session.jsonl",
            "49ee27bb-ad63-4a0f-9b99-f72451c27fe4",
            "tool_stream_json",
        ),
    ] {
        let dir = qwen_dir_with(file, id);
        assert_eq!(
            session_totals(dir.path(), id),
            thread_totals(&decode(case)),
            "{file}"
        );
    }
    assert_eq!(session_totals(dir.path(), "no-such-session"), None);
    assert_eq!(find_session_file(dir.path(), "../../etc/passwd"), None);
    assert_eq!(find_session_file(Path::new("/nonexistent"), &id), None);
}

#[test]
fn a_subagents_calls_count_but_do_not_set_the_context() {
    let items = decode_str(concat!(
        r#"{"type":"assistant","parent_tool_use_id":"call_1","message":{"id":"m1","content":[{"type":"text","text":"sub"}],"usage":{"input_tokens":500,"output_tokens":5}}}"#,
        "\n",
    ));
    assert_eq!(
        decoded(&items),
        [
            ev(EventBody::Usage(UsageEvent {
                scope: UsageScope::Turn,
                usage: usage(500, 0, 5),
            })),
            message("sub"),
        ]
    );
}

// ---------------------------------------------------------------- errors

#[test]
fn api_errors_are_answers_that_the_classifier_catches() {
    for (case, status, kind, rule) in [
        (
            "err_401_stream_json",
            401,
            ErrorKind::Auth,
            "common.invalid_key",
        ),
        ("err_401_json", 401, ErrorKind::Auth, "common.invalid_key"),
        (
            "err_400_stream_json",
            400,
            ErrorKind::InvalidModel,
            "common.model_not_found",
        ),
        (
            "err_400_json",
            400,
            ErrorKind::InvalidModel,
            "common.model_not_found",
        ),
        (
            "err_429_maxretries1_stream_json",
            429,
            ErrorKind::RateLimit,
            "common.rate_limit",
        ),
        (
            "fake_badmodel_stream_json",
            404,
            ErrorKind::InvalidModel,
            "common.model_not_found",
        ),
    ] {
        let items = decode(case);
        // The report is not a message of the model's.
        assert!(
            !items
                .iter()
                .any(|d| matches!(d, Decoded::Event(EventBody::Message(_)))),
            "{case}"
        );
        let errors: Vec<&ProviderError> = items
            .iter()
            .filter_map(|d| match d {
                Decoded::ProviderError(e) => Some(e),
                _ => None,
            })
            .collect();
        assert_eq!(errors.len(), 1, "{case}");
        assert!(errors[0].message.starts_with("[API Error:"), "{case}");
        assert_eq!(errors[0].http_status, Some(status), "{case}");
        assert!(!errors[0].terminal, "{case}");
        let got = classify("decode/qwen", case).unwrap();
        assert_eq!(
            (got.info.kind, got.rule),
            (kind, rule),
            "{case}: {:?}",
            got.info
        );
        assert_eq!(got.info.provider_status, Some(status), "{case}");
        assert_eq!(got.info.recoverable, kind.recoverable(), "{case}");
    }
}

#[test]
fn a_cut_stream_is_a_network_error() {
    let got = classify("decode/qwen", "fake_cut_stream_json").unwrap();
    assert_eq!(
        (got.info.kind, got.rule),
        (ErrorKind::Network, "common.network")
    );
    assert!(got.info.recoverable);
}

#[test]
fn setup_failures_are_terminal_results() {
    let items = decode("fake_no_auth_type_stream_json");
    let error = items
        .iter()
        .find_map(|d| match d {
            Decoded::ProviderError(e) => Some(e.clone()),
            _ => None,
        })
        .unwrap();
    assert!(error.terminal);
    assert!(
        error.message.starts_with("No auth type is selected"),
        "{error:?}"
    );
    assert_eq!(error.code.as_deref(), Some("error_during_execution"));
    let got = classify("decode/qwen", "fake_no_auth_type_stream_json").unwrap();
    assert_eq!(
        (got.info.kind, got.info.source, got.rule),
        (
            ErrorKind::CredentialUnavailable,
            ErrorSource::Structured,
            "qwen.missing_key"
        )
    );
}

/// The classifier's own fixtures of Qwen (tests/fixtures/classify/qwen/),
/// through the real decoder: the same kinds as in `tests/suite/classify.rs`.
#[test]
fn the_classifier_fixtures_through_the_real_decoder() {
    for (case, kind) in [
        ("fake_auth", "auth"),
        ("fake_insufficient_quota", "quota"),
        ("fake_overloaded", "overloaded"),
        ("fake_invalid_model_404", "invalid_model"),
        ("fake_invalid_model_400", "invalid_model"),
        ("fake_permission_denied", "invalid_model"),
        ("fake_context_too_long", "context_overflow"),
        ("fake_invalid_request", "provider_error"),
        ("fake_server_error", "provider_error"),
        ("fake_server_error_retries_1", "provider_error"),
        ("fake_mid_stream_cut", "network"),
        ("fake_connection_refused", "network"),
        ("fake_no_credentials", "credential_unavailable"),
        ("fake_resume_unknown_session", "invalid_session"),
    ] {
        let got = classify("classify/qwen", case).unwrap_or_else(|| panic!("{case}: a success"));
        assert_eq!(got.info.kind.to_string(), kind, "{case}: {:?}", got.info);
    }
    assert_eq!(classify("classify/qwen", "fake_text_ok"), None);
    assert_eq!(classify("decode/qwen", "fake_tools_stream_json"), None);
}

#[test]
fn a_run_killed_during_its_retries_left_only_its_session() {
    let items = decode("err_429_stream_json");
    assert_eq!(
        decoded(&items),
        [session(
            "d26f7f54-e740-4f13-a0c8-5d8cdabb92eb",
            Some("qwen3-coder-plus")
        )]
    );
}

/// With `QWEN_CODE_UNATTENDED_RETRY=1` Qwen retries 429s for hours and says
/// so on stderr every 30 s of a long wait: one retry event per attempt.
#[test]
fn unattended_retry_heartbeats_are_retry_events() {
    let items = decode("fake_unattended_429");
    let retries: Vec<(Option<u32>, Option<u64>)> = items
        .iter()
        .filter_map(|d| match d {
            Decoded::Event(EventBody::Status(StatusEvent::Retry {
                retry_attempt,
                delay_ms,
                ..
            })) => Some((*retry_attempt, *delay_ms)),
            _ => None,
        })
        .collect();
    assert!(!retries.is_empty(), "no heartbeat in the capture");
    let attempts: Vec<u32> = retries.iter().map(|r| r.0.unwrap()).collect();
    let mut unique = attempts.clone();
    unique.dedup();
    assert_eq!(attempts, unique, "one event per attempt");
    // The heartbeats come late: the first at attempt 6 (after about 75 s).
    assert!(attempts[0] >= 5, "{attempts:?}");
    assert!(retries.iter().all(|r| r.1.is_some_and(|d| d > 0)));
    let mut d = QwenDecoder::new();
    let mut out = Vec::new();
    for line in [
        "[qwen-code] Waiting for API capacity... attempt 3, retry in 40s",
        "[qwen-code] Waiting for API capacity... attempt 3, retry in 10s",
        "Operation cancelled.",
        "[qwen-code] Waiting for API capacity... attempt 4, retry in 70s",
    ] {
        d.stderr_line(line.as_bytes(), &mut out);
    }
    assert_eq!(
        out,
        [
            ev(EventBody::Status(StatusEvent::Retry {
                retry_attempt: Some(3),
                max_retries: None,
                delay_ms: Some(40_000),
                provider_status: None,
                detail: Some(
                    "[qwen-code] Waiting for API capacity... attempt 3, retry in 40s".into()
                ),
            })),
            ev(EventBody::Status(StatusEvent::Retry {
                retry_attempt: Some(4),
                max_retries: None,
                delay_ms: Some(70_000),
                provider_status: None,
                detail: Some(
                    "[qwen-code] Waiting for API capacity... attempt 4, retry in 70s".into()
                ),
            })),
        ]
    );
}

// ---------------------------------------------------------------- robustness

#[test]
fn unknown_and_broken_lines_are_kept_raw() {
    let input: &[&[u8]] = &[
        b"not json",
        b"{\"type\":\"stream_event\",\"event\":{}}",
        b"{\"type\":\"system\",\"subtype\":\"task_started\"}",
        b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"image\"}]}}",
        b"{\"type\":\"result\",\"usage\":",
        b"\xff\xfe{\"type\":\"assistant\"}",
        b"[1, \"two\"]",
        b"",
    ];
    let mut d = QwenDecoder::new();
    let mut out = Vec::new();
    for line in input {
        d.stdout_line(line, &mut out);
    }
    let raws: Vec<Vec<u8>> = out
        .iter()
        .filter_map(|d| match d {
            Decoded::Event(EventBody::Raw(r)) => Some(r.bytes().unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(out.len(), raws.len(), "{out:?}");
    assert_eq!(
        raws,
        input[..7].iter().map(|l| l.to_vec()).collect::<Vec<_>>()
    );
}

#[test]
fn tool_output_is_capped() {
    let big = "x".repeat(10_000);
    let line = json!({"type": "user", "message": {"content": [
        {"type": "tool_result", "tool_use_id": "t1", "is_error": false, "content": big}
    ]}})
    .to_string();
    let mut d = QwenDecoder::new().with_tool_output_cap(100);
    let mut out = Vec::new();
    d.stdout_line(line.as_bytes(), &mut out);
    let Decoded::Event(EventBody::ToolResult(r)) = &out[0] else {
        panic!("{out:?}");
    };
    assert_eq!(r.output.len(), 100);
    assert!(r.truncated);
    assert_eq!(r.original_bytes, Some(10_000));
}

/// Every prefix and every single-byte corruption of every captured line:
/// the decoder never panics and never drops a line.
#[test]
fn mangled_captures_never_panic_or_vanish() {
    let dir = fixtures().join("decode/qwen");
    let mut corpus = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "stdout") {
            let bytes = std::fs::read(&path).unwrap();
            corpus.extend(lines(&bytes).into_iter().map(<[u8]>::to_vec));
        }
    }
    assert!(corpus.len() > 30, "{}", corpus.len());
    for line in &corpus {
        let step = (line.len() / 40).max(1);
        for cut in (0..line.len()).step_by(step) {
            for variant in [line[..cut].to_vec(), {
                let mut l = line.clone();
                l[cut] ^= 0x80;
                l
            }] {
                let mut d = QwenDecoder::new();
                let mut out = Vec::new();
                d.stdout_line(&variant, &mut out);
                d.stderr_line(&variant, &mut Vec::new());
                d.finish(&mut out);
                assert!(
                    variant.is_empty() || !out.is_empty(),
                    "a line vanished: {}",
                    String::from_utf8_lossy(&variant)
                );
            }
        }
    }
}

// ------------------------------------------------------- Qwen Code 0.24

// `0.24.4/` holds the same `fake_*` runs of Qwen Code 0.24.4 (capture.sh
// with OUT=0.24.4). The decoder reads both versions; what 0.24 changed:
// a failing shell command's whole report, a failed `result` and exit 1 for
// an API error, `system/retry` when a broken stream is asked again, and
// `stream_event` records (kept as raw).

const V024: &str = "0.24.4/";

/// The scripted tool run decodes as in 0.15, but 0.24 prints the whole
/// report of the failing command too, so its failure and exit code show.
#[test]
fn the_scripted_run_of_0_24_decodes_as_before_with_the_failing_commands_report() {
    let new = format!("{V024}fake_tools_stream_json");
    let expected: Vec<Decoded> = decoded(&decode("fake_tools_stream_json"))
        .into_iter()
        .map(|d| match d {
            Decoded::Event(EventBody::ToolResult(r)) if r.id == "call_000000000001" => {
                tool_result(&r.id, true, &tool_output(&new, &r.id), Some(0))
            }
            Decoded::Event(EventBody::ToolResult(r)) if r.id == "call_000000000003" => {
                tool_result(&r.id, false, &tool_output(&new, &r.id), Some(2))
            }
            other => other,
        })
        .collect();
    let items = decode(&new);
    assert_eq!(decoded(&items), expected);
    assert!(
        tool_output(&new, "call_000000000003").contains("Exit Code: 2"),
        "the report names the exit code"
    );
    // `stream_event` (the goal state) is kept, as raw.
    assert!(items.iter().any(|d| matches!(
        d,
        Decoded::Event(EventBody::Raw(r)) if r.line.contains("\"stream_event\"")
    )));
    let env = envelope(&items, None);
    let tools = env.metadata.tool_activity.unwrap();
    assert_eq!(
        (tools.call_count, tools.write_count, tools.error_count),
        (3, 1, 2)
    );
    // The session file gives the same totals, with the reasoning.
    let id = session_of(&new);
    let dir = qwen_dir_from(
        &format!("decode/qwen/{V024}sessions"),
        &format!("fake_{id}.jsonl"),
        &id,
    );
    assert_eq!(
        session_totals(dir.path(), &id),
        Some(Usage {
            reasoning_tokens: 9,
            ..thread_totals(&items).unwrap()
        })
    );
}

/// 0.24 asks again when the model's stream breaks (`system/retry`), keeping
/// the partial text: a `retry` status, then the answer.
#[test]
fn a_broken_stream_asked_again_is_a_retry_status() {
    let case = format!("{V024}fake_cut_stream_json");
    let id = session_of(&case);
    let items = decoded(&decode(&case));
    assert_eq!(items[0], session(&id, Some("qwen3-coder-plus")));
    assert_eq!(
        items[1],
        ev(EventBody::Status(StatusEvent::Retry {
            retry_attempt: None,
            max_retries: None,
            delay_ms: None,
            provider_status: None,
            detail: Some("retry".into()),
        }))
    );
    assert!(matches!(items.last(), Some(Decoded::Final(f)) if !f.is_error));
    assert_eq!(classify("decode/qwen", &case), None);
}

/// A resumed session of 0.24: its `result.usage` is still the session's
/// totals, the background request included; the run reports its own part.
#[test]
fn a_resumed_session_of_0_24_reports_its_own_turn() {
    let first = decode(&format!("{V024}fake_turn1_stream_json"));
    let second = decode(&format!("{V024}fake_resume_stream_json"));
    assert!(decoded(&first).contains(&call_usage(1000, 0, 10)));
    assert!(decoded(&second).contains(&call_usage(3000, 0, 30)));
    let t1 = thread_totals(&first).unwrap();
    let t2 = thread_totals(&second).unwrap();
    assert!(t1.input_tokens > 1000 && t2.input_tokens > t1.input_tokens + 3000);
    let env2 = envelope(&second, Some(t1.clone()));
    assert_eq!(
        env2.tokens_used.input_tokens,
        t2.input_tokens - t1.input_tokens
    );
    assert_eq!(env2.context_tokens, Some(3030));
}

/// 0.24 reports an API error as a failed `result` after the error text
/// (exit 1): a terminal error the classifier takes as structured evidence;
/// setup failures as before.
#[test]
fn api_errors_of_0_24_are_failed_results() {
    let case = format!("{V024}fake_badmodel_stream_json");
    let errors: Vec<ProviderError> = decode(&case)
        .into_iter()
        .filter_map(|d| match d {
            Decoded::ProviderError(e) => Some(e),
            _ => None,
        })
        .collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert!(!errors[0].terminal && errors[1].terminal, "{errors:?}");
    assert_eq!(errors[1].code.as_deref(), Some("error_during_execution"));
    assert_eq!(errors[1].http_status, Some(404));
    let got = classify("decode/qwen", &case).unwrap();
    assert_eq!(
        (got.info.kind, got.info.source),
        (ErrorKind::InvalidModel, ErrorSource::Structured)
    );
    let got = classify(
        "decode/qwen",
        &format!("{V024}fake_no_auth_type_stream_json"),
    )
    .unwrap();
    assert_eq!(got.info.kind, ErrorKind::CredentialUnavailable);
}
