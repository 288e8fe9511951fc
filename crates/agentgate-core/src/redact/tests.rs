use serde_json::json;

use super::*;

#[test]
fn names_of_secrets_are_recognised() {
    for k in ["OPENAI_API_KEY", "gh_token", "DB_PASSWORD", "AUTH_HEADER"] {
        assert!(is_secret(k), "{k}");
    }
    for k in ["PATH", "HOME", "PLAIN_VAR"] {
        assert!(!is_secret(k), "{k}");
    }
}

#[test]
fn secret_flags_are_told_word_by_word() {
    for f in [
        "--api-key",
        "--apikey",
        "--auth-token",
        "-password",
        "--client_secret",
        "--auth",
        "--db.credentials",
    ] {
        assert!(is_secret_flag(f), "{f}");
    }
    for f in [
        "--max-tokens",
        "--keyboard",
        "--model",
        "api-key",
        "--",
        "-",
    ] {
        assert!(!is_secret_flag(f), "{f}");
    }
}

#[test]
fn secret_flag_values_take_both_spellings() {
    let args: Vec<String> = [
        "--api-key=sekrit-1",
        "--verbose",
        "--token",
        "sekrit-2",
        "--auth",
        "--model",
        "m",
        "--max-tokens",
        "100",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        secret_flag_values(&args),
        [
            ("--api-key".to_owned(), "sekrit-1".to_owned()),
            ("--token".to_owned(), "sekrit-2".to_owned())
        ]
    );
    let argv: Vec<String> = [
        "cli",
        "-p",
        "--api-key=sekrit-1",
        "--token",
        "sekrit-2",
        "hi",
    ]
    .map(String::from)
    .to_vec();
    assert_eq!(
        mask_secret_flags(&argv, &secret_flag_values(&args)),
        [
            "cli",
            "-p",
            "--api-key=[redacted:--api-key]",
            "--token",
            "[redacted:--token]",
            "hi"
        ]
    );
}

fn redactor(env: &[(&str, &str)], values: &[&str]) -> Redactor {
    let mut b = RedactorBuilder::new();
    for (k, v) in env {
        b.env(k, v);
    }
    for v in values {
        b.value(v);
    }
    b.build()
}

#[test]
fn secret_values_are_replaced_by_a_marker_naming_the_variable() {
    let r = redactor(
        &[
            ("OPENAI_API_KEY", "sk-live-0123456789"),
            ("PLAIN", "not-a-secret-value"),
        ],
        &["hunter2-correct-horse"],
    );
    assert_eq!(
        r.redact_str("key sk-live-0123456789, plain not-a-secret-value, pw hunter2-correct-horse."),
        "key [redacted:OPENAI_API_KEY], plain not-a-secret-value, pw [redacted]."
    );
    assert_eq!(
        &*r.redact_bytes(b"\xff sk-live-0123456789\xfe"),
        b"\xff [redacted:OPENAI_API_KEY]\xfe"
    );
    // Nothing to replace: nothing copied.
    assert!(matches!(
        r.redact_str("nothing here"),
        std::borrow::Cow::Borrowed(_)
    ));
}

#[test]
fn short_values_are_ignored() {
    let r = redactor(&[("API_KEY", "1234567"), ("MAX_TOKENS", "32000")], &["abc"]);
    assert!(r.is_empty());
    assert_eq!(r.redact_str("1234567 32000 abc"), "1234567 32000 abc");
    let r = redactor(&[("API_KEY", "12345678")], &[]);
    assert_eq!(r.redact_str("x12345678y"), "x[redacted:API_KEY]y");
}

#[test]
fn overlapping_values_are_replaced_longest_first() {
    // One value inside another, and two that share a prefix.
    let r = redactor(
        &[
            ("SHORT_TOKEN", "abcdefgh"),
            ("LONG_TOKEN", "abcdefgh-ijklmnop"),
            ("OTHER_KEY", "abcdefgh-ijkXYZ00"),
        ],
        &[],
    );
    assert_eq!(
        r.redact_str("1 abcdefgh-ijklmnop 2 abcdefgh 3 abcdefgh-ijkXYZ00 4 abcdefgh-ijk"),
        "1 [redacted:LONG_TOKEN] 2 [redacted:SHORT_TOKEN] 3 [redacted:OTHER_KEY] 4 [redacted:SHORT_TOKEN]-ijk"
    );
    // The same value under two names: the first name given.
    let r = redactor(&[("A_KEY", "same-value-1"), ("B_KEY", "same-value-1")], &[]);
    assert_eq!(r.redact_str("same-value-1"), "[redacted:A_KEY]");
}

#[test]
fn json_escaped_forms_are_found_in_raw_lines() {
    let secret = "pa\"ss\\wo/rd<é>😀";
    let r = redactor(&[("DB_PASSWORD", secret)], &[]);
    let escaped = serde_json::to_string(secret).unwrap();
    let line = format!(r#"{{"type":"assistant","text":{escaped}}}"#);
    let out = String::from_utf8(r.redact_bytes(line.as_bytes()).into_owned()).unwrap();
    assert_eq!(
        out,
        r#"{"type":"assistant","text":"[redacted:DB_PASSWORD]"}"#
    );
    // The marker keeps the line valid JSON.
    serde_json::from_str::<serde_json::Value>(&out).unwrap();
    // As other encoders write it: `\/`, `\u003c` (Go), `\u00e9` and
    // surrogate pairs (ASCII-only encoders), in either case.
    for form in [
        r#"pa\"ss\\wo\/rd<é>😀"#,
        r#"pa\"ss\\wo/rd\u003cé\u003e😀"#,
        r#"pa\"ss\\wo/rd<\u00e9>\ud83d\ude00"#,
        r#"pa\"ss\\wo/rd<\u00E9>\uD83D\uDE00"#,
    ] {
        assert_eq!(
            r.redact_str(&format!("x{form}y")),
            "x[redacted:DB_PASSWORD]y",
            "{form}"
        );
    }
}

#[test]
fn json_values_are_redacted_in_strings_and_keys_only() {
    let r = redactor(&[("API_TOKEN", "tok-12345678")], &[]);
    let mut v = json!({
        "text": "the token is tok-12345678",
        "tok-12345678": [1, "tok-12345678", {"n": 12345678}],
        "n": 12345678,
    });
    assert!(r.redact_json(&mut v));
    assert_eq!(
        v,
        json!({
            "text": "the token is [redacted:API_TOKEN]",
            "[redacted:API_TOKEN]": [1, "[redacted:API_TOKEN]", {"n": 12345678}],
            "n": 12345678,
        })
    );
    assert!(!r.redact_json(&mut v));
}

#[test]
fn events_and_envelopes_round_trip_through_redaction() {
    use agentgate_protocol::{
        Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, MessageEvent, RawEvent,
        RawStream,
    };
    let r = redactor(&[("API_TOKEN", "tok-12345678")], &[]);
    let body = EventBody::Raw(RawEvent::from_bytes(
        RawStream::Stdout,
        b"{\"k\":\"tok-12345678\"}",
    ));
    let Some(EventBody::Raw(raw)) = r.redacted(&body).unwrap() else {
        panic!("not redacted");
    };
    assert_eq!(raw.line, r#"{"k":"[redacted:API_TOKEN]"}"#);
    let body = EventBody::Message(MessageEvent {
        text: "plain".into(),
    });
    assert!(r.redacted(&body).unwrap().is_none());

    let mut e = Envelope::new("r1");
    e.response = "the answer has tok-12345678".into();
    e.stderr_tail = Some("tok-12345678".into());
    e.attempts = vec![Attempt {
        error: Some("failed with tok-12345678".into()),
        ..Attempt::default()
    }];
    let e = e.with_error(
        &ErrorInfo::new(
            ErrorKind::Auth,
            ErrorSource::Structured,
            "bad key tok-12345678",
        ),
        1,
    );
    let out = r.redacted(&e).unwrap().unwrap();
    let text = serde_json::to_string(&out).unwrap();
    assert!(!text.contains("tok-12345678"), "{text}");
    assert_eq!(out.stderr_tail.as_deref(), Some("[redacted:API_TOKEN]"));
    assert_eq!(out.exit_code, e.exit_code);
}

#[test]
fn an_event_whose_secret_json_escapes_is_still_found() {
    use agentgate_protocol::{EventBody, MessageEvent};
    // `redacted` scans the event's JSON text before walking it: a value
    // with a quote, a backslash and a control character appears there only
    // escaped, and must still be found.
    let secret = "pa\"ss\\wo\trd-1234";
    let r = redactor(&[("DB_PASSWORD", secret)], &[]);
    let body = EventBody::Message(MessageEvent {
        text: format!("the password is {secret}."),
    });
    let Some(EventBody::Message(m)) = r.redacted(&body).unwrap() else {
        panic!("not redacted");
    };
    assert_eq!(m.text, "the password is [redacted:DB_PASSWORD].");
}
