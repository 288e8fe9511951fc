//! The TLS settings for an `https://` upstream: rustls with ring, the
//! system's roots plus the certificates of an optional PEM CA file, and
//! ALPN `http/1.1`.

use std::path::Path;
use std::sync::Arc;

use rustls::RootCertStore;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use super::GatewayError;

/// The system's root certificates, read from disk once per process (every
/// attempt with a gateway starts one; the files do not change under it).
fn native_roots() -> &'static [CertificateDer<'static>] {
    static ROOTS: std::sync::OnceLock<Vec<CertificateDer<'static>>> = std::sync::OnceLock::new();
    ROOTS.get_or_init(|| {
        let native = rustls_native_certs::load_native_certs();
        for error in &native.errors {
            tracing::debug!(%error, "gateway: a system root certificate could not be loaded");
        }
        native.certs
    })
}

/// The client settings: the system's roots and `ca_file`'s certificates.
pub(crate) fn client_config(
    ca_file: Option<&Path>,
) -> Result<Arc<rustls::ClientConfig>, GatewayError> {
    let mut roots = RootCertStore::empty();
    let (added, ignored) = roots.add_parsable_certificates(native_roots().iter().cloned());
    tracing::debug!(added, ignored, "gateway: system root certificates");
    if let Some(path) = ca_file {
        for cert in read_ca_file(path)? {
            roots.add(cert).map_err(|e| GatewayError::CaFile {
                path: path.display().to_string(),
                reason: e.to_string(),
            })?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| GatewayError::Tls(e.to_string()))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// The certificates of a PEM file (at least one).
fn read_ca_file(path: &Path) -> Result<Vec<CertificateDer<'static>>, GatewayError> {
    let bad = |reason: String| GatewayError::CaFile {
        path: path.display().to_string(),
        reason,
    };
    let certs = CertificateDer::pem_file_iter(path)
        .map_err(|e| bad(e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("it holds no PEM certificate".to_owned()));
    }
    Ok(certs)
}
