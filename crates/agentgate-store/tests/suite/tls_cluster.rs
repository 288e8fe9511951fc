//! A second, throwaway PostgreSQL cluster that takes TCP connections on
//! 127.0.0.1 over TLS only, for the TLS tests.
//!
//! The certificates are made here with the `openssl` binary: a CA, a server
//! certificate it signs (names `localhost` and `127.0.0.1`), and a second,
//! unrelated CA that must be refused. `scripts/pg-cluster.sh` makes and
//! starts the cluster (`PG_CLUSTER_TLS`, `PG_CLUSTER_PORT`: it owns the
//! initdb, the run-as-`postgres`-when-root and the key's mode); dropping
//! the [`TlsCluster`] stops it and removes its folders.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;

use tempfile::TempDir;

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scripts/pg-cluster.sh");

/// openssl's settings for the certificates: a CA, and a server certificate
/// for `localhost` and `127.0.0.1`.
const OPENSSL_CONFIG: &str = "\
[req]
distinguished_name = dn
prompt = no
[dn]
CN = agentgate test
[ca]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[server]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = DNS:localhost,IP:127.0.0.1
";

pub struct TlsCluster {
    /// The cluster's folder (data, socket, log, its copy of the key).
    cluster: TempDir,
    /// The certificates and keys made for it.
    certs: TempDir,
    pub port: u16,
}

impl TlsCluster {
    /// Makes the certificates and starts the cluster (pg_ctl waits at most
    /// 60 s for it).
    pub fn start() -> TlsCluster {
        let certs = tempfile::tempdir().unwrap();
        make_certificates(certs.path());
        let cluster = tempfile::tempdir().unwrap();
        let port = free_port();
        let out = Command::new("bash")
            .arg(SCRIPT)
            .arg("start")
            .arg(cluster.path())
            .env("PG_CLUSTER_TLS", certs.path())
            .env("PG_CLUSTER_PORT", port.to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg-cluster.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // From here on, dropping it stops the server, whatever fails.
        let started = TlsCluster {
            cluster,
            certs,
            port,
        };
        let url = String::from_utf8_lossy(&out.stdout);
        assert_eq!(
            url.trim(),
            format!("postgres://agentgate@127.0.0.1:{port}/postgres")
        );
        started
    }

    /// The URL of database `db` over TCP, with password `s3cret-pw` (trust
    /// authentication ignores it; the tests check it is never shown) and
    /// `params` as its query.
    pub fn tcp_url(&self, host: &str, db: &str, params: &str) -> String {
        format!(
            "postgres://agentgate:s3cret-pw@{host}:{}/{db}?{params}",
            self.port
        )
    }

    /// The URL of database `db` over the cluster's Unix socket (plain).
    pub fn socket_url(&self, db: &str) -> String {
        format!(
            "postgres://agentgate@localhost:{}/{db}?host={}",
            self.port,
            self.cluster.path().display()
        )
    }

    /// The CA that signed the server's certificate.
    pub fn ca(&self) -> PathBuf {
        self.certs.path().join("ca.crt")
    }

    /// A CA that signed nothing the server has.
    pub fn other_ca(&self) -> PathBuf {
        self.certs.path().join("other-ca.crt")
    }
}

impl Drop for TlsCluster {
    fn drop(&mut self) {
        let _ = Command::new("bash")
            .arg(SCRIPT)
            .arg("stop")
            .arg(self.cluster.path())
            .output();
    }
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn make_certificates(dir: &Path) {
    std::fs::write(dir.join("openssl.cnf"), OPENSSL_CONFIG).unwrap();
    let new_key = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    for (name, subject) in [
        ("ca", "/CN=agentgate test CA"),
        ("other-ca", "/CN=another CA"),
    ] {
        openssl(
            dir,
            &[
                &[
                    "req",
                    "-config",
                    "openssl.cnf",
                    "-x509",
                    "-new",
                    "-days",
                    "2",
                ],
                &new_key[..],
                &[
                    "-keyout",
                    &format!("{name}.key"),
                    "-out",
                    &format!("{name}.crt"),
                ],
                &["-extensions", "ca", "-subj", subject],
            ]
            .concat(),
        );
    }
    openssl(
        dir,
        &[
            &["req", "-config", "openssl.cnf", "-new"],
            &new_key[..],
            &[
                "-keyout",
                "server.key",
                "-out",
                "server.csr",
                "-subj",
                "/CN=localhost",
            ],
        ]
        .concat(),
    );
    openssl(
        dir,
        &[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-set_serial",
            "2",
            "-days",
            "2",
            "-extfile",
            "openssl.cnf",
            "-extensions",
            "server",
            "-out",
            "server.crt",
        ],
    );
}

fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!("the openssl binary (Debian package openssl) makes the test certificates: {e}")
        });
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}
