//! The run's limits: the call past one is refused with 400 in the API's
//! shape (nothing forwarded), the event names the limit, and the run is
//! told once per limit.

use std::time::Duration;

use agentgate_fakellm::{FakeLlm, ServerConfig};
use agentgate_gateway::{CallLimits, GatewayConfig, GatewayNotice, KeyMode};
use http::StatusCode;

use super::support::*;

async fn call(gw: &Gw) -> (StatusCode, String) {
    let (status, _, body) = send(request(
        &gw.url("/v1/messages"),
        &[("content-type", "application/json"), ("x-api-key", "k")],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    (status, String::from_utf8_lossy(&body).into_owned())
}

#[tokio::test]
async fn the_call_past_max_calls_is_refused_and_the_limit_reported_once() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let mut cfg = GatewayConfig::new(fake.url(), KeyMode::Passthrough);
    cfg.limits = CallLimits {
        max_calls: Some(1),
        ..CallLimits::default()
    };
    let mut gw = Gw::start(cfg).await;
    assert_eq!(call(&gw).await.0, StatusCode::OK);
    assert_eq!(gw.call().await.refused_by, None);

    let (status, body) = call(&gw).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(
        body.contains("agentgate: this run's limit max_model_calls (1) is reached"),
        "{body}"
    );
    match gw.notice().await {
        GatewayNotice::LimitCrossed { limit, detail } => {
            assert_eq!(limit, "max_model_calls");
            assert!(detail.contains("1 model calls made"), "{detail}");
        }
        other => panic!("expected the limit crossed, got {other:?}"),
    }
    let refused = gw.call().await;
    assert_eq!(
        (refused.call, refused.refused_by.as_deref()),
        (2, Some("max_model_calls"))
    );

    // Refused again, but the run was told already: the next notice is the call.
    assert_eq!(call(&gw).await.0, StatusCode::BAD_REQUEST);
    assert_eq!(gw.call().await.call, 3);
    assert_eq!(fake.requests().len(), 1);
    let summary = gw.gateway.shutdown().await;
    assert_eq!((summary.model_calls, summary.refused_calls), (1, 2));
}

#[tokio::test]
async fn model_time_summed_over_calls_is_a_limit() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let mut cfg = GatewayConfig::new(fake.url(), KeyMode::Passthrough);
    cfg.limits = CallLimits {
        max_model_time: Some(Duration::from_nanos(1)),
        ..CallLimits::default()
    };
    let mut gw = Gw::start(cfg).await;
    assert_eq!(call(&gw).await.0, StatusCode::OK);
    gw.call().await;
    let (status, body) = call(&gw).await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert!(body.contains("max_model_time"), "{body}");
    assert!(matches!(
        gw.notice().await,
        GatewayNotice::LimitCrossed {
            limit: "max_model_time",
            ..
        }
    ));
    assert_eq!(
        gw.call().await.refused_by.as_deref(),
        Some("max_model_time")
    );
}
