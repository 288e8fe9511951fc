//! The stub key is swapped for the real one where the CLI put it; a
//! wrong key is refused and the upstream sees nothing; the real key is in
//! no answer and no event.

use agentgate_gateway::{GatewayConfig, KeyMode};
use http::StatusCode;

use super::support::*;

#[tokio::test]
async fn the_upstream_gets_the_real_key_where_the_cli_put_the_stub() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let gw = Gw::start(api_key_config(&upstream.url())).await;
    let stub = gw.gateway.stub_key().unwrap().to_owned();
    assert_eq!(stub, "stub-key-for-this-run");
    let bearer = format!("Bearer {stub}");
    let asks = [
        (gw.url("/v1/models"), vec![("x-api-key", stub.as_str())]),
        (
            gw.url("/v1/models"),
            vec![("authorization", bearer.as_str())],
        ),
        (
            gw.url("/v1beta/models"),
            vec![("x-goog-api-key", stub.as_str())],
        ),
        (
            gw.url(&format!("/v1beta/models?key={stub}&pageSize=5")),
            vec![],
        ),
    ];
    for (url, headers) in &asks {
        let (status, _, _) = send(request(url, headers, None)).await;
        assert_eq!(status, StatusCode::OK, "{url}");
    }
    let seen: Vec<String> = upstream
        .seen()
        .into_iter()
        .map(|s| s.head.to_ascii_lowercase())
        .collect();
    assert_eq!(seen.len(), 4);
    assert!(
        seen[0].contains("x-api-key: sk-real-0123\r\n"),
        "{}",
        seen[0]
    );
    assert!(
        seen[1].contains("authorization: bearer sk-real-0123\r\n"),
        "{}",
        seen[1]
    );
    assert!(
        seen[2].contains("x-goog-api-key: sk-real-0123\r\n"),
        "{}",
        seen[2]
    );
    assert!(
        seen[3].starts_with("get /v1beta/models?key=sk-real-0123&pagesize=5 "),
        "{}",
        seen[3]
    );
    for head in &seen {
        assert!(!head.contains("stub-key"), "{head}");
    }
}

#[tokio::test]
async fn a_wrong_or_missing_key_is_refused_with_401_and_nothing_is_forwarded() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let mut gw = Gw::start(api_key_config(&upstream.url())).await;
    let (status, _, body) = send(request(
        &gw.url("/v1/messages"),
        &[
            ("x-api-key", "sk-someone-elses"),
            ("content-type", "application/json"),
        ],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("wrong key for this run's gateway"), "{text}");
    assert!(!text.contains("sk-real-0123"), "{text}");
    let event = gw.call().await;
    assert_eq!(event.call, 1);
    assert!(
        event.error.as_deref().unwrap().contains("wrong key"),
        "{event:?}"
    );
    assert_eq!(event.status, None);
    assert!(!format!("{event:?}").contains("sk-real-0123"));

    let (status, _, _) = send(request(&gw.url("/v1/models"), &[], None)).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert!(upstream.seen().is_empty());
    let summary = gw.gateway.shutdown().await;
    assert_eq!((summary.model_calls, summary.refused_calls), (0, 1));
}

#[tokio::test]
async fn passthrough_leaves_the_clis_credentials_alone() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let gw = Gw::start(GatewayConfig::new(upstream.url(), KeyMode::Passthrough)).await;
    assert_eq!(gw.gateway.stub_key(), None);
    let (status, _, _) = send(request(
        &gw.url("/v1/models"),
        &[("authorization", "Bearer oauth-token-1")],
        None,
    ))
    .await;
    assert_eq!(status, StatusCode::OK);
    let head = upstream.seen()[0].head.to_ascii_lowercase();
    assert!(
        head.contains("authorization: bearer oauth-token-1\r\n"),
        "{head}"
    );
}
