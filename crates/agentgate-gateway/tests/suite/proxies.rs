//! Proxies from the run's settings: an `https://` upstream through a
//! CONNECT tunnel, an `http://` one in absolute form, `NO_PROXY` going
//! direct.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use agentgate_gateway::{GatewayConfig, KeyMode};
use http::StatusCode;
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream};

use super::support::*;
use super::tls::TlsUpstream;

/// A CONNECT proxy that records each tunnel's target and opens every one
/// to `to`.
async fn connect_proxy(to: SocketAddr) -> (SocketAddr, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let targets = Arc::new(Mutex::new(Vec::new()));
    let log = targets.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            let log = log.clone();
            tokio::spawn(async move {
                let Some(asked) = read_request(&mut client).await else {
                    return;
                };
                log.lock()
                    .unwrap()
                    .push(asked.head.lines().next().unwrap_or_default().to_owned());
                let mut server = TcpStream::connect(to).await.unwrap();
                client
                    .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                    .await
                    .unwrap();
                let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
            });
        }
    });
    (addr, targets)
}

fn env(pairs: &[(&str, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), v.clone()))
        .collect()
}

#[tokio::test]
async fn an_https_upstream_is_reached_through_the_connect_proxy() {
    let upstream = TlsUpstream::start(&["upstream.test"]).await;
    let (proxy, targets) = connect_proxy(upstream.addr).await;
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &upstream.ca_pem).unwrap();
    let port = upstream.addr.port();
    // A name only the proxy can reach: the gateway must not resolve it.
    let mut cfg = GatewayConfig::new(
        format!("https://upstream.test:{port}/v1"),
        KeyMode::Passthrough,
    );
    cfg.ca_file = Some(ca_file);
    cfg.proxy_env = env(&[("HTTPS_PROXY", format!("http://{proxy}"))]);
    let gw = Gw::start(cfg).await;
    let (status, _, body) = send(request(&gw.url("/models"), &[], None)).await;
    assert_eq!(status, StatusCode::OK, "{}", String::from_utf8_lossy(&body));
    assert_eq!(&body[..], b"{\"ok\":true}");
    assert_eq!(
        targets.lock().unwrap().clone(),
        vec![format!("CONNECT upstream.test:{port} HTTP/1.1")]
    );
}

#[tokio::test]
async fn an_http_upstream_goes_to_the_http_proxy_in_absolute_form() {
    let proxy = RawUpstream::start(OK_JSON).await;
    let mut cfg = GatewayConfig::new("http://upstream.test:8080/v1", KeyMode::Passthrough);
    let with_user = proxy.url().replace("http://", "http://user:pa55@");
    cfg.proxy_env = env(&[("http_proxy", with_user)]);
    let gw = Gw::start(cfg).await;
    let (status, _, _) = send(request(&gw.url("/models?a=b"), &[], None)).await;
    assert_eq!(status, StatusCode::OK);
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert!(
        seen[0]
            .head
            .starts_with("GET http://upstream.test:8080/v1/models?a=b HTTP/1.1\r\n"),
        "{}",
        seen[0].head
    );
    let head = seen[0].head.to_ascii_lowercase();
    assert!(
        head.contains("proxy-authorization: basic dxnlcjpwytu1\r\n"),
        "{head}"
    );
}

#[tokio::test]
async fn no_proxy_hosts_go_direct() {
    let proxy = RawUpstream::start(OK_JSON).await;
    let upstream = RawUpstream::start(OK_JSON).await;
    // 0.0.0.0 is not loopback by name (so only NO_PROXY keeps it from the
    // proxy), yet Linux connects it to this machine, where the upstream is.
    let direct = format!("http://0.0.0.0:{}", upstream.addr.port());
    let mut cfg = GatewayConfig::new(direct.as_str(), KeyMode::Passthrough);
    cfg.proxy_env = env(&[
        ("HTTP_PROXY", proxy.url()),
        ("NO_PROXY", "example.com,0.0.0.0".to_owned()),
    ]);
    let gw = Gw::start(cfg).await;
    let (status, _, _) = send(request(&gw.url("/v1/models"), &[], None)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(upstream.seen().len(), 1);
    assert!(proxy.seen().is_empty());

    // The same upstream without NO_PROXY goes through the proxy.
    let mut cfg = GatewayConfig::new(direct.as_str(), KeyMode::Passthrough);
    cfg.proxy_env = env(&[("HTTP_PROXY", proxy.url())]);
    let gw = Gw::start(cfg).await;
    let (status, _, _) = send(request(&gw.url("/v1/models"), &[], None)).await;
    assert_eq!(status, StatusCode::OK);
    assert_eq!(proxy.seen().len(), 1);
    assert_eq!(upstream.seen().len(), 1);
}
