//! Streams that break after the answer has started (`fail:`), on every
//! wire API: the in-stream error event, Responses' `response.failed`, a
//! stream without its closing record, and a connection cut.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

use std::sync::Arc;

use agentgate_fakellm::Script;
use agentgate_fakellm::server::{ServerConfig, Shared, router};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

/// The wire APIs: (name, path, a streamed request body saying "hi").
fn apis() -> [(&'static str, &'static str, Value); 4] {
    let messages = json!([{"role": "user", "content": "hi"}]);
    [
        (
            "anthropic",
            "/v1/messages",
            json!({"model": "claude-sonnet-4-5", "stream": true, "max_tokens": 100, "messages": messages}),
        ),
        (
            "responses",
            "/v1/responses",
            json!({"model": "gpt-5.5", "stream": true, "input": messages}),
        ),
        (
            "chat",
            "/v1/chat/completions",
            json!({"model": "qwen3-coder-plus", "stream": true, "messages": messages}),
        ),
        (
            "gemini",
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
        ),
    ]
}

/// What a streamed answer was: its status, its text, and whether the
/// connection broke before the body ended.
struct Streamed {
    status: StatusCode,
    body: String,
    cut: bool,
}

async fn stream(script: &str, path: &str, body: &Value) -> Streamed {
    let shared = Shared::new(ServerConfig {
        script: Script::parse(script).unwrap(),
        log_path: None,
    })
    .unwrap();
    stream_from(&shared, path, body).await
}

async fn stream_from(shared: &Arc<Shared>, path: &str, body: &Value) -> Streamed {
    let req = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let resp = router(shared.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let mut body = resp.into_body();
    let mut seen = String::new();
    let mut cut = false;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => seen.push_str(std::str::from_utf8(f.data_ref().unwrap()).unwrap()),
            Err(_) => {
                cut = true;
                break;
            }
        }
    }
    Streamed {
        status,
        body: seen,
        cut,
    }
}

/// The (event, data) pairs of a complete SSE body.
fn frames(body: &str) -> Vec<(Option<String>, Value)> {
    assert!(body.ends_with("\n\n"), "unterminated frame: {body:?}");
    body.split("\n\n")
        .filter(|f| !f.is_empty())
        .map(|frame| {
            let mut event = None;
            let mut data = String::new();
            for line in frame.lines() {
                if let Some(e) = line.strip_prefix("event: ") {
                    event = Some(e.to_owned());
                } else if let Some(d) = line.strip_prefix("data: ") {
                    data.push_str(d);
                } else {
                    panic!("unexpected SSE line {line:?}");
                }
            }
            let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
            (event, data)
        })
        .collect()
}

fn script(fault: &str) -> String {
    format!("turns:\n  - text: [first, second]\n{fault}")
}

/// Every API: the first chunk went out, the second never did, and nothing
/// that closes an answer did.
fn assert_broken_after_first_chunk(api: &str, s: &Streamed) {
    assert_eq!(s.status, StatusCode::OK, "{api}");
    assert!(s.body.contains("first"), "{api}: {}", s.body);
    assert!(!s.body.contains("second"), "{api}: {}", s.body);
    for closing in [
        "message_stop",
        "response.completed",
        "[DONE]",
        "\"finish_reason\":\"stop\"",
        "finishReason",
    ] {
        assert!(
            !s.body.contains(closing),
            "{api} sent {closing}: {}",
            s.body
        );
    }
}

#[tokio::test]
async fn a_cut_closes_the_connection_after_the_first_chunk_on_every_api() {
    for (api, path, body) in apis() {
        let s = stream(&script("    fail: mid_stream\n"), path, &body).await;
        assert_broken_after_first_chunk(api, &s);
        assert!(s.cut, "{api}: the body ended cleanly: {}", s.body);
    }
}

#[tokio::test]
async fn an_error_event_ends_the_stream_with_each_apis_error_shape() {
    let fault = "    fail: error_event\n    fail_error: {kind: overloaded}\n";
    for (api, path, body) in apis() {
        let s = stream(&script(fault), path, &body).await;
        assert_broken_after_first_chunk(api, &s);
        assert!(!s.cut, "{api}: the connection was cut: {}", s.body);
        let (event, data) = frames(&s.body).pop().unwrap();
        match api {
            "anthropic" => {
                assert_eq!(event.as_deref(), Some("error"));
                assert_eq!(data["type"], "error");
                assert_eq!(data["error"]["type"], "overloaded_error");
            }
            "responses" => {
                assert_eq!(event.as_deref(), Some("error"));
                assert_eq!(data["type"], "error");
                assert_eq!(data["code"], "server_is_overloaded");
                assert!(data["message"].as_str().unwrap().contains("overloaded"));
                assert!(data["sequence_number"].as_u64().unwrap() > 0);
            }
            "chat" => {
                assert_eq!(event, None);
                assert!(
                    data["error"]["message"]
                        .as_str()
                        .unwrap()
                        .contains("overloaded")
                );
            }
            "gemini" => {
                assert_eq!(event, None);
                assert_eq!(data["error"]["code"], 503);
                assert_eq!(data["error"]["status"], "UNAVAILABLE");
            }
            other => panic!("no API {other}"),
        }
    }
}

#[tokio::test]
async fn an_error_event_defaults_to_a_server_error() {
    let [(_, path, body), ..] = apis();
    let s = stream(&script("    fail: error_event\n"), path, &body).await;
    let (_, data) = frames(&s.body).pop().unwrap();
    assert_eq!(data["error"]["type"], "api_error");
}

#[tokio::test]
async fn response_failed_carries_the_failed_response_and_its_error() {
    let [_, (_, path, body), ..] = apis();
    let s = stream(&script("    fail: response_failed\n"), path, &body).await;
    assert_broken_after_first_chunk("responses", &s);
    let all = frames(&s.body);
    let (event, data) = all.last().unwrap();
    assert_eq!(event.as_deref(), Some("response.failed"));
    assert_eq!(data["type"], "response.failed");
    assert_eq!(data["sequence_number"], all.len() - 1);
    assert_eq!(data["response"]["status"], "failed");
    assert_eq!(data["response"]["error"]["code"], "server_error");
    assert!(data["response"]["error"]["message"].is_string());
}

#[tokio::test]
async fn no_finish_ends_the_stream_cleanly_without_its_closing_record() {
    for (api, path, body) in apis() {
        let s = stream(&script("    fail: no_finish\n"), path, &body).await;
        assert_broken_after_first_chunk(api, &s);
        assert!(!s.cut, "{api}: the connection was cut");
        for (event, data) in frames(&s.body) {
            assert!(
                !matches!(event.as_deref(), Some("error" | "response.failed"))
                    && data.get("error").is_none(),
                "{api}: an error was sent: {}",
                s.body
            );
            // Gemini: every chunk is a candidate without a finish reason.
            if api == "gemini" {
                assert!(data["candidates"][0].get("finishReason").is_none());
            }
        }
    }
}

#[tokio::test]
async fn a_non_streamed_request_gets_the_error_as_an_http_error() {
    let [(_, path, mut body), ..] = apis();
    body["stream"] = json!(false);
    let fault = "    fail: error_event\n    fail_error: {kind: overloaded}\n";
    let s = stream(&script(fault), path, &body).await;
    assert_eq!(s.status.as_u16(), 529);
    let v: Value = serde_json::from_str(&s.body).unwrap();
    assert_eq!(v["error"]["type"], "overloaded_error");
}

#[tokio::test]
async fn a_repeated_fault_breaks_every_request() {
    let shared = Shared::new(ServerConfig {
        script: Script::parse(
            "turns:\n  - repeat: true\n    text: [first, second]\n    fail: error_event\n",
        )
        .unwrap(),
        log_path: None,
    })
    .unwrap();
    let [(_, path, body), ..] = apis();
    for _ in 0..3 {
        let s = stream_from(&shared, path, &body).await;
        assert!(s.body.contains("event: error"), "{}", s.body);
    }
}

#[test]
fn inconsistent_faults_are_rejected() {
    for (yaml, want) in [
        (
            "turns:\n  - text: a\n    fail_error: {kind: overloaded}\n",
            "`fail_error` needs",
        ),
        (
            "turns:\n  - text: a\n    fail: mid_stream\n    fail_error: {kind: overloaded}\n",
            "`fail_error` needs",
        ),
        ("turns:\n  - fail: error_event\n", "needs text"),
        ("turns:\n  - text: a\n    fail: sideways\n", "sideways"),
    ] {
        let err = Script::parse(yaml).unwrap_err().to_string();
        assert!(err.contains(want), "{yaml:?}: {err}");
    }
}
