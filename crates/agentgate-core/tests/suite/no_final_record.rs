//! No answer is not a success: for every adapter, and for CLIs a config
//! file describes, a CLI that exits 0 without the final record its output
//! format promises (nothing on stdout, bytes that are not its format,
//! assistant text without the closing record) fails the attempt with a
//! recoverable `provider_error` (rule `fallback.no_final_record`), through
//! the real decoders, the accumulator and the classifier, as `agentgate
//! parse` and a live run see it. The same capture with its closing record
//! is a success, so the record is what decides.
//!
//! The captures are the real CLIs' output kept for the decoder tests
//! (`tests/fixtures/decode/`), cut before their closing record; Cursor's
//! and agy's are written out, as their decoder tests do.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test code: a failed unwrap is a failed test"
)]

use std::path::PathBuf;
use std::sync::Arc;

use agentgate_core::parse_capture;
use agentgate_core::{Config, ConfigSource};
use agentgate_protocol::{ErrorKind, ErrorSource};
use agentgate_providers::Accumulator;
use agentgate_providers::{ClassifyInput, StdoutSeen, classify_explained};
use agentgate_providers::{Provider, builtin};
use jiff::Timestamp;
use jiff::tz::TimeZone;

const RULE: &str = "fallback.no_final_record";

/// Bytes no adapter reads as its format: a crash report and a banner.
const NOT_THE_FORMAT: &str = "Segmentation fault (core dumped)\nWelcome! Type /help.\n";

fn fixture(path: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../agentgate-providers/tests/fixtures/decode")
        .join(path);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// `stdout` up to (not including) the last line holding `marker`.
fn cut_before_last(stdout: &str, marker: &str) -> String {
    let lines: Vec<&str> = stdout.lines().collect();
    let at = lines
        .iter()
        .rposition(|l| l.contains(marker))
        .unwrap_or_else(|| panic!("no {marker} in the capture"));
    let mut kept = lines[..at].join("\n");
    kept.push('\n');
    kept
}

/// The decision for `stdout` with exit status `exit`, as a live run and
/// `agentgate parse` make it: the classifier's row, and the envelope.
struct Outcome {
    rule: Option<&'static str>,
    envelope: agentgate_protocol::Envelope,
    exit: i32,
}

fn outcome(provider: &dyn Provider, stdout: &str, exit: Option<i32>) -> Outcome {
    let mut decoder = provider.decoder();
    let mut out = Vec::new();
    let mut seen = StdoutSeen::default();
    for line in stdout.lines() {
        seen.line(line.as_bytes());
        decoder.stdout_line(line.as_bytes(), &mut out);
    }
    decoder.finish(&mut out);
    let mut acc = Accumulator::new(provider.name());
    for d in &out {
        acc.observe(d);
    }
    let tz = TimeZone::UTC;
    let mut input = ClassifyInput::new(provider.errors(), Timestamp::now(), &tz);
    input.provider = provider.name();
    input.errors = acc.errors();
    input.final_ = acc.final_record();
    input.final_expected = provider.final_record();
    input.stdout_seen = seen;
    input.exit_code = exit;
    input.stdout_tail = stdout;
    let rule = classify_explained(&input).map(|c| c.rule);
    let (_, envelope, exit) = parse_capture(provider, stdout.as_bytes(), b"", exit);
    Outcome {
        rule,
        envelope,
        exit,
    }
}

/// `stdout`, ended with exit 0 (and with an unknown exit status, as
/// `agentgate parse` without `--exit-code` has it), gave no answer.
fn assert_no_answer(provider: &dyn Provider, what: &str, stdout: &str) {
    for exit in [Some(0), None] {
        let o = outcome(provider, stdout, exit);
        let name = provider.name();
        let env = &o.envelope;
        assert_eq!(
            o.rule,
            Some(RULE),
            "{name}, {what}, exit {exit:?}: {env:#?}"
        );
        assert_eq!(
            env.error_type,
            Some(ErrorKind::ProviderError),
            "{name}, {what}"
        );
        assert_eq!(env.recoverable, Some(true), "{name}, {what}");
        // Recoverable: the exit code a chain hands on at.
        assert_eq!((o.exit, env.exit_code), (75, Some(75)), "{name}, {what}");
        let message = env.error.as_deref().unwrap_or_default();
        assert!(
            message.starts_with(&format!("{name} ")) && message.contains(" without "),
            "{name}, {what}: {message}"
        );
    }
}

/// The same CLI's answer with its closing record is a success.
fn assert_answered(provider: &dyn Provider, stdout: &str, answer: &str) {
    let o = outcome(provider, stdout, Some(0));
    let env = &o.envelope;
    assert_eq!(o.rule, None, "{}: {env:#?}", provider.name());
    assert_eq!(env.error_type, None, "{}: {env:#?}", provider.name());
    assert_eq!(o.exit, 0);
    assert_eq!(env.response, answer, "{}", provider.name());
}

/// One JSON-lines CLI: its real answer, and the line its closing record
/// starts with.
fn check_json_lines(name: &str, answered: &str, closing: &str, answer: &str) {
    let provider = builtin(name).unwrap();
    let p = provider.as_ref();
    assert!(
        p.final_record().is_some(),
        "{name} declares no final record"
    );
    assert_answered(p, answered, answer);
    assert_no_answer(p, "nothing on stdout", "");
    assert_no_answer(p, "blank lines", "\n  \n");
    assert_no_answer(p, "bytes that are not its format", NOT_THE_FORMAT);
    assert_no_answer(
        p,
        "text without the closing record",
        &cut_before_last(answered, closing),
    );
}

#[test]
fn claude_without_its_result_record_gave_no_answer() {
    let answered = fixture("claude/text_stream_json.stdout");
    check_json_lines("claude", &answered, r#""type":"result""#, "done");
}

#[test]
fn codex_without_turn_completed_gave_no_answer() {
    let answered = fixture("codex/text_json.stdout");
    check_json_lines("codex", &answered, r#""type":"turn.completed""#, "done");
}

#[test]
fn gemini_without_its_result_record_gave_no_answer() {
    let answered = fixture("gemini/text_stream_json.stdout");
    check_json_lines("gemini", &answered, r#""type":"result""#, "done");
}

#[test]
fn qwen_without_its_result_record_gave_no_answer() {
    let answered = fixture("qwen/text_stream_json.stdout");
    let answer = qwen_answer(&answered);
    check_json_lines("qwen", &answered, r#""type":"result""#, &answer);
}

/// Qwen's capture answers in its own words: the `result` record's text.
fn qwen_answer(stdout: &str) -> String {
    let last = stdout.lines().last().unwrap();
    let v: serde_json::Value = serde_json::from_str(last).unwrap();
    v["result"].as_str().unwrap().to_owned()
}

#[test]
fn opencode_without_a_closing_step_finish_gave_no_answer() {
    let answered = fixture("opencode/text_json.stdout");
    check_json_lines("opencode", &answered, r#""type":"step_finish""#, "done");
}

#[test]
fn opencode_stopped_by_a_refused_tool_gave_no_answer() {
    // opencode stops after a step that ended for a tool call it refused:
    // the text before the call is all there is, and no step ends the turn.
    let provider = builtin("opencode").unwrap();
    let stdout = fixture("opencode/fake_refused.stdout");
    assert_no_answer(provider.as_ref(), "a refused tool call", &stdout);
    let o = outcome(provider.as_ref(), &stdout, Some(0));
    assert_eq!(o.envelope.response, "I'll create it.");
}

const CURSOR: &str = r#"{"type":"system","subtype":"init","session_id":"s","model":"gpt-5"}
{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"Done."}]},"session_id":"s"}
{"type":"result","subtype":"success","is_error":false,"result":"Done.","session_id":"s"}
"#;

#[test]
fn cursor_without_its_result_record_gave_no_answer() {
    check_json_lines("cursor", CURSOR, r#""type":"result""#, "Done.");
}

#[test]
fn agy_without_an_answer_gave_none() {
    // agy prints plain text: its answer is its final record, and any bytes
    // on stdout are an answer. Nothing, or blank lines, is none.
    let provider = builtin("agy").unwrap();
    let p = provider.as_ref();
    assert!(p.final_record().is_some());
    assert_answered(p, "Done.\n", "Done.");
    assert_no_answer(p, "nothing on stdout", "");
    assert_no_answer(p, "blank lines", "\n\n  \n");
}

/// CLIs a config file describes, one per output format.
fn custom(name: &str) -> Arc<dyn Provider> {
    let yaml = r#"version: 1
providers:
  plain:
    command: [plain]
    output: text
  doc:
    command: [doc]
    output: json
    text: /answer
  lines:
    command: [lines]
    output: jsonl
    final: {type: done}
    text: /result
    message: {match: {type: say}, text: /text}
  chat:
    command: [chat]
    output: jsonl
    message: {match: {type: say}, text: /text}
"#;
    let config =
        Config::parse(yaml, ConfigSource::Flag(PathBuf::from("/x/agentgate.yaml"))).unwrap();
    config.resolve_provider(name).unwrap()
}

#[test]
fn a_config_described_cli_without_its_answer_gave_none() {
    let say = "{\"type\":\"say\",\"text\":\"hi\"}\n";

    let plain = custom("plain");
    assert_answered(plain.as_ref(), "hi\n", "hi");
    assert_answered(plain.as_ref(), NOT_THE_FORMAT, NOT_THE_FORMAT.trim_end());
    assert_no_answer(plain.as_ref(), "nothing on stdout", "");
    assert_no_answer(plain.as_ref(), "blank lines", " \n\n");

    let doc = custom("doc");
    assert_answered(doc.as_ref(), "{\"answer\": \"hi\"}\n", "hi");
    assert_no_answer(doc.as_ref(), "nothing on stdout", "");
    assert_no_answer(
        doc.as_ref(),
        "bytes that are not its format",
        NOT_THE_FORMAT,
    );
    assert_no_answer(doc.as_ref(), "a cut document", "{\"answer\": \"h\n");

    let lines = custom("lines");
    let closing = "{\"type\":\"done\",\"result\":\"hi\"}\n";
    assert_answered(lines.as_ref(), &format!("{say}{closing}"), "hi");
    assert_no_answer(lines.as_ref(), "nothing on stdout", "");
    assert_no_answer(
        lines.as_ref(),
        "bytes that are not its format",
        NOT_THE_FORMAT,
    );
    assert_no_answer(lines.as_ref(), "text without the closing record", say);

    let chat = custom("chat");
    assert_answered(chat.as_ref(), say, "hi");
    assert_no_answer(chat.as_ref(), "nothing on stdout", "");
    assert_no_answer(
        chat.as_ref(),
        "bytes that are not its format",
        NOT_THE_FORMAT,
    );
    assert_no_answer(chat.as_ref(), "no message line", "{\"type\":\"start\"}\n");
}

#[test]
fn any_other_evidence_decides_before_the_missing_record() {
    let provider = builtin("claude").unwrap();
    let p = provider.as_ref();
    let text_only = cut_before_last(
        &fixture("claude/text_stream_json.stdout"),
        "\"type\":\"result\"",
    );
    // A non-zero exit: the exit status decides, not the missing record.
    let o = outcome(p, &text_only, Some(1));
    assert_ne!(o.rule, Some(RULE));
    assert_eq!(o.envelope.error_type, Some(ErrorKind::Unknown));
    // Words a row knows, with exit 0: the row decides.
    let o = outcome(p, "API Error: 529 Overloaded\n", Some(0));
    assert_eq!(
        o.envelope.error_type,
        Some(ErrorKind::Overloaded),
        "{:#?}",
        o.envelope
    );
    assert_ne!(o.rule, Some(RULE));
}

#[test]
fn the_missing_record_is_reported_from_the_exit_status() {
    let provider = builtin("codex").unwrap();
    let tz = TimeZone::UTC;
    let mut input = ClassifyInput::new(provider.errors(), Timestamp::now(), &tz);
    input.final_expected = provider.final_record();
    input.exit_code = Some(0);
    let c = classify_explained(&input).unwrap();
    assert_eq!(c.info.source, ErrorSource::ExitStatus);
    assert_eq!(
        c.info.message,
        "codex exited 0 without its closing `turn.completed` record (nothing on stdout)"
    );
    // A provider that promises no record (the trait's default) succeeds
    // on the same evidence: the rule reads the declaration only.
    input.final_expected = None;
    assert!(classify_explained(&input).is_none());
}

/// Salvage: the answer text a CLI printed before its stream stopped short
/// of the closing record stays in the envelope's `response`, though the
/// run is still an error (seed 001's `stream_fallback`).
#[test]
fn the_text_before_a_missing_record_is_kept_in_the_response() {
    for (name, capture, closing) in [
        (
            "claude",
            "claude/text_stream_json.stdout",
            r#""type":"result""#,
        ),
        (
            "codex",
            "codex/text_json.stdout",
            r#""type":"turn.completed""#,
        ),
        (
            "gemini",
            "gemini/text_stream_json.stdout",
            r#""type":"result""#,
        ),
        (
            "opencode",
            "opencode/text_json.stdout",
            r#""type":"step_finish""#,
        ),
    ] {
        let provider = builtin(name).unwrap();
        let cut = cut_before_last(&fixture(capture), closing);
        let o = outcome(provider.as_ref(), &cut, Some(0));
        assert_eq!(o.rule, Some(RULE), "{name}");
        assert_eq!(
            o.envelope.error_type,
            Some(ErrorKind::ProviderError),
            "{name}"
        );
        assert_eq!(o.envelope.response, "done", "{name}: {:#?}", o.envelope);
    }
}
