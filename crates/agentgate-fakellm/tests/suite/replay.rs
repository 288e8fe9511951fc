//! Replay of a gateway recording: each API's calls served in order with
//! their status, headers and body (an event stream event by event), a
//! request past the end refused in the API's own error shape, a response
//! recorded cut short cut again, the request log kept, and a bad line
//! refused at load with its number.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

use std::sync::Arc;

use agentgate_fakellm::Recording;
use agentgate_fakellm::server::{Answers, ServerOptions, Shared, router};
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

const SSE_BODY: &str = "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":7,\"output_tokens\":1}}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"recorded answer\"}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

const CHAT_BODY: &str = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"content\":\"from the chat recording\"},\"finish_reason\":\"stop\"}]}";

/// Two calls of different APIs (the Anthropic one streamed), as the
/// gateway writes them: the chat call ended first, so its line comes first.
fn recording_text() -> String {
    let chat = json!({
        "v": 1, "call": 2, "api": "openai_chat", "method": "POST",
        "path": "/v1/chat/completions", "query": null,
        "request": {"headers": {"content-type": "application/json"}, "body": "{}"},
        "response": {"status": 200,
            "headers": {"content-type": "application/json", "content-length": "999",
                        "x-ratelimit-remaining-requests": "41"},
            "body": CHAT_BODY},
    });
    let anthropic = json!({
        "v": 1, "call": 1, "api": "anthropic_messages", "method": "POST",
        "path": "/v1/messages", "query": "beta=true",
        "request": {"headers": {"content-type": "application/json"}, "body": "{}"},
        "response": {"status": 200,
            "headers": {"content-type": "text/event-stream; charset=utf-8",
                        "anthropic-ratelimit-unified-5h-utilization": "0.42"},
            "body": SSE_BODY},
    });
    format!("{chat}\n\n{anthropic}\n")
}

fn state(text: &str, log: Option<std::path::PathBuf>) -> Arc<Shared> {
    Shared::new(ServerOptions {
        answers: Answers::Replay(Recording::parse(text, "model-calls.jsonl").unwrap()),
        log_path: log,
        tls: None,
        require_key: None,
    })
    .unwrap()
}

/// An answer, with its body as the chunks it was sent in; `cut` when the
/// body ended with an error instead of its end.
struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    chunks: Vec<String>,
    cut: bool,
}

impl Answer {
    fn body(&self) -> String {
        self.chunks.concat()
    }
}

async fn post(shared: &Arc<Shared>, path: &str, body: Value) -> Answer {
    let req = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let resp = router(shared.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let mut body = resp.into_body();
    let mut chunks = Vec::new();
    let mut cut = false;
    // Bounded: a recorded body has a handful of events.
    for _ in 0..100 {
        match body.frame().await {
            None => break,
            Some(Err(_)) => {
                cut = true;
                break;
            }
            Some(Ok(frame)) => {
                if let Ok(data) = frame.into_data() {
                    chunks.push(String::from_utf8(data.to_vec()).unwrap());
                }
            }
        }
    }
    Answer {
        status,
        headers,
        chunks,
        cut,
    }
}

fn anthropic_request() -> Value {
    json!({"model": "claude-sonnet-4-5", "stream": true, "max_tokens": 100,
           "messages": [{"role": "user", "content": "anything"}]})
}

fn chat_request() -> Value {
    json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "anything"}]})
}

#[tokio::test]
async fn each_api_gets_its_recorded_calls_in_order_as_they_were_sent() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("requests.jsonl");
    let s = state(&recording_text(), Some(log.clone()));

    // The Anthropic request gets the Anthropic call though it is the
    // file's second line.
    let a = post(&s, "/v1/messages?beta=true", anthropic_request()).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.body(), SSE_BODY);
    assert_eq!(
        a.headers["content-type"],
        "text/event-stream; charset=utf-8"
    );
    assert_eq!(
        a.headers["anthropic-ratelimit-unified-5h-utilization"],
        "0.42"
    );
    // Sent event by event: one body chunk per event.
    assert_eq!(a.chunks.len(), 3, "{:?}", a.chunks);
    assert!(
        a.chunks.iter().all(|c| c.ends_with("\n\n")),
        "{:?}",
        a.chunks
    );
    assert!(!a.cut);

    let c = post(&s, "/v1/chat/completions", chat_request()).await;
    assert_eq!(c.status, StatusCode::OK);
    assert_eq!(c.body(), CHAT_BODY);
    assert_eq!(c.headers["content-type"], "application/json");
    assert_eq!(c.headers["x-ratelimit-remaining-requests"], "41");
    // The recorded length is not replayed (the body is framed anew).
    assert_ne!(
        c.headers.get("content-length").map(|v| v.to_str().unwrap()),
        Some("999")
    );

    // Past the end of the Anthropic calls: a 400 in Anthropic's shape
    // naming the recording.
    let past = post(&s, "/v1/messages", anthropic_request()).await;
    assert_eq!(past.status, StatusCode::BAD_REQUEST);
    let v: Value = serde_json::from_str(&past.body()).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "invalid_request_error");
    let message = v["error"]["message"].as_str().unwrap();
    assert!(message.contains("model-calls.jsonl"), "{message}");
    assert!(
        message.contains("no more anthropic_messages calls"),
        "{message}"
    );

    // An API the recording never called: Gemini's own error shape.
    let g = post(
        &s,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}),
    )
    .await;
    assert_eq!(g.status, StatusCode::BAD_REQUEST);
    let v: Value = serde_json::from_str(&g.body()).unwrap();
    assert_eq!(v["error"]["code"], 400);
    assert!(
        v["error"]["message"].as_str().unwrap().contains("holds 0"),
        "{v}"
    );

    // The request log, as for a script: what came, what answered it.
    let lines: Vec<Value> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary: Vec<(Value, Value, Value, Value)> = lines
        .iter()
        .map(|l| {
            (
                l["api"].clone(),
                l["outcome"].clone(),
                l["status"].clone(),
                l["replayed_call"].clone(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            (json!("anthropic"), json!("replay"), json!(200), json!(1)),
            (json!("chat"), json!("replay"), json!(200), json!(2)),
            (json!("anthropic"), json!("error"), json!(400), Value::Null),
            (json!("gemini"), json!("error"), json!(400), Value::Null),
        ]
    );
    assert_eq!(lines[0]["model"], "claude-sonnet-4-5");
    assert_eq!(lines[1]["messages"][0]["text"], "anything");
}

#[tokio::test]
async fn a_call_recorded_cut_short_is_cut_again_and_one_without_response_is_a_502() {
    // Lines are written as calls end: call 2 ended first. Replay goes by the
    // call numbers, the order the calls started in.
    let text = format!(
        "{}\n{}\n",
        json!({"v": 1, "call": 2, "api": "openai_responses", "method": "POST", "path": "/v1/responses",
               "query": null, "request": {"headers": {}, "body": "{}"}, "response": null}),
        json!({"v": 1, "call": 1, "api": "openai_responses", "method": "POST", "path": "/v1/responses",
               "query": null, "request": {"headers": {}, "body": "{}"},
               "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
                            "body": "event: response.created\ndata: {}\n\n", "error": "upstream reset"}}),
    );
    let s = state(&text, None);
    let req = json!({"model": "gpt-5.5", "stream": true, "input": "hi"});
    let first = post(&s, "/v1/responses", req.clone()).await;
    assert_eq!(first.status, StatusCode::OK);
    assert_eq!(first.body(), "event: response.created\ndata: {}\n\n");
    assert!(first.cut, "a response recorded with an error ends with one");
    let second = post(&s, "/v1/responses", req).await;
    assert_eq!(second.status, StatusCode::BAD_GATEWAY);
    let v: Value = serde_json::from_str(&second.body()).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("call 2 of the recording"),
        "{v}"
    );
}

#[test]
fn a_bad_line_is_refused_with_its_number() {
    let good = recording_text();
    for (bad, want) in [
        ("{not json", "not a recorded call"),
        (
            r#"{"v": 2, "call": 3, "api": "gemini", "response": null}"#,
            "format version 2",
        ),
        (
            r#"{"v": 1, "call": 3, "api": "bedrock", "response": null}"#,
            "unknown api \"bedrock\"",
        ),
        (
            r#"{"v": 1, "call": 3, "api": "gemini", "response": {"status": 42, "body": ""}}"#,
            "status 42",
        ),
    ] {
        // The good text has a blank line in it: line numbers count it.
        let text = format!("{good}{bad}\n");
        let err = Recording::parse(&text, "calls.jsonl")
            .unwrap_err()
            .to_string();
        assert!(err.contains("calls.jsonl: line 4:"), "{bad}: {err}");
        assert!(err.contains(want), "{bad}: {err}");
    }
    let err = Recording::parse("\n", "empty.jsonl")
        .unwrap_err()
        .to_string();
    assert!(err.contains("holds no model call"), "{err}");
    let err = Recording::from_path(std::path::Path::new("/nonexistent/model-calls.jsonl"))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("failed to read the recording /nonexistent/model-calls.jsonl"),
        "{err}"
    );
}

#[tokio::test]
async fn a_replaying_server_still_answers_the_other_endpoints() {
    let s = state(&recording_text(), None);
    let req = Request::builder()
        .method("GET")
        .uri("/v1/models")
        .body(Body::empty())
        .unwrap();
    let resp = router(s.clone()).oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert!(!v["data"].as_array().unwrap().is_empty(), "{v}");
}
