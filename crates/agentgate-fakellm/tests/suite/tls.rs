//! HTTPS: a server certificate for 127.0.0.1 signed by a CA the test
//! makes; a client that trusts the CA gets the scripted answer, one that
//! does not fails the handshake; bad certificate and key files are refused
//! when loaded, each naming what is wrong.
#![expect(
    clippy::unwrap_used,
    reason = "test helpers fail the test by panicking"
)]

use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use agentgate_fakellm::{FakeLlm, Script, ServerConfig, Tls};
use axum::body::Bytes;
use http_body_util::{BodyExt, Full};
use hyper_util::rt::TokioIo;
use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
use rustls::RootCertStore;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::{Value, json};
use tokio_rustls::TlsConnector;

/// A CA, and a certificate for 127.0.0.1 it signed, written as PEM files.
struct TestPki {
    _dir: tempfile::TempDir,
    ca_der: CertificateDer<'static>,
    cert: PathBuf,
    key: PathBuf,
    other_key: PathBuf,
}

fn make_pki() -> TestPki {
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "fake-llm test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);

    let server_key = KeyPair::generate().unwrap();
    let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
    params.subject_alt_names = vec![SanType::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST))];
    params
        .distinguished_name
        .push(DnType::CommonName, "127.0.0.1");
    let server_cert = params.signed_by(&server_key, &issuer).unwrap();

    let dir = tempfile::tempdir().unwrap();
    let cert = dir.path().join("server.pem");
    let key = dir.path().join("server.key");
    let other_key = dir.path().join("other.key");
    std::fs::write(&cert, server_cert.pem() + &ca_cert.pem()).unwrap();
    std::fs::write(&key, server_key.serialize_pem()).unwrap();
    std::fs::write(&other_key, KeyPair::generate().unwrap().serialize_pem()).unwrap();
    TestPki {
        _dir: dir,
        ca_der: ca_cert.der().clone(),
        cert,
        key,
        other_key,
    }
}

async fn start(pki: &TestPki) -> FakeLlm {
    let tls = Tls::from_pem_files(&pki.cert, &pki.key).unwrap();
    let config = ServerConfig {
        script: Script::parse("turns:\n  - text: \"over TLS\"\n    repeat: true\n").unwrap(),
        log_path: None,
    };
    FakeLlm::start("127.0.0.1:0".parse().unwrap(), config.with_tls(tls))
        .await
        .unwrap()
}

fn client_config(roots: RootCertStore) -> Arc<rustls::ClientConfig> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    )
}

/// POST a chat request over TLS trusting `roots`: the answer's status and
/// body, or the connection's error.
async fn chat_over_tls(
    server: &FakeLlm,
    roots: RootCertStore,
) -> Result<(u16, Value), std::io::Error> {
    let tcp = tokio::net::TcpStream::connect(server.addr()).await?;
    let name = ServerName::IpAddress(IpAddr::V4(Ipv4Addr::LOCALHOST).into());
    let tls = TlsConnector::from(client_config(roots))
        .connect(name, tcp)
        .await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tls))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(conn);
    let body = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]});
    let req = hyper::Request::post("/v1/chat/completions")
        .header("host", server.addr().to_string())
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let resp = sender
        .send_request(req)
        .await
        .map_err(std::io::Error::other)?;
    let status = resp.status().as_u16();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    Ok((status, serde_json::from_slice(&bytes).unwrap()))
}

#[tokio::test]
async fn a_client_trusting_the_ca_gets_the_scripted_answer_over_https() {
    let pki = make_pki();
    let server = start(&pki).await;
    assert_eq!(
        server.url(),
        format!("https://127.0.0.1:{}", server.addr().port())
    );
    let mut roots = RootCertStore::empty();
    roots.add(pki.ca_der.clone()).unwrap();
    let (status, body) =
        tokio::time::timeout(Duration::from_secs(30), chat_over_tls(&server, roots))
            .await
            .expect("the HTTPS request is answered")
            .unwrap();
    assert_eq!(status, 200);
    assert_eq!(body["choices"][0]["message"]["content"], "over TLS");
    assert_eq!(server.requests().len(), 1);
    server.shutdown().await.unwrap();
}

#[tokio::test]
async fn a_client_not_trusting_the_ca_fails_the_handshake() {
    let pki = make_pki();
    let server = start(&pki).await;
    let err = tokio::time::timeout(
        Duration::from_secs(30),
        chat_over_tls(&server, RootCertStore::empty()),
    )
    .await
    .expect("the handshake ends")
    .expect_err("an unknown issuer is refused");
    let text = err.to_string();
    assert!(text.contains("UnknownIssuer"), "{text}");
    // Nothing reached the handler.
    assert!(server.requests().is_empty());
    server.shutdown().await.unwrap();
}

#[test]
fn bad_certificate_and_key_files_are_refused_naming_them() {
    let pki = make_pki();
    let dir = tempfile::tempdir().unwrap();
    let not_pem = dir.path().join("not.pem");
    std::fs::write(&not_pem, "hello\n").unwrap();
    let missing = Path::new("/nonexistent/cert.pem");
    let cases: [(&Path, &Path, &str); 4] = [
        (
            missing,
            &pki.key,
            "failed to read the TLS certificate /nonexistent/cert.pem",
        ),
        (&not_pem, &pki.key, "has no usable PEM certificate"),
        (&pki.cert, &not_pem, "has no usable PEM private key"),
        (&pki.cert, &pki.other_key, "cannot be served"),
    ];
    for (cert, key, want) in cases {
        let err = Tls::from_pem_files(cert, key).unwrap_err().to_string();
        assert!(err.contains(want), "{cert:?} {key:?}: {err}");
    }
    let err = Tls::from_pem_files(&not_pem, &pki.key)
        .unwrap_err()
        .to_string();
    assert!(err.contains(&not_pem.display().to_string()), "{err}");
}
