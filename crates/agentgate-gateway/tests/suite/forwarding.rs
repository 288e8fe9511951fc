//! Requests under the run's secret go to the upstream's path; others get
//! 404 and go nowhere; a model call through a real model API comes back
//! whole and becomes an event.

use agentgate_fakellm::{FakeLlm, ServerConfig};
use agentgate_gateway::{GatewayConfig, KeyMode};
use agentgate_protocol::WireApi;
use http::StatusCode;

use super::support::*;

#[tokio::test]
async fn the_path_after_the_secret_is_appended_to_the_upstreams() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let cfg = GatewayConfig::new(format!("{}/v1", upstream.url()), KeyMode::Passthrough);
    let gw = Gw::start(cfg).await;
    let (status, _, body) = send(request(
        &gw.url("/models?x=1"),
        &[
            ("accept-encoding", "gzip"),
            ("connection", "keep-alive, x-hop"),
        ],
        None,
    ))
    .await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(&body[..], b"{\"ok\":true}");
    let seen = upstream.seen();
    assert_eq!(seen.len(), 1);
    let head = seen[0].head.to_ascii_lowercase();
    assert!(
        head.starts_with("get /v1/models?x=1 http/1.1\r\n"),
        "{head}"
    );
    assert!(
        head.contains(&format!("host: {}\r\n", upstream.addr)),
        "{head}"
    );
    assert!(head.contains("accept-encoding: identity\r\n"), "{head}");
    assert!(!head.contains("gzip"), "{head}");
    let (status, _, _) = send(request(&gw.url("/files"), &[], Some("file body"))).await;
    assert_eq!(status, StatusCode::OK);
    let seen = upstream.seen();
    assert!(
        seen[1].head.starts_with("POST /v1/files HTTP/1.1\r\n"),
        "{}",
        seen[1].head
    );
    assert_eq!(seen[1].body, b"file body");
    // Not a model call: no event, nothing counted.
    let summary = gw.gateway.shutdown().await;
    assert_eq!(summary.model_calls, 0);
    assert_eq!(summary.upstream, format!("http://{}", upstream.addr));
}

#[tokio::test]
async fn a_path_without_the_secret_is_404_and_goes_nowhere() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let gw = Gw::start(GatewayConfig::new(upstream.url(), KeyMode::Passthrough)).await;
    let base = gw.gateway.base_url().to_owned();
    let (origin, secret) = base.rsplit_once('/').unwrap();
    assert!(
        secret.len() >= 32 && secret.chars().all(|c| c.is_ascii_hexdigit()),
        "{secret}"
    );
    for url in [
        format!("{origin}/v1/messages"),
        format!("{origin}/{secret}x/v1/messages"),
        format!("{origin}/wrong/v1/messages"),
    ] {
        let (status, _, _) = send(request(&url, &[], Some(ANTHROPIC_STREAM))).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{url}");
    }
    assert!(upstream.seen().is_empty());
}

#[tokio::test]
async fn a_streamed_model_call_through_the_model_api_comes_back_whole_and_becomes_an_event() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let mut gw = Gw::start(GatewayConfig::new(fake.url(), KeyMode::Passthrough)).await;
    let (status, headers, body) = send(request(
        &gw.url("/v1/messages"),
        &[
            ("content-type", "application/json"),
            ("x-api-key", "cli-own-key"),
        ],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    assert_eq!(status, StatusCode::OK);
    assert!(
        headers["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream"),
        "{headers:?}"
    );
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("message_stop"), "{text}");
    let event = gw.call().await;
    assert_eq!(event.call, 1);
    assert_eq!(event.api, WireApi::AnthropicMessages);
    assert_eq!(event.path, "/v1/messages");
    assert_eq!(event.status, Some(200));
    assert!(event.stream);
    assert_eq!(event.response_bytes, body.len() as u64);
    assert_eq!(event.request_bytes, ANTHROPIC_STREAM.len() as u64);
    assert!(event.ttft_ms.is_some());
    assert_eq!(event.error, None);
    assert_eq!(fake.requests().len(), 1);
    let summary = gw.gateway.shutdown().await;
    assert_eq!((summary.model_calls, summary.refused_calls), (1, 0));
}

#[tokio::test]
async fn an_error_status_passes_through_and_its_event_comes_when_its_body_ends() {
    const TOO_MANY: &str = "HTTP/1.1 429 Too Many Requests\r\ncontent-type: application/json\r\nretry-after: 7\r\ncontent-length: 74\r\n\r\n{\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}";
    let upstream = RawUpstream::start(TOO_MANY).await;
    let mut gw = Gw::start(GatewayConfig::new(upstream.url(), KeyMode::Passthrough)).await;
    let (status, headers, body) = send(request(
        &gw.url("/v1/messages"),
        &[],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
    assert_eq!(headers["retry-after"], "7");
    assert!(String::from_utf8_lossy(&body).contains("slow down"));
    let event = gw.call().await;
    assert_eq!(event.status, Some(429));
    assert_eq!(event.response_bytes, body.len() as u64);
}
