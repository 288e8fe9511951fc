//! opencode's decoder, adapter and error rows on real output of the pinned
//! CLI (tests/fixtures/decode/opencode/): the project's first captures
//! (`text_json`, `tool_json`, `resume_json`, `err_*`) and `fake_*` cases
//! recorded by `capture.sh` against `agentgate fake-llm`, with the argv the
//! adapter plans. Whole captures also go through `run::parse_capture`, the
//! same decoder, accumulator and classifier as a live run.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "tests fail loudly on unexpected input"
)]

use std::path::{Path, PathBuf};

use agentgate_core::parse_capture;
use agentgate_protocol::{
    ActivityClass, Envelope, ErrorKind, EventBody, MessageEvent, RawStream, SessionEvent,
    StatusEvent, ThinkingEvent, ToolClass, ToolResultEvent, ToolUseEvent, Usage, UsageEvent,
    UsageScope,
};
use agentgate_providers::decode::{Decoded, Decoder, ProviderError, ProviderFinal};
use agentgate_providers::opencode::OPENCODE;
use agentgate_providers::opencode::{MAX_RETRIES, OpencodeDecoder};
use agentgate_providers::{ClassifyInput, classify_explained};
use agentgate_providers::{Provider, Verification, error_table as table};
use jiff::tz::TimeZone;
use serde_json::{Value, json};

// ---------------------------------------------------------------- helpers

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../agentgate-providers/tests/fixtures/decode/opencode")
}

fn read(name: &str) -> Vec<u8> {
    let path = fixture_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("failed to read {}: {e}", path.display()))
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

fn all_cases() -> Vec<String> {
    let mut cases: Vec<String> = std::fs::read_dir(fixture_dir())
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".stdout").map(str::to_owned)
        })
        .collect();
    cases.sort();
    cases
}

fn feed(d: &mut OpencodeDecoder, stdout: &[u8], stderr: &[u8]) -> Vec<Decoded> {
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

/// A capture's stdout, then its stderr.
fn decode(case: &str) -> Vec<Decoded> {
    feed(
        &mut OpencodeDecoder::new(),
        &read(&format!("{case}.stdout")),
        &read(&format!("{case}.stderr")),
    )
}

/// A capture through the whole pipeline of a run.
fn parse(case: &str) -> (Vec<agentgate_protocol::Event>, Envelope, i32) {
    let code: i32 = String::from_utf8(read(&format!("{case}.exitcode")))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    parse_capture(
        &OPENCODE,
        &read(&format!("{case}.stdout")),
        &read(&format!("{case}.stderr")),
        Some(code),
    )
}

/// The session id of a capture.
fn session_of(case: &str) -> String {
    lines(&read(&format!("{case}.stdout")))
        .into_iter()
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .find_map(|v| v["sessionID"].as_str().map(str::to_owned))
        .unwrap()
}

fn not_raw(items: &[Decoded]) -> Vec<Decoded> {
    items
        .iter()
        .filter(|d| !matches!(d, Decoded::Event(EventBody::Raw(_))))
        .cloned()
        .collect()
}

fn ev(body: EventBody) -> Decoded {
    Decoded::Event(body)
}

fn session(id: &str) -> Decoded {
    ev(EventBody::Session(SessionEvent {
        session_id: id.into(),
        model: None,
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
    ev(EventBody::ToolResult(ToolResultEvent::new(
        id,
        ok,
        output,
        usize::MAX,
        exit_code,
    )))
}

/// One step's figures, from opencode's own fields: `input` (uncached),
/// `cache.read`, `cache.write`, `output` (visible), `reasoning`.
fn step(input: u64, cache_read: u64, cache_write: u64, output: u64, reasoning: u64) -> Decoded {
    let input = input + cache_read + cache_write;
    let output = output + reasoning;
    ev(EventBody::Usage(UsageEvent {
        scope: UsageScope::Turn,
        usage: Usage {
            input_tokens: input,
            output_tokens: output,
            cache_read_input_tokens: cache_read,
            cache_creation_input_tokens: cache_write,
            cache_creation_1h_input_tokens: 0,
            reasoning_tokens: reasoning,
            total_tokens: input + output,
            cost_usd: Some(0.0),
            context_tokens: Some(input + output),
            estimated: false,
        },
    }))
}

fn final_(text: Option<&str>, session: &str) -> Decoded {
    Decoded::Final(ProviderFinal {
        text: text.map(str::to_owned),
        session_id: Some(session.into()),
        is_error: false,
        usage: None,
        num_turns: None,
    })
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

fn retries(items: &[Decoded]) -> Vec<(Option<u32>, Option<String>)> {
    items
        .iter()
        .filter_map(|d| match d {
            Decoded::Event(EventBody::Status(StatusEvent::Retry {
                retry_attempt,
                max_retries,
                detail,
                ..
            })) => {
                assert_eq!(*max_retries, Some(MAX_RETRIES));
                Some((*retry_attempt, detail.clone()))
            }
            _ => None,
        })
        .collect()
}

// ------------------------------------------------------------ answers

#[test]
fn plain_answer_is_a_message_one_step_and_the_final_record() {
    let id = session_of("text_json");
    assert_eq!(
        not_raw(&decode("text_json")),
        [
            session(&id),
            message("done"),
            step(7675, 0, 0, 6, 0),
            final_(Some("done"), &id),
        ]
    );
    let (_, env, exit) = parse("text_json");
    assert_eq!(exit, 0);
    assert!(env.is_success(), "{env:#?}");
    assert_eq!(env.response, "done");
    assert_eq!(env.session_id.as_deref(), Some(id.as_str()));
    assert_eq!(env.tokens_used.input_tokens, 7675);
    assert_eq!(env.tokens_used.cost_usd, Some(0.0));
}

#[test]
fn shell_tool_with_reasoning_from_the_first_captures() {
    let id = session_of("tool_json");
    let items = decode("tool_json");
    assert_eq!(
        not_raw(&items),
        [
            session(&id),
            thinking("Fake reasoning: short answer wanted."),
            tool_use(
                "call_5aac6d7678bf",
                "bash",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result("call_5aac6d7678bf", true, "(no output)", Some(0)),
            step(7681, 0, 0, 6, 0),
            thinking("Fake reasoning: short answer wanted."),
            message("done"),
            step(7759, 0, 0, 6, 0),
            final_(Some("done"), &id),
        ]
    );
}

/// Four steps with every figure scripted: reasoning, cache reads and
/// writes (which the Chat API folds into `prompt_tokens`, so opencode
/// reports no cache write), a failing command and a file write.
#[test]
fn steps_add_up_and_every_tool_is_reported() {
    let id = session_of("fake_tools");
    let items = decode("fake_tools");
    assert_eq!(
        not_raw(&items),
        [
            session(&id),
            thinking("Plan: write the file with the shell."),
            message("I'll create it."),
            tool_use(
                "call_000000000001",
                "bash",
                ToolClass::Shell,
                json!({"command": "echo hello > hello.txt"})
            ),
            tool_result("call_000000000001", true, "(no output)", Some(0)),
            // Script: input 500, cache_read 100, output 20, reasoning 3.
            step(500, 100, 0, 20, 3),
            tool_use(
                "call_000000000003",
                "bash",
                ToolClass::Shell,
                json!({"command": "ls missing-file"})
            ),
            tool_result(
                "call_000000000003",
                false,
                "ls: cannot access 'missing-file': No such file or directory\n",
                Some(2)
            ),
            step(600, 500, 0, 10, 0),
            tool_use(
                "call_000000000005",
                "write",
                ToolClass::Write,
                json!({"content": "hi\n", "filePath": "notes.txt"})
            ),
            tool_result("call_000000000005", true, "Wrote file successfully.", None),
            step(700, 600, 0, 12, 0),
            thinking("All three ran."),
            message("All done."),
            // Script: input 1000, cache_read 200, cache_write 30, output 50,
            // reasoning 7: the Chat API says prompt 1230 (200 cached),
            // completion 57 (7 reasoning); opencode input 1030, output 50.
            step(1030, 200, 0, 50, 7),
            final_(Some("All done."), &id),
        ]
    );
    let (events, env, exit) = parse("fake_tools");
    assert_eq!(exit, 0);
    assert!(env.is_success(), "{env:#?}");
    assert_eq!(env.response, "All done.");
    let t = &env.tokens_used;
    assert_eq!(
        (
            t.input_tokens,
            t.cache_read_input_tokens,
            t.output_tokens,
            t.total_tokens
        ),
        (
            600 + 1100 + 1300 + 1230,
            100 + 500 + 600 + 200,
            23 + 10 + 12 + 57,
            4332
        )
    );
    assert_eq!(env.reasoning_tokens, 10);
    assert_eq!(env.context_tokens, Some(1287), "the last step's context");
    assert_eq!(t.cost_usd, Some(0.0));
    assert_eq!(
        env.reasoning,
        "Plan: write the file with the shell.\n\nAll three ran."
    );
    let tools = env.metadata.tool_activity.unwrap();
    assert_eq!(
        (tools.call_count, tools.write_count, tools.error_count),
        (3, 1, 1)
    );
    assert_eq!(tools.tool_names, ["bash", "write"]);
    assert_eq!(tools.activity_class, ActivityClass::ToolErrors);
    assert_eq!(tools.source, "stream:opencode");
    // The run's events are gap-free and end with the result.
    assert!(
        events
            .last()
            .is_some_and(|e| matches!(e.body, EventBody::Result(_)))
    );
}

#[test]
fn a_resumed_turn_reports_only_its_own_step() {
    let id = session_of("resume_json");
    assert_eq!(
        not_raw(&decode("resume_json")),
        [
            session(&id),
            message("done"),
            step(7794, 0, 0, 6, 0),
            final_(Some("done"), &id),
        ]
    );
}

#[test]
fn a_refused_permission_is_a_failed_tool_call_and_a_notice() {
    let items = decode("fake_refused");
    assert!(items.contains(&tool_result(
        "call_000000000001",
        false,
        "The user rejected permission to use this specific tool call.",
        None
    )));
    assert!(items.contains(&ev(EventBody::Status(StatusEvent::Notice {
        detail: "permission requested: bash (echo hello > hello.txt); auto-rejecting".into()
    }))));
    // The step ended for its tool call and opencode stopped there: no
    // final record, so no answer (a chain moves on); the text before the
    // call is kept as the response.
    assert!(!items.iter().any(|d| matches!(d, Decoded::Final(_))));
    let (_, env, exit) = parse("fake_refused");
    assert_eq!(exit, 75);
    assert_eq!(env.error_type, Some(ErrorKind::ProviderError), "{env:#?}");
    assert_eq!(env.recoverable, Some(true));
    assert_eq!(env.response, "I'll create it.");
    assert_eq!(env.metadata.tool_activity.unwrap().error_count, 1);
}

#[test]
fn the_plan_agent_answers_without_tools() {
    let (_, env, exit) = parse("fake_plan");
    assert_eq!((exit, env.response.as_str()), (0, "done"));
}

// ------------------------------------------------------------- errors

/// (case, kind, deciding row, HTTP status, agentgate's exit code).
#[rustfmt::skip]
const ERRORS: &[(&str, &str, &str, Option<u16>, i32)] = &[
    ("err_401_json", "auth", "common.invalid_key", Some(401), 1),
    ("err_400_json", "invalid_model", "common.model_not_found", Some(400), 75),
    ("err_429_json", "rate_limit", "common.rate_limit", Some(429), 75),
    ("fake_auth", "auth", "common.invalid_key", Some(401), 1),
    ("fake_rate_limit", "rate_limit", "common.rate_limit", Some(429), 75),
    ("fake_overloaded", "overloaded", "common.overloaded", Some(503), 75),
    ("fake_context", "context_overflow", "common.context_length", None, 1),
    ("fake_badmodel", "invalid_model", "opencode.model_not_found", None, 75),
    ("fake_no_session", "invalid_session", "opencode.session_not_found", None, 1),
    ("fake_cut", "network", "opencode.cannot_connect", None, 75),
    // A Chat Completions chunk carrying an `error` object after text:
    // opencode retries it five times, then prints `UnknownError` with the
    // error object as JSON text in its message.
    ("fake_stream_error", "provider_error", "common.server_error", None, 75),
    ("fake_stream_overloaded", "overloaded", "common.overloaded", None, 75),
    // A Chat stream without a finish reason: opencode asks again without
    // end (stopped here by `timeout`); the decoder ends the turn at the
    // third such step.
    ("fake_no_finish", "provider_error", "common.stream_incomplete", None, 75),
];

#[test]
fn steps_without_a_finish_reason_end_the_turn_once() {
    let items = decode("fake_no_finish");
    let steps = items
        .iter()
        .filter(|d| matches!(d, Decoded::Event(EventBody::Usage(_))))
        .count();
    assert!(steps > 3, "the capture keeps asking: {steps} steps");
    let errs = errors(&items);
    assert_eq!(errs.len(), 1, "{errs:#?}");
    assert_eq!(errs[0].code.as_deref(), Some("no_finish_reason"));
    let finals: Vec<&ProviderFinal> = items
        .iter()
        .filter_map(|d| match d {
            Decoded::Final(f) => Some(f),
            _ => None,
        })
        .collect();
    assert!(
        matches!(&finals[..], [f] if f.is_error && f.session_id.is_some()),
        "{finals:#?}"
    );
}

#[test]
fn failures_classify_from_the_error_event() {
    for &(case, kind, rule, status, exit) in ERRORS {
        let items = decode(case);
        let errs = errors(&items);
        assert!(errs.last().is_some_and(|e| e.terminal), "{case}: {errs:#?}");
        let tz = TimeZone::UTC;
        let stdout = String::from_utf8(read(&format!("{case}.stdout"))).unwrap();
        let stderr = String::from_utf8(read(&format!("{case}.stderr"))).unwrap();
        let input = ClassifyInput {
            errors: &errs,
            exit_code: Some(1),
            stdout_tail: &stdout,
            stderr_tail: &stderr,
            ..ClassifyInput::new(table("opencode"), jiff::Timestamp::now(), &tz)
        };
        let c = classify_explained(&input).unwrap();
        let want: ErrorKind = kind.parse().unwrap();
        assert_eq!((c.info.kind, c.rule), (want, rule), "{case}: {c:#?}");
        assert_eq!(c.info.provider_status, status, "{case}");
        let (_, env, code) = parse(case);
        assert_eq!(
            (env.error_type, code),
            (Some(want), exit),
            "{case}: {env:#?}"
        );
        assert!(env.error.as_deref().is_some_and(|e| !e.is_empty()));
        assert_eq!(
            env.session_id.is_some(),
            case != "fake_no_session",
            "{case}"
        );
    }
}

#[test]
fn the_api_error_fields_are_kept() {
    let errs = errors(&decode("fake_rate_limit"));
    assert_eq!(errs.len(), 1);
    let e = &errs[0];
    assert!(
        e.message.starts_with("Rate limit reached for fake-model"),
        "{e:?}"
    );
    assert_eq!(
        (e.http_status, e.code.as_deref(), e.terminal),
        (Some(429), Some("rate_limit_exceeded"), true)
    );
    let errs = errors(&decode("fake_context"));
    assert_eq!(errs.len(), 2, "the turn and the compaction that followed");
    assert_eq!(errs[1].code.as_deref(), Some("context_length_exceeded"));
    // A name that says more than "API error" is the code when the body
    // has none.
    let mut out = Vec::new();
    OpencodeDecoder::new().stdout_line(
        br#"{"type":"error","sessionID":"ses_1","error":{"name":"ProviderAuthError","data":{"providerID":"x","message":"No API key"}}}"#,
        &mut out,
    );
    assert_eq!(
        errors(&out),
        [ProviderError {
            message: "No API key".into(),
            http_status: None,
            code: Some("ProviderAuthError".into()),
            terminal: true,
        }]
    );
}

#[test]
fn retries_are_read_from_the_error_log() {
    // Six failed requests: the first five were retried.
    let r = retries(&decode("fake_rate_limit"));
    assert_eq!(
        r.iter().map(|(n, _)| n.unwrap()).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert!(r[0].1.as_deref().unwrap().starts_with("Rate limit reached"));
    assert_eq!(retries(&decode("fake_overloaded")).len(), 5);
    // A cut stream: retried with backoff, "socket connection was closed" is
    // a text opencode retries on, so the first failure already counts.
    let cut = retries(&decode("fake_cut"));
    assert!(!cut.is_empty());
    assert_eq!(cut[0].0, Some(1));
    // Not retried: no notice. The context overflow's second failure is the
    // compaction's own request, after opencode gave up on the first.
    for case in ["fake_auth", "fake_context", "fake_badmodel", "fake_tools"] {
        assert_eq!(retries(&decode(case)), [], "{case}");
    }
}

#[test]
fn a_retry_is_known_from_the_second_failure_when_the_text_does_not_say() {
    let log = |n: u32| {
        format!(
            r#"timestamp=2026-11-21T23:42:45.{n:03}Z level=ERROR run=2a message="stream error" providerID=fake small=false agent=build error.error="AI_APICallError: The server had an error while processing your request.""#
        )
    };
    let mut d = OpencodeDecoder::new();
    let mut out = Vec::new();
    d.stderr_line(log(1).as_bytes(), &mut out);
    assert_eq!(retries(&out), []);
    d.stderr_line(log(2).as_bytes(), &mut out);
    assert_eq!(retries(&out).len(), 1);
    assert_eq!(retries(&out)[0].0, Some(2));
    // The title request (the small model) is not the turn's.
    let mut out = Vec::new();
    d.stderr_line(
        log(3).replace("small=false", "small=true").as_bytes(),
        &mut out,
    );
    assert_eq!(out, []);
    // Output on stdout: the request got through, the count starts again.
    d.stdout_line(
        br#"{"type":"step_start","sessionID":"ses_1","part":{"type":"step-start"}}"#,
        &mut out,
    );
    let mut out = Vec::new();
    d.stderr_line(log(4).as_bytes(), &mut out);
    assert_eq!(retries(&out), []);
}

#[test]
fn an_unknown_error_gets_its_logged_detail_in_either_order() {
    let stdout = read("fake_badmodel.stdout");
    let stderr = read("fake_badmodel.stderr");
    let detail = ProviderError {
        message: "Model not found: nope/x. Did you mean: standardcompute?".into(),
        http_status: None,
        code: Some("ProviderModelNotFoundError".into()),
        terminal: true,
    };
    let errs = errors(&feed(&mut OpencodeDecoder::new(), &stdout, &stderr));
    assert_eq!(errs.len(), 2);
    assert_eq!(
        errs[0].message,
        "Unexpected server error. Check server logs for details."
    );
    assert_eq!(errs[1], detail, "the detail comes last and decides");
    // The log line first: the stdout error is reported with its detail.
    let mut d = OpencodeDecoder::new();
    let mut out = Vec::new();
    for l in lines(&stderr) {
        d.stderr_line(l, &mut out);
    }
    for l in lines(&stdout) {
        d.stdout_line(l, &mut out);
    }
    assert_eq!(errors(&out), [detail]);
}

#[test]
fn setup_errors_on_stderr_are_terminal() {
    assert_eq!(
        decode("fake_no_session"),
        [Decoded::ProviderError(ProviderError {
            message: "Session not found".into(),
            http_status: None,
            code: None,
            terminal: true,
        })]
    );
}

// -------------------------------------------------- robustness and raw

#[test]
fn every_capture_decodes_with_only_step_starts_raw() {
    for case in all_cases() {
        let stdout = read(&format!("{case}.stdout"));
        let items = decode(&case);
        for d in &items {
            if let Decoded::Event(EventBody::Raw(r)) = d {
                assert_eq!(r.stream, RawStream::Stdout, "{case}");
                let v: Value = serde_json::from_str(&r.line).unwrap();
                assert_eq!(v["type"], "step_start", "{case}: {}", r.line);
            }
        }
        let json_lines = lines(&stdout).len();
        assert!(items.len() >= json_lines, "{case}: a line yielded nothing");
    }
}

#[test]
fn unknown_broken_and_non_utf8_lines_are_kept_raw() {
    let mut d = OpencodeDecoder::new();
    let mut out = Vec::new();
    let inputs: [&[u8]; 7] = [
        br#"{"type":"done","sessionID":"ses_9","reason":"idle"}"#,
        br#"{"type":"text","sessionID":"ses_9","part":{"type":"text","te"#,
        b"not json at all",
        b"[1,2,3]",
        br#"{"type":"tool_use","sessionID":"ses_9","part":{"type":"tool"}}"#,
        br#"{"type":"text","sessionID":"ses_9","part":{"type":"text","text":""}}"#,
        b"\xff\xfe{\"type\":\"text\"}",
    ];
    for l in inputs {
        let before = out.len();
        d.stdout_line(l, &mut out);
        assert!(
            out.len() > before,
            "{:?} yielded nothing",
            String::from_utf8_lossy(l)
        );
    }
    d.stdout_line(b"", &mut out);
    let raws: Vec<Vec<u8>> = out
        .iter()
        .filter_map(|x| match x {
            Decoded::Event(EventBody::Raw(r)) => Some(r.bytes().unwrap()),
            _ => None,
        })
        .collect();
    assert_eq!(raws, inputs.map(<[u8]>::to_vec));
    // The first line named the session: that is reported once.
    assert_eq!(out[0], session("ses_9"));
    assert_eq!(
        out.iter()
            .filter(|x| matches!(x, Decoded::Event(EventBody::Session(_))))
            .count(),
        1
    );
}

#[test]
fn tool_output_is_capped() {
    let big = "x".repeat(100_000);
    let line =
        json!({"type": "tool_use", "sessionID": "ses_1", "part": {"type": "tool", "tool": "bash",
        "callID": "c1", "state": {"status": "completed", "input": {"command": "yes"}, "output": big,
        "metadata": {"exit": 0}}}})
        .to_string();
    let mut out = Vec::new();
    OpencodeDecoder::new()
        .with_tool_output_cap(10)
        .stdout_line(line.as_bytes(), &mut out);
    let Some(Decoded::Event(EventBody::ToolResult(r))) = out.last() else {
        panic!("{out:?}");
    };
    assert_eq!((r.output.as_str(), r.truncated), ("xxxxxxxxxx", true));
    assert_eq!(r.original_bytes, Some(100_000));
}

/// A small deterministic generator for the mutation loop.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

#[test]
fn mutated_lines_never_panic_and_always_yield_something() {
    let mut corpus: Vec<Vec<u8>> = Vec::new();
    for case in all_cases() {
        for stream in ["stdout", "stderr"] {
            for l in lines(&read(&format!("{case}.{stream}"))) {
                if !l.is_empty() && l.len() < 8192 {
                    corpus.push(l.to_vec());
                }
            }
        }
    }
    let mut rng = Rng(0x5eed_0c0d);
    for input in 0..3000 {
        let mut d = OpencodeDecoder::new();
        let mut out = Vec::new();
        for _ in 0..1 + rng.below(8) {
            let mut line = corpus[rng.below(corpus.len())].clone();
            match rng.below(4) {
                0 => line.truncate(rng.below(line.len() + 1)),
                1 => {
                    let at = rng.below(line.len() + 1);
                    line.insert(at, [b'"', b'{', b'}', 0xff, b'\\', b'='][rng.below(6)]);
                }
                2 => {
                    let at = rng.below(line.len().max(1));
                    if at < line.len() {
                        line[at] = line[at].wrapping_add(1);
                    }
                }
                _ => {}
            }
            if rng.below(2) == 0 {
                let before = out.len();
                d.stdout_line(&line, &mut out);
                assert!(
                    line.is_empty() || out.len() > before,
                    "input {input}: {:?} yielded nothing",
                    String::from_utf8_lossy(&line)
                );
            } else {
                d.stderr_line(&line, &mut out);
            }
        }
        d.finish(&mut out);
    }
}

// ------------------------------------------------------------ adapter

#[test]
fn the_adapter_says_what_it_supports() {
    let f = OPENCODE.features();
    assert!(f.streaming && f.resume && f.reasoning && f.usage && f.cost && f.permission_modes);
    assert_eq!(OPENCODE.verification(), Verification::LiveCli);
    assert_eq!(
        (OPENCODE.name(), OPENCODE.binary_name()),
        ("opencode", "opencode")
    );
    assert!(OPENCODE.exposes_reasoning());
}

/// opencode's rows on its own words, as `tests/suite/classify.rs` checks field
/// texts: printed on stderr by a CLI that exited 1.
#[test]
fn opencodes_rows_decide_its_texts() {
    #[rustfmt::skip]
    let cases = [
        ("\u{1b}[91m\u{1b}[1mError: \u{1b}[0mSession not found", "invalid_session", "opencode.session_not_found"),
        ("Error: Session not found", "invalid_session", "opencode.session_not_found"),
        ("ProviderModelNotFoundError: Model not found: nope/x. Did you mean: standardcompute?", "invalid_model", "opencode.model_not_found"),
        ("Cannot connect to API: Unable to connect. Is the computer able to access the url?", "network", "opencode.cannot_connect"),
        ("Cannot connect to API: The socket connection was closed unexpectedly.", "network", "opencode.cannot_connect"),
    ];
    let tz = TimeZone::UTC;
    for (text, kind, rule) in cases {
        let input = ClassifyInput {
            exit_code: Some(1),
            stderr_tail: text,
            ..ClassifyInput::new(table("opencode"), jiff::Timestamp::now(), &tz)
        };
        let c = classify_explained(&input).unwrap();
        let want: ErrorKind = kind.parse().unwrap();
        assert_eq!((c.info.kind, c.rule), (want, rule), "{text}");
        assert_eq!(c.info.message, text);
    }
}
