//! The server in process: routing, SSE framing, turn selection, side
//! requests, errors, failures, hangs and the request log.
#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail the test by panicking"
)]

use std::sync::Arc;
use std::time::Duration;

use agentgate_fakellm::server::{ServerConfig, Shared, router};
use agentgate_fakellm::{LogEntry, Script};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

fn state(script: &str) -> Arc<Shared> {
    Shared::new(ServerConfig {
        script: Script::parse(script).unwrap(),
        log_path: None,
    })
    .unwrap()
}

struct Answer {
    status: StatusCode,
    headers: axum::http::HeaderMap,
    body: String,
}

async fn send(shared: &Arc<Shared>, method: &str, path: &str, body: Value) -> Answer {
    let req = Request::builder()
        .method(method)
        .uri(path)
        .header("content-type", "application/json")
        .body(if body.is_null() {
            Body::empty()
        } else {
            Body::from(body.to_string())
        })
        .unwrap();
    let resp = router(shared.clone()).oneshot(req).await.unwrap();
    let status = resp.status();
    let headers = resp.headers().clone();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    Answer {
        status,
        headers,
        body: String::from_utf8(bytes.to_vec()).unwrap(),
    }
}

/// Split an SSE body into (event, data) pairs, checking the framing.
fn sse(body: &str) -> Vec<(Option<String>, Value)> {
    assert!(
        body.ends_with("\n\n"),
        "an SSE body ends with a blank line: {body:?}"
    );
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
            let data = if data == "[DONE]" {
                Value::String(data)
            } else {
                serde_json::from_str(&data).unwrap()
            };
            (event, data)
        })
        .collect()
}

fn anthropic_request(prompt: &str, stream: bool) -> Value {
    json!({
        "model": "claude-sonnet-4-5",
        "stream": stream,
        "system": [{"type": "text", "text": "You are Claude Code."}],
        "tools": [
            {"name": "Read", "input_schema": {"type": "object", "properties": {"file_path": {"type": "string"}}}},
            {"name": "Bash", "input_schema": {"type": "object", "properties": {"command": {"type": "string"}, "timeout": {"type": "number"}}, "required": ["command"]}}
        ],
        "messages": [{"role": "user", "content": [{"type": "text", "text": prompt}]}],
    })
}

const TOOL_SCRIPT: &str = r#"
turns:
  - name: call
    match: {contains: "make a file"}
    thinking: "I should run echo."
    text: ["Run", "ning it."]
    tool_call: {name: shell, command: "echo hi > f.txt"}
    usage: {input: 100, output: 10, cache_read: 20, cache_write: 5, reasoning: 7}
  - name: after
    match: {tool_result: true}
    text: "done"
"#;

#[tokio::test]
async fn head_root_answers_for_liveness_probes() {
    let s = state("");
    let a = send(&s, "HEAD", "/", Value::Null).await;
    assert_eq!(a.status, StatusCode::OK);
}

#[tokio::test]
async fn anthropic_stream_frames_thinking_text_tool_call_and_usage() {
    let s = state(TOOL_SCRIPT);
    let a = send(
        &s,
        "POST",
        "/v1/messages?beta=true",
        anthropic_request("please make a file", true),
    )
    .await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.headers["content-type"], "text/event-stream");
    let frames = sse(&a.body);
    let events: Vec<&str> = frames.iter().map(|(e, _)| e.as_deref().unwrap()).collect();
    assert_eq!(
        events,
        [
            "message_start",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "content_block_start",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    // Every frame's data names its own event type.
    for (e, d) in &frames {
        assert_eq!(d["type"], e.as_deref().unwrap());
    }
    assert_eq!(
        frames[2].1["delta"],
        json!({"type": "thinking_delta", "thinking": "I should run echo."})
    );
    let text: String = frames
        .iter()
        .filter(|(_, d)| d["delta"]["type"] == "text_delta")
        .map(|(_, d)| d["delta"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Running it.");
    assert_eq!(frames[9].1["content_block"]["name"], "Bash");
    let args: Value =
        serde_json::from_str(frames[10].1["delta"]["partial_json"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"command": "echo hi > f.txt"}));
    assert_eq!(frames[12].1["delta"]["stop_reason"], "tool_use");
    assert_eq!(
        frames[12].1["usage"],
        json!({"input_tokens": 100, "cache_read_input_tokens": 20, "cache_creation_input_tokens": 5,
            "cache_creation": {"ephemeral_5m_input_tokens": 5, "ephemeral_1h_input_tokens": 0}, "output_tokens": 17})
    );
}

#[tokio::test]
async fn anthropic_non_stream_is_one_message_object() {
    let s = state("turns:\n  - text: hello\n    usage: {input: 3, output: 2}\n");
    let a = send(&s, "POST", "/v1/messages", anthropic_request("hi", false)).await;
    let v: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["content"], json!([{"type": "text", "text": "hello"}]));
    assert_eq!(v["stop_reason"], "end_turn");
    assert_eq!(v["usage"]["output_tokens"], 2);
    assert_eq!(v["usage"]["input_tokens"], 3);
}

#[tokio::test]
async fn turns_are_used_in_order_then_the_default_answers() {
    let s = state(TOOL_SCRIPT);
    // The second turn does not match a plain prompt; the first is used once.
    let first = send(
        &s,
        "POST",
        "/v1/messages",
        anthropic_request("make a file", false),
    )
    .await;
    let v: Value = serde_json::from_str(&first.body).unwrap();
    assert_eq!(v["content"][2]["type"], "tool_use");
    let again = send(
        &s,
        "POST",
        "/v1/messages",
        anthropic_request("make a file", false),
    )
    .await;
    let v: Value = serde_json::from_str(&again.body).unwrap();
    assert_eq!(
        v["content"][0]["text"],
        "Hello from agentgate fake-llm. You said: make a file"
    );
    // A tool result matches the second turn.
    let mut body = anthropic_request("make a file", false);
    body["messages"] = json!([
        {"role": "user", "content": "make a file"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ""}]},
    ]);
    let after = send(&s, "POST", "/v1/messages", body).await;
    let v: Value = serde_json::from_str(&after.body).unwrap();
    assert_eq!(v["content"][0]["text"], "done");
    let turns: Vec<Option<String>> = s.requests().into_iter().map(|e: LogEntry| e.turn).collect();
    assert_eq!(turns, [Some("call".into()), None, Some("after".into())]);
}

#[tokio::test]
async fn a_turns_text_can_quote_the_tool_results_output() {
    let s = state(
        r#"
turns:
  - match: {tool_result: true}
    text: ["The tool said: ", "{{tool_output}}."]
"#,
    );
    let mut body = anthropic_request("count words", false);
    body["messages"] = json!([
        {"role": "user", "content": "count words"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}},
            {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}
        ]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1", "content": "words: 7"},
            {"type": "tool_result", "tool_use_id": "t2", "content": [{"type": "text", "text": "lines: 2"}]}
        ]},
    ]);
    let answer = send(&s, "POST", "/v1/messages", body).await;
    let v: Value = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(
        v["content"][0]["text"],
        "The tool said: words: 7\nlines: 2."
    );
    // Without tool results the placeholder stands for nothing.
    let s = state(
        r#"
turns:
  - text: "[{{tool_output}}]"
"#,
    );
    let plain = send(&s, "POST", "/v1/messages", anthropic_request("hi", false)).await;
    let v: Value = serde_json::from_str(&plain.body).unwrap();
    assert_eq!(v["content"][0]["text"], "[]");
}

#[tokio::test]
async fn unmatched_requests_fail_when_the_script_says_so() {
    let s = state("on_unmatched: error\nturns:\n  - match: {contains: never}\n    text: x\n");
    let a = send(&s, "POST", "/v1/messages", anthropic_request("hi", false)).await;
    assert_eq!(a.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(a.body.contains("no scripted turn matched"), "{}", a.body);
}

#[tokio::test]
async fn scripted_errors_carry_status_retry_after_and_the_provider_body() {
    let s = state(
        "turns:\n  - error: {kind: rate_limit, retry_after: 7}\n  - error: {kind: overloaded}\n  - error: {kind: auth}\n",
    );
    let a = send(&s, "POST", "/v1/messages", anthropic_request("hi", true)).await;
    assert_eq!(a.status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(a.headers["retry-after"], "7");
    let v: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["type"], "error");
    assert_eq!(v["error"]["type"], "rate_limit_error");
    let b = send(&s, "POST", "/v1/messages", anthropic_request("hi", true)).await;
    assert_eq!(b.status.as_u16(), 529);
    let c = send(
        &s,
        "POST",
        "/v1/chat/completions",
        json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    assert_eq!(c.status, StatusCode::UNAUTHORIZED);
    let v: Value = serde_json::from_str(&c.body).unwrap();
    assert_eq!(v["error"]["code"], "invalid_api_key");
}

#[tokio::test]
async fn a_mid_stream_failure_aborts_after_the_first_content() {
    let s = state("turns:\n  - text: [first, second]\n    fail: mid_stream\n");
    let req = Request::builder()
        .method("POST")
        .uri("/v1/messages")
        .body(Body::from(anthropic_request("hi", true).to_string()))
        .unwrap();
    let resp = router(s.clone()).oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body();
    let mut seen = String::new();
    let mut failed = false;
    while let Some(frame) = body.frame().await {
        match frame {
            Ok(f) => seen.push_str(std::str::from_utf8(f.data_ref().unwrap()).unwrap()),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert!(failed, "the body ended cleanly: {seen}");
    assert!(seen.contains("\"first\""));
    assert!(!seen.contains("second"));
    assert!(!seen.contains("message_stop"));
}

#[tokio::test]
async fn a_hang_holds_the_request_until_the_server_stops() {
    let s = state("turns:\n  - hang: true\n");
    let pending = tokio::spawn({
        let s = s.clone();
        async move { send(&s, "POST", "/v1/messages", anthropic_request("hi", true)).await }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!pending.is_finished(), "a hanging turn answered");
    assert_eq!(s.requests()[0].outcome, "hang");
    s.stop();
    let a = tokio::time::timeout(Duration::from_secs(5), pending)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(a.status, StatusCode::SERVICE_UNAVAILABLE);
}

#[tokio::test]
async fn side_requests_get_canned_answers_and_leave_turns_alone() {
    let s = state("turns:\n  - text: the real answer\n");
    // Gemini CLI's router: JSON schema, no tools.
    let router_req = json!({
        "contents": [{"role": "user", "parts": [{"text": "hi"}]}],
        "generationConfig": {"responseMimeType": "application/json", "responseJsonSchema": {
            "type": "OBJECT",
            "properties": {"complexity_reasoning": {"type": "STRING"}, "complexity_score": {"type": "INTEGER"}},
            "required": ["complexity_reasoning", "complexity_score"]}}
    });
    let a = send(
        &s,
        "POST",
        "/v1beta/models/gemini-2.5-flash-lite:generateContent",
        router_req,
    )
    .await;
    let v: Value = serde_json::from_str(&a.body).unwrap();
    let text = v["candidates"][0]["content"]["parts"][0]["text"]
        .as_str()
        .unwrap();
    let routed: Value = serde_json::from_str(text).unwrap();
    assert_eq!(
        routed,
        json!({"complexity_reasoning": "scripted", "complexity_score": 1})
    );
    // opencode's title request.
    let title = json!({"model": "fake-model", "messages": [
        {"role": "system", "content": "You are a title generator. You output ONLY a thread title."},
        {"role": "user", "content": "Generate a title for this conversation:\n"}]});
    let t = send(&s, "POST", "/v1/chat/completions", title).await;
    let v: Value = serde_json::from_str(&t.body).unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "Scripted run");
    // The scripted turn is still there for the real request.
    let r = send(
        &s,
        "POST",
        "/v1/chat/completions",
        json!({"model": "fake-model", "messages": [{"role": "user", "content": "hi"}]}),
    )
    .await;
    let v: Value = serde_json::from_str(&r.body).unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "the real answer");
    let sides: Vec<_> = s
        .requests()
        .iter()
        .map(|e| e.side.map(|k| serde_json::to_value(k).unwrap()))
        .collect();
    assert_eq!(sides, [Some(json!("router")), Some(json!("title")), None]);
}

#[tokio::test]
async fn gemini_paths_name_the_model_and_the_stream_mode() {
    let s = state("");
    let body = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let a = send(
        &s,
        "POST",
        "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
        body.clone(),
    )
    .await;
    assert_eq!(a.headers["content-type"], "text/event-stream");
    let frames = sse(&a.body);
    assert!(
        frames.iter().all(|(e, _)| e.is_none()),
        "Gemini frames have no event names"
    );
    let c = send(
        &s,
        "POST",
        "/v1beta/models/gemini-2.5-pro:countTokens",
        body,
    )
    .await;
    let v: Value = serde_json::from_str(&c.body).unwrap();
    assert!(v["totalTokens"].as_u64().unwrap() > 0);
    let log = s.requests();
    assert_eq!(log[0].model.as_deref(), Some("gemini-2.5-pro"));
    assert_eq!(log[0].stream, Some(true));
}

#[tokio::test]
async fn model_listings_answer_in_each_providers_shape() {
    let s = state("");
    let openai: Value =
        serde_json::from_str(&send(&s, "GET", "/v1/models", Value::Null).await.body).unwrap();
    assert_eq!(openai["object"], "list");
    assert!(
        openai["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["id"] == "gpt-5.5")
    );
    let gemini: Value =
        serde_json::from_str(&send(&s, "GET", "/v1beta/models", Value::Null).await.body).unwrap();
    assert!(
        gemini["models"]
            .as_array()
            .unwrap()
            .iter()
            .any(|m| m["name"] == "models/gemini-2.5-flash")
    );
    let req = Request::builder()
        .uri("/v1/models")
        .header("anthropic-version", "2023-06-01")
        .body(Body::empty())
        .unwrap();
    let resp = router(s.clone()).oneshot(req).await.unwrap();
    let anthropic: Value =
        serde_json::from_slice(&resp.into_body().collect().await.unwrap().to_bytes()).unwrap();
    assert_eq!(anthropic["has_more"], false);
    assert_eq!(anthropic["data"][0]["type"], "model");
}

#[tokio::test]
async fn bad_bodies_and_unknown_paths_are_refused_and_logged() {
    let s = state("");
    let req = Request::builder()
        .method("POST")
        .uri("/v1/messages")
        .body(Body::from("{not json"))
        .unwrap();
    let resp = router(s.clone()).oneshot(req).await.unwrap();
    assert_eq!(resp.status(), StatusCode::BAD_REQUEST);
    let missing_model = send(&s, "POST", "/v1/messages", json!({"messages": []})).await;
    assert_eq!(missing_model.status, StatusCode::BAD_REQUEST);
    let nowhere = send(&s, "POST", "/v2/teapot", json!({})).await;
    assert_eq!(nowhere.status, StatusCode::NOT_FOUND);
    let outcomes: Vec<&str> = s.requests().iter().map(|e| e.outcome).collect::<Vec<_>>();
    assert_eq!(outcomes, ["bad_request", "bad_request", "not_found"]);
    assert!(
        s.requests()[0]
            .error
            .as_deref()
            .unwrap()
            .contains("not JSON")
    );
}

#[tokio::test]
async fn the_log_file_gets_one_json_line_per_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("sub/requests.jsonl");
    let s = Shared::new(ServerConfig {
        script: Script::default(),
        log_path: Some(path.clone()),
    })
    .unwrap();
    send(
        &s,
        "POST",
        "/v1/messages",
        anthropic_request("hello there", false),
    )
    .await;
    send(&s, "HEAD", "/", Value::Null).await;
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[0]["n"], 1);
    assert_eq!(lines[0]["model"], "claude-sonnet-4-5");
    assert_eq!(lines[0]["tools"], json!(["Read", "Bash"]));
    assert_eq!(
        lines[0]["messages"],
        json!([{"role": "user", "text": "hello there"}])
    );
    assert_eq!(lines[1]["method"], "HEAD");
}

#[tokio::test]
async fn a_shell_call_to_a_client_without_a_shell_tool_is_a_400_that_says_why() {
    let s = state("turns:\n  - tool_call: {name: shell, command: ls}\n");
    let mut body = anthropic_request("hi", false);
    body["tools"] = json!([{"name": "Read", "input_schema": {}}]);
    let a = send(&s, "POST", "/v1/messages", body).await;
    assert_eq!(a.status, StatusCode::BAD_REQUEST);
    assert!(
        a.body.contains("declared no shell tool (declared: Read)"),
        "{}",
        a.body
    );
}

#[tokio::test]
async fn a_turn_can_require_words_in_the_system_instructions() {
    let s =
        state("turns:\n  - match: {system: \"Claude Code\"}\n    text: saw it\n    repeat: true\n");
    let a = send(&s, "POST", "/v1/messages", anthropic_request("hi", false)).await;
    let v: Value = serde_json::from_str(&a.body).unwrap();
    assert_eq!(v["content"][0]["text"], "saw it");
    let mut other = anthropic_request("hi", false);
    other["system"] = json!("You are someone else.");
    let b = send(&s, "POST", "/v1/messages", other).await;
    let v: Value = serde_json::from_str(&b.body).unwrap();
    assert_ne!(v["content"][0]["text"], "saw it");
}
