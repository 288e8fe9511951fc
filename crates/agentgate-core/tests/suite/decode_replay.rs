//! The cursor-agent and agy decoders, classifier tables and agy's
//! transcript reader on the replay transcripts
//! (`crates/agentgate-fixtures/transcripts/`), which are written from those
//! CLIs' documented formats: neither CLI can be installed here. The same
//! transcripts drive `replay-cli` in the end-to-end tests of the
//! `agentgate` crate.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on unexpected input"
)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use agentgate_core::parse_capture;
use agentgate_protocol::{
    ErrorKind, EventBody, ReasoningSource, StatusEvent, ToolClass, UsageScope,
};
use agentgate_providers::agy::AGY;
use agentgate_providers::agy::{AgyDecoder, transcript};
use agentgate_providers::cursor::CURSOR;
use agentgate_providers::cursor::CursorDecoder;
use agentgate_providers::decode::{Decoded, Decoder, ProviderError, ProviderFinal};
use agentgate_providers::error_table as table;
use agentgate_providers::{Classified, ClassifyInput, classify_explained};
use jiff::Timestamp;
use jiff::tz::TimeZone;
use serde_json::Value;

// ---------------------------------------------------------------- harness

const SESSION: &str = "c6b62c6f-7ead-4fd6-9922-e952131177ff";
const CWD: &str = "/home/dev/demo/work";

fn transcripts() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../agentgate-fixtures/transcripts")
}

/// A scenario as replay-cli would play it, with fixed placeholder values.
struct Scenario {
    stdout: String,
    stderr: String,
    exit: i32,
    transcript: Option<String>,
}

fn fill(text: &str, prompt: &str) -> String {
    let inner = |s: &str| {
        let q = Value::String(s.to_owned()).to_string();
        q[1..q.len() - 1].to_owned()
    };
    text.replace("{session}", SESSION)
        .replace("{cwd_json}", &inner(CWD))
        .replace("{prompt_json}", &inner(prompt))
        .replace("{model}", "gpt-9")
}

fn scenario(cli: &str, name: &str) -> Scenario {
    let dir = transcripts().join(cli).join(name);
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
    let conf: Value =
        serde_json::from_str(&read("scenario.json").unwrap_or_else(|| panic!("{cli}/{name}")))
            .unwrap();
    let prompt = conf["match"].as_str().unwrap();
    Scenario {
        stdout: fill(&read("stdout").unwrap_or_default(), prompt),
        stderr: fill(&read("stderr").unwrap_or_default(), prompt),
        exit: conf["exit"]
            .as_i64()
            .map_or(0, |c| i32::try_from(c).unwrap()),
        transcript: read("transcript.jsonl").map(|t| fill(&t, prompt)),
    }
}

fn scenario_names(cli: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(transcripts().join(cli))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("scenario.json").is_file())
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn decoder(cli: &str) -> Box<dyn Decoder> {
    match cli {
        "cursor" => Box::new(CursorDecoder::new()),
        "agy" => Box::new(AgyDecoder::new()),
        other => panic!("no decoder for {other}"),
    }
}

fn decode(cli: &str, stdout: &str, stderr: &str) -> Vec<Decoded> {
    let mut d = decoder(cli);
    let mut out = Vec::new();
    for l in stdout.lines() {
        d.stdout_line(l.as_bytes(), &mut out);
    }
    for l in stderr.lines() {
        d.stderr_line(l.as_bytes(), &mut out);
    }
    d.finish(&mut out);
    out
}

fn events(out: &[Decoded]) -> Vec<&EventBody> {
    out.iter()
        .filter_map(|d| match d {
            Decoded::Event(e) => Some(e),
            _ => None,
        })
        .collect()
}

fn now() -> Timestamp {
    "2026-01-15T12:00:00Z".parse().unwrap()
}

fn classify_text(cli: &str, stdout: &str, stderr: &str, exit: i32) -> Option<Classified> {
    let out = decode(cli, stdout, stderr);
    let errors: Vec<ProviderError> = out
        .iter()
        .filter_map(|d| match d {
            Decoded::ProviderError(e) => Some(e.clone()),
            _ => None,
        })
        .collect();
    let final_: Option<ProviderFinal> = out.iter().rev().find_map(|d| match d {
        Decoded::Final(f) => Some(f.clone()),
        _ => None,
    });
    let tz = TimeZone::UTC;
    classify_explained(&ClassifyInput {
        errors: &errors,
        final_: final_.as_ref(),
        exit_code: Some(exit),
        stdout_tail: stdout,
        stderr_tail: stderr,
        ..ClassifyInput::new(table(cli), now(), &tz)
    })
}

fn classify_scenario(cli: &str, name: &str) -> Option<Classified> {
    let s = scenario(cli, name);
    classify_text(cli, &s.stdout, &s.stderr, s.exit)
}

// ------------------------------------------------------------- cursor

#[test]
fn cursor_text_gives_session_model_message_usage_and_final() {
    let s = scenario("cursor", "text");
    let out = decode("cursor", &s.stdout, &s.stderr);
    let ev = events(&out);
    assert!(
        matches!(ev[0], EventBody::Session(e) if e.session_id == SESSION && e.model.as_deref() == Some("gpt-9"))
    );
    assert!(matches!(ev[1], EventBody::Message(m) if m.text == "Paris is the capital."));
    assert_eq!(ev.len(), 2, "the user echo is not an event: {ev:#?}");
    let Some(Decoded::Final(f)) = out.last() else {
        panic!("no final record: {out:#?}")
    };
    assert_eq!(f.text.as_deref(), Some("Paris is the capital."));
    assert_eq!(f.session_id.as_deref(), Some(SESSION));
    let u = f.usage.as_ref().unwrap();
    assert_eq!(
        (u.input_tokens, u.output_tokens, u.total_tokens),
        (4210, 12, 4222)
    );
}

#[test]
fn cursor_tool_calls_pair_by_call_id_and_the_answer_follows_the_last() {
    let s = scenario("cursor", "tool");
    let out = decode("cursor", &s.stdout, &s.stderr);
    let ev = events(&out);
    let EventBody::ToolUse(u) = ev[2] else {
        panic!("{ev:#?}")
    };
    assert_eq!((u.name.as_str(), u.class), ("shell", ToolClass::Shell));
    assert_eq!(u.input["command"], "echo agentgate > marker.txt");
    let EventBody::ToolResult(r) = ev[3] else {
        panic!("{ev:#?}")
    };
    assert_eq!(
        (r.id.as_str(), r.ok, r.exit_code),
        (u.id.as_str(), true, Some(0))
    );
    let Some(Decoded::Final(f)) = out.last() else {
        panic!()
    };
    // result.result joins every message; the answer is the last one.
    assert_eq!(f.text.as_deref(), Some("Marker written."));
    let u = f.usage.as_ref().unwrap();
    assert_eq!(
        (u.input_tokens, u.cache_read_input_tokens),
        (9120 + 4096, 4096)
    );
}

#[test]
fn cursor_thinking_deltas_become_one_thinking_event() {
    let s = scenario("cursor", "thinking");
    let thinking: Vec<String> = events(&decode("cursor", &s.stdout, &s.stderr))
        .into_iter()
        .filter_map(|e| match e {
            EventBody::Thinking(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking, ["**Weighing** the options carefully."]);
}

#[test]
fn cursor_usage_counts_cache_reads_and_writes_as_input() {
    let s = scenario("cursor", "usage");
    let (_, env, code) = parse_capture(&CURSOR, s.stdout.as_bytes(), s.stderr.as_bytes(), Some(0));
    assert_eq!(code, 0);
    let t = &env.tokens_used;
    assert_eq!(
        (
            t.input_tokens,
            t.cache_read_input_tokens,
            t.cache_creation_input_tokens,
            t.output_tokens,
            t.total_tokens,
            t.estimated
        ),
        (1230, 200, 30, 57, 1287, false)
    );
    assert!(env.metadata.token_usage_available);
}

#[test]
fn cursor_errors_without_a_result_come_from_stderr_with_their_detail_lines() {
    let s = scenario("cursor", "err_quota");
    let out = decode("cursor", &s.stdout, &s.stderr);
    let [Decoded::ProviderError(e)] = &out[..] else {
        panic!("{out:#?}")
    };
    assert!(e.terminal);
    assert!(
        e.message
            .starts_with("Error: You've hit your usage limit\n"),
        "{}",
        e.message
    );
    assert!(
        e.message.contains("monthly cycle ends on 11/17/2025"),
        "{}",
        e.message
    );
    // JSON on stderr is a mirror of the events, never an error.
    let out = decode(
        "cursor",
        "",
        r#"{"type":"assistant","message":{"content":[]}}"#,
    );
    assert!(out.is_empty(), "{out:#?}");
}

#[test]
fn cursor_lines_it_does_not_know_are_kept_raw() {
    let out = decode(
        "cursor",
        "not json\n{\"type\":\"telemetry\",\"x\":1}\n{\"type\":\"tool_call\",\"subtype\":\"started\",\"tool_call\":{}}\n\u{0}\u{ff}",
        "",
    );
    let raws = events(&out)
        .into_iter()
        .filter(|e| matches!(e, EventBody::Raw(_)))
        .count();
    assert_eq!(raws, 4, "{out:#?}");
}

// ---------------------------------------------------------------- agy

#[test]
fn agy_answer_is_stdout_with_an_estimated_usage() {
    let s = scenario("agy", "text");
    let (_, env, code) = parse_capture(&AGY, s.stdout.as_bytes(), s.stderr.as_bytes(), Some(0));
    assert_eq!(code, 0);
    assert_eq!(env.response, "Paris is the capital.");
    assert!(env.tokens_used.estimated);
    assert_eq!(env.tokens_used.output_tokens, 5);
    assert_eq!(
        env.tokens_used.input_tokens, 0,
        "the prompt is not in agy's output"
    );
    assert_eq!(
        env.session_id, None,
        "agy --print never names its conversation"
    );
}

#[test]
fn agy_known_error_lines_fail_the_run_even_with_exit_zero() {
    let s = scenario("agy", "err_quota");
    assert_eq!(s.exit, 0);
    let (_, env, code) =
        parse_capture(&AGY, s.stdout.as_bytes(), s.stderr.as_bytes(), Some(s.exit));
    assert_eq!(env.error_type, Some(ErrorKind::Quota));
    assert_eq!(code, 75);
    assert_eq!(env.retry_after_s, Some(141 * 3600 + 28 * 60 + 14));
}

#[test]
fn agy_unknown_conversations_are_a_notice_not_an_error() {
    let out = decode(
        "agy",
        "Fresh answer.",
        &format!("warning: conversation \"{SESSION}\" not found"),
    );
    assert!(!out.iter().any(|d| matches!(d, Decoded::ProviderError(_))));
    assert!(events(&out).iter().any(|e| matches!(e,
        EventBody::Status(StatusEvent::Notice { detail }) if detail.contains(SESSION))));
}

#[test]
fn agy_transcripts_give_thinking_tools_and_the_prompt() {
    let s = scenario("agy", "tool");
    let turn = transcript::parse(s.transcript.unwrap().as_bytes());
    assert_eq!(turn.prompt, "marker");
    assert_eq!(turn.responses, ["Running it.", "Marker written."]);
    let [EventBody::ToolUse(u), EventBody::ToolResult(r)] = &turn.tools[..] else {
        panic!("{:#?}", turn.tools)
    };
    assert_eq!(
        (u.name.as_str(), u.class),
        ("run_command", ToolClass::Shell)
    );
    assert_eq!((r.id.as_str(), r.ok), (u.id.as_str(), true));
    assert_eq!(turn.usage, None);
    let s = scenario("agy", "usage_tally");
    let u = transcript::parse(s.transcript.unwrap().as_bytes())
        .usage
        .unwrap();
    assert_eq!(
        (
            u.input_tokens,
            u.cache_read_input_tokens,
            u.output_tokens,
            u.estimated
        ),
        (1200, 200, 57, false)
    );
}

/// agy's state folder as replay-cli leaves it after one run in `cwd`.
fn agy_home(cwd: &Path, name: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let base = home.path().join(".gemini/antigravity-cli");
    let logs = base.join(format!("brain/{SESSION}/.system_generated/logs"));
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::write(
        logs.join("transcript.jsonl"),
        scenario("agy", name).transcript.unwrap(),
    )
    .unwrap();
    std::fs::create_dir_all(base.join("cache")).unwrap();
    let map = serde_json::json!({ cwd.to_string_lossy(): SESSION });
    std::fs::write(base.join("cache/last_conversations.json"), map.to_string()).unwrap();
    home
}

#[test]
fn agy_post_run_finds_the_folders_conversation_and_its_turn() {
    let cwd = Path::new(CWD);
    let home = agy_home(cwd, "thinking");
    let got = transcript::recovered(home.path(), cwd, None, SystemTime::now());
    assert!(matches!(&got[0], Decoded::Event(EventBody::Session(s)) if s.session_id == SESSION));
    assert!(
        got.iter().any(|d| matches!(d,
        Decoded::Event(EventBody::Thinking(t)) if t.text == "**Weighing** the options carefully."))
    );
    let usage = got.iter().find_map(|d| match d {
        Decoded::Event(EventBody::Usage(u)) => Some(u),
        _ => None,
    });
    let u = usage.unwrap();
    assert_eq!(u.scope, UsageScope::Total);
    assert!(u.usage.estimated);
    assert_eq!((u.usage.input_tokens, u.usage.output_tokens), (1, 2));
    // Another folder's conversation, or one written long ago, is not this
    // run's.
    let later = SystemTime::now() + Duration::from_secs(3600);
    assert!(
        transcript::recovered(
            home.path(),
            Path::new("/elsewhere"),
            None,
            SystemTime::now()
        )
        .is_empty()
    );
    assert!(transcript::recovered(home.path(), cwd, None, later).is_empty());
    // Without agy's cache file (older versions), the newest transcript.
    std::fs::remove_file(
        home.path()
            .join(".gemini/antigravity-cli/cache/last_conversations.json"),
    )
    .unwrap();
    assert_eq!(
        transcript::find_conversation(home.path(), Path::new("/elsewhere"), SystemTime::now())
            .as_deref(),
        Some(SESSION)
    );
    assert_eq!(transcript::find_conversation(home.path(), cwd, later), None);
}

#[test]
fn agy_reasoning_from_the_transcript_is_marked_as_from_the_session_log() {
    let cwd = Path::new(CWD);
    let home = agy_home(cwd, "thinking");
    let mut acc = agentgate_providers::Accumulator::new("agy");
    let s = scenario("agy", "thinking");
    for d in decode("agy", &s.stdout, &s.stderr) {
        acc.observe(&d);
    }
    for d in transcript::recovered(home.path(), cwd, None, SystemTime::now()) {
        acc.observe_recovered(&d);
    }
    let env = acc.finish(agentgate_providers::Finish {
        exposes_reasoning: true,
        ..Default::default()
    });
    assert_eq!(env.response, "Decided.");
    assert_eq!(env.reasoning, "**Weighing** the options carefully.");
    assert_eq!(env.metadata.reasoning_source, ReasoningSource::SessionLog);
    assert_eq!(env.session_id.as_deref(), Some(SESSION));
}

// ------------------------------------------------------ classification

/// Error scenarios and texts, with the kind and row they must get.
#[rustfmt::skip]
const ERRORS: &[(&str, &str, ErrorKind, &str)] = &[
    ("cursor", "err_login", ErrorKind::CredentialUnavailable, "cursor.login_required"),
    ("cursor", "err_auth", ErrorKind::Auth, "cursor.unauthenticated"),
    ("cursor", "err_quota", ErrorKind::Quota, "cursor.usage_limit"),
    ("cursor", "err_rate_limit", ErrorKind::RateLimit, "cursor.resource_exhausted"),
    ("cursor", "err_model", ErrorKind::InvalidModel, "cursor.model"),
    ("cursor", "err_overloaded", ErrorKind::Overloaded, "cursor.unavailable"),
    ("agy", "err_quota", ErrorKind::Quota, "agy.quota"),
    ("agy", "err_quota_clock", ErrorKind::Quota, "agy.quota"),
    ("agy", "err_rate_limit", ErrorKind::RateLimit, "agy.rate_limit"),
    ("agy", "err_login", ErrorKind::CredentialUnavailable, "agy.not_logged_in"),
    ("agy", "err_auth", ErrorKind::Auth, "agy.invalid_credentials"),
    ("agy", "err_model", ErrorKind::InvalidModel, "agy.model"),
    ("agy", "err_overloaded", ErrorKind::Overloaded, "common.overloaded"),
];

/// Texts on stderr with exit 1 that no scenario prints: cursor-agent's
/// answer to an unknown `--resume` (replay.json) and Connect's network
/// error (pi-cursor-sdk#43), agy's print timeout (agy-plugin-cc#165).
#[rustfmt::skip]
const TEXTS: &[(&str, &str, ErrorKind, &str)] = &[
    ("cursor", "Error: Session \"c6b62c6f-7ead-4fd6-9922-e952131177ff\" not found", ErrorKind::InvalidSession, "cursor.session_not_found"),
    ("cursor", "ConnectError: [unavailable] read ETIMEDOUT", ErrorKind::Network, "cursor.unavailable_network"),
    ("agy", "[agy] print timeout after 5m0s with turn in progress", ErrorKind::Timeout, "agy.print_timeout"),
];

#[test]
fn error_transcripts_classify_to_their_kind_and_row() {
    for &(cli, name, kind, rule) in ERRORS {
        let got = classify_scenario(cli, name).unwrap_or_else(|| panic!("{cli}/{name}: no error"));
        assert_eq!(
            (got.info.kind, got.rule),
            (kind, rule),
            "{cli}/{name}: {:#?}",
            got.info
        );
        assert!(!got.info.message.is_empty());
    }
    for &(cli, text, kind, rule) in TEXTS {
        let got = classify_text(cli, "", text, 1).unwrap();
        assert_eq!((got.info.kind, got.rule), (kind, rule), "{cli}: {text}");
        assert_eq!(got.info.message, text);
    }
}

#[test]
fn reset_times_come_with_the_quota_and_rate_limit_errors() {
    let quota = classify_scenario("agy", "err_quota").unwrap().info;
    assert_eq!(quota.reset_at.as_deref(), Some("2026-01-21T09:28:14Z"));
    let clock = classify_scenario("agy", "err_quota_clock").unwrap().info;
    assert_eq!(clock.reset_at.as_deref(), Some("2026-01-15T16:05:00Z"));
    let rate = classify_scenario("cursor", "err_rate_limit").unwrap().info;
    assert_eq!(rate.retry_after_s, Some(42));
    assert_eq!(rate.reset_at.as_deref(), Some("2026-01-15T12:00:42Z"));
}

#[test]
fn every_cursor_and_agy_row_decides_a_transcript_or_text() {
    let mut decided = BTreeSet::new();
    for &(cli, name, ..) in ERRORS {
        decided.insert(classify_scenario(cli, name).unwrap().rule);
    }
    for &(cli, text, ..) in TEXTS {
        decided.insert(classify_text(cli, "", text, 1).unwrap().rule);
    }
    for cli in ["cursor", "agy"] {
        for rule in table(cli).rules {
            assert!(decided.contains(rule.id), "{} decides nothing", rule.id);
        }
    }
}

#[path = "../../../agentgate-providers/tests/support/field_texts.rs"]
mod field_texts;
use field_texts::FIELD;

/// `classify_field` of `tests/suite/classify.rs`: the text alone, no decoder.
#[test]
fn field_texts_classify_without_the_decoders_too() {
    let mut decided = BTreeSet::new();
    for &(cli, place, text, kind, rule) in FIELD.iter().filter(|f| matches!(f.0, "cursor" | "agy"))
    {
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
            _ => input.stderr_tail = text,
        }
        let got = classify_explained(&input).unwrap();
        let kind: ErrorKind = kind.parse().unwrap();
        assert_eq!((got.info.kind, got.rule), (kind, rule), "{cli}: {text}");
        assert_eq!(got.info.message, text);
        decided.insert(got.rule);
    }
    for cli in ["cursor", "agy"] {
        for rule in table(cli).rules {
            assert!(decided.contains(rule.id), "{} has no field text", rule.id);
        }
    }
}

#[test]
fn every_other_scenario_succeeds() {
    for cli in ["cursor", "agy"] {
        for name in scenario_names(cli) {
            if name.starts_with("err_") || name == "hang" {
                continue;
            }
            assert!(
                classify_scenario(cli, &name).is_none(),
                "{cli}/{name} failed"
            );
        }
    }
}

// ---------------------------------------------------------- robustness

/// A small deterministic generator for the mutation loop.
fn next(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn mutated_transcripts_never_panic_and_never_lose_a_line() {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    for cli in ["cursor", "agy"] {
        for name in scenario_names(cli) {
            let s = scenario(cli, &name);
            for _ in 0..40 {
                let mut bytes = s.stdout.clone().into_bytes();
                if bytes.is_empty() {
                    break;
                }
                for _ in 0..3 {
                    let i = usize::try_from(next(&mut seed)).unwrap() % bytes.len();
                    match next(&mut seed) % 3 {
                        0 => bytes[i] = 0xff,
                        1 => bytes.truncate(i.max(1)),
                        _ => bytes.insert(i, b'"'),
                    }
                }
                let mut d = decoder(cli);
                let mut out = Vec::new();
                for line in bytes.split(|b| *b == b'\n') {
                    let before = out.len();
                    d.stdout_line(line, &mut out);
                    let blank = line.iter().all(u8::is_ascii_whitespace);
                    // cursor: every non-blank line yields something (an
                    // event, a record, or raw), except buffered thinking
                    // and the echo of the prompt.
                    if cli == "cursor" && !blank && out.len() == before {
                        let v: Value = serde_json::from_slice(line).unwrap_or_else(|_| {
                            panic!("{cli}/{name}: unparsable line dropped: {line:?}")
                        });
                        assert!(
                            matches!(v["type"].as_str(), Some("user" | "thinking" | "assistant")),
                            "{cli}/{name}: line dropped: {v}"
                        );
                    }
                }
                d.finish(&mut out);
            }
        }
    }
}
