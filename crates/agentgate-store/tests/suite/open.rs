//! Opening: location, pragmas, damaged and too-new files.

use agentgate_store::{RunStore, SCHEMA_VERSION, Store, StoreError};
use rusqlite::Connection;

use super::support::run_record;

#[test]
fn the_store_is_in_wal_mode_with_its_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let _store = Store::open(&path).unwrap();

    // A second, independent connection sees what the file is.
    let conn = Connection::open(&path).unwrap();
    let mode: String = conn
        .query_row("PRAGMA journal_mode", [], |row| row.get(0))
        .unwrap();
    assert_eq!(mode, "wal");
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, SCHEMA_VERSION);
}

#[test]
fn open_creates_missing_folders_and_the_runs_folder_beside_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deep").join("er").join("agentgate.db");
    let store = Store::open(&path).unwrap();
    assert!(path.is_file());
    assert_eq!(store.path(), path);
    assert_eq!(store.runs_dir(), dir.path().join("deep/er/runs"));
    assert!(store.runs_dir().is_dir());
}

#[test]
fn data_survives_closing_and_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let record = run_record("run_kept", "2026-05-01T00:00:00Z");
    {
        let store = Store::open(&path).unwrap();
        store.insert_run(&record).unwrap();
    }
    let store = Store::open(&path).unwrap();
    assert_eq!(
        store.get_run("run_kept").unwrap().unwrap().summary.record,
        record
    );
}

#[test]
fn a_file_that_is_not_a_database_gives_an_error_naming_it_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    std::fs::write(&path, "this is not a database, just text. ".repeat(200)).unwrap();

    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Corrupt { .. }), "{err:?}");
    let message = err.to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(message.contains("move it aside"), "{message}");
}

#[test]
fn a_database_from_a_newer_agentgate_is_refused_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let newer = SCHEMA_VERSION + 5;
    {
        let conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", newer).unwrap();
    }
    let err = Store::open(&path).unwrap_err();
    assert!(
        matches!(err, StoreError::TooNew { found, .. } if found == newer),
        "{err:?}"
    );
    assert!(err.to_string().contains("upgrade agentgate"), "{err}");

    let conn = Connection::open(&path).unwrap();
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(version, newer);
}

#[test]
fn a_folder_in_place_of_the_file_is_an_open_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    std::fs::create_dir(&path).unwrap();
    let err = Store::open(&path).unwrap_err();
    assert!(matches!(err, StoreError::Open { .. }), "{err:?}");
    assert!(
        err.to_string().contains(&path.display().to_string()),
        "{err}"
    );
}

#[test]
fn the_store_can_be_shared_between_threads_and_used_as_a_trait_object() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Store>();
    let (_dir, store) = super::support::temp_store();
    let store: std::sync::Arc<dyn RunStore> = std::sync::Arc::new(store);
    let other = std::sync::Arc::clone(&store);
    std::thread::spawn(move || {
        other
            .insert_run(&run_record("run_t", "2026-05-01T00:00:00Z"))
            .unwrap();
    })
    .join()
    .unwrap();
    assert!(store.get_run("run_t").unwrap().is_some());
}

#[cfg(unix)]
#[test]
fn the_store_is_private_to_the_user_even_where_it_was_not() {
    use std::os::unix::fs::PermissionsExt as _;

    let mode =
        |path: &std::path::Path| std::fs::metadata(path).unwrap().permissions().mode() & 0o777;
    let set = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    let side = |path: &std::path::Path, suffix: &str| {
        let mut p = path.as_os_str().to_owned();
        p.push(suffix);
        std::path::PathBuf::from(p)
    };
    let top = tempfile::tempdir().unwrap();
    let dir = top.path().join("home");
    let path = dir.join("agentgate.db");

    // New: every file and folder private, the WAL's side files included.
    {
        let store = Store::open(&path).unwrap();
        store
            .insert_run(&run_record("r1", "2026-01-01T00:00:00Z"))
            .unwrap();
        // The queue's jobs (run requests) are in the same private files.
        agentgate_store::JobQueue::enqueue(
            &store,
            &super::jobs::new_job("job1"),
            super::support::ts("2026-01-01T00:00:00Z"),
        )
        .unwrap();
        for p in [dir.as_path(), store.runs_dir()] {
            assert_eq!(mode(p), 0o700, "{}", p.display());
        }
        for p in [path.clone(), side(&path, "-wal"), side(&path, "-shm")] {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }

    // Made open by an older version or by hand: made private again.
    set(&dir, 0o755);
    set(&dir.join("runs"), 0o775);
    for p in [path.clone(), side(&path, "-wal"), side(&path, "-shm")] {
        set(&p, 0o644);
    }
    let store = Store::open(&path).unwrap();
    assert!(store.get_run("r1").unwrap().is_some());
    for p in [dir.as_path(), store.runs_dir()] {
        assert_eq!(mode(p), 0o700, "{}", p.display());
    }
    for p in [path.clone(), side(&path, "-wal"), side(&path, "-shm")] {
        assert_eq!(mode(&p), 0o600, "{}", p.display());
    }
}

#[test]
fn the_write_ahead_log_stays_small_across_many_short_lived_processes() {
    // Every agentgate process opens the store, records one run and closes
    // it without a checkpoint; the next open reads the whole log. SQLite's
    // default checkpoint (at 1000 pages) let the log reach 4 MB; the store
    // checkpoints at 128 pages, about half a megabyte.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    for i in 0..300 {
        let store = Store::open(&path).unwrap();
        let run_id = format!("run_{i:03}");
        store
            .insert_run(&run_record(&run_id, "2026-05-01T00:00:00Z"))
            .unwrap();
        store
            .finish_run(&run_id, &super::support::success_envelope(&run_id))
            .unwrap();
    }
    let wal = std::fs::metadata(dir.path().join("agentgate.db-wal"))
        .unwrap()
        .len();
    assert!(wal < 1024 * 1024, "the WAL grew to {wal} bytes");
    // The runs are all there, in the database or its log.
    let store = Store::open(&path).unwrap();
    assert!(store.get_run("run_000").unwrap().is_some());
    assert!(store.get_run("run_299").unwrap().is_some());
}
