//! The shared store: PostgreSQL, for many agentgate processes on many hosts.
//!
//! ## Sync calls over an async driver
//!
//! [`crate::RunStore`] and [`crate::JobQueue`] are synchronous (the SQLite
//! store blocks, and the run engine calls the store from plain code), while
//! the driver, tokio-postgres, is async. A [`PgStore`] therefore owns a
//! small tokio runtime of its own (one worker thread, `agentgate-pg`) that
//! runs the connection pool, every query and the connections' I/O. A call
//! spawns its future there and waits for the answer on a plain channel, so
//! it can be made from any thread, including a thread of the caller's own
//! runtime (where `block_on` would panic); like a SQLite call, it blocks
//! that thread until the database answers.
//!
//! The runtime exists only once a PostgreSQL store is opened: a process on
//! the SQLite store starts no thread and opens no socket for this module.
//!
//! ## Connections
//!
//! A pool (deadpool-postgres) of at most [`PgOptions::pool_size`]
//! connections serves the calls; each call takes one for its transaction.
//! A session lock holds a dedicated connection of its own for as long as it
//! is held (a session-level advisory lock dies with its connection, so a
//! crashed holder never leaves a session locked). The queue's watcher
//! (`listen.rs`) holds one for its `LISTEN`, reconnecting when it drops;
//! so does a `serve`'s listener for other processes' events
//! (`events_listen.rs`, ringing [`crate::bells`]).
//!
//! ## Where things are
//!
//! `run_store.rs` implements [`crate::RunStore`]: `runs.rs` (runs and
//! attempts), `sessions.rs`, `thread_totals.rs`, `quota.rs` (one
//! transaction per call), `session_locks.rs` (advisory locks on connections
//! of their own), `events.rs` (the `run_events` table and its batching
//! writer task); `values.rs` converts columns (counts above `i64::MAX` are
//! errors, times keep microseconds).
//!
//! ## Errors
//!
//! Inside a call errors are [`PgError`]; the call turns them into
//! [`StoreError`] with its operation's name and the database's URL without
//! its password ([`PgStore::database`]).

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::time::Duration;

use deadpool_postgres::{Object, Pool};
use tokio_postgres::Transaction;

use crate::error::StoreError;

mod claim_next;
mod connect;
mod events;
mod events_listen;
mod idle;
mod job_list;
mod job_queue;
mod jobs;
mod listen;
mod migrations;
mod quota;
mod reopen;
mod run_store;
mod runs;
mod session_locks;
mod sessions;
mod settle;
mod spend;
mod thread_totals;
mod tls;
mod tokens;
mod url;
mod usage;
mod values;
mod webhooks;
mod workers;

pub use events_listen::EVENTS_CHANNEL;
pub use idle::WAKE_CHANNEL_PREFIX;
pub use listen::JOBS_CHANNEL;
pub use migrations::PG_SCHEMA_VERSION;

/// A future a call runs on the store's runtime.
pub(crate) type CallFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, PgError>> + Send + 'a>>;

/// How a [`PgStore`] connects and how many connections it keeps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgOptions {
    /// The most connections the pool opens.
    pub pool_size: usize,
    /// How long a call waits for a free connection, and how long opening
    /// one may take, before it fails.
    pub timeout: Duration,
}

impl Default for PgOptions {
    fn default() -> Self {
        PgOptions {
            pool_size: 8,
            timeout: Duration::from_secs(30),
        }
    }
}

/// The PostgreSQL store. See the module doc.
pub struct PgStore {
    /// `Some` until dropped: dropping shuts it down without waiting.
    runtime: Option<tokio::runtime::Runtime>,
    handle: tokio::runtime::Handle,
    pool: Pool,
    /// How the pool connects, for connections kept out of it (the queue's
    /// listener).
    listen_target: listen::ListenTarget,
    database: String,
    runs_dir: PathBuf,
    /// See [`crate::RunStore::event_log_bound`].
    event_log_bound: std::sync::atomic::AtomicU64,
}

impl fmt::Debug for PgStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgStore")
            .field("database", &self.database)
            .field("runs_dir", &self.runs_dir)
            .finish_non_exhaustive()
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // A store may be dropped on a thread of another runtime, where
        // waiting for this one's tasks would panic: let them end on their
        // own (their connections close as they are dropped).
        if let Some(runtime) = self.runtime.take() {
            runtime.shutdown_background();
        }
    }
}

impl PgStore {
    /// The database's URL without its password, for messages.
    pub fn database(&self) -> &str {
        &self.database
    }

    /// The folder where runs keep their local files (a CLI's stderr, files a
    /// provider writes for its CLI).
    pub fn local_runs_dir(&self) -> &Path {
        &self.runs_dir
    }

    /// Runs `f` with a pooled connection on the store's runtime and waits
    /// for its answer.
    pub(crate) fn call<T, F>(&self, op: &'static str, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: FnOnce(Object) -> CallFuture<'static, T> + Send + 'static,
    {
        let pool = self.pool.clone();
        self.block(op, async move {
            let client = pool.get().await.map_err(PgError::Pool)?;
            f(client).await
        })
    }

    /// Runs `f` in one transaction (read committed) and commits it; an
    /// error rolls it back.
    pub(crate) fn transaction<T, F>(&self, op: &'static str, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'t> FnOnce(&'t Transaction<'t>) -> CallFuture<'t, T> + Send + 'static,
    {
        self.call(op, move |mut client| {
            Box::pin(async move {
                let tx = client.transaction().await?;
                let value = f(&tx).await?;
                tx.commit().await?;
                Ok(value)
            })
        })
    }

    /// Runs `future` on the store's runtime and waits for it.
    pub(crate) fn block<T>(
        &self,
        op: &'static str,
        future: impl Future<Output = Result<T, PgError>> + Send + 'static,
    ) -> Result<T, StoreError>
    where
        T: Send + 'static,
    {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            // The caller waits for this send; it only fails if the caller
            // is gone, and then no one needs the answer.
            let _ = tx.send(future.await);
        });
        match rx.recv() {
            Ok(result) => result.map_err(|e| e.into_store_error(op, &self.database)),
            Err(_) => Err(PgError::RuntimeGone.into_store_error(op, &self.database)),
        }
    }

    /// The runtime's handle, for tasks that outlive a call (event writers,
    /// listeners).
    pub(crate) fn handle(&self) -> &tokio::runtime::Handle {
        &self.handle
    }

    /// The pool, for tasks that outlive a call.
    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    /// How the pool's connections are made.
    pub(crate) fn listen_target(&self) -> &listen::ListenTarget {
        &self.listen_target
    }

    /// Assembles a store from its parts (see `connect.rs`).
    pub(crate) fn from_parts(
        runtime: tokio::runtime::Runtime,
        pool: Pool,
        listen_target: listen::ListenTarget,
        database: String,
        runs_dir: PathBuf,
    ) -> PgStore {
        PgStore {
            handle: runtime.handle().clone(),
            runtime: Some(runtime),
            pool,
            listen_target,
            database,
            runs_dir,
            event_log_bound: crate::DEFAULT_EVENT_LOG_MAX.into(),
        }
    }
}

/// Errors inside a PostgreSQL call, before they get the call's name and the
/// database.
#[derive(Debug)]
pub(crate) enum PgError {
    Sql(tokio_postgres::Error),
    Pool(deadpool_postgres::PoolError),
    Json {
        op: &'static str,
        source: serde_json::Error,
    },
    Invalid {
        column: &'static str,
        value: String,
    },
    /// A `u64` above what a `bigint` column holds.
    TooLarge {
        column: &'static str,
        value: u64,
    },
    RunNotFound(String),
    JobNotFound(String),
    JobExists(String),
    LeaseLost(String),
    /// The store's runtime stopped before answering.
    RuntimeGone,
    /// A step outside the pool (which has its own timeouts) took too long.
    TimedOut {
        what: &'static str,
        after: Duration,
    },
}

impl From<tokio_postgres::Error> for PgError {
    fn from(error: tokio_postgres::Error) -> Self {
        Self::Sql(error)
    }
}

impl PgError {
    pub(crate) fn into_store_error(self, op: &'static str, database: &str) -> StoreError {
        let database = database.to_owned();
        let path = || PathBuf::from(&database);
        match self {
            Self::Sql(source) => StoreError::Postgres {
                op,
                database,
                message: describe_sql_error(&source),
            },
            Self::Pool(source) => StoreError::Postgres {
                op,
                database,
                message: describe_pool_error(&source),
            },
            Self::RuntimeGone => StoreError::Postgres {
                op,
                database,
                message: "the store's connection runtime stopped".to_owned(),
            },
            Self::TimedOut { what, after } => StoreError::Postgres {
                op,
                database,
                message: format!("{what} took longer than {} s", after.as_secs()),
            },
            Self::Json { op, source } => StoreError::Json {
                op,
                path: path(),
                source,
            },
            Self::Invalid { column, value } => StoreError::InvalidValue {
                op,
                path: path(),
                column,
                value,
            },
            Self::TooLarge { column, value } => StoreError::Postgres {
                op,
                database,
                message: format!(
                    "`{column}` cannot hold {value}: PostgreSQL's bigint holds at most {}",
                    i64::MAX
                ),
            },
            Self::RunNotFound(run_id) => StoreError::RunNotFound {
                op,
                run_id,
                path: path(),
            },
            Self::JobNotFound(job_id) => StoreError::JobNotFound {
                op,
                job_id,
                path: path(),
            },
            Self::JobExists(job_id) => StoreError::JobExists {
                job_id,
                path: path(),
            },
            Self::LeaseLost(job_id) => StoreError::LeaseLost { op, job_id },
        }
    }
}

/// A driver error in one line: the server's message with its SQLSTATE and
/// detail when the server answered, else the driver's own words.
pub(crate) fn describe_sql_error(error: &tokio_postgres::Error) -> String {
    match error.as_db_error() {
        Some(db) => {
            let mut text = format!("{} (SQLSTATE {})", db.message(), db.code().code());
            if let Some(detail) = db.detail() {
                text.push_str(": ");
                text.push_str(detail);
            }
            text
        }
        None => with_causes(error),
    }
}

/// `error` and each error under it (the driver's message alone says "error
/// performing TLS handshake"; the reason is in its source).
fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = inner.source();
    }
    text
}

fn describe_pool_error(error: &deadpool_postgres::PoolError) -> String {
    match error {
        deadpool_postgres::PoolError::Backend(e) => describe_sql_error(e),
        other => with_causes(other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The database the tests use: `AGENTGATE_TEST_POSTGRES`
    /// (scripts/pg-cluster.sh prints one).
    fn url() -> String {
        std::env::var("AGENTGATE_TEST_POSTGRES").expect(
            "AGENTGATE_TEST_POSTGRES names the test cluster (scripts/pg-cluster.sh start DIR)",
        )
    }

    #[test]
    fn a_transaction_runs_and_commits_on_the_store_runtime() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            PgStore::connect(&url(), dir.path().join("runs"), &PgOptions::default()).unwrap();
        let n: i64 = store
            .transaction("count", |tx| {
                Box::pin(async move {
                    let row = tx.query_one("SELECT count(*) FROM runs", &[]).await?;
                    Ok(row.try_get(0)?)
                })
            })
            .unwrap();
        assert!(n >= 0);
        // From inside another runtime's worker, too.
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let version: i32 = rt.block_on(async {
            store
                .call("version", |client| {
                    Box::pin(async move {
                        Ok(client
                            .query_one("SELECT version FROM agentgate_schema", &[])
                            .await?
                            .try_get(0)?)
                    })
                })
                .unwrap()
        });
        assert_eq!(version, PG_SCHEMA_VERSION);
        drop(store);
    }
}
