//! Helpers shared by the tests.

use agentgate_protocol::{
    Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, Metadata, TokensUsed,
};
use std::ops::Deref;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use agentgate_store::{PgOptions, PgStore, RunRecord, Store, StoreBackend};
use jiff::Timestamp;
use tempfile::TempDir;

/// Which backend a [`TestStore`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// A fresh, empty store of one backend: a SQLite file in a temporary
/// folder, or a new database of the test cluster. Derefs to the store.
pub struct TestStore {
    pub backend: Backend,
    pub store: Arc<dyn StoreBackend>,
    /// SQLite: the database file; PostgreSQL: the database's URL.
    pub location: String,
    pub dir: TempDir,
}

impl Drop for TestStore {
    /// A PostgreSQL test database is dropped with its test: a database
    /// takes some 7 MiB, and the suite makes hundreds of them.
    fn drop(&mut self) {
        if self.backend == Backend::Postgres {
            drop_pg_database(&self.location);
        }
    }
}

impl Deref for TestStore {
    type Target = dyn StoreBackend;
    fn deref(&self) -> &Self::Target {
        &*self.store
    }
}

impl TestStore {
    pub fn new(backend: Backend) -> TestStore {
        let dir = tempfile::tempdir().unwrap();
        match backend {
            Backend::Sqlite => {
                let path = dir.path().join("agentgate.db");
                let store = Arc::new(Store::open(&path).unwrap());
                TestStore {
                    backend,
                    store,
                    location: path.display().to_string(),
                    dir,
                }
            }
            Backend::Postgres => {
                let url = fresh_pg_database();
                let store = Arc::new(
                    PgStore::connect(&url, dir.path().join("runs"), &PgOptions::default()).unwrap(),
                );
                TestStore {
                    backend,
                    store,
                    location: url,
                    dir,
                }
            }
        }
    }

    /// A second handle on the same store (another process would open one).
    pub fn reopen(&self) -> Arc<dyn StoreBackend> {
        match self.backend {
            Backend::Sqlite => Arc::new(Store::open(&self.location).unwrap()),
            Backend::Postgres => Arc::new(
                PgStore::connect(
                    &self.location,
                    self.dir.path().join("runs"),
                    &PgOptions::default(),
                )
                .unwrap(),
            ),
        }
    }
}

/// Runs each named test, `fn name(store: &TestStore)`, once per backend:
/// as `name::sqlite` and `name::postgres`.
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name(&$crate::suite::support::TestStore::new(
                        $crate::suite::support::Backend::Sqlite,
                    ));
                }
                #[test]
                fn postgres() {
                    super::$name(&$crate::suite::support::TestStore::new(
                        $crate::suite::support::Backend::Postgres,
                    ));
                }
            }
        )*
    };
}

/// What a test body run by [`on_both_backends_fallible!`] returns: its
/// steps use `?`, and the `#[test]` function fails on an error.
pub type TestResult<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// [`on_both_backends!`] for bodies `fn name(store: &TestStore) ->
/// TestResult`: each `#[test]` function fails on the error its body
/// returns.
#[macro_export]
macro_rules! on_both_backends_fallible {
    ($($name:ident),* $(,)?) => {
        $(
            mod $name {
                #[test]
                fn sqlite() {
                    super::$name(&$crate::suite::support::TestStore::new(
                        $crate::suite::support::Backend::Sqlite,
                    ))
                    .unwrap();
                }
                #[test]
                fn postgres() {
                    super::$name(&$crate::suite::support::TestStore::new(
                        $crate::suite::support::Backend::Postgres,
                    ))
                    .unwrap();
                }
            }
        )*
    };
}

/// The test cluster's URL, from `AGENTGATE_TEST_POSTGRES` (set by
/// scripts/test.sh, which starts a throwaway cluster with
/// scripts/pg-cluster.sh). Missing is a failure, not a skip.
pub fn pg_admin_url() -> String {
    match std::env::var("AGENTGATE_TEST_POSTGRES") {
        Ok(url) if !url.is_empty() => url,
        _ => panic!(
            "AGENTGATE_TEST_POSTGRES is not set: the PostgreSQL backend's tests need a server \
             (run scripts/test.sh, or `scripts/pg-cluster.sh start DIR` and export the URL it \
             prints)"
        ),
    }
}

/// A new, empty database on the test cluster; its URL.
pub fn fresh_pg_database() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    let admin = pg_admin_url();
    let name = format!(
        "agt_{}_{}_{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed),
        Timestamp::now().as_millisecond()
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, connection) = tokio_postgres::connect(&admin, tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        client
            .batch_execute(&format!("CREATE DATABASE {name} TEMPLATE template0"))
            .await
            .unwrap();
        drop(client);
        let _ = driver.await;
    });
    with_database(&admin, &name)
}

/// Drops the test database of `url` (closing the connections still open
/// on it). Never panics: it runs in `Drop`, also while a failed test
/// unwinds; a database left behind only takes space.
pub fn drop_pg_database(url: &str) {
    let Some(name) = database_name(url) else {
        return;
    };
    let Ok(rt) = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    else {
        return;
    };
    rt.block_on(async {
        let Ok((client, connection)) =
            tokio_postgres::connect(&pg_admin_url(), tokio_postgres::NoTls).await
        else {
            return;
        };
        let driver = tokio::spawn(connection);
        let _ = client
            .batch_execute(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
            .await;
        drop(client);
        let _ = driver.await;
    });
}

/// The database name in `url`, if it is one `fresh_pg_database` made.
fn database_name(url: &str) -> Option<&str> {
    let head = url.split_once('?').map_or(url, |(head, _)| head);
    let name = &head[head.rfind('/')? + 1..];
    (name.starts_with("agt_") && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        .then_some(name)
}

/// `url` with its database name replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (head, query) = match url.split_once('?') {
        Some((head, query)) => (head, Some(query)),
        None => (url, None),
    };
    let scheme_end = head.find("://").map_or(0, |i| i + 3);
    let base = match head[scheme_end..].find('/') {
        Some(i) => &head[..scheme_end + i],
        None => head,
    };
    match query {
        Some(query) => format!("{base}/{name}?{query}"),
        None => format!("{base}/{name}"),
    }
}

/// A fresh store in its own temporary folder (kept alive by the `TempDir`).
pub fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path().join("agentgate.db")).unwrap();
    (dir, store)
}

pub fn ts(text: &str) -> Timestamp {
    text.parse().unwrap()
}

pub fn run_record(run_id: &str, started_at: &str) -> RunRecord {
    RunRecord {
        run_id: run_id.to_owned(),
        started_at: ts(started_at),
        providers: vec!["claude".to_owned(), "codex".to_owned()],
        model: Some("opus".to_owned()),
        session: Some("nightly".to_owned()),
        cwd: Some("/work/repo".to_owned()),
        prompt_bytes: 1234,
        kind: agentgate_store::RunKind::Agent,
        parent_run_id: None,
        labels: Default::default(),
    }
}

/// A success envelope with every figure set.
pub fn success_envelope(run_id: &str) -> Envelope {
    Envelope {
        response: "done".to_owned(),
        session_id: Some("sess-native-1".to_owned()),
        tokens_used: TokensUsed {
            input_tokens: 1500,
            output_tokens: 300,
            estimated_output_tokens: 1,
            total_tokens: 1800,
            cost_usd: Some(0.0123),
            cache_read_input_tokens: 1000,
            cache_creation_input_tokens: 200,
            cache_creation_1h_input_tokens: 0,
            estimated: false,
        },
        metadata: Metadata {
            token_usage_available: true,
            ..Metadata::default()
        },
        provider: Some("codex".to_owned()),
        model: Some("gpt-5-codex".to_owned()),
        duration_ms: 4321,
        attempts: vec![Attempt {
            provider: "codex".to_owned(),
            duration_ms: 4000,
            exit_code: Some(0),
            ..Attempt::default()
        }],
        reasoning_tokens: 120,
        context_tokens: Some(1800),
        ..Envelope::new(run_id)
    }
}

/// A failure envelope of `kind`.
pub fn failure_envelope(run_id: &str, kind: ErrorKind, exit_code: i32) -> Envelope {
    let error = ErrorInfo::new(kind, ErrorSource::Structured, format!("{kind} happened"));
    Envelope {
        provider: Some("claude".to_owned()),
        duration_ms: 99,
        ..Envelope::new(run_id)
    }
    .with_error(&error, exit_code)
}

/// Runs `f` with a plain connection to the PostgreSQL database at `url`
/// (outside any store), for tests that write or read behind the store's
/// back.
pub fn with_pg_client<T>(url: &str, f: impl AsyncFnOnce(&tokio_postgres::Client) -> T) -> T {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let driver = tokio::spawn(connection);
        let value = f(&client).await;
        drop(client);
        let _ = driver.await;
        value
    })
}

/// A `text_delta` event `part SEQ` of `run_id`.
pub fn delta(run_id: &str, seq: u64) -> agentgate_protocol::Event {
    use agentgate_protocol::{Event, EventBody, TextDeltaEvent};
    Event::new(
        run_id,
        seq,
        "2026-05-01T12:00:00Z",
        EventBody::TextDelta(TextDeltaEvent {
            text: format!("part {seq}"),
        }),
    )
}

/// A PostgreSQL transaction that took a lock (`lock_sql`, after `BEGIN`)
/// and holds it until [`PgLock::release`] (at most a minute).
pub struct PgLock {
    release: tokio::sync::oneshot::Sender<()>,
    holder: std::thread::JoinHandle<()>,
}

impl PgLock {
    /// Take the lock on `url`; returns once it is held.
    pub fn hold(url: &str, lock_sql: &str) -> PgLock {
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (release, release_rx) = tokio::sync::oneshot::channel::<()>();
        let (url, sql) = (url.to_owned(), format!("BEGIN; {lock_sql}"));
        let holder = std::thread::spawn(move || {
            with_pg_client(&url, async |client| {
                client.batch_execute(&sql).await.unwrap();
                locked_tx.send(()).unwrap();
                let _ = tokio::time::timeout(std::time::Duration::from_secs(60), release_rx).await;
                client.batch_execute("COMMIT").await.unwrap();
            })
        });
        locked_rx
            .recv_timeout(std::time::Duration::from_secs(30))
            .unwrap();
        PgLock { release, holder }
    }

    /// Commit the transaction and wait for it.
    pub fn release(self) {
        self.release.send(()).unwrap();
        self.holder.join().unwrap();
    }
}
