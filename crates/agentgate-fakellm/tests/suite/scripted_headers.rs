//! Scripted response headers (a turn's and its error's `headers:`) and the
//! TTL split of cache writes (`usage.cache_write_1h`): on the response,
//! in Anthropic's usage (streamed and not), absent elsewhere, and checked
//! at script load.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

use std::sync::Arc;

use agentgate_fakellm::Script;
use agentgate_fakellm::server::{ServerConfig, Shared, router};
use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

const SCRIPT: &str = r#"
turns:
  - match: {contains: "near the limit"}
    repeat: true
    text: "ok"
    usage: {input: 10, output: 2, cache_read: 3, cache_write: 100, cache_write_1h: 60}
    headers:
      anthropic-ratelimit-unified-5h-utilization: "0.97"
      x-ratelimit-remaining-tokens: 10
      Anthropic-Ratelimit-Unified-7d-Utilization: 0.5
  - match: {contains: "over the limit"}
    headers: {x-request-id: req_scripted}
    error:
      kind: rate_limit
      retry_after: 30
      headers: {retry-after: "2", anthropic-ratelimit-unified-status: rejected}
"#;

fn state() -> Arc<Shared> {
    Shared::new(ServerConfig {
        script: Script::parse(SCRIPT).unwrap(),
        log_path: None,
    })
    .unwrap()
}

async fn post(shared: &Arc<Shared>, path: &str, body: Value) -> (StatusCode, HeaderMap, String) {
    let req = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json")
        .body(Body::from(body.to_string()))
        .unwrap();
    let resp = router(shared.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, headers, String::from_utf8(bytes.to_vec()).unwrap())
}

fn anthropic(prompt: &str, stream: bool) -> Value {
    json!({"model": "claude-sonnet-4-5", "stream": stream, "max_tokens": 100,
           "messages": [{"role": "user", "content": prompt}]})
}

/// The `data:` payloads of an SSE body, by event name.
fn event_data(body: &str, event: &str) -> Value {
    let needle = format!("event: {event}\ndata: ");
    let start = body
        .find(&needle)
        .unwrap_or_else(|| panic!("no {event} in {body}"))
        + needle.len();
    let line = body[start..].lines().next().unwrap();
    serde_json::from_str(line).unwrap()
}

#[tokio::test]
async fn a_turns_headers_arrive_on_a_streamed_and_a_plain_answer() {
    let s = state();
    for stream in [true, false] {
        let (status, headers, _) = post(
            &s,
            "/v1/messages",
            anthropic("we are near the limit", stream),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            headers["anthropic-ratelimit-unified-5h-utilization"],
            "0.97"
        );
        // A bare YAML number is sent as written; names are lower-cased.
        assert_eq!(headers["x-ratelimit-remaining-tokens"], "10");
        assert_eq!(headers["anthropic-ratelimit-unified-7d-utilization"], "0.5");
        let want = if stream {
            "text/event-stream"
        } else {
            "application/json"
        };
        assert_eq!(headers["content-type"], want);
    }
}

#[tokio::test]
async fn an_errors_headers_arrive_with_it_and_replace_retry_after() {
    let s = state();
    let (status, headers, body) =
        post(&s, "/v1/messages", anthropic("we are over the limit", true)).await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    // The error's `headers` win over its `retry_after: 30`.
    assert_eq!(headers["retry-after"], "2");
    assert_eq!(headers["anthropic-ratelimit-unified-status"], "rejected");
    // The turn's own headers come too.
    assert_eq!(headers["x-request-id"], "req_scripted");
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["type"], "rate_limit_error");
}

#[tokio::test]
async fn anthropic_reports_the_ttl_split_streamed_and_not() {
    let s = state();
    let split = json!({"ephemeral_5m_input_tokens": 40, "ephemeral_1h_input_tokens": 60});
    let (_, _, body) = post(&s, "/v1/messages", anthropic("near the limit", false)).await;
    let v: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["usage"]["cache_creation_input_tokens"], 100);
    assert_eq!(v["usage"]["cache_creation"], split);

    let (_, _, body) = post(&s, "/v1/messages", anthropic("near the limit", true)).await;
    let start = event_data(&body, "message_start");
    assert_eq!(start["message"]["usage"]["cache_creation"], split);
    assert_eq!(
        start["message"]["usage"]["cache_creation_input_tokens"],
        100
    );
    let end = event_data(&body, "message_delta");
    assert_eq!(end["usage"]["cache_creation"], split);
}

#[tokio::test]
async fn the_other_apis_have_no_ttl_split() {
    let s = state();
    let (status, _, body) = post(
        &s,
        "/v1/responses",
        json!({"model": "gpt-5.5", "input": [{"role": "user", "content": "near the limit"}]}),
    )
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(!body.contains("ephemeral"), "{body}");
    let v: Value = serde_json::from_str(&body).unwrap();
    // Responses' input_tokens is the whole prompt: 10 + 3 + 100.
    assert_eq!(v["usage"]["input_tokens"], 113);
}

#[test]
fn bad_headers_and_a_split_over_the_cache_write_are_refused_at_load() {
    for (yaml, want) in [
        (
            "turns:\n  - text: a\n    usage: {cache_write: 5, cache_write_1h: 6}\n",
            "`usage.cache_write_1h` (6) is more than `cache_write` (5)",
        ),
        (
            "turns:\n  - text: a\n    headers: {\"bad name\": x}\n",
            "\"bad name\" is not a valid header name",
        ),
        (
            "turns:\n  - text: a\n    headers: {x-note: \"a\\nb\"}\n",
            "the value of `x-note`",
        ),
        (
            "turns:\n  - text: a\n    headers: {content-length: \"3\"}\n",
            "`content-length` is set by the server",
        ),
        (
            "turns:\n  - error: {kind: auth, headers: {\"a b\": x}}\n",
            "`error.headers`",
        ),
        ("turns:\n  - text: a\n    headers: {x-a: [1]}\n", "x-a"),
        (
            "turns:\n  - text: [a, b]\n    fail: error_event\n    fail_error: {kind: overloaded, headers: {x-a: b}}\n",
            "has no headers",
        ),
    ] {
        let err = Script::parse(yaml).unwrap_err().to_string();
        assert!(err.contains(want), "{yaml:?}: {err}");
        assert!(err.contains("turn #1") || want == "x-a", "{yaml:?}: {err}");
    }
    // A split up to the whole cache write is fine.
    Script::parse("turns:\n  - text: a\n    usage: {cache_write: 5, cache_write_1h: 5}\n").unwrap();
}
