//! The recording: one redacted line per model call with both bodies,
//! mode 0600, and no key anywhere.

use std::os::unix::fs::PermissionsExt;
use std::sync::Arc;

use agentgate_fakellm::{FakeLlm, ServerConfig};
use http::StatusCode;

use super::support::*;

#[tokio::test]
async fn the_recording_holds_the_bodies_redacted_and_no_key() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = api_key_config(&fake.url());
    cfg.record_dir = Some(dir.path().to_owned());
    cfg.redact = Some(Arc::new(|text: &str| text.replace("hunter2", "[REDACTED]")));
    let mut gw = Gw::start(cfg).await;
    let stub = gw.gateway.stub_key().unwrap().to_owned();
    let body = ANTHROPIC_STREAM.replace("hello", "my password is hunter2");
    let (status, _, answer) = send(request(
        &gw.url("/v1/messages?beta=true"),
        &[
            ("content-type", "application/json"),
            ("x-api-key", &stub),
            ("anthropic-version", "2023-06-01"),
        ],
        Some(&body),
    ))
    .await;
    assert_eq!(status, StatusCode::OK);
    gw.call().await;
    // Not a model call: not recorded.
    send(request(
        &gw.url("/v1/models"),
        &[("x-api-key", &stub)],
        None,
    ))
    .await;
    gw.gateway.shutdown().await;

    let path = dir.path().join("model-calls.jsonl");
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o600
    );
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("sk-real-0123"));
    assert!(!text.contains(&stub));
    assert!(!text.contains("hunter2"));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{text}");
    let line = &lines[0];
    assert_eq!(line["v"], 1);
    assert_eq!(line["call"], 1);
    assert_eq!(line["api"], "anthropic_messages");
    assert_eq!(line["method"], "POST");
    assert_eq!(line["path"], "/v1/messages");
    assert_eq!(line["query"], "beta=true");
    assert_eq!(
        line["request"]["headers"]["anthropic-version"],
        "2023-06-01"
    );
    assert!(line["request"]["headers"].get("x-api-key").is_none());
    assert_eq!(
        line["request"]["body"].as_str().unwrap(),
        body.replace("hunter2", "[REDACTED]")
    );
    assert_eq!(line["response"]["status"], 200);
    // fake-llm echoes the prompt: the answer is redacted too.
    let answer = String::from_utf8_lossy(&answer);
    assert!(answer.contains("hunter2"));
    assert_eq!(
        line["response"]["body"].as_str().unwrap(),
        answer.replace("hunter2", "[REDACTED]")
    );
    assert!(
        line["response"]["headers"]["content-type"]
            .as_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
}

/// A call that got no response is recorded with `response: null`, the
/// stub that came in the query (`key=`, Gemini's way) is left out, and
/// fake-llm's reader (`--replay`) takes the file the recorder wrote.
#[tokio::test]
async fn a_call_without_response_is_recorded_without_its_key_and_fake_llm_reads_the_file() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let dir = tempfile::tempdir().unwrap();
    let mut cfg = api_key_config(&format!("http://{addr}"));
    cfg.record_dir = Some(dir.path().to_owned());
    let mut gw = Gw::start(cfg).await;
    let stub = gw.gateway.stub_key().unwrap().to_owned();
    let body = r#"{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}"#;
    let (status, _, _) = send(request(
        &gw.url(&format!(
            "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse&key={stub}"
        )),
        &[("content-type", "application/json")],
        Some(body),
    ))
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    assert!(gw.call().await.error.is_some());
    gw.gateway.shutdown().await;

    let text = std::fs::read_to_string(dir.path().join("model-calls.jsonl")).unwrap();
    assert!(!text.contains(&stub), "{text}");
    assert!(!text.contains("sk-real-0123"), "{text}");
    let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
    assert_eq!(line["api"], "gemini");
    assert_eq!(line["query"], "alt=sse", "{line}");
    assert!(line["response"].is_null(), "{line}");
    let recording = agentgate_fakellm::Recording::parse(&text, "model-calls.jsonl").unwrap();
    assert_eq!(recording.len(), 1);
}
