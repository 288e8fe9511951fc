//! Choosing and opening a backend: SQLite (the default) or PostgreSQL.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::StoreError;
use crate::job_queue::JobQueue;
use crate::location::default_db_path;
use crate::redact::redact_url;
use crate::run_store::RunStore;
use crate::usage::UsageReports;
use crate::webhooks::WebhookOutbox;
use crate::workers::WorkerRegistry;

/// A whole store: runs and the job queue, one object for any backend.
pub trait StoreBackend:
    RunStore + JobQueue + WorkerRegistry + UsageReports + WebhookOutbox + fmt::Debug
{
}

impl<T: RunStore + JobQueue + WorkerRegistry + UsageReports + WebhookOutbox + fmt::Debug>
    StoreBackend for T
{
}

/// Which store to use, as named by `--store`, `AGENTGATE_STORE` or the
/// config's `store:`.
#[derive(Clone, PartialEq, Eq)]
pub enum StoreLocation {
    /// A SQLite database file.
    Sqlite(PathBuf),
    /// A PostgreSQL database: a libpq connection URL (`postgres://` or
    /// `postgresql://`).
    Postgres(String),
}

impl fmt::Debug for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never the password.
        write!(f, "StoreLocation({self})")
    }
}

impl fmt::Display for StoreLocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreLocation::Sqlite(path) => write!(f, "{}", path.display()),
            StoreLocation::Postgres(url) => f.write_str(&redact_url(url)),
        }
    }
}

impl StoreLocation {
    /// `text` as a store: a `postgres://` or `postgresql://` URL is a
    /// PostgreSQL database, anything else the path of a SQLite file. An
    /// empty text is refused.
    pub fn parse(text: &str) -> Result<StoreLocation, StoreError> {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return Err(StoreError::InvalidStore {
                store: String::new(),
                reason: "it is empty; give a SQLite file's path or a postgres:// URL".to_owned(),
            });
        }
        let lower = trimmed.to_ascii_lowercase();
        if lower.starts_with("postgres://") || lower.starts_with("postgresql://") {
            return Ok(StoreLocation::Postgres(trimmed.to_owned()));
        }
        if lower.contains("://") {
            return Err(StoreError::InvalidStore {
                store: redact_url(trimmed),
                reason: "the only URLs a store can be are postgres:// and postgresql:// ones; \
                         anything else is the path of a SQLite file"
                    .to_owned(),
            });
        }
        Ok(StoreLocation::Sqlite(PathBuf::from(text)))
    }

    /// The default store: the SQLite file at [`default_db_path`].
    pub fn default_sqlite() -> Result<StoreLocation, StoreError> {
        default_db_path().map(StoreLocation::Sqlite)
    }

    /// Whether it is a PostgreSQL database.
    pub fn is_postgres(&self) -> bool {
        matches!(self, StoreLocation::Postgres(_))
    }
}

/// Opens the store at `location`. A PostgreSQL store keeps its runs' local
/// files (stderr, files written for a CLI) in `runs/` of the data folder
/// ([`default_db_path`]'s folder); `pool_size` bounds its connections.
pub fn open_store(
    location: &StoreLocation,
    pool_size: usize,
) -> Result<Arc<dyn StoreBackend>, StoreError> {
    match location {
        StoreLocation::Sqlite(path) => open_sqlite(path),
        StoreLocation::Postgres(url) => open_postgres(url, pool_size),
    }
}

#[cfg(feature = "sqlite")]
fn open_sqlite(path: &std::path::Path) -> Result<Arc<dyn StoreBackend>, StoreError> {
    Ok(Arc::new(crate::sqlite::SqliteStore::open(path)?))
}

#[cfg(not(feature = "sqlite"))]
fn open_sqlite(path: &std::path::Path) -> Result<Arc<dyn StoreBackend>, StoreError> {
    Err(StoreError::InvalidStore {
        store: path.display().to_string(),
        reason: "this agentgate was built without SQLite support (cargo feature `sqlite`)"
            .to_owned(),
    })
}

#[cfg(feature = "postgres")]
fn open_postgres(url: &str, pool_size: usize) -> Result<Arc<dyn StoreBackend>, StoreError> {
    let data = default_db_path()?;
    let runs_dir = data.with_file_name("runs");
    let options = crate::postgres::PgOptions {
        pool_size,
        ..crate::postgres::PgOptions::default()
    };
    Ok(Arc::new(crate::postgres::PgStore::connect(
        url, runs_dir, &options,
    )?))
}

#[cfg(not(feature = "postgres"))]
fn open_postgres(url: &str, _pool_size: usize) -> Result<Arc<dyn StoreBackend>, StoreError> {
    Err(StoreError::InvalidStore {
        store: redact_url(url),
        reason: "this agentgate was built without PostgreSQL support (cargo feature `postgres`)"
            .to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_store_is_a_postgres_url_or_a_file() {
        let pg = StoreLocation::parse("postgresql://u:pw@h/db").unwrap();
        assert!(pg.is_postgres());
        assert_eq!(format!("{pg:?}"), "StoreLocation(postgresql://u@h/db)");
        assert_eq!(
            StoreLocation::parse("/var/lib/ag/agentgate.db").unwrap(),
            StoreLocation::Sqlite(PathBuf::from("/var/lib/ag/agentgate.db"))
        );
        let err = StoreLocation::parse("mysql://u:pw@h/db")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("mysql://u@h/db") && !err.contains("pw"),
            "{err}"
        );
        assert!(StoreLocation::parse("  ").is_err());
    }
}
