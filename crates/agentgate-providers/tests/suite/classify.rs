//! The error classifier against real output of the real CLIs.
//!
//! Fixtures live in `tests/fixtures/classify/<cli>/`: `fake_*` cases are the
//! real Claude, Codex, Gemini and Qwen CLIs run against `agentgate
//! fake-llm` with scripted errors (see the README there); the others are
//! copies of the project's first captures (`/work/shared/captures`). Field
//! texts quoted in PROVIDERS.md (from the CLIs' issue trackers) are literal
//! strings below. Every row of every table must decide at least one case.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    clippy::expect_used,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::collections::BTreeSet;
use std::path::PathBuf;

use agentgate_protocol::{ErrorKind, ErrorSource, exit_code_for};
use agentgate_providers::claude::ClaudeDecoder;
use agentgate_providers::codex::CodexDecoder;
use agentgate_providers::decode::{Decoded, Decoder, ProviderError, ProviderFinal};
use agentgate_providers::gemini::GeminiDecoder;
use agentgate_providers::{BUILTIN, error_table as table};
use agentgate_providers::{
    COMMON_RULES, Classified, ClassifyInput, ProviderTable, RetryNotice, Rule, classify,
    classify_explained, classify_with, compile_checked, is_retry_notice, parse_reset,
    parse_retry_after,
};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::Value;

// ---------------------------------------------------------------- harness

/// A fixed "now" for the fixture cases: Thursday 2026-01-15 12:00 UTC.
fn now() -> Timestamp {
    "2026-01-15T12:00:00Z".parse().unwrap()
}

fn new_york() -> TimeZone {
    TimeZone::get("America/New_York")
        .expect("the IANA time zone database (tzdata) must be installed for these tests")
}

/// One captured invocation.
struct Capture {
    stdout: String,
    stderr: String,
    exit_code: Option<i32>,
    signal: Option<i32>,
}

fn fixture_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/classify")
}

fn load(cli: &str, case: &str) -> Capture {
    let base = fixture_dir().join(cli).join(case);
    let read = |ext: &str| {
        let path = base.with_extension(ext);
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    let code = read("exitcode");
    let (exit_code, signal) = match code.trim() {
        // The capture tool killed the CLI (SIGKILL) at its time limit.
        "signal" => (None, Some(9)),
        c => (Some(c.parse().unwrap()), None),
    };
    Capture {
        stdout: read("stdout"),
        stderr: read("stderr"),
        exit_code,
        signal,
    }
}

/// A stdout-only model of the decoders, per `decode::Decoded`'s contract.
/// It leaves stderr to the classifier's exit-status and pattern passes, so
/// that those are exercised with real text too; the crate's decoders read
/// some stderr themselves (Gemini's json-mode error object, Claude's "No
/// conversation found"), which makes the same rows decide from structured
/// evidence (`the_real_decoders_lead_to_the_same_kinds`). It reads
/// Claude's and Qwen's `result` (an error one also as a terminal `ProviderError`
/// with `api_error_status` and the assistant message's `error` code, else
/// an `error_*` subtype) and
/// `system/api_retry` (a non-terminal error); Codex's `error` events and
/// error items (non-terminal), `turn.failed` (terminal), `turn.completed`
/// (the final record); Gemini's `result`, in stream-json and json mode (an
/// error `result` without a message takes the last `error` event's).
fn decode(cli: &str, stdout: &str) -> (Vec<ProviderError>, Option<ProviderFinal>) {
    let mut errors = Vec::new();
    let mut final_ = None;
    let mut code: Option<String> = None;
    let mut answer = String::new();
    let mut last_error: Option<String> = None;
    let status = |v: &Value| v.as_u64().map(|s| u16::try_from(s).unwrap());
    let text = |v: &Value| v.as_str().map(str::to_owned);
    if cli == "gemini"
        && let Ok(v) = serde_json::from_str::<Value>(stdout)
        && v.get("response").is_some()
    {
        let final_ = ProviderFinal {
            text: text(&v["response"]),
            ..ProviderFinal::default()
        };
        return (errors, Some(final_));
    }
    for line in stdout.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let ty = v["type"].as_str().unwrap_or_default();
        match (cli, ty) {
            ("claude" | "qwen", "assistant") => {
                if let Some(e) = v["error"].as_str() {
                    code = Some(e.to_owned());
                }
            }
            ("claude" | "qwen", "system") if v["subtype"] == "api_retry" => {
                errors.push(ProviderError {
                    message: text(&v["error"]).unwrap_or_default(),
                    http_status: status(&v["error_status"]),
                    code: text(&v["error"]),
                    terminal: false,
                });
            }
            ("claude" | "qwen", "result") => {
                let is_error = v["is_error"].as_bool().unwrap_or(false);
                if is_error {
                    // Qwen's setup failures carry `error.message` instead.
                    let message = text(&v["result"]).or_else(|| text(&v["error"]["message"]));
                    // Without an assistant error code, an `error_*` subtype is the code.
                    let subtype = v["subtype"].as_str().filter(|s| s.starts_with("error"));
                    errors.push(ProviderError {
                        message: message.unwrap_or_default(),
                        http_status: status(&v["api_error_status"]),
                        code: code.clone().or_else(|| subtype.map(str::to_owned)),
                        terminal: true,
                    });
                }
                final_ = Some(ProviderFinal {
                    text: text(&v["result"]),
                    session_id: text(&v["session_id"]),
                    is_error,
                    ..ProviderFinal::default()
                });
            }
            ("codex", "error") => errors.push(ProviderError {
                message: text(&v["message"]).unwrap_or_default(),
                ..ProviderError::default()
            }),
            ("codex", "item.completed") => match v["item"]["type"].as_str() {
                Some("error") => errors.push(ProviderError {
                    message: text(&v["item"]["message"]).unwrap_or_default(),
                    ..ProviderError::default()
                }),
                Some("agent_message") => answer = text(&v["item"]["text"]).unwrap_or_default(),
                _ => {}
            },
            ("codex", "turn.failed") => errors.push(ProviderError {
                message: text(&v["error"]["message"]).unwrap_or_default(),
                terminal: true,
                ..ProviderError::default()
            }),
            ("codex", "turn.completed") => {
                final_ = Some(ProviderFinal {
                    text: Some(answer.clone()),
                    ..ProviderFinal::default()
                });
            }
            ("gemini", "message") if v["role"] == "assistant" => {
                answer.push_str(v["content"].as_str().unwrap_or_default());
            }
            // An error event names what a `result` error without an error
            // object failed for ("Model stream ended without a finish reason.").
            ("gemini", "error") if v["severity"] == "error" => {
                last_error = text(&v["message"]);
            }
            ("gemini", "result") => {
                let is_error = v["status"] == "error";
                if is_error {
                    errors.push(ProviderError {
                        message: text(&v["error"]["message"])
                            .or_else(|| last_error.take())
                            .unwrap_or_default(),
                        code: text(&v["error"]["type"]),
                        terminal: true,
                        ..ProviderError::default()
                    });
                }
                final_ = Some(ProviderFinal {
                    text: (!is_error).then(|| answer.clone()),
                    is_error,
                    ..ProviderFinal::default()
                });
            }
            _ => {}
        }
    }
    (errors, final_)
}

/// Classify a captured invocation, with a fixed now in UTC.
fn classify_capture(cli: &str, case: &str) -> Option<Classified> {
    let cap = load(cli, case);
    let (errors, final_) = decode(cli, &cap.stdout);
    let tz = TimeZone::UTC;
    let input = ClassifyInput {
        errors: &errors,
        final_: final_.as_ref(),
        exit_code: cap.exit_code,
        signal: cap.signal,
        stdout_tail: &cap.stdout,
        stderr_tail: &cap.stderr,
        ..ClassifyInput::new(table(cli), now(), &tz)
    };
    classify_explained(&input)
}

fn source(name: &str) -> ErrorSource {
    match name {
        "structured" => ErrorSource::Structured,
        "exit_status" => ErrorSource::ExitStatus,
        "pattern" => ErrorSource::Pattern,
        other => panic!("no source {other}"),
    }
}

// ------------------------------------------------------- captured failures

/// (cli, fixture, kind, source, deciding row).
#[rustfmt::skip]
const CAPTURED: &[(&str, &str, &str, &str, &str)] = &[
    // Claude, stream-json: the assistant message's error code decides.
    ("claude", "fake_rate_limit", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "fake_rate_limit_retries_2", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "fake_rate_limit_retry_after_20", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "fake_rate_limit_retry_after_2_retries_1", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "err_429_stream_json", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "err_429_maxretry2_stream_json", "rate_limit", "structured", "claude.code_rate_limit"),
    ("claude", "fake_insufficient_quota", "quota", "structured", "claude.code_billing"),
    ("claude", "fake_overloaded", "overloaded", "structured", "common.overloaded"),
    ("claude", "fake_overloaded_retries_1", "overloaded", "structured", "common.overloaded"),
    ("claude", "fake_invalid_model_404", "invalid_model", "structured", "claude.code_model"),
    ("claude", "fake_invalid_model_400", "invalid_model", "structured", "claude.model_400"),
    ("claude", "err_400_stream_json", "invalid_model", "structured", "claude.selected_model"),
    ("claude", "fake_auth", "auth", "structured", "claude.code_auth"),
    ("claude", "err_401_stream_json", "auth", "structured", "claude.code_auth"),
    ("claude", "fake_permission_denied", "auth", "structured", "claude.code_auth"),
    ("claude", "fake_context_too_long", "context_overflow", "structured", "claude.prompt_too_long"),
    ("claude", "fake_invalid_request", "provider_error", "structured", "http.4xx"),
    ("claude", "fake_server_error", "provider_error", "structured", "http.5xx"),
    ("claude", "fake_server_error_retries_1", "provider_error", "structured", "http.5xx"),
    ("claude", "fake_mid_stream_cut", "network", "structured", "claude.connection"),
    ("claude", "fake_connection_refused", "network", "structured", "claude.connection"),
    ("claude", "fake_no_credentials", "credential_unavailable", "structured", "claude.not_logged_in"),
    // Claude, json: no error code, the text decides.
    ("claude", "fake_json_rate_limit", "rate_limit", "structured", "http.429"),
    ("claude", "err_429_maxretry2_json", "rate_limit", "structured", "http.429"),
    ("claude", "fake_json_insufficient_quota", "quota", "structured", "claude.credit_balance"),
    ("claude", "fake_json_overloaded", "overloaded", "structured", "common.overloaded"),
    ("claude", "fake_json_invalid_model_404", "invalid_model", "structured", "claude.selected_model"),
    ("claude", "fake_json_invalid_model_400", "invalid_model", "structured", "claude.model_400"),
    ("claude", "err_400_json", "invalid_model", "structured", "claude.selected_model"),
    ("claude", "fake_json_auth", "auth", "structured", "claude.invalid_key"),
    ("claude", "err_401_json", "auth", "structured", "claude.invalid_key"),
    ("claude", "fake_json_context_too_long", "context_overflow", "structured", "claude.prompt_too_long"),
    // Claude, setup failures on stderr.
    ("claude", "fake_resume_unknown_session", "invalid_session", "pattern", "claude.no_conversation"),
    // Claude, --max-turns 2 used up by a model that always calls a tool
    // (claude 2.1.332, against fake-llm): `result{subtype: error_max_turns}`.
    ("claude", "max_turns_stream_json", "max_turns", "structured", "claude.max_turns"),
    ("claude", "root_bypass_refused", "invalid_input", "pattern", "claude.root_refused"),
    // Codex: `turn.failed` and its message.
    ("codex", "fake_rate_limit", "rate_limit", "structured", "common.rate_limit"),
    ("codex", "fake_rate_limit_retries_2", "rate_limit", "structured", "common.rate_limit"),
    ("codex", "fake_rate_limit_retry_after_20", "rate_limit", "structured", "common.rate_limit"),
    ("codex", "fake_rate_limit_retry_after_2_retries_1", "rate_limit", "structured", "common.rate_limit"),
    ("codex", "err_429_json", "rate_limit", "structured", "common.rate_limit"),
    ("codex", "fake_insufficient_quota", "quota", "structured", "codex.quota_exceeded"),
    ("codex", "fake_overloaded", "overloaded", "structured", "codex.at_capacity"),
    ("codex", "fake_server_error", "overloaded", "structured", "codex.at_capacity"),
    ("codex", "fake_overloaded_retries_1", "overloaded", "structured", "codex.at_capacity"),
    ("codex", "fake_server_error_retries_1", "overloaded", "structured", "codex.at_capacity"),
    ("codex", "fake_invalid_model_404", "invalid_model", "structured", "codex.model_missing"),
    ("codex", "fake_invalid_model_400", "invalid_model", "structured", "codex.model_missing"),
    ("codex", "err_400_json", "invalid_model", "structured", "codex.model_missing"),
    ("codex", "fake_auth", "auth", "structured", "codex.invalid_key"),
    ("codex", "err_401_json", "auth", "structured", "codex.invalid_key"),
    ("codex", "fake_permission_denied", "auth", "structured", "http.401_403"),
    ("codex", "fake_context_too_long", "context_overflow", "structured", "codex.context_window"),
    ("codex", "fake_invalid_request", "provider_error", "structured", "common.invalid_request"),
    ("codex", "fake_mid_stream_cut", "network", "structured", "codex.disconnected"),
    ("codex", "fake_connection_refused", "network", "structured", "codex.disconnected"),
    ("codex", "fake_no_credentials", "credential_unavailable", "structured", "codex.missing_key"),
    ("codex", "fake_resume_unknown_session", "invalid_session", "pattern", "codex.no_rollout"),
    ("codex", "wire_chat_json", "provider_error", "pattern", "codex.config_error"),
    // Gemini, stream-json: `result{status: "error"}`.
    ("gemini", "fake_rate_limit", "rate_limit", "structured", "gemini.minute_quota"),
    ("gemini", "fake_rate_limit_retries_2", "rate_limit", "structured", "gemini.minute_quota"),
    ("gemini", "fake_rate_limit_retry_after_20", "rate_limit", "structured", "gemini.minute_quota"),
    ("gemini", "err_429_stream_json", "rate_limit", "structured", "gemini.minute_quota"),
    ("gemini", "err_429_maxattempts2_stream_json", "rate_limit", "structured", "gemini.minute_quota"),
    ("gemini", "fake_insufficient_quota", "quota", "structured", "gemini.daily_quota"),
    ("gemini", "fake_overloaded", "overloaded", "structured", "gemini.capacity"),
    ("gemini", "fake_overloaded_retries_1", "overloaded", "structured", "gemini.capacity"),
    ("gemini", "fake_invalid_model_404", "invalid_model", "structured", "gemini.model_not_found"),
    ("gemini", "fake_invalid_model_400", "invalid_model", "structured", "gemini.model_not_found"),
    ("gemini", "fake_auth", "auth", "structured", "gemini.api_key"),
    ("gemini", "err_401_stream_json", "auth", "structured", "gemini.api_key"),
    ("gemini", "fake_permission_denied", "auth", "structured", "http.401_403"),
    ("gemini", "fake_context_too_long", "context_overflow", "structured", "gemini.token_count"),
    ("gemini", "fake_invalid_request", "provider_error", "structured", "http.4xx"),
    ("gemini", "err_400_stream_json", "invalid_model", "structured", "gemini.model_not_found"),
    ("gemini", "fake_server_error", "provider_error", "structured", "http.5xx"),
    ("gemini", "fake_mid_stream_cut", "network", "structured", "gemini.fetch_failed"),
    ("gemini", "fake_connection_refused", "network", "structured", "gemini.fetch_failed"),
    ("gemini", "fake_max_turns_1", "provider_error", "exit_status", "gemini.exit_turn_limit"),
    // Gemini, json mode and setup failures: stdout is empty, the exit code
    // (the HTTP status modulo 256, or a FatalError code) leads.
    ("gemini", "fake_json_rate_limit", "rate_limit", "exit_status", "gemini.minute_quota"),
    ("gemini", "err_429_maxattempts2_json", "rate_limit", "exit_status", "gemini.minute_quota"),
    ("gemini", "fake_json_insufficient_quota", "quota", "exit_status", "gemini.daily_quota"),
    ("gemini", "fake_json_overloaded", "overloaded", "exit_status", "gemini.capacity"),
    ("gemini", "fake_json_invalid_model_400", "invalid_model", "exit_status", "gemini.model_not_found"),
    ("gemini", "fake_json_auth", "auth", "exit_status", "gemini.api_key"),
    ("gemini", "err_401_json", "auth", "exit_status", "gemini.api_key"),
    ("gemini", "fake_json_context_too_long", "context_overflow", "exit_status", "gemini.token_count"),
    ("gemini", "err_400_json", "invalid_model", "exit_status", "gemini.model_not_found"),
    ("gemini", "fake_json_invalid_model_404", "invalid_model", "pattern", "gemini.model_not_found"),
    ("gemini", "fake_no_credentials", "credential_unavailable", "exit_status", "gemini.exit_auth_setup"),
    ("gemini", "auth_gateway_invalid", "credential_unavailable", "exit_status", "gemini.exit_auth_setup"),
    ("gemini", "fake_resume_unknown_session", "invalid_session", "exit_status", "gemini.exit_resume"),
    ("gemini", "fake_bad_trust_file", "provider_error", "exit_status", "gemini.exit_config"),
    // Qwen: API errors only in the answer, after exit 0.
    ("qwen", "fake_auth", "auth", "pattern", "common.invalid_key"),
    ("qwen", "err_401_stream_json", "auth", "pattern", "common.invalid_key"),
    ("qwen", "fake_insufficient_quota", "quota", "pattern", "common.insufficient_quota"),
    ("qwen", "err_429_maxretries1_stream_json", "rate_limit", "pattern", "common.rate_limit"),
    ("qwen", "fake_overloaded", "overloaded", "pattern", "common.overloaded"),
    ("qwen", "fake_invalid_model_404", "invalid_model", "pattern", "common.model_not_found"),
    ("qwen", "fake_invalid_model_400", "invalid_model", "pattern", "common.model_not_found"),
    ("qwen", "err_400_stream_json", "invalid_model", "pattern", "common.model_not_found"),
    ("qwen", "fake_permission_denied", "invalid_model", "pattern", "common.model_not_found"),
    ("qwen", "fake_context_too_long", "context_overflow", "pattern", "common.context_length"),
    ("qwen", "fake_invalid_request", "provider_error", "pattern", "http.4xx"),
    ("qwen", "fake_server_error", "provider_error", "pattern", "common.server_error"),
    ("qwen", "fake_server_error_retries_1", "provider_error", "pattern", "common.server_error"),
    ("qwen", "fake_mid_stream_cut", "network", "pattern", "common.network"),
    ("qwen", "fake_connection_refused", "network", "pattern", "common.network"),
    // Qwen's setup failures exit 1.
    ("qwen", "fake_no_credentials", "credential_unavailable", "structured", "qwen.missing_key"),
    // Qwen Code 0.24.4 (`0.24.4/`): the same failures as a failed `result`
    // (`error_during_execution`, `error.message`), after exit 1.
    ("qwen", "0.24.4/fake_auth", "auth", "structured", "common.invalid_key"),
    ("qwen", "0.24.4/fake_insufficient_quota", "quota", "structured", "common.insufficient_quota"),
    ("qwen", "0.24.4/fake_overloaded", "overloaded", "structured", "common.overloaded"),
    ("qwen", "0.24.4/fake_invalid_model_404", "invalid_model", "structured", "common.model_not_found"),
    ("qwen", "0.24.4/fake_invalid_model_400", "invalid_model", "structured", "common.model_not_found"),
    ("qwen", "0.24.4/fake_permission_denied", "invalid_model", "structured", "common.model_not_found"),
    ("qwen", "0.24.4/fake_context_too_long", "context_overflow", "structured", "common.context_length"),
    ("qwen", "0.24.4/fake_invalid_request", "provider_error", "structured", "http.4xx"),
    ("qwen", "0.24.4/fake_server_error", "provider_error", "structured", "common.server_error"),
    ("qwen", "0.24.4/fake_server_error_retries_1", "provider_error", "structured", "common.server_error"),
    ("qwen", "0.24.4/fake_mid_stream_cut", "network", "structured", "common.network"),
    ("qwen", "0.24.4/fake_connection_refused", "network", "structured", "common.network"),
    ("qwen", "0.24.4/fake_no_credentials", "credential_unavailable", "structured", "qwen.missing_key"),
    ("qwen", "0.24.4/fake_mid_stream_error_event", "provider_error", "structured", "common.server_error"),
    ("qwen", "0.24.4/fake_mid_stream_overloaded_event", "overloaded", "structured", "common.overloaded"),
    ("qwen", "0.24.4/fake_mid_stream_no_finish", "provider_error", "structured", "common.stream_incomplete"),
    ("qwen", "0.24.4/fake_resume_unknown_session", "invalid_session", "pattern", "qwen.no_session"),
    // Streams that break after text has started (fake-llm `fail:`): an
    // in-stream error event, `response.failed`, a stream without its
    // closing record. Claude reports them with a status or as a lost
    // connection; Codex as a stream closed before `response.completed` (it
    // does not read a bare `error` event); Gemini and Qwen exit 0, Gemini
    // with an error result after "Model stream ended without a finish
    // reason" (it does not read an error chunk either), Qwen with the
    // error appended to the partial answer.
    ("claude", "fake_mid_stream_error_event", "provider_error", "structured", "http.5xx"),
    ("claude", "fake_mid_stream_overloaded_event", "overloaded", "structured", "common.overloaded"),
    ("claude", "fake_mid_stream_no_finish", "network", "structured", "claude.connection"),
    ("codex", "fake_mid_stream_error_event", "provider_error", "structured", "codex.stream_failed"),
    ("codex", "fake_mid_stream_overloaded_event", "provider_error", "structured", "codex.stream_failed"),
    ("codex", "fake_mid_stream_response_failed", "provider_error", "structured", "codex.stream_failed"),
    ("codex", "fake_mid_stream_no_finish", "provider_error", "structured", "codex.stream_failed"),
    ("gemini", "fake_mid_stream_error_event", "provider_error", "structured", "common.stream_incomplete"),
    ("gemini", "fake_mid_stream_overloaded_event", "provider_error", "structured", "common.stream_incomplete"),
    ("gemini", "fake_mid_stream_no_finish", "provider_error", "structured", "common.stream_incomplete"),
    ("qwen", "fake_mid_stream_error_event", "provider_error", "pattern", "common.server_error"),
    ("qwen", "fake_mid_stream_overloaded_event", "overloaded", "pattern", "common.overloaded"),
    ("qwen", "fake_mid_stream_no_finish", "provider_error", "pattern", "common.stream_incomplete"),
    ("qwen", "fake_resume_unknown_session", "invalid_session", "pattern", "qwen.no_session"),
];

#[test]
fn captured_failures_classify_by_their_strongest_evidence() {
    let mut wrong = Vec::new();
    for &(cli, case, kind, src, rule) in CAPTURED {
        let Some(got) = classify_capture(cli, case) else {
            wrong.push(format!("{cli}/{case}: classified as success"));
            continue;
        };
        let kind: ErrorKind = kind.parse().unwrap();
        if (got.info.kind, got.info.source, got.rule) != (kind, source(src), rule) {
            wrong.push(format!(
                "{cli}/{case}: got {} / {:?} / {} ({:?}), want {kind} / {src} / {rule}",
                got.info.kind, got.info.source, got.rule, got.info.message
            ));
        }
        let recoverable = got.info.recoverable;
        assert_eq!(
            recoverable,
            kind.recoverable(),
            "{cli}/{case}: no table row overrides recoverable"
        );
        assert_eq!(
            got.info.exit_code,
            load(cli, case).exit_code,
            "{cli}/{case}"
        );
        assert!(!got.info.message.is_empty(), "{cli}/{case}: empty message");
        assert_eq!(
            got.info.message,
            got.info.message.trim(),
            "{cli}/{case}: untrimmed message"
        );
    }
    assert!(wrong.is_empty(), "misclassified:\n{}", wrong.join("\n"));
}

/// The same fixtures through the crate's real decoders (Claude, Codex,
/// Gemini, Qwen), fed line by line as the run loop feeds them.
fn classify_decoded(cli: &str, case: &str) -> Option<Classified> {
    let cap = load(cli, case);
    let mut decoder: Box<dyn Decoder> = match cli {
        "claude" => Box::new(ClaudeDecoder::new()),
        "codex" => Box::new(CodexDecoder::new()),
        "gemini" => Box::new(GeminiDecoder::new()),
        "qwen" => Box::new(agentgate_providers::qwen::QwenDecoder::new()),
        other => panic!("no decoder for {other}"),
    };
    let mut out = Vec::new();
    for line in cap.stdout.lines() {
        decoder.stdout_line(line.as_bytes(), &mut out);
    }
    for line in cap.stderr.lines() {
        decoder.stderr_line(line.as_bytes(), &mut out);
    }
    decoder.finish(&mut out);
    let mut errors = Vec::new();
    let mut final_ = None;
    for d in out {
        match d {
            Decoded::ProviderError(e) => errors.push(e),
            Decoded::Final(f) => final_ = Some(f),
            _ => {}
        }
    }
    let tz = TimeZone::UTC;
    let input = ClassifyInput {
        errors: &errors,
        final_: final_.as_ref(),
        exit_code: cap.exit_code,
        signal: cap.signal,
        stdout_tail: &cap.stdout,
        stderr_tail: &cap.stderr,
        ..ClassifyInput::new(table(cli), now(), &tz)
    };
    classify_explained(&input)
}

#[test]
fn the_real_decoders_lead_to_the_same_kinds() {
    let mut wrong = Vec::new();
    for &(cli, case, kind, ..) in CAPTURED.iter() {
        let got = classify_decoded(cli, case).map(|c| (c.info.kind, c.info.source, c.rule));
        let kind: ErrorKind = kind.parse().unwrap();
        if got.map(|g| g.0) != Some(kind) {
            wrong.push(format!("{cli}/{case}: got {got:?}, want {kind}"));
        }
    }
    for (cli, case) in [
        ("claude", "fake_text_ok"),
        ("codex", "fake_text_ok"),
        ("gemini", "fake_text_ok"),
        ("codex", "unknown_model_warning"),
        ("gemini", "text_json"),
    ] {
        if let Some(c) = classify_decoded(cli, case) {
            wrong.push(format!("{cli}/{case}: a success, got {:?}", c.info));
        }
    }
    assert!(
        wrong.is_empty(),
        "with the real decoders:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn captured_successes_classify_to_none() {
    for (cli, case) in [
        ("claude", "fake_text_ok"),
        ("claude", "text_json"),
        ("claude", "text_stream_json"),
        ("codex", "fake_text_ok"),
        ("codex", "text_json"),
        // An unknown model is only a warning item: the turn succeeds.
        ("codex", "unknown_model_warning"),
        ("gemini", "fake_text_ok"),
        ("gemini", "text_json"),
        ("gemini", "text_stream_json"),
        ("qwen", "fake_text_ok"),
        ("qwen", "text_stream_json"),
        ("qwen", "0.24.4/fake_text_ok"),
    ] {
        let got = classify_capture(cli, case);
        assert!(got.is_none(), "{cli}/{case} is a success, got {got:?}");
    }
}

#[test]
fn the_message_is_the_providers_own_words() {
    let msg = |cli, case| classify_capture(cli, case).unwrap().info.message;
    assert_eq!(
        msg("claude", "fake_auth"),
        "Invalid API key · Fix external API key"
    );
    assert_eq!(
        msg("claude", "fake_no_credentials"),
        "Not logged in · Please run /login"
    );
    assert_eq!(
        msg("codex", "fake_insufficient_quota"),
        "Quota exceeded. Check your plan and billing details."
    );
    // Pattern evidence quotes the line that matched, exit evidence what the
    // CLI said last.
    assert_eq!(
        msg("claude", "root_bypass_refused"),
        "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons"
    );
    assert_eq!(
        msg("gemini", "fake_resume_unknown_session"),
        "Error resuming session: No previous sessions found for this project."
    );
    assert_eq!(
        msg("gemini", "auth_gateway_invalid"),
        "Invalid auth method selected."
    );
    // Gemini's json mode prints the error as an object over several lines.
    assert_eq!(
        msg("gemini", "err_400_json"),
        "{\"error\":{\"code\":400,\"message\":\"* GenerateContentRequest.model: unexpected model name format\\n\",\"status\":\"INVALID_ARGUMENT\"}}"
    );
}

#[test]
fn the_http_status_is_reported_from_any_evidence() {
    let status = |cli, case| classify_capture(cli, case).unwrap().info.provider_status;
    // Claude's api_error_status.
    assert_eq!(status("claude", "fake_overloaded"), Some(529));
    // Codex's words: "unexpected status 403 Forbidden".
    assert_eq!(status("codex", "fake_permission_denied"), Some(403));
    // Gemini's error body in the message.
    assert_eq!(status("gemini", "fake_server_error"), Some(500));
    // Gemini's exit code: 173 = 429 mod 256, 247 = 503 mod 256.
    assert_eq!(status("gemini", "fake_json_rate_limit"), Some(429));
    assert_eq!(status("gemini", "fake_json_overloaded"), Some(503));
    assert_eq!(status("gemini", "fake_overloaded"), Some(503));
    // Evidence without a status.
    assert_eq!(status("claude", "fake_no_credentials"), None);
}

#[test]
fn retry_delays_in_the_output_become_retry_after_and_reset_at() {
    // Gemini: "Suggested retry after 20s." from the server's RetryInfo.
    let info = classify_capture("gemini", "fake_rate_limit_retry_after_20")
        .unwrap()
        .info;
    assert_eq!(info.retry_after_s, Some(20));
    assert_eq!(info.reset_at.as_deref(), Some("2026-01-15T12:00:20Z"));
    // Claude's message has no figure ("Please try again later.").
    let info = classify_capture("claude", "fake_rate_limit_retry_after_20")
        .unwrap()
        .info;
    assert_eq!((info.retry_after_s, info.reset_at), (None, None));
}

// ------------------------------------------------------------------- qwen

#[test]
fn qwen_reports_api_errors_in_its_answer_and_exits_0() {
    for (case, kind, rule) in [
        ("err_401_stream_json", ErrorKind::Auth, "common.invalid_key"),
        (
            "err_400_stream_json",
            ErrorKind::InvalidModel,
            "common.model_not_found",
        ),
        (
            "err_429_maxretries1_stream_json",
            ErrorKind::RateLimit,
            "common.rate_limit",
        ),
    ] {
        let cap = load("qwen", case);
        assert_eq!(cap.exit_code, Some(0), "{case}");
        let got = classify_capture("qwen", case).unwrap();
        assert_eq!(
            (got.info.kind, got.rule),
            (kind, rule),
            "{case}: {:?}",
            got.info
        );
        assert_eq!(got.info.source, ErrorSource::Pattern, "{case}");
    }
    let info = classify_capture("qwen", "err_429_maxretries1_stream_json")
        .unwrap()
        .info;
    assert_eq!(info.provider_status, Some(429));
    assert_eq!(info.retry_after_s, Some(20), "\"Please try again in 20s\"");
}

/// Qwen Code 0.24 exits 1 and says the failure in its `result`
/// (`is_error: true`, the report in `error.message`); the same rows decide
/// it, from structured evidence, with the status in the report.
#[test]
fn qwen_0_24_reports_api_errors_in_a_failed_result_and_exits_1() {
    for (case, kind, status) in [
        ("0.24.4/fake_auth", ErrorKind::Auth, 401),
        ("0.24.4/fake_insufficient_quota", ErrorKind::Quota, 429),
        (
            "0.24.4/fake_invalid_model_404",
            ErrorKind::InvalidModel,
            404,
        ),
    ] {
        let cap = load("qwen", case);
        assert_eq!(cap.exit_code, Some(1), "{case}");
        let result: Value = cap
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .find(|v| v["type"] == "result")
            .unwrap_or_else(|| panic!("{case}: no result record"));
        assert_eq!(result["is_error"], true, "{case}");
        assert_eq!(result["subtype"], "error_during_execution", "{case}");
        let got = classify_decoded("qwen", case).unwrap();
        assert_eq!(got.info.kind, kind, "{case}: {:?}", got.info);
        assert_eq!(got.info.source, ErrorSource::Structured, "{case}");
        assert_eq!(got.info.provider_status, Some(status), "{case}");
        assert_eq!(
            Some(got.info.message.as_str()),
            result["error"]["message"].as_str(),
            "{case}"
        );
    }
}

#[test]
fn an_answer_that_only_mentions_an_api_error_is_not_one() {
    let tz = TimeZone::UTC;
    let final_ = ProviderFinal {
        text: Some("The log shows [API Error: 500] twice; I fixed the retry loop.".into()),
        ..ProviderFinal::default()
    };
    let input = ClassifyInput {
        final_: Some(&final_),
        exit_code: Some(0),
        ..ClassifyInput::new(table("qwen"), now(), &tz)
    };
    assert_eq!(classify(&input), None);
    // The same text from Claude, whose table has no answer rule, either.
    let input = ClassifyInput {
        provider: "claude",
        table: table("claude"),
        ..input
    };
    assert_eq!(classify(&input), None);
}

// ------------------------------------------------------------ field texts

#[path = "../support/field_texts.rs"]
mod field_texts;
use field_texts::FIELD;

fn classify_field(cli: &str, place: &str, text: &str) -> Classified {
    let tz = TimeZone::UTC;
    let final_ = ProviderFinal {
        text: Some(text.into()),
        is_error: true,
        ..ProviderFinal::default()
    };
    let mut input = ClassifyInput {
        exit_code: Some(1),
        ..ClassifyInput::new(table(cli), now(), &tz)
    };
    match place {
        "final" => input.final_ = Some(&final_),
        "stderr" => input.stderr_tail = text,
        other => panic!("no place {other}"),
    }
    classify_explained(&input).unwrap()
}

#[test]
fn field_texts_classify() {
    for &(cli, place, text, kind, rule) in FIELD {
        let got = classify_field(cli, place, text);
        let kind: ErrorKind = kind.parse().unwrap();
        assert_eq!((got.info.kind, got.rule), (kind, rule), "{cli}: {text}");
        assert_eq!(
            got.info.message, text,
            "{cli}: the message is the text itself"
        );
    }
}

#[test]
fn field_texts_carry_their_reset_times() {
    let reset = |cli, text| classify_field(cli, "final", text).info.reset_at;
    assert_eq!(
        reset("claude", "Claude AI usage limit reached|1760000000").as_deref(),
        Some("2025-10-09T08:53:20Z")
    );
    // Clock times are read in the caller's zone (UTC here); now is 12:00.
    assert_eq!(
        reset("claude", "5-hour limit reached ∙ resets 3pm").as_deref(),
        Some("2026-01-15T15:00:00Z")
    );
    assert_eq!(
        reset(
            "claude",
            "You've hit your session limit · resets 5pm (Australia/Brisbane)"
        )
        .as_deref(),
        Some("2026-01-16T07:00:00Z"),
        "5pm in Brisbane (UTC+10) is 07:00 UTC, already past today"
    );
    assert_eq!(
        reset("gemini", "[API Error: You have exhausted your capacity on this model. Your quota will reset after 8h44m7s.]")
            .as_deref(),
        Some("2026-01-15T20:44:07Z")
    );
    let info = classify_field(
        "codex",
        "final",
        "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again in 3 days 6 hours.",
    )
    .info;
    assert_eq!(info.reset_at.as_deref(), Some("2026-01-18T18:00:00Z"));
    assert_eq!(info.retry_after_s, Some(3 * 86_400 + 6 * 3_600));
}

// ------------------------------------------------------------- coverage

#[test]
fn every_table_row_decides_some_real_output() {
    let mut decided = BTreeSet::new();
    for &(cli, case, ..) in CAPTURED {
        if let Some(c) = classify_capture(cli, case) {
            decided.insert(c.rule);
        }
    }
    for case in [
        "err_401_stream_json",
        "err_400_stream_json",
        "err_429_maxretries1_stream_json",
    ] {
        decided.insert(classify_capture("qwen", case).unwrap().rule);
    }
    for &(cli, place, text, ..) in FIELD {
        decided.insert(classify_field(cli, place, text).rule);
    }
    decided.insert(gemini_input_error().rule);
    let all = BUILTIN
        .iter()
        .flat_map(|d| d.errors.rules.iter())
        .chain(COMMON_RULES.iter())
        .map(|r| r.id);
    let untested: Vec<_> = all.filter(|id| !decided.contains(id)).collect();
    assert!(
        untested.is_empty(),
        "rows no real output exercises: {untested:?}"
    );
}

#[test]
fn every_table_is_well_formed() {
    let mut ids = BTreeSet::new();
    for t in BUILTIN.iter().map(|d| d.errors) {
        assert!(
            std::ptr::eq(table(t.name), t),
            "{} is found by name",
            t.name
        );
        assert!(
            std::ptr::eq(table(&t.name.to_uppercase()), t),
            "names are case-insensitive"
        );
        for rule in t.rules.iter().chain(COMMON_RULES.iter()) {
            assert!(rule.has_condition(), "{} has no condition", rule.id);
            if let Some(p) = rule.text {
                compile_checked(p).unwrap_or_else(|e| panic!("{}: {e}", rule.id));
            }
        }
        for rule in t.rules {
            assert!(ids.insert(rule.id), "duplicate row id {}", rule.id);
            assert!(
                rule.id.starts_with(&format!("{}.", t.name)),
                "{} in {}",
                rule.id,
                t.name
            );
        }
        if let Some(p) = t.answer_error {
            compile_checked(p).unwrap();
        }
    }
    assert_eq!(table("no-such-cli").name, "generic");
}

// ------------------------------------------------------------ precedence

/// Gemini's FatalInputError (exit 42) with a text from the CLI's own source
/// (no unattended run produced one: the commands that raise it need a
/// terminal or a confirmation).
fn gemini_input_error() -> Classified {
    let tz = TimeZone::UTC;
    let input = ClassifyInput {
        exit_code: Some(42),
        stderr_tail: "Exiting due to a confirmation prompt requested by the command.",
        ..ClassifyInput::new(table("gemini"), now(), &tz)
    };
    classify_explained(&input).unwrap()
}

#[test]
fn structured_evidence_beats_the_exit_status_which_beats_patterns() {
    let tz = TimeZone::UTC;
    let errors = [ProviderError {
        message: "[API Error: Resource has been exhausted (e.g. check quota).]".into(),
        terminal: true,
        ..ProviderError::default()
    }];
    // Exit 145 says 401, stderr says the key is bad: the structured 429 wins.
    let all = ClassifyInput {
        errors: &errors,
        exit_code: Some(145),
        stderr_tail: "API key not valid. Please pass a valid API key.",
        ..ClassifyInput::new(table("gemini"), now(), &tz)
    };
    let got = classify(&all).unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::RateLimit, ErrorSource::Structured)
    );
    assert_eq!(
        got.provider_status,
        Some(401),
        "the exit code's status is still reported"
    );

    // Without the structured error, the exit code (401) decides, refined by
    // the text: auth, from the exit status.
    let exit_and_text = ClassifyInput {
        errors: &[],
        ..all.clone()
    };
    let got = classify(&exit_and_text).unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::Auth, ErrorSource::ExitStatus)
    );

    // Exit 41 (no usable credentials) beats a text that says "auth".
    let exit_41 = ClassifyInput {
        exit_code: Some(41),
        ..exit_and_text.clone()
    };
    let got = classify(&exit_41).unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::CredentialUnavailable, ErrorSource::ExitStatus)
    );

    // A generic exit code leaves the text to decide.
    let exit_1 = ClassifyInput {
        exit_code: Some(1),
        ..exit_and_text
    };
    let got = classify(&exit_1).unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::Auth, ErrorSource::Pattern)
    );

    // Exit 42 is an input error, unless the text says the session is unknown.
    let got = gemini_input_error();
    assert_eq!(
        (got.info.kind, got.info.source),
        (ErrorKind::InvalidInput, ErrorSource::ExitStatus)
    );
    assert!(!got.info.recoverable);
}

#[test]
fn the_last_terminal_error_counts_not_the_retries_before_it() {
    let tz = TimeZone::UTC;
    let errors = [
        ProviderError {
            message: "rate_limit".into(),
            http_status: Some(429),
            code: Some("rate_limit".into()),
            terminal: false,
        },
        ProviderError {
            message: "API Error: 500 Internal server error.".into(),
            http_status: Some(500),
            terminal: true,
            ..ProviderError::default()
        },
    ];
    let input = ClassifyInput {
        errors: &errors,
        exit_code: Some(1),
        ..ClassifyInput::new(table("claude"), now(), &tz)
    };
    let got = classify(&input).unwrap();
    assert_eq!(
        (got.kind, got.provider_status),
        (ErrorKind::ProviderError, Some(500))
    );
}

#[test]
fn a_retry_notice_is_the_weakest_evidence() {
    let tz = TimeZone::UTC;
    let notices = [ProviderError {
        message: "Reconnecting... 2/5 (exceeded retry limit, last status: 429 Too Many Requests)"
            .into(),
        ..ProviderError::default()
    }];
    // The CLI got past the 429s, then its stderr explains the failure.
    let input = ClassifyInput {
        errors: &notices,
        exit_code: Some(1),
        stderr_tail: "Error: thread/resume failed: no rollout found for thread id 1",
        ..ClassifyInput::new(table("codex"), now(), &tz)
    };
    let got = classify(&input).unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::InvalidSession, ErrorSource::Pattern)
    );
    // Nothing else: the notice is the best there is.
    let got = classify(&ClassifyInput {
        stderr_tail: "",
        ..input
    })
    .unwrap();
    assert_eq!(
        (got.kind, got.source),
        (ErrorKind::RateLimit, ErrorSource::Structured)
    );
}

#[test]
fn unexplained_failures_are_unknown_and_crashes_provider_errors() {
    let tz = TimeZone::UTC;
    // A non-zero exit with nothing recognisable: unknown, not recoverable.
    let input = ClassifyInput {
        exit_code: Some(3),
        stderr_tail: "something odd happened\n    at main (x.js:1:1)\n",
        ..ClassifyInput::new(table("codex"), now(), &tz)
    };
    let got = classify_explained(&input).unwrap();
    assert_eq!(
        (got.info.kind, got.info.source, got.rule),
        (ErrorKind::Unknown, ErrorSource::ExitStatus, "fallback.exit")
    );
    assert_eq!(got.info.message, "something odd happened");
    assert!(!got.info.recoverable);
    assert_eq!(got.info.exit_code, Some(3));

    // Killed by a signal without a clean final record: a crash.
    let input = ClassifyInput {
        signal: Some(11),
        ..ClassifyInput::new(table("claude"), now(), &tz)
    };
    let got = classify_explained(&input).unwrap();
    assert_eq!(
        (got.info.kind, got.rule),
        (ErrorKind::ProviderError, "fallback.signal")
    );
    assert_eq!(got.info.message, "claude was killed by signal 11");
    assert!(got.info.recoverable);

    // A structured error no row knows keeps the CLI's words.
    let errors = [ProviderError {
        message: "  the widget jammed  ".into(),
        terminal: true,
        ..ProviderError::default()
    }];
    let input = ClassifyInput {
        errors: &errors,
        exit_code: Some(1),
        ..ClassifyInput::new(table("codex"), now(), &tz)
    };
    let got = classify_explained(&input).unwrap();
    assert_eq!(
        (got.info.kind, got.info.source),
        (ErrorKind::Unknown, ErrorSource::Structured)
    );
    assert_eq!(got.info.message, "the widget jammed");
}

#[test]
fn noise_lines_never_explain_a_failure() {
    // Codex interrupted by SIGINT: exit 1 and nothing but its usual banner.
    let got = classify_capture("codex", "fake_interrupted").unwrap();
    assert_eq!(
        (got.info.kind, got.rule),
        (ErrorKind::Unknown, "fallback.exit")
    );
    assert_eq!(got.info.message, "codex exited with status 1");
    // Every noise pattern is one the CLI really prints.
    for t in BUILTIN.iter().map(|d| d.errors) {
        for pattern in t.noise {
            let re = compile_checked(pattern).unwrap();
            let dir = fixture_dir().join(t.name);
            let seen = std::fs::read_dir(&dir).unwrap().any(|e| {
                let path = e.unwrap().path();
                path.extension().is_some_and(|x| x == "stderr")
                    && std::fs::read_to_string(&path)
                        .unwrap()
                        .lines()
                        .any(|l| re.is_match(l))
            });
            assert!(
                seen,
                "{}: noise pattern {pattern:?} matches no captured stderr",
                t.name
            );
        }
    }
}

/// A table of one's own, e.g. for a CLI described in config.
static CUSTOM: ProviderTable = ProviderTable {
    name: "custom",
    rules: &[
        Rule::text("custom.flaky", ErrorKind::ProviderError, r"flaky backend").recoverable(false),
        Rule::exit("custom.exit_7", ErrorKind::Quota, &[7]),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};

#[test]
fn a_custom_table_classifies_and_overrides_recoverable() {
    let tz = TimeZone::UTC;
    let input = ClassifyInput {
        exit_code: Some(1),
        stderr_tail: "error: flaky backend, giving up",
        provider: "custom",
        ..ClassifyInput::new(table("custom"), now(), &tz)
    };
    let got = classify_with(&CUSTOM, &input).unwrap();
    assert_eq!(
        (got.info.kind, got.rule),
        (ErrorKind::ProviderError, "custom.flaky")
    );
    assert!(
        !got.info.recoverable,
        "the row overrides provider_error's default"
    );
    let got = classify_with(
        &CUSTOM,
        &ClassifyInput {
            exit_code: Some(7),
            ..input
        },
    )
    .unwrap();
    assert_eq!(
        (got.info.kind, got.info.source),
        (ErrorKind::Quota, ErrorSource::ExitStatus)
    );
    // The built-in lookup does not know it.
    assert_eq!(table("custom").name, "generic");
}

#[test]
fn docs_list_every_row() {
    let docs = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/errors.md");
    let docs = std::fs::read_to_string(&docs).unwrap();
    let rows = BUILTIN
        .iter()
        .flat_map(|d| d.errors.rules.iter())
        .chain(COMMON_RULES.iter());
    for rule in rows {
        assert!(
            docs.contains(&format!("`{}`", rule.id)),
            "docs/errors.md does not list {}",
            rule.id
        );
    }
    for kind in ErrorKind::ALL {
        assert!(
            docs.contains(&format!("| `{kind}` |")),
            "docs/errors.md has no row for {kind}"
        );
    }
}

#[test]
fn success_classifies_to_none() {
    let tz = TimeZone::UTC;
    let clean = ProviderFinal {
        text: Some("done".into()),
        ..ProviderFinal::default()
    };
    // Exit 0, no errors.
    let ok = ClassifyInput {
        final_: Some(&clean),
        exit_code: Some(0),
        ..ClassifyInput::new(table("claude"), now(), &tz)
    };
    assert_eq!(classify(&ok), None);
    // Retries the CLI got past are not failures.
    let retries = [ProviderError {
        message: "Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)"
            .into(),
        ..ProviderError::default()
    }];
    assert_eq!(
        classify(&ClassifyInput {
            errors: &retries,
            provider: "codex",
            table: table("codex"),
            ..ok.clone()
        }),
        None
    );
    // Error-looking stderr of a successful run is noise.
    assert_eq!(
        classify(&ClassifyInput {
            stderr_tail: "Error: ECONNRESET (retried)",
            ..ok.clone()
        }),
        None
    );
    // Ended by the supervisor after a clean final record.
    assert_eq!(
        classify(&ClassifyInput {
            exit_code: None,
            signal: Some(15),
            ..ok.clone()
        }),
        None
    );
    // But a non-zero exit after a clean record is a failure.
    assert!(
        classify(&ClassifyInput {
            exit_code: Some(1),
            ..ok
        })
        .is_some()
    );
}

#[test]
fn long_messages_are_cut() {
    let tz = TimeZone::UTC;
    let long = "x".repeat(5000);
    let errors = [ProviderError {
        message: long,
        terminal: true,
        ..ProviderError::default()
    }];
    let input = ClassifyInput {
        errors: &errors,
        ..ClassifyInput::new(table("claude"), now(), &tz)
    };
    let message = classify(&input).unwrap().message;
    assert_eq!(message.chars().count(), 2001);
    assert!(message.ends_with('…'));
}

#[test]
fn the_mapping_agrees_with_the_protocols_exit_codes() {
    // docs/errors.md lists, per kind, the exit code of `agentgate run` when
    // it is the final error of a one-agent chain.
    for kind in ErrorKind::ALL {
        let code = exit_code_for(Some(kind), kind.recoverable());
        let want = match kind {
            ErrorKind::InvalidInput | ErrorKind::Policy => 2,
            ErrorKind::Cancelled => 130,
            ErrorKind::Timeout | ErrorKind::IdleTimeout => 124,
            k if k.recoverable() => 75,
            _ => 1,
        };
        assert_eq!(code, want, "{kind}");
    }
}

// ---------------------------------------------------------- reset times

fn at(s: &str) -> Timestamp {
    s.parse().unwrap()
}

#[test]
fn reset_clock_times_are_the_next_occurrence_in_the_zone() {
    let ny = new_york();
    // 12:00 in New York (EST, UTC-5).
    let noon = at("2026-01-15T17:00:00Z");
    assert_eq!(
        parse_reset("try again at 3:28 PM.", noon, &ny),
        Some((at("2026-01-15T20:28:00Z"), "clock_time"))
    );
    assert_eq!(
        parse_reset("resume using this model at 4:05 PM", noon, &ny),
        Some((at("2026-01-15T21:05:00Z"), "clock_time"))
    );
    // Already past 3pm: tomorrow's.
    let four_pm = at("2026-01-15T21:00:00Z");
    assert_eq!(
        parse_reset("5-hour limit reached ∙ resets 3pm", four_pm, &ny),
        Some((at("2026-01-16T20:00:00Z"), "clock_time"))
    );
    // Exactly now is not "next".
    let three_pm = at("2026-01-15T20:00:00Z");
    assert_eq!(
        parse_reset("resets 3pm", three_pm, &ny).unwrap().0,
        at("2026-01-16T20:00:00Z")
    );
    // The same words in UTC.
    assert_eq!(
        parse_reset("resets 3pm", at("2026-01-15T12:00:00Z"), &TimeZone::UTC),
        Some((at("2026-01-15T15:00:00Z"), "clock_time"))
    );
    // 12am is midnight, 12pm noon; 24-hour clocks too.
    assert_eq!(
        parse_reset("resets 12am", noon, &TimeZone::UTC).unwrap().0,
        at("2026-01-16T00:00:00Z")
    );
    assert_eq!(
        parse_reset("resets 12pm", noon, &TimeZone::UTC).unwrap().0,
        at("2026-01-16T12:00:00Z")
    );
    assert_eq!(
        parse_reset("resets at 18:30", noon, &TimeZone::UTC)
            .unwrap()
            .0,
        at("2026-01-15T18:30:00Z")
    );
    // A zone named after the time wins over the caller's.
    assert_eq!(
        parse_reset("resets 5pm (Australia/Brisbane)", noon, &ny),
        Some((at("2026-01-16T07:00:00Z"), "clock_time"))
    );
    assert_eq!(
        parse_reset("resets 5pm (UTC)", noon, &ny).unwrap().0,
        at("2026-01-15T17:00:00Z") + jiff::SignedDuration::from_hours(24)
    );
}

#[test]
fn reset_clock_times_are_dst_safe() {
    let ny = new_york();
    // Saturday 2026-03-07 16:00 EST; clocks spring forward on Sunday 2 AM.
    let sat = at("2026-03-07T21:00:00Z");
    // 3pm Sunday is EDT (UTC-4): 19:00Z, not 24 hours after Saturday's 3pm.
    assert_eq!(
        parse_reset("resets 3pm", sat, &ny).unwrap().0,
        at("2026-03-08T19:00:00Z")
    );
    // 2:30 AM does not exist on Sunday: the instant after the gap (3:30 EDT).
    let sun_1am = at("2026-03-08T06:00:00Z");
    assert_eq!(
        parse_reset("try again at 2:30 AM", sun_1am, &ny).unwrap().0,
        at("2026-03-08T07:30:00Z")
    );
    // 1:30 AM happens twice on 2026-11-01 (fall back). At 1:45 EDT the first
    // has passed; the next is 1:30 EST.
    let fold = at("2026-11-01T05:45:00Z");
    assert_eq!(
        parse_reset("try again at 1:30 AM", fold, &ny).unwrap().0,
        at("2026-11-01T06:30:00Z")
    );
    // Before the first, the first.
    let before = at("2026-11-01T05:00:00Z");
    assert_eq!(
        parse_reset("try again at 1:30 AM", before, &ny).unwrap().0,
        at("2026-11-01T05:30:00Z")
    );
}

#[test]
fn reset_dates_and_weekdays() {
    let ny = new_york();
    // Thursday 2026-01-15, noon in New York.
    let noon = at("2026-01-15T17:00:00Z");
    assert_eq!(
        parse_reset(
            "You've hit your weekly limit · resets Mon 12:00am",
            noon,
            &ny
        ),
        Some((at("2026-01-19T05:00:00Z"), "weekday_time"))
    );
    // Today's weekday, time passed: next week.
    assert_eq!(
        parse_reset("resets Thu 9am", noon, &ny).unwrap().0,
        at("2026-01-22T14:00:00Z")
    );
    assert_eq!(
        parse_reset("resets Thursday 1pm", noon, &ny).unwrap().0,
        at("2026-01-15T18:00:00Z")
    );
    assert_eq!(
        parse_reset("or try again at Jul 9th, 2026 1:47 AM.", noon, &ny),
        Some((at("2026-07-09T05:47:00Z"), "date_time"))
    );
    assert_eq!(
        parse_reset(
            "Upgrade your plan or add credits to continue, or try again at Aug 10, 2026, 11:12 AM.",
            noon,
            &ny
        )
        .unwrap()
        .0,
        at("2026-08-10T15:12:00Z")
    );
    assert_eq!(
        parse_reset("try again at Sep 1st, 2026 3:14 PM.", noon, &TimeZone::UTC)
            .unwrap()
            .0,
        at("2026-09-01T15:14:00Z")
    );
    // No year: the next one.
    assert_eq!(
        parse_reset(
            "You've hit your weekly limit · resets Sep 24 at 3pm (Australia/Brisbane)",
            noon,
            &ny
        ),
        Some((at("2026-09-24T05:00:00Z"), "date_time"))
    );
    assert_eq!(
        parse_reset("resets Jan 2 at 3pm", noon, &TimeZone::UTC)
            .unwrap()
            .0,
        at("2027-01-02T15:00:00Z")
    );
}

#[test]
fn reset_relative_times_and_epochs() {
    let now = at("2026-01-15T12:00:00Z");
    let utc = TimeZone::UTC;
    let cases = [
        (
            "Your quota will reset after 8h44m7s.",
            "2026-01-15T20:44:07Z",
        ),
        ("try again in 3 days 6 hours", "2026-01-18T18:00:00Z"),
        ("Please try again in 20s.", "2026-01-15T12:00:20Z"),
        ("resets in 1d 5h", "2026-01-16T17:00:00Z"),
        ("Please retry in 1m30s", "2026-01-15T12:01:30Z"),
        ("try again in 5 minutes", "2026-01-15T12:05:00Z"),
    ];
    for (text, want) in cases {
        assert_eq!(
            parse_reset(text, now, &utc),
            Some((at(want), "relative")),
            "{text}"
        );
    }
    assert_eq!(
        parse_reset("Claude AI usage limit reached|1760000000", now, &utc),
        Some((Timestamp::from_second(1_760_000_000).unwrap(), "epoch"))
    );
    assert_eq!(
        parse_reset("Claude AI usage limit reached|1760000000123", now, &utc),
        Some((
            Timestamp::from_millisecond(1_760_000_000_123).unwrap(),
            "epoch"
        ))
    );
    for text in [
        "try again in a moment",
        "Please wait and try again later.",
        "This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:44567).",
        "Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
        "resets 13pm",
        "reset at 25:00",
        "try again in 3 months",
        "",
    ] {
        assert_eq!(parse_reset(text, now, &utc), None, "{text}");
    }
}

#[test]
fn retry_after_is_whole_seconds_rounded_up() {
    let cases = [
        ("Please try again in 20s.", Some(20)),
        ("Suggested retry after 20s.", Some(20)),
        ("Please retry in 2.3s", Some(3)),
        ("Please try again in 6ms", Some(1)),
        ("reset after 8h44m7s", Some(31_447)),
        ("retry-after: 7", Some(7)),
        ("{\"retry-after\": \"12\"}", Some(12)),
        ("try again at 3:28 PM", None),
        ("Please wait and try again later.", None),
        ("Attempt 1 failed. Retrying after 5337ms...", None),
    ];
    for (text, want) in cases {
        assert_eq!(parse_retry_after(text), want, "{text}");
    }
}

// -------------------------------------------------------- retry notices

fn notices(cli: &str, case: &str) -> Vec<RetryNotice> {
    let cap = load(cli, case);
    cap.stdout
        .lines()
        .chain(cap.stderr.lines())
        .filter_map(|l| is_retry_notice(table(cli), l))
        .collect()
}

#[test]
fn gemini_retry_notices_from_its_stderr() {
    let n = notices("gemini", "fake_rate_limit_retries_2");
    let attempts: Vec<_> = n.iter().map(|n| (n.attempt, n.http_status)).collect();
    assert_eq!(
        attempts,
        [(Some(1), Some(429)), (Some(2), Some(429))],
        "the third attempt is final"
    );
    let n = notices("gemini", "err_429_stream_json");
    assert_eq!(
        n.len(),
        13,
        "the router request's 4 retries and the turn's 9"
    );
    let n = notices("gemini", "fake_server_error_retries_1");
    assert_eq!((n.len(), n[0].http_status), (1, Some(500)));
    // A retry-after from the server: the delay is on its own line.
    let n = notices("gemini", "fake_rate_limit_retry_after_2_retries_1");
    assert_eq!(
        n,
        [RetryNotice {
            delay_ms: Some(5337),
            ..RetryNotice::default()
        }]
    );
    assert_eq!(
        is_retry_notice(
            table("gemini"),
            "Attempt 3 failed with 429 error (no Retry-After header). Retrying with backoff..."
        ),
        Some(RetryNotice {
            attempt: Some(3),
            http_status: Some(429),
            ..RetryNotice::default()
        })
    );
    assert_eq!(
        is_retry_notice(
            table("gemini"),
            "Attempt 2 failed: You exceeded your current quota. Retrying after 61000ms..."
        ),
        Some(RetryNotice {
            attempt: Some(2),
            delay_ms: Some(61_000),
            ..RetryNotice::default()
        })
    );
    assert!(
        notices("gemini", "fake_rate_limit").is_empty(),
        "one attempt, no retry"
    );
}

#[test]
fn claude_retry_notices_are_its_api_retry_records() {
    let n = notices("claude", "fake_rate_limit_retries_2");
    assert_eq!(n.len(), 2);
    assert_eq!(
        (n[0].attempt, n[0].max, n[0].http_status),
        (Some(1), Some(2), Some(429))
    );
    let n = notices("claude", "err_429_stream_json");
    assert_eq!(n.len(), 10);
    assert_eq!(n[1].delay_ms, Some(1102), "1101.67 ms, rounded");
    assert!(notices("claude", "fake_rate_limit").is_empty());
}

#[test]
fn codex_retry_notices_are_its_reconnecting_events() {
    let n = notices("codex", "fake_rate_limit_retries_2");
    let got: Vec<_> = n
        .iter()
        .map(|n| (n.attempt, n.max, n.http_status))
        .collect();
    assert_eq!(
        got,
        [(Some(1), Some(2), Some(429)), (Some(2), Some(2), Some(429))]
    );
    assert_eq!(notices("codex", "err_401_json").len(), 5);
    // Waiting for the network: no counts, but a retry all the same.
    let n = notices("codex", "fake_connection_refused");
    assert!(!n.is_empty() && n.iter().all(|n| n.attempt.is_none()));
    assert!(notices("codex", "fake_rate_limit").is_empty());
}

#[test]
fn providers_without_notices_have_none() {
    assert_eq!(
        is_retry_notice(
            table("opencode"),
            "Attempt 1 failed with status 429. Retrying with backoff..."
        ),
        None
    );
    assert_eq!(is_retry_notice(table("gemini"), "not a notice"), None);
    assert_eq!(
        is_retry_notice(
            table("claude"),
            "{\"type\":\"system\",\"subtype\":\"init\"}"
        ),
        None
    );
    assert_eq!(is_retry_notice(table("claude"), "{broken json"), None);
}
