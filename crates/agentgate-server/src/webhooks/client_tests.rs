//! The delivery client against a local HTTPS receiver (a test CA from
//! rcgen, rustls): the request's path, headers and body arrive over TLS
//! and its status comes back; a refused address is never connected to.

use std::sync::Arc;
use std::time::Duration;

use agentgate_core::WebhookUrl;
use bytes::Bytes;
use rcgen::{CertificateParams, KeyPair};
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::client::{Signed, Tried, deliver};

/// A receiver that answers 204 to each request and sends back what it
/// read (the whole request text) on a channel.
async fn https_receiver() -> (
    u16,
    Arc<rustls::ClientConfig>,
    tokio::sync::mpsc::Receiver<String>,
) {
    let key = KeyPair::generate().unwrap();
    let cert = CertificateParams::new(vec!["127.0.0.1".to_owned()])
        .unwrap()
        .self_signed(&key)
        .unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let server = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der())),
        )
        .unwrap();
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.der().clone()).unwrap();
    let client = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(server));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let Ok(mut tls) = acceptor.accept(tcp).await else {
                let _ = tx.send("not TLS".to_owned()).await;
                continue;
            };
            let mut seen = Vec::new();
            let mut buf = [0u8; 4096];
            // The head, then the body by its length.
            loop {
                let n = tls.read(&mut buf).await.unwrap();
                seen.extend_from_slice(&buf[..n]);
                let text = String::from_utf8_lossy(&seen).to_string();
                if let Some(end) = text.find("\r\n\r\n") {
                    let length: usize = text
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    if seen.len() >= end + 4 + length || n == 0 {
                        break;
                    }
                }
                if n == 0 {
                    break;
                }
            }
            tls.write_all(b"HTTP/1.1 204 No Content\r\n\r\n")
                .await
                .unwrap();
            let _ = tls.shutdown().await;
            let _ = tx.send(String::from_utf8_lossy(&seen).to_string()).await;
        }
    });
    (port, Arc::new(client), rx)
}

#[tokio::test]
async fn a_delivery_reaches_an_https_receiver_and_a_refused_one_never_connects() {
    let (port, tls, mut seen) = https_receiver().await;
    let url = WebhookUrl::parse(&format!("https://127.0.0.1:{port}/hooks/a?x=1")).unwrap();
    let signed = Signed {
        id: "msg_1".to_owned(),
        timestamp: 1_614_265_330,
        signature: "v1,abc=".to_owned(),
    };
    let body = Bytes::from_static(br#"{"type":"run.ended"}"#);
    let timeout = Duration::from_secs(10);
    // Refused first: if it had connected, the receiver's first connection
    // would not be the delivery below.
    let refused = deliver(&url, false, &signed, body.clone(), timeout, &tls).await;
    assert!(
        matches!(&refused, Tried::Refused(why) if why.contains("loopback")),
        "{refused:?}"
    );
    let tried = deliver(&url, true, &signed, body, timeout, &tls).await;
    assert_eq!(tried, Tried::Answered(204));
    let request = seen.recv().await.unwrap();
    assert!(
        request.starts_with("POST /hooks/a?x=1 HTTP/1.1\r\n"),
        "{request}"
    );
    for header in [
        format!("host: 127.0.0.1:{port}"),
        "webhook-id: msg_1".to_owned(),
        "webhook-timestamp: 1614265330".to_owned(),
        "webhook-signature: v1,abc=".to_owned(),
        "content-type: application/json".to_owned(),
    ] {
        assert!(
            request.contains(&format!("{header}\r\n")),
            "{header} in {request}"
        );
    }
    assert!(request.ends_with(r#"{"type":"run.ended"}"#), "{request}");
}

#[tokio::test]
async fn a_receiver_without_a_trusted_certificate_is_a_failed_try() {
    let (port, _, _seen) = https_receiver().await;
    let url = WebhookUrl::parse(&format!("https://127.0.0.1:{port}/")).unwrap();
    let signed = Signed {
        id: "msg_1".to_owned(),
        timestamp: 1,
        signature: "v1,x".to_owned(),
    };
    let system_roots = super::client::tls_config().unwrap();
    let tried = deliver(
        &url,
        true,
        &signed,
        Bytes::new(),
        Duration::from_secs(10),
        &system_roots,
    )
    .await;
    assert!(
        matches!(&tried, Tried::Failed(why) if why.contains("TLS")),
        "{tried:?}"
    );
}
