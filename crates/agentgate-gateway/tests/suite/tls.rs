//! An HTTPS upstream with a test CA: trusted through `ca_file`, refused
//! with a clear 502 without it; a CA file that is not one stops the start.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agentgate_gateway::{Gateway, GatewayConfig, GatewayError, KeyMode};
use http::StatusCode;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls_pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;

use super::support::*;

/// An HTTPS upstream answering every request with [`OK_JSON`].
pub struct TlsUpstream {
    pub addr: SocketAddr,
    /// The test CA, PEM.
    pub ca_pem: String,
    /// Requests served.
    pub served: Arc<AtomicUsize>,
}

impl TlsUpstream {
    /// A server whose certificate names `names` (and 127.0.0.1).
    pub async fn start(names: &[&str]) -> TlsUpstream {
        let ca_key = KeyPair::generate().unwrap();
        let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let ca_cert = ca_params.self_signed(&ca_key).unwrap();
        let issuer = Issuer::new(ca_params, ca_key);
        let mut sans: Vec<String> = names.iter().map(|n| (*n).to_owned()).collect();
        sans.push("127.0.0.1".to_owned());
        let leaf_key = KeyPair::generate().unwrap();
        let leaf = CertificateParams::new(sans)
            .unwrap()
            .signed_by(&leaf_key, &issuer)
            .unwrap();

        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(
                vec![leaf.der().clone()],
                PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der())),
            )
            .unwrap();
        let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let served = Arc::new(AtomicUsize::new(0));
        let count = served.clone();
        tokio::spawn(async move {
            while let Ok((tcp, _)) = listener.accept().await {
                let acceptor = acceptor.clone();
                let count = count.clone();
                tokio::spawn(async move {
                    let Ok(mut tls) = acceptor.accept(tcp).await else {
                        return;
                    };
                    while read_request(&mut tls).await.is_some() {
                        count.fetch_add(1, Ordering::SeqCst);
                        if tls.write_all(OK_JSON.as_bytes()).await.is_err() {
                            break;
                        }
                    }
                });
            }
        });
        TlsUpstream {
            addr,
            ca_pem: ca_cert.pem(),
            served,
        }
    }
}

#[tokio::test]
async fn an_https_upstream_signed_by_the_ca_file_is_reached() {
    let upstream = TlsUpstream::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let ca_file = dir.path().join("ca.pem");
    std::fs::write(&ca_file, &upstream.ca_pem).unwrap();
    let mut cfg = GatewayConfig::new(
        format!("https://{}/v1", upstream.addr),
        KeyMode::Passthrough,
    );
    cfg.ca_file = Some(ca_file);
    let gw = Gw::start(cfg).await;
    for _ in 0..2 {
        let (status, _, body) = send(request(&gw.url("/models"), &[], None)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(&body[..], b"{\"ok\":true}");
    }
    assert_eq!(upstream.served.load(Ordering::SeqCst), 2);
    assert_eq!(
        gw.gateway.shutdown().await.upstream,
        format!("https://{}", upstream.addr)
    );
}

#[tokio::test]
async fn without_the_ca_file_the_call_fails_with_a_clear_502() {
    let upstream = TlsUpstream::start(&[]).await;
    let mut gw = Gw::start(GatewayConfig::new(
        format!("https://{}", upstream.addr),
        KeyMode::Passthrough,
    ))
    .await;
    let (status, _, body) = send(request(
        &gw.url("/v1/messages"),
        &[],
        Some(ANTHROPIC_STREAM),
    ))
    .await;
    assert_eq!(status, StatusCode::BAD_GATEWAY);
    let text = String::from_utf8_lossy(&body).to_lowercase();
    assert!(text.contains("could not be reached"), "{text}");
    assert!(text.contains("certificate"), "{text}");
    assert_eq!(upstream.served.load(Ordering::SeqCst), 0);
    let event = gw.call().await;
    assert_eq!(event.status, None);
    assert!(event.error.unwrap().to_lowercase().contains("certificate"));
}

#[tokio::test]
async fn a_ca_file_that_is_missing_or_holds_no_certificate_stops_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "not a certificate\n").unwrap();
    for path in [dir.path().join("missing.pem"), empty] {
        let mut cfg = GatewayConfig::new("https://127.0.0.1:9", KeyMode::Passthrough);
        cfg.ca_file = Some(path.clone());
        let error = Gateway::start(cfg).await.err().unwrap();
        assert!(
            matches!(error, GatewayError::CaFile { .. }),
            "{path:?}: {error}"
        );
    }
}
