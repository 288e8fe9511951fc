//! The gateway's Unix socket (`GatewayConfig::unix_socket`, a sandboxed
//! CLI's way in): mode 600, the same handling as the loopback port (the
//! secret prefix, the stub key, the recording, the notices), removed at
//! shutdown.

use std::os::unix::fs::{FileTypeExt, PermissionsExt};
use std::path::Path;

use agentgate_fakellm::{FakeLlm, ServerConfig};
use bytes::Bytes;
use http::{Request, StatusCode};
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use tokio::net::UnixStream;

use super::support::*;

/// Send `request` over a new connection to the Unix socket at `path`; the
/// status and the whole body.
async fn send_unix(path: &Path, request: Request<Full<Bytes>>) -> (StatusCode, Bytes) {
    let stream = UnixStream::connect(path).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .unwrap();
    tokio::spawn(connection);
    let response = tokio::time::timeout(WAIT, sender.send_request(request))
        .await
        .expect("an answer in time")
        .unwrap();
    let (parts, body) = response.into_parts();
    let body = tokio::time::timeout(WAIT, body.collect())
        .await
        .expect("the body in time")
        .unwrap()
        .to_bytes();
    (parts.status, body)
}

/// The path and query of `url` (a Unix socket's request names no host).
fn path_of(url: &str) -> String {
    let uri: http::Uri = url.parse().unwrap();
    uri.path_and_query().unwrap().to_string()
}

fn model_call(uri: &str, stub: &str) -> Request<Full<Bytes>> {
    Request::builder()
        .method("POST")
        .uri(uri)
        .header("host", "127.0.0.1")
        .header("content-type", "application/json")
        .header("x-api-key", stub)
        .header("anthropic-version", "2023-06-01")
        .body(Full::new(Bytes::from_static(ANTHROPIC_STREAM.as_bytes())))
        .unwrap()
}

#[tokio::test]
async fn a_call_through_the_unix_socket_is_handled_and_recorded_like_one_through_tcp() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let socket = dir.path().join("gateway.sock");
    let record = dir.path().join("record");
    std::fs::create_dir(&record).unwrap();
    let mut cfg = api_key_config(&fake.url());
    cfg.unix_socket = Some(socket.clone());
    cfg.record_dir = Some(record.clone());
    let mut gw = Gw::start(cfg).await;
    let stub = gw.gateway.stub_key().unwrap().to_owned();

    let meta = std::fs::metadata(&socket).unwrap();
    assert!(meta.file_type().is_socket());
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);

    // Through TCP, then through the socket: the same call.
    let url = gw.url("/v1/messages");
    let (tcp_status, _, tcp_body) = send(model_call(&url, &stub)).await;
    assert_eq!(tcp_status, StatusCode::OK);
    let by_tcp = gw.call().await;
    let (unix_status, unix_body) = send_unix(&socket, model_call(&path_of(&url), &stub)).await;
    assert_eq!(unix_status, StatusCode::OK);
    for body in [&tcp_body, &unix_body] {
        let text = String::from_utf8_lossy(body);
        assert!(text.contains("message_stop"), "a whole stream: {text}");
    }
    let by_unix = gw.call().await;
    assert_eq!(by_unix.call, 2);
    assert_eq!(by_unix.api, by_tcp.api);
    assert_eq!(by_unix.model, by_tcp.model);
    assert_eq!(by_unix.path, "/v1/messages");
    assert_eq!(by_unix.status, Some(200));
    assert!(by_unix.usage.is_some());
    assert_eq!(by_unix.usage, by_tcp.usage);

    // The secret prefix and the stub key hold there too.
    let (status, _) = send_unix(&socket, model_call("/v1/messages", &stub)).await;
    assert_eq!(status, StatusCode::NOT_FOUND, "no secret, no call");
    let (status, _) = send_unix(&socket, model_call(&path_of(&url), "sk-other")).await;
    assert_eq!(
        status,
        StatusCode::UNAUTHORIZED,
        "a key that is not the stub"
    );
    let refused = gw.call().await;
    assert_eq!(refused.call, 3);
    assert_eq!(refused.status, None, "refused by the gateway: {refused:?}");

    let summary = gw.gateway.shutdown().await;
    assert_eq!(summary.model_calls, 2);
    assert!(!socket.exists(), "the socket is removed at shutdown");
    let text = std::fs::read_to_string(record.join("model-calls.jsonl")).unwrap();
    let lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let second = lines
        .iter()
        .find(|l| l["call"] == 2)
        .unwrap_or_else(|| panic!("no line for call 2: {text}"));
    assert_eq!(second["path"], "/v1/messages");
    assert_eq!(second["response"]["status"], 200);
    assert_eq!(
        second["request"]["body"].as_str().unwrap(),
        ANTHROPIC_STREAM
    );
    assert!(!text.contains("sk-real-0123"));
}

#[tokio::test]
async fn a_socket_path_that_exists_is_refused_and_left_alone() {
    let fake = FakeLlm::start("127.0.0.1:0".parse().unwrap(), ServerConfig::default())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let taken = dir.path().join("taken");
    std::fs::write(&taken, "mine").unwrap();
    let mut cfg = api_key_config(&fake.url());
    cfg.unix_socket = Some(taken.clone());
    let error = agentgate_gateway::Gateway::start(cfg).await.unwrap_err();
    assert!(
        matches!(error, agentgate_gateway::GatewayError::BindUnix(_)),
        "{error}"
    );
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine");
}
