//! TLS to PostgreSQL: libpq's `sslmode` and `sslrootcert`, done with rustls.
//!
//! ## Why this module exists
//!
//! The driver (tokio-postgres) parses `sslmode` only as `disable`, `prefer`
//! and `require`, refuses parameters it does not know (`sslrootcert`), and
//! leaves every certificate decision to the TLS connector it is given. So
//! `url.rs` takes `sslmode` and `sslrootcert` out of the URL before the
//! driver sees it, and [`connector`] builds the rustls client whose
//! certificate verifier does what the mode promises:
//!
//! | sslmode            | driver mode | certificate check                      |
//! |--------------------|-------------|----------------------------------------|
//! | `disable`          | disable     | none: no TLS                           |
//! | `allow`, `prefer`  | prefer      | none ([`AnyCertificate`])              |
//! | `require`          | require     | none, or as `verify-ca` with a root cert |
//! | `verify-ca`        | require     | chain to the roots ([`ChainOnly`])     |
//! | `verify-full`      | require     | chain and host name (rustls' webpki)   |
//!
//! "None" still checks the handshake's signatures against the certificate's
//! key (the server proves it holds the key); it does not check who the key
//! belongs to, exactly like libpq without a root certificate.
//!
//! Differences from libpq. From the driver: `prefer` falls back to plain
//! text only when the server declines TLS (a server with `ssl = off`); a
//! server that accepts TLS and then fails the handshake fails the
//! connection. `allow` (libpq: plain first, TLS if the server insists) is
//! `prefer`. Chosen here: the roots are `sslrootcert=PATH` (a PEM file), else the
//! system's (`sslrootcert=system` says so explicitly); libpq's
//! `~/.postgresql/root.crt` and the `PG*` environment variables are not
//! read. As in libpq, `sslmode` is ignored when every host is a Unix socket
//! (the server never offers TLS there), and `require` with an `sslrootcert`
//! checks the chain like `verify-ca`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{WebPkiServerVerifier, verify_server_cert_signed_by_trust_anchor};
use rustls::crypto::{CryptoProvider, WebPkiSupportedAlgorithms};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::server::ParsedCertificate;
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio_postgres::config::{Host, SslMode as DriverSslMode};
use tokio_postgres_rustls::MakeRustlsConnect;

/// libpq's `sslmode` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl SslMode {
    pub(crate) fn parse(value: &str) -> Result<SslMode, String> {
        Ok(match value {
            "disable" => SslMode::Disable,
            "allow" => SslMode::Allow,
            "prefer" => SslMode::Prefer,
            "require" => SslMode::Require,
            "verify-ca" => SslMode::VerifyCa,
            "verify-full" => SslMode::VerifyFull,
            other => {
                return Err(format!(
                    "unknown sslmode `{other}`: use disable, allow, prefer, require, \
                     verify-ca or verify-full"
                ));
            }
        })
    }

    /// The mode the driver is told.
    fn driver_mode(self) -> DriverSslMode {
        match self {
            SslMode::Disable => DriverSslMode::Disable,
            SslMode::Allow | SslMode::Prefer => DriverSslMode::Prefer,
            SslMode::Require | SslMode::VerifyCa | SslMode::VerifyFull => DriverSslMode::Require,
        }
    }
}

/// Where the trusted root certificates come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RootCerts {
    /// The operating system's store (rustls-native-certs).
    System,
    /// A PEM file of one or more certificates.
    File(PathBuf),
}

/// The TLS half of a connection URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TlsSettings {
    /// `sslmode`; libpq's default is `prefer`.
    pub(crate) mode: SslMode,
    /// `sslrootcert`, if given.
    pub(crate) root_cert: Option<RootCerts>,
}

/// Tells the driver the mode: `settings`' own, or `disable` when every host
/// is a Unix socket (libpq ignores `sslmode` there too).
pub(crate) fn apply_mode(config: &mut tokio_postgres::Config, settings: &TlsSettings) {
    let all_unix = !config.get_hosts().is_empty()
        && config
            .get_hosts()
            .iter()
            .all(|host| !matches!(host, Host::Tcp(_)));
    let mode = if all_unix {
        DriverSslMode::Disable
    } else {
        settings.mode.driver_mode()
    };
    config.ssl_mode(mode);
}

/// The TLS connector for `settings` (rustls, ring provider).
pub(crate) fn connector(settings: &TlsSettings) -> Result<MakeRustlsConnect, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let algorithms = provider.signature_verification_algorithms;
    let verifier: Arc<dyn ServerCertVerifier> = match (settings.mode, &settings.root_cert) {
        (SslMode::Disable | SslMode::Allow | SslMode::Prefer, _) | (SslMode::Require, None) => {
            Arc::new(AnyCertificate { algorithms })
        }
        (SslMode::Require | SslMode::VerifyCa, roots) => Arc::new(ChainOnly {
            roots: Arc::new(load_roots(roots.as_ref())?),
            algorithms,
        }),
        (SslMode::VerifyFull, roots) => {
            let roots = Arc::new(load_roots(roots.as_ref())?);
            WebPkiServerVerifier::builder_with_provider(roots, Arc::clone(&provider))
                .build()
                .map_err(|e| format!("cannot set up certificate verification: {e}"))?
        }
    };
    let config = client_config(provider, verifier)?;
    Ok(MakeRustlsConnect::new(config))
}

fn client_config(
    provider: Arc<CryptoProvider>,
    verifier: Arc<dyn ServerCertVerifier>,
) -> Result<ClientConfig, String> {
    Ok(ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("cannot set up TLS: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth())
}

/// The trusted roots: the PEM file, or the system's.
fn load_roots(source: Option<&RootCerts>) -> Result<RootCertStore, String> {
    let mut roots = RootCertStore::empty();
    match source {
        Some(RootCerts::File(path)) => {
            for cert in read_pem_certificates(path)? {
                roots.add(cert).map_err(|e| {
                    format!(
                        "sslrootcert {}: a certificate rustls cannot use: {e}",
                        path.display()
                    )
                })?;
            }
        }
        None | Some(RootCerts::System) => {
            let found = rustls_native_certs::load_native_certs();
            let (added, _ignored) = roots.add_parsable_certificates(found.certs);
            if added == 0 {
                let why = found
                    .errors
                    .first()
                    .map_or_else(String::new, |e| format!(" ({e})"));
                return Err(format!(
                    "no root certificates found on this system{why}: give the CA's PEM file as \
                     sslrootcert=PATH"
                ));
            }
        }
    }
    Ok(roots)
}

fn read_pem_certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, String> {
    let text = std::fs::read(path)
        .map_err(|e| format!("cannot read sslrootcert {}: {e}", path.display()))?;
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(&text)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("sslrootcert {}: not a PEM file: {e}", path.display()))?;
    if certs.is_empty() {
        return Err(format!(
            "sslrootcert {}: no PEM certificate in it",
            path.display()
        ));
    }
    Ok(certs)
}

/// `prefer` and `require` without a root certificate: any certificate is
/// taken, but the handshake must be signed with its key.
struct AnyCertificate {
    algorithms: WebPkiSupportedAlgorithms,
}

/// `verify-ca` (and `require` with a root certificate): the chain must lead
/// to a trusted root; the host name is not looked at.
struct ChainOnly {
    roots: Arc<RootCertStore>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl fmt::Debug for AnyCertificate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AnyCertificate")
    }
}

impl fmt::Debug for ChainOnly {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ChainOnly")
            .field("roots", &self.roots.len())
            .finish()
    }
}

impl ServerCertVerifier for AnyCertificate {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

impl ServerCertVerifier for ChainOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let cert = ParsedCertificate::try_from(end_entity)?;
        verify_server_cert_signed_by_trust_anchor(
            &cert,
            &self.roots,
            intermediates,
            now,
            self.algorithms.all,
        )?;
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_driver_is_told_require_for_the_verify_modes_and_disable_on_unix_sockets() {
        let mode_of = |url: &str| {
            let (driver_url, tls) = super::super::url::split_url(url).unwrap();
            let mut config: tokio_postgres::Config = driver_url.parse().unwrap();
            apply_mode(&mut config, &tls);
            config.get_ssl_mode()
        };
        assert_eq!(
            mode_of("postgres://u@db/a?sslmode=verify-ca"),
            DriverSslMode::Require
        );
        assert_eq!(
            mode_of("postgres://u@db/a?sslmode=allow"),
            DriverSslMode::Prefer
        );
        assert_eq!(
            mode_of("postgres://u@db/a?sslmode=disable"),
            DriverSslMode::Disable
        );
        assert_eq!(
            mode_of("postgres://u@localhost/a?host=/run/pg&sslmode=verify-full"),
            DriverSslMode::Disable
        );
    }

    #[test]
    fn a_root_cert_file_must_hold_a_certificate() {
        let dir = std::env::temp_dir().join(format!("agentgate-tls-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty.pem");
        std::fs::write(&empty, "not a certificate\n").unwrap();
        let settings = |root: &Path| TlsSettings {
            mode: SslMode::VerifyFull,
            root_cert: Some(RootCerts::File(root.to_owned())),
        };
        let err = connector(&settings(&empty)).err().unwrap();
        assert!(err.contains("no PEM certificate"), "{err}");
        let err = connector(&settings(&dir.join("missing.pem")))
            .err()
            .unwrap();
        assert!(err.contains("cannot read sslrootcert"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
