//! HTTPS (`--tls-cert FILE --tls-key FILE`): the certificate chain and key
//! read from PEM files into a rustls server config (ring), and the accept
//! loop that serves the axum router over each TLS stream with hyper's
//! HTTP/1.1 connection builder, until the server stops (then open
//! connections finish their responses, as `axum::serve` does).

use std::future::Future;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// A client that has not finished its TLS handshake by then is dropped.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// A TLS setting that loaded: the server's certificate chain and key.
#[derive(Debug, Clone)]
pub struct Tls {
    config: Arc<rustls::ServerConfig>,
}

/// A certificate or key that cannot be served.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A file could not be read.
    #[error("failed to read the TLS {what} {path}: {source}")]
    Read {
        /// `certificate` or `key`.
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The certificate file holds no PEM certificate, or a bad one.
    #[error(
        "the TLS certificate {path} has no usable PEM certificate (`-----BEGIN CERTIFICATE-----`): {message}"
    )]
    Certificate {
        /// The file (or `<memory>`).
        path: String,
        /// What the PEM reader said.
        message: String,
    },
    /// The key file holds no PEM private key, or a bad one.
    #[error("the TLS key {path} has no usable PEM private key (PKCS#8, PKCS#1 or SEC1): {message}")]
    Key {
        /// The file (or `<memory>`).
        path: String,
        /// What the PEM reader said.
        message: String,
    },
    /// rustls refused the pair (an unsupported key, a key that is not the
    /// certificate's).
    #[error("the TLS certificate and key cannot be served: {0}")]
    Refused(#[source] rustls::Error),
}

impl Tls {
    /// Load a PEM certificate chain (the server's certificate first) and
    /// its PEM private key from files.
    pub fn from_pem_files(cert: &Path, key: &Path) -> Result<Tls, TlsError> {
        let read = |what, path: &Path| {
            std::fs::read(path).map_err(|source| TlsError::Read {
                what,
                path: path.display().to_string(),
                source,
            })
        };
        let cert_pem = read("certificate", cert)?;
        let key_pem = read("key", key)?;
        Self::load(
            &cert_pem,
            &key_pem,
            &cert.display().to_string(),
            &key.display().to_string(),
        )
    }

    /// The same from PEM text in memory.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<Tls, TlsError> {
        Self::load(cert_pem, key_pem, "<memory>", "<memory>")
    }

    fn load(cert_pem: &[u8], key_pem: &[u8], cert: &str, key: &str) -> Result<Tls, TlsError> {
        let chain = CertificateDer::pem_slice_iter(cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| TlsError::Certificate {
                path: cert.to_owned(),
                message: e.to_string(),
            })?;
        if chain.is_empty() {
            return Err(TlsError::Certificate {
                path: cert.to_owned(),
                message: "no certificate found".to_owned(),
            });
        }
        let private_key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| TlsError::Key {
            path: key.to_owned(),
            message: e.to_string(),
        })?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(TlsError::Refused)?
            .with_no_client_auth()
            .with_single_cert(chain, private_key)
            .map_err(TlsError::Refused)?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(Tls {
            config: Arc::new(config),
        })
    }
}

/// Serve `app` over TLS on `listener` until `stop` resolves, then let the
/// open connections finish.
pub(crate) async fn serve(
    listener: TcpListener,
    tls: Tls,
    app: Router,
    stop: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let acceptor = TlsAcceptor::from(tls.config);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let tcp = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((tcp, _)) => {
                    // No Nagle delay, as over plain HTTP.
                    let _ = tcp.set_nodelay(true);
                    tcp
                }
                Err(e) => {
                    // Out of file descriptors and the like: wait, not spin.
                    tracing::warn!("fake-llm: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let acceptor = acceptor.clone();
        let service = TowerToHyperService::new(app.clone());
        let watcher = graceful.watcher();
        tokio::spawn(async move {
            let stream = match tokio::time::timeout(HANDSHAKE_TIMEOUT, acceptor.accept(tcp)).await {
                Ok(Ok(stream)) => stream,
                Ok(Err(e)) => {
                    tracing::debug!("fake-llm: TLS handshake failed: {e}");
                    return;
                }
                Err(_) => return,
            };
            let conn = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), service);
            if let Err(e) = watcher.watch(conn).await {
                tracing::debug!("fake-llm: connection ended with an error: {e}");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}
