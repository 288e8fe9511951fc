//! TLS to PostgreSQL, against a real server that takes TCP connections
//! over TLS only (see `tls_cluster.rs`): each `sslmode` does what libpq's
//! does, the traffic is encrypted, and no error shows the password.

use agentgate_store::{PgOptions, PgStore, RunStore as _, StoreError};

use super::support::{run_record, with_pg_client};
use super::tls_cluster::TlsCluster;

/// A database `name` on `cluster`, made over its Unix socket.
fn create_database(cluster: &TlsCluster, name: &str) {
    with_pg_client(&cluster.socket_url("postgres"), async |client| {
        client
            .batch_execute(&format!("CREATE DATABASE {name}"))
            .await
            .unwrap();
    });
}

fn connect(url: &str, dir: &tempfile::TempDir) -> Result<PgStore, StoreError> {
    PgStore::connect(url, dir.path().join("runs"), &PgOptions::default())
}

/// The error of a connection that must fail, as text, checked to be free
/// of the password.
fn refused(url: &str, dir: &tempfile::TempDir) -> String {
    let err = connect(url, dir).unwrap_err();
    let text = err.to_string();
    assert!(!text.contains("s3cret-pw"), "{text}");
    assert!(!format!("{err:?}").contains("s3cret-pw"), "{err:?}");
    text
}

#[test]
fn require_verify_full_and_the_default_connect_over_tls_and_disable_is_refused() {
    let cluster = TlsCluster::start();
    create_database(&cluster, "agt_tls");
    let dir = tempfile::tempdir().unwrap();
    let ca = cluster.ca().display().to_string();

    let store = connect(
        &cluster.tcp_url("127.0.0.1", "agt_tls", "sslmode=require"),
        &dir,
    )
    .unwrap();
    store
        .insert_run(&run_record("run_tls", "2026-05-01T00:00:00Z"))
        .unwrap();
    assert!(
        !store.database().contains("s3cret-pw"),
        "{}",
        store.database()
    );
    // Every connection the store holds on its database is encrypted.
    let (encrypted, plain): (i64, i64) =
        with_pg_client(&cluster.socket_url("postgres"), async |client| {
            let row = client
                .query_one(
                    "SELECT count(*) FILTER (WHERE s.ssl), count(*) FILTER (WHERE NOT s.ssl) \
                 FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) \
                 WHERE a.datname = 'agt_tls'",
                    &[],
                )
                .await
                .unwrap();
            (row.get(0), row.get(1))
        });
    assert!(
        encrypted >= 1 && plain == 0,
        "ssl: {encrypted}, plain: {plain}"
    );
    drop(store);

    for params in [
        format!("sslmode=verify-full&sslrootcert={ca}"),
        format!("sslmode=verify-full&sslrootcert={ca}").replace('/', "%2F"),
        format!("sslmode=verify-ca&sslrootcert={ca}"),
        // libpq's default, prefer: the server offers TLS, so TLS it is.
        "application_name=agentgate-test".to_owned(),
        "sslmode=allow".to_owned(),
    ] {
        for host in ["127.0.0.1", "localhost"] {
            let store = connect(&cluster.tcp_url(host, "agt_tls", &params), &dir)
                .unwrap_or_else(|e| panic!("{host} {params}: {e}"));
            assert_eq!(store.list_runs(10, 0).unwrap().runs.len(), 1, "{params}");
        }
    }

    // Plain text over TCP: the server's pg_hba.conf has no line for it.
    let text = refused(
        &cluster.tcp_url("127.0.0.1", "agt_tls", "sslmode=disable"),
        &dir,
    );
    assert!(text.contains("no encryption"), "{text}");
}

#[test]
fn certificates_are_checked_against_the_root_and_verify_full_checks_the_name() {
    let cluster = TlsCluster::start();
    create_database(&cluster, "agt_tls");
    let dir = tempfile::tempdir().unwrap();
    let (ca, other_ca) = (cluster.ca(), cluster.other_ca());
    let (ca, other_ca) = (ca.display(), other_ca.display());

    // A server certificate no trusted root signed.
    for mode in ["verify-full", "verify-ca", "require"] {
        let text = refused(
            &cluster.tcp_url(
                "127.0.0.1",
                "agt_tls",
                &format!("sslmode={mode}&sslrootcert={other_ca}"),
            ),
            &dir,
        );
        assert!(
            text.contains(
                "error performing TLS handshake: invalid peer certificate: UnknownIssuer"
            ),
            "{mode}: {text}"
        );
    }

    // The name the client asks for is not in the certificate (the TCP
    // connection still goes to 127.0.0.1, through hostaddr): verify-full
    // refuses, verify-ca and require only check the chain.
    let wrong_name = |params: &str| {
        format!(
            "postgres://agentgate:s3cret-pw@db.example.invalid:{}/agt_tls?hostaddr=127.0.0.1&{params}",
            cluster.port
        )
    };
    let text = refused(
        &wrong_name(&format!("sslmode=verify-full&sslrootcert={ca}")),
        &dir,
    );
    assert!(
        text.contains("certificate not valid for name \"db.example.invalid\""),
        "{text}"
    );
    for params in [
        format!("sslmode=verify-ca&sslrootcert={ca}"),
        format!("sslmode=require&sslrootcert={ca}"),
        "sslmode=require".to_owned(),
    ] {
        connect(&wrong_name(&params), &dir).unwrap_or_else(|e| panic!("{params}: {e}"));
    }

    // A root file that is not there is named, before any connection.
    let text = refused(
        &cluster.tcp_url(
            "127.0.0.1",
            "agt_tls",
            "sslmode=verify-full&sslrootcert=/nonexistent/ca.pem",
        ),
        &dir,
    );
    assert!(
        text.contains("cannot read sslrootcert /nonexistent/ca.pem"),
        "{text}"
    );
}
