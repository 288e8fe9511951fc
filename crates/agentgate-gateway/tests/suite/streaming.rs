//! A streamed answer passes through as it comes: the CLI reads the first
//! event while the upstream still holds back the rest.

use agentgate_gateway::{GatewayConfig, KeyMode};
use http::StatusCode;
use http_body_util::BodyExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use super::support::*;

const FIRST: &str = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n";
const REST: &str = "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

fn chunk(text: &str) -> String {
    format!("{:x}\r\n{text}\r\n", text.len())
}

#[tokio::test]
async fn the_first_event_reaches_the_cli_before_the_upstream_sends_the_rest() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (go_on, go_on_rx) = oneshot::channel::<()>();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        read_request(&mut stream).await.unwrap();
        let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n";
        stream.write_all(head.as_bytes()).await.unwrap();
        stream.write_all(chunk(FIRST).as_bytes()).await.unwrap();
        // The rest only once the test has read the first event.
        go_on_rx.await.unwrap();
        stream.write_all(chunk(REST).as_bytes()).await.unwrap();
        stream.write_all(b"0\r\n\r\n").await.unwrap();
        // Hold the connection until the client is done.
        let _ = read_request(&mut stream).await;
    });

    let mut gw = Gw::start(GatewayConfig::new(
        format!("http://{addr}"),
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
    let mut body = response.into_body();
    let mut got = Vec::new();
    while got.len() < FIRST.len() {
        let frame = tokio::time::timeout(WAIT, body.frame())
            .await
            .expect("the first event before the upstream sends the rest")
            .unwrap()
            .unwrap();
        if let Ok(data) = frame.into_data() {
            got.extend_from_slice(&data);
        }
    }
    assert_eq!(String::from_utf8_lossy(&got), FIRST);
    go_on.send(()).unwrap();
    let rest = tokio::time::timeout(WAIT, body.collect())
        .await
        .unwrap()
        .unwrap()
        .to_bytes();
    got.extend_from_slice(&rest);
    assert_eq!(String::from_utf8_lossy(&got), format!("{FIRST}{REST}"));
    let event = gw.call().await;
    assert!(event.stream);
    assert_eq!(event.status, Some(200));
    assert_eq!(event.response_bytes, (FIRST.len() + REST.len()) as u64);
}
