//! The line limit: an event that fits is left alone; one that does not is
//! cut to fit, visibly, and stays the event it was (a `result` stays a
//! `result`); one that cannot be cut becomes a `log` warning; a CLI line
//! cut by the supervisor becomes a `raw` event that says so. The shapes are
//! checked against a 64 KiB limit (`fit_within`), the real one once.

use agentgate_protocol::{
    Envelope, Event, EventBody, MAX_LINE_BYTES, MessageEvent, RawEvent, RawStream, ResultEvent,
    ToolClass, ToolUseEvent, fit, fit_within, line_len,
};

const MAX: usize = 64 * 1024;
use serde_json::Value;

fn event(body: EventBody) -> Event {
    let mut e = Event::new("run-1", 7, "2026-05-01T12:00:00.000Z", body);
    e.provider = Some("claude".to_owned());
    e.attempt = Some(2);
    e
}

fn line(e: &Event) -> Vec<u8> {
    serde_json::to_vec(e).unwrap_or_default()
}

#[test]
fn an_event_that_fits_is_left_alone() {
    let small = event(EventBody::Message(MessageEvent {
        text: "x".repeat(1000),
    }));
    assert_eq!(fit(small.clone()), small);
    assert_eq!(line_len(&small, usize::MAX - 1), line(&small).len());
    assert_eq!(line_len(&small, 10), 11, "counting stops past the bound");
}

#[test]
fn a_long_message_is_cut_to_fit_and_says_from_what() {
    // Quotes double when escaped: the line is longer than the text.
    let text = "ab\"".repeat(MAX / 2);
    let long = event(EventBody::Message(MessageEvent { text: text.clone() }));
    let original = line(&long).len() as u64;
    assert!(original > MAX as u64);
    let cut = fit_within(long, MAX);
    let written = line(&cut);
    assert!(written.len() <= MAX, "{}", written.len());
    assert_eq!(cut.cut.map(|c| c.original_bytes), Some(original));
    assert_eq!((cut.seq, cut.run_id.as_str()), (7, "run-1"));
    assert_eq!(cut.attempt, Some(2));
    let EventBody::Message(m) = &cut.body else {
        panic!("not a message any more: {:?}", cut.body.type_name());
    };
    assert!(m.text.len() > MAX / 2, "cut far too much");
    assert!(text.starts_with(&m.text));
    // It reads back as what was written, `cut` included.
    let back: Event = serde_json::from_slice(&written).unwrap();
    assert_eq!(back, cut);
    let value: Value = serde_json::from_slice(&written).unwrap();
    assert_eq!(value["cut"]["original_bytes"], original);
}

#[test]
fn a_result_with_a_huge_answer_stays_a_result() {
    let envelope = Envelope {
        response: "é".repeat(MAX),
        reasoning: "why".to_owned(),
        run_id: "run-1".to_owned(),
        provider: Some("claude".to_owned()),
        ..Envelope::default()
    };
    let cut = fit_within(
        event(EventBody::Result(ResultEvent {
            envelope: Box::new(envelope),
        })),
        MAX,
    );
    assert!(line(&cut).len() <= MAX);
    assert!(cut.cut.is_some());
    let EventBody::Result(result) = &cut.body else {
        panic!("not a result any more");
    };
    let e = &result.envelope;
    assert!(
        e.response.chars().all(|c| c == 'é'),
        "cut inside a character"
    );
    assert_eq!((e.reasoning.as_str(), e.run_id.as_str()), ("why", "run-1"));
    assert_eq!(e.provider.as_deref(), Some("claude"));
}

#[test]
fn an_event_that_cannot_be_cut_to_fit_becomes_a_warning_that_says_so() {
    // 1000 strings of 100 bytes: cutting a few hundred cannot make it fit.
    let input = Value::Array(vec![Value::from("y".repeat(100)); 1000]);
    let huge = event(EventBody::ToolUse(ToolUseEvent {
        id: "t1".to_owned(),
        name: "Read".to_owned(),
        class: ToolClass::Read,
        input,
    }));
    let original = line(&huge).len() as u64;
    let cut = fit_within(huge, MAX);
    assert!(line(&cut).len() <= MAX);
    assert_eq!(cut.cut.map(|c| c.original_bytes), Some(original));
    assert_eq!((cut.seq, cut.attempt), (7, Some(2)));
    let EventBody::Log(log) = &cut.body else {
        panic!("{:?}", cut.body.type_name());
    };
    assert!(
        log.message.contains("`tool_use` event") && log.message.contains(&original.to_string()),
        "{}",
        log.message
    );
}

#[test]
fn a_cut_cli_line_is_a_raw_event_that_says_so_and_stays_text() {
    // The cut fell inside `é` (2 bytes): the half character is left out.
    let bytes = "aé".as_bytes();
    let raw = RawEvent::cut(RawStream::Stdout, &bytes[..2], 123_456_789);
    assert_eq!(raw.line, "a");
    assert!(raw.truncated && raw.bytes_base64.is_none());
    assert_eq!(raw.original_bytes, Some(123_456_789));
    let value = serde_json::to_value(&raw).unwrap();
    assert_eq!(value["truncated"], true);
    assert_eq!(value["original_bytes"], 123_456_789);
    // Invalid bytes elsewhere keep their exact form.
    let raw = RawEvent::cut(RawStream::Stderr, b"\xff\xfe", 9);
    assert_eq!(raw.bytes_base64.as_deref(), Some("//4="));
    // An uncut line says nothing of it.
    let whole = serde_json::to_value(RawEvent::from_bytes(RawStream::Stdout, b"x")).unwrap();
    assert!(whole.get("truncated").is_none() && whole.get("original_bytes").is_none());
}

#[test]
fn the_real_limit_holds_for_an_answer_twice_its_size() {
    let long = event(EventBody::Message(MessageEvent {
        text: "z".repeat(2 * MAX_LINE_BYTES),
    }));
    let cut = fit(long);
    let written = line(&cut);
    assert!(written.len() <= MAX_LINE_BYTES, "{}", written.len());
    assert!(
        written.len() > MAX_LINE_BYTES - 64 * 1024,
        "{}",
        written.len()
    );
    assert!(cut.cut.is_some());
}
