//! `--require-key`: a model request without the key gets 401 in its API's
//! own shape; with it, the scripted answer.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

use std::sync::Arc;

use agentgate_fakellm::Script;
use agentgate_fakellm::server::{Answers, ServerOptions, Shared, router};
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use tower::ServiceExt;

const KEY: &str = "sk-real-key-0123456789";

fn state() -> Arc<Shared> {
    Shared::new(ServerOptions {
        answers: Answers::Script(Script::parse("turns:\n  - text: hello\n").unwrap()),
        log_path: None,
        tls: None,
        require_key: Some(KEY.to_owned()),
    })
    .unwrap()
}

async fn post(
    shared: &Arc<Shared>,
    path: &str,
    auth: Option<(&str, String)>,
    body: Value,
) -> (StatusCode, Value) {
    let mut req = Request::builder()
        .method("POST")
        .uri(path)
        .header("content-type", "application/json");
    if let Some((name, value)) = auth {
        req = req.header(name, value);
    }
    let resp = router(shared.clone())
        .oneshot(req.body(Body::from(body.to_string())).unwrap())
        .await
        .unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn anthropic() -> Value {
    json!({"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": "hi"}]})
}

#[tokio::test]
async fn each_api_reads_the_key_where_its_clients_send_it() {
    let s = state();
    let (status, body) = post(
        &s,
        "/v1/messages",
        Some(("x-api-key", KEY.into())),
        anthropic(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let (status, body) = post(
        &s,
        "/v1/chat/completions",
        Some(("authorization", format!("Bearer {KEY}"))),
        chat,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let gemini = json!({"contents": [{"role": "user", "parts": [{"text": "hi"}]}]});
    let (status, body) = post(
        &s,
        "/v1beta/models/gemini-2.5-flash:generateContent",
        Some(("x-goog-api-key", KEY.into())),
        gemini.clone(),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let (status, body) = post(
        &s,
        &format!("/v1beta/models/gemini-2.5-flash:generateContent?key={KEY}"),
        None,
        gemini,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
}

#[tokio::test]
async fn a_wrong_or_missing_key_is_refused_in_the_apis_shape() {
    let s = state();
    let (status, body) = post(
        &s,
        "/v1/messages",
        Some(("x-api-key", "agentgate-stub-1".into())),
        anthropic(),
    )
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(body["type"], "error", "{body}");
    assert_eq!(body["error"]["type"], "authentication_error", "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("invalid API key"),
        "{body}"
    );
    let chat = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}]});
    let (status, body) = post(&s, "/v1/chat/completions", None, chat).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no API key"),
        "{body}"
    );
    let logged = s.requests();
    assert_eq!(logged.len(), 2);
    assert!(
        logged
            .iter()
            .all(|e| e.outcome == "unauthorized" && e.status == Some(401))
    );
}
