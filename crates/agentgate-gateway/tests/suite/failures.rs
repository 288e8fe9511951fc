//! Upstreams and CLIs that misbehave: each gives a clear error in the
//! API's shape (or a broken stream where the stream broke), an event that
//! says what happened, and a gateway that goes on serving.

use std::time::Duration;

use agentgate_gateway::{GatewayConfig, KeyMode};
use http::StatusCode;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use super::support::*;

const FIRST: &str = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n";

/// An upstream that sends the head of an SSE answer and `FIRST`, then
/// drops the connection without ending the stream.
async fn resetting_upstream() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_request(&mut stream).await.unwrap();
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        let first = format!("{:x}\r\n{FIRST}\r\n", FIRST.len());
        stream
            .write_all(format!("{head}{first}").as_bytes())
            .await
            .unwrap();
        drop(stream);
    });
    format!("http://{addr}")
}

#[tokio::test]
async fn an_upstream_reset_mid_stream_breaks_the_clis_stream_and_the_event_says_so() {
    let mut gw = Gw::start(GatewayConfig::new(
        resetting_upstream().await,
        KeyMode::Passthrough,
    ))
    .await;
    let response = tokio::time::timeout(
        WAIT,
        client().request(request(
            &gw.url("/v1/messages"),
            &[],
            Some(ANTHROPIC_STREAM),
        )),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(response.status(), StatusCode::OK);
    let whole = tokio::time::timeout(WAIT, response.into_body().collect())
        .await
        .unwrap();
    assert!(
        whole.is_err(),
        "the CLI must see a broken stream, not a clean end"
    );
    let event = gw.call().await;
    assert_eq!(event.status, Some(200));
    assert_eq!(event.response_bytes, FIRST.len() as u64);
    let error = event.error.unwrap();
    assert!(
        error.contains(&format!(
            "upstream reset the stream after {} bytes",
            FIRST.len()
        )),
        "{error}"
    );
}

#[tokio::test]
async fn an_upstream_that_never_answers_gets_a_504_after_the_response_timeout() {
    let addr = silent_upstream().await;
    let mut cfg = GatewayConfig::new(format!("http://{addr}"), KeyMode::Passthrough);
    cfg.response_timeout = Duration::from_millis(300);
    let mut gw = Gw::start(cfg).await;
    let (status, headers, body) = send(request(
        &gw.url("/v1/messages"),
        &[],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
    assert!(headers["content-type"].to_str().unwrap().contains("json"));
    let text = String::from_utf8_lossy(&body);
    assert!(text.contains("sent no response within 0.3 s"), "{text}");
    let event = gw.call().await;
    assert_eq!(event.status, None);
    assert!(event.error.unwrap().contains("sent no response"));
}

#[tokio::test]
async fn an_unreachable_upstream_gets_a_502_and_the_gateway_goes_on() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let mut gw = Gw::start(GatewayConfig::new(
        format!("http://{addr}"),
        KeyMode::Passthrough,
    ))
    .await;
    for n in 1..=2 {
        let (status, _, body) = send(request(
            &gw.url("/v1/messages"),
            &[],
            Some(ANTHROPIC_STREAM),
        ))
        .await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
        assert!(String::from_utf8_lossy(&body).contains("could not be reached"));
        let event = gw.call().await;
        assert_eq!(event.call, n);
        assert!(event.error.is_some());
    }
}

#[tokio::test]
async fn a_response_over_the_bound_is_cut_and_the_event_says_so() {
    const BIG: u64 = 100 << 20;
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_request(&mut stream).await.unwrap();
        let head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {BIG}\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).await.unwrap();
        let block = vec![b' '; 64 << 10];
        let mut sent = 0u64;
        // Stops as soon as the gateway drops the connection.
        while sent < BIG && stream.write_all(&block).await.is_ok() {
            sent += block.len() as u64;
        }
    });
    let mut cfg = GatewayConfig::new(format!("http://{addr}"), KeyMode::Passthrough);
    cfg.max_response_bytes = 1 << 20;
    let mut gw = Gw::start(cfg).await;
    let response = tokio::time::timeout(
        WAIT,
        client().request(request(
            &gw.url("/v1/messages"),
            &[],
            Some(ANTHROPIC_STREAM),
        )),
    )
    .await
    .unwrap()
    .unwrap();
    let whole = tokio::time::timeout(WAIT, response.into_body().collect())
        .await
        .unwrap();
    assert!(whole.is_err(), "a cut body must not look whole");
    let event = gw.call().await;
    assert!(event.response_bytes <= 1 << 20, "{}", event.response_bytes);
    let error = event.error.unwrap();
    assert!(
        error.contains("max_response_bytes (1048576 bytes)"),
        "{error}"
    );
}

#[tokio::test]
async fn a_request_over_the_bound_gets_413_and_is_not_forwarded() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let mut cfg = GatewayConfig::new(upstream.url(), KeyMode::Passthrough);
    cfg.max_request_bytes = 1024;
    let mut gw = Gw::start(cfg).await;
    let big = format!(
        "{{\"model\":\"m\",\"messages\":\"{}\"}}",
        "x".repeat(64 << 10)
    );
    let (status, _, body) = send(request(&gw.url("/v1/messages"), &[], Some(&big))).await;
    assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
    assert!(String::from_utf8_lossy(&body).contains("max_request_bytes 1024"));
    assert!(gw.call().await.error.unwrap().contains("max_request_bytes"));

    // Chunked, with no length said beforehand: cut at the bound all the same.
    let addr = gw
        .gateway
        .base_url()
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let path = gw
        .url("/v1/messages")
        .split_once(&addr)
        .unwrap()
        .1
        .to_owned();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    let mut raw =
        format!("POST {path} HTTP/1.1\r\nhost: {addr}\r\ntransfer-encoding: chunked\r\n\r\n");
    for _ in 0..4 {
        raw.push_str(&format!("400\r\n{}\r\n", "y".repeat(1024)));
    }
    raw.push_str("0\r\n\r\n");
    stream.write_all(raw.as_bytes()).await.unwrap();
    let mut answer = vec![0u8; 12];
    tokio::time::timeout(WAIT, stream.read_exact(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(&answer, b"HTTP/1.1 413");
    assert!(upstream.seen().is_empty());
}

#[tokio::test]
async fn garbage_from_the_cli_gets_400_and_the_gateway_goes_on() {
    let upstream = RawUpstream::start(OK_JSON).await;
    let gw = Gw::start(GatewayConfig::new(upstream.url(), KeyMode::Passthrough)).await;
    let addr = gw
        .gateway
        .base_url()
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let mut stream = TcpStream::connect(&addr).await.unwrap();
    stream
        .write_all(b"\x16\x03\x01\x02\x00 not http at all\r\n\r\n")
        .await
        .unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(WAIT, stream.read_to_end(&mut answer))
        .await
        .unwrap()
        .unwrap();
    assert!(
        answer.starts_with(b"HTTP/1.1 400"),
        "{}",
        String::from_utf8_lossy(&answer)
    );
    let (status, _, _) = send(request(&gw.url("/v1/models"), &[], None)).await;
    assert_eq!(status, StatusCode::OK);
    assert!(upstream.seen().len() == 1);
}

#[tokio::test]
async fn a_cli_that_goes_away_before_the_answer_still_leaves_an_event() {
    let addr = silent_upstream().await;
    let mut gw = Gw::start(GatewayConfig::new(
        format!("http://{addr}"),
        KeyMode::Passthrough,
    ))
    .await;
    let gateway = gw
        .gateway
        .base_url()
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_owned();
    let path = gw
        .url("/v1/messages")
        .split_once(&gateway)
        .unwrap()
        .1
        .to_owned();
    let mut stream = TcpStream::connect(&gateway).await.unwrap();
    let raw = format!(
        "POST {path} HTTP/1.1\r\nhost: {gateway}\r\ncontent-length: {}\r\n\r\n{ANTHROPIC_STREAM}",
        ANTHROPIC_STREAM.len()
    );
    stream.write_all(raw.as_bytes()).await.unwrap();
    // Gone before any answer (the upstream never gives one).
    drop(stream);
    let event = gw.call().await;
    assert_eq!(event.status, None);
    assert!(
        event
            .error
            .unwrap()
            .contains("the CLI closed the connection")
    );
}
