//! One delivery try: resolve the URL's host, check every address it
//! resolves to (`address.rs`), connect to a checked address (never
//! resolving again), TLS for `https` (rustls with ring, the system's
//! roots), and POST the body over HTTP/1.1 with the signature's headers.
//! The whole try is bounded by a timeout; a redirect is not followed (a
//! 3xx is a failed try); the answer's body is not read.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use agentgate_core::WebhookUrl;
use bytes::Bytes;
use http_body_util::Full;
use hyper::Request;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;

use super::address::refused_because;

/// How a try ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tried {
    /// An answer came (any status).
    Answered(u16),
    /// The destination is not allowed: nothing was sent.
    Refused(String),
    /// No answer: what failed.
    Failed(String),
}

/// The headers of a delivery.
#[derive(Debug, Clone)]
pub struct Signed {
    /// `webhook-id`.
    pub id: String,
    /// `webhook-timestamp`.
    pub timestamp: i64,
    /// `webhook-signature`.
    pub signature: String,
}

/// Send `body` to `url` (see the module notes).
pub async fn deliver(
    url: &WebhookUrl,
    allow_private: bool,
    signed: &Signed,
    body: Bytes,
    timeout: Duration,
    tls: &Arc<rustls::ClientConfig>,
) -> Tried {
    match tokio::time::timeout(timeout, attempt(url, allow_private, signed, body, tls)).await {
        Ok(tried) => tried,
        Err(_) => Tried::Failed(format!("no answer within {} s", timeout.as_secs())),
    }
}

async fn attempt(
    url: &WebhookUrl,
    allow_private: bool,
    signed: &Signed,
    body: Bytes,
    tls: &Arc<rustls::ClientConfig>,
) -> Tried {
    let addresses = match resolve(url).await {
        Ok(a) => a,
        Err(e) => return Tried::Failed(e),
    };
    if !allow_private {
        for a in &addresses {
            if let Some(why) = refused_because(a.ip()) {
                return Tried::Refused(format!(
                    "{} resolves to {}, {why}; set webhooks.allow_private to deliver there",
                    url.host,
                    a.ip()
                ));
            }
        }
    }
    let mut last = String::from("no address");
    for addr in addresses {
        match TcpStream::connect(addr).await {
            Ok(tcp) => {
                return if url.https {
                    match tls_connect(url, tcp, tls).await {
                        Ok(stream) => post(stream, url, signed, body).await,
                        Err(e) => Tried::Failed(e),
                    }
                } else {
                    post(tcp, url, signed, body).await
                };
            }
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Tried::Failed(last)
}

async fn resolve(url: &WebhookUrl) -> Result<Vec<SocketAddr>, String> {
    if let Ok(ip) = url.host.parse::<std::net::IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, url.port)]);
    }
    let found: Vec<SocketAddr> = tokio::net::lookup_host((url.host.as_str(), url.port))
        .await
        .map_err(|e| format!("cannot resolve {}: {e}", url.host))?
        .collect();
    if found.is_empty() {
        return Err(format!("{} resolves to no address", url.host));
    }
    Ok(found)
}

async fn tls_connect(
    url: &WebhookUrl,
    tcp: TcpStream,
    tls: &Arc<rustls::ClientConfig>,
) -> Result<tokio_rustls::client::TlsStream<TcpStream>, String> {
    let name = rustls_pki_types::ServerName::try_from(url.host.clone())
        .map_err(|e| format!("`{}` is not a TLS server name: {e}", url.host))?;
    tokio_rustls::TlsConnector::from(Arc::clone(tls))
        .connect(name, tcp)
        .await
        .map_err(|e| format!("TLS with {} failed: {e}", url.host))
}

async fn post<S>(stream: S, url: &WebhookUrl, signed: &Signed, body: Bytes) -> Tried
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let (mut sender, conn) = match hyper::client::conn::http1::handshake(TokioIo::new(stream)).await
    {
        Ok(pair) => pair,
        Err(e) => return Tried::Failed(format!("HTTP handshake failed: {e}")),
    };
    let connection = tokio::spawn(conn);
    let request = Request::post(url.path_and_query.as_str())
        .header("host", url.host_header())
        .header("content-type", "application/json")
        .header(
            "user-agent",
            concat!("agentgate-webhooks/", env!("CARGO_PKG_VERSION")),
        )
        .header("webhook-id", signed.id.as_str())
        .header("webhook-timestamp", signed.timestamp.to_string())
        .header("webhook-signature", signed.signature.as_str())
        .body(Full::new(body));
    let request = match request {
        Ok(r) => r,
        Err(e) => return Tried::Failed(format!("cannot build the request: {e}")),
    };
    let tried = match sender.send_request(request).await {
        Ok(response) => Tried::Answered(response.status().as_u16()),
        Err(e) => Tried::Failed(format!("the request failed: {e}")),
    };
    connection.abort();
    tried
}

/// The TLS settings: the system's root certificates, ALPN `http/1.1`.
pub fn tls_config() -> Result<Arc<rustls::ClientConfig>, String> {
    let mut roots = rustls::RootCertStore::empty();
    let native = rustls_native_certs::load_native_certs();
    let (added, ignored) = roots.add_parsable_certificates(native.certs);
    tracing::debug!(added, ignored, "webhooks: system root certificates");
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}
