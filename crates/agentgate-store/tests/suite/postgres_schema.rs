//! The PostgreSQL schema: migrated once however many connect at once, and
//! a database of a newer agentgate refused.

use std::sync::Barrier;

use agentgate_store::{PG_SCHEMA_VERSION, PgOptions, PgStore, StoreError};

use super::support::{fresh_pg_database, run_record, with_pg_client};

#[test]
fn four_processes_connecting_at_once_migrate_once() {
    let url = fresh_pg_database();
    let dir = tempfile::tempdir().unwrap();
    let barrier = Barrier::new(4);
    let stores: Vec<PgStore> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|i| {
                let (url, barrier, dir) = (&url, &barrier, &dir);
                scope.spawn(move || {
                    barrier.wait();
                    PgStore::connect(
                        url,
                        dir.path().join(format!("runs{i}")),
                        &PgOptions::default(),
                    )
                    .unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let (version, rows): (i32, i64) = with_pg_client(&url, async |client| {
        let row = client
            .query_one("SELECT max(version), count(*) FROM agentgate_schema", &[])
            .await
            .unwrap();
        (row.get(0), row.get(1))
    });
    assert_eq!((version, rows), (PG_SCHEMA_VERSION, 1));
    use agentgate_store::RunStore as _;
    stores[0]
        .insert_run(&run_record("run_after", "2026-05-01T00:00:00Z"))
        .unwrap();
    assert_eq!(stores[3].list_runs(10, 0).unwrap().runs.len(), 1);
}

#[test]
fn a_database_of_a_newer_agentgate_is_refused() {
    let url = fresh_pg_database();
    let dir = tempfile::tempdir().unwrap();
    drop(PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap());
    let newer = PG_SCHEMA_VERSION + 1;
    with_pg_client(&url, async |client| {
        client
            .execute("UPDATE agentgate_schema SET version = $1", &[&newer])
            .await
            .unwrap();
    });
    let err = PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap_err();
    assert!(
        matches!(err, StoreError::TooNew { found, supported, .. }
            if found == i64::from(newer) && supported == i64::from(PG_SCHEMA_VERSION)),
        "{err:?}"
    );
    assert!(err.to_string().contains("upgrade agentgate"), "{err}");
}

#[test]
fn sslmode_is_checked_up_front_ignored_on_a_unix_socket_and_the_password_is_never_shown() {
    let url = fresh_pg_database().replacen("agentgate@", "agentgate:s3cret-pw@", 1);
    let dir = tempfile::tempdir().unwrap();
    let err = PgStore::connect(
        &format!("{url}&sslmode=verify-everything"),
        dir.path().join("runs"),
        &PgOptions::default(),
    )
    .unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, StoreError::InvalidStore { .. }), "{err:?}");
    assert!(
        text.contains("unknown sslmode `verify-everything`") && !text.contains("s3cret-pw"),
        "{text}"
    );
    // The test cluster is on a Unix socket, where the server offers no TLS:
    // as with libpq, sslmode does not apply there (trust authentication
    // ignores the password), and the store names the database without it.
    for mode in ["require", "verify-full"] {
        let store = PgStore::connect(
            &format!("{url}&sslmode={mode}"),
            dir.path().join("runs"),
            &PgOptions::default(),
        )
        .unwrap();
        assert!(
            !store.database().contains("s3cret-pw"),
            "{}",
            store.database()
        );
        assert!(!format!("{store:?}").contains("s3cret-pw"));
    }
}
