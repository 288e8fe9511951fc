//! The embedded store: one SQLite file in WAL mode.

mod claim_next;
mod job_list;
mod job_queue;
mod jobs;
mod migrations;
mod quota;
mod reopen;
mod runs;
mod session_locks;
mod sessions;
mod settle;
mod spend;
mod thread_totals;
mod tokens;
mod usage;
mod values;
mod webhooks;
mod workers;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use agentgate_protocol::{Envelope, Usage};
use rusqlite::{Connection, ErrorCode, Transaction, TransactionBehavior};

use crate::error::StoreError;
use crate::listing::RunList;
use crate::location::default_db_path;
use crate::records::{
    AttemptRecord, QuotaState, RunDetail, RunRecord, SessionRecord, SessionRotation,
};
use crate::run_files::{create_private_dir, create_private_file, make_private};
use crate::run_store::RunStore;
use crate::session_lock::SessionLock;

pub use migrations::SCHEMA_VERSION;

/// How long a call waits for another process's write to finish before it
/// fails with [`StoreError::Busy`]. Writes are single small transactions, so
/// reaching it means a process is stuck, not busy.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// The WAL size, in pages, at which a commit checkpoints it into the
/// database (see `configure`).
const WAL_CHECKPOINT_PAGES: u32 = 128;

/// The SQLite store: one database file, with the per-run folders in `runs/`
/// next to it.
///
/// Opening sets, per connection: WAL journal mode (readers never block the
/// writer, and several agentgate processes can share the file),
/// `synchronous = NORMAL` (a committed write survives a crash of agentgate;
/// a power loss may lose the last ones), foreign keys on, and a busy timeout
/// of [`BUSY_TIMEOUT`]. Every write runs in a `BEGIN IMMEDIATE` transaction,
/// so concurrent writers queue on the lock instead of failing.
///
/// One connection per handle, behind a mutex: the handle is `Send + Sync`
/// and calls from several threads take turns. Open one handle per process
/// and share it.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Mutex<Connection>,
    path: PathBuf,
    runs_dir: PathBuf,
    /// See [`RunStore::event_log_bound`].
    event_log_bound: std::sync::atomic::AtomicU64,
}

impl SqliteStore {
    /// Opens the database at `path`, creating it and its folder if missing,
    /// and migrates it to [`SCHEMA_VERSION`]. The runs folder is `runs/` in
    /// the same folder.
    ///
    /// On Unix the store is private to the user whatever the umask: the
    /// data folder and `runs/` are mode 700 and the database 600 (SQLite
    /// gives its `-wal` and `-shm` files the database's mode); a folder or
    /// file found with more permissions loses them.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, StoreError> {
        let path = path.as_ref().to_path_buf();
        let dir = path.parent().unwrap_or(Path::new(""));
        if !dir.as_os_str().is_empty() {
            create_private_dir(dir)
                .and_then(|()| make_private(dir))
                .map_err(|source| StoreError::Io {
                    op: "create the data folder",
                    path: dir.to_path_buf(),
                    source,
                })?;
        }
        create_private_file(&path).map_err(|source| StoreError::Io {
            op: "create the database file",
            path: path.clone(),
            source,
        })?;
        for suffix in ["-wal", "-shm"] {
            let mut side = path.clone().into_os_string();
            side.push(suffix);
            let side = PathBuf::from(side);
            if side.exists() {
                make_private(&side).map_err(|source| StoreError::Io {
                    op: "make the database's side file private",
                    path: side.clone(),
                    source,
                })?;
            }
        }
        let mut conn = Connection::open(&path).map_err(|e| open_error(&path, e))?;
        configure(&conn).map_err(|e| open_error(&path, e))?;
        migrations::migrate(&mut conn, &path)?;
        let runs_dir = path.with_file_name("runs");
        create_private_dir(&runs_dir)
            .and_then(|()| make_private(&runs_dir))
            .map_err(|source| StoreError::Io {
                op: "create the runs folder",
                path: runs_dir.clone(),
                source,
            })?;
        Ok(Self {
            conn: Mutex::new(conn),
            path,
            runs_dir,
            event_log_bound: crate::DEFAULT_EVENT_LOG_MAX.into(),
        })
    }

    /// Opens the database at the default place (see
    /// [`crate::default_db_path`]): `$AGENTGATE_HOME/agentgate.db`, else
    /// `$XDG_DATA_HOME/agentgate/agentgate.db`, else
    /// `~/.local/share/agentgate/agentgate.db`.
    pub fn open_default() -> Result<Self, StoreError> {
        Self::open(default_db_path()?)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `f` in a read transaction: one consistent snapshot.
    fn read<T>(
        &self,
        op: &'static str,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, DbError>,
    ) -> Result<T, StoreError> {
        self.transaction(op, TransactionBehavior::Deferred, f)
    }

    /// Runs `f` in a `BEGIN IMMEDIATE` transaction: the write lock is taken
    /// (waiting up to the busy timeout) before anything is read, so the
    /// transaction can never fail half-way on a lock upgrade.
    fn write<T>(
        &self,
        op: &'static str,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, DbError>,
    ) -> Result<T, StoreError> {
        self.transaction(op, TransactionBehavior::Immediate, f)
    }

    fn transaction<T>(
        &self,
        op: &'static str,
        behavior: TransactionBehavior,
        f: impl FnOnce(&Transaction<'_>) -> Result<T, DbError>,
    ) -> Result<T, StoreError> {
        // A panic while holding the lock cannot leave a transaction open (the
        // transaction rolls back on drop), so a poisoned lock is safe to use.
        let mut conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        let run = || {
            let tx = conn.transaction_with_behavior(behavior)?;
            let value = f(&tx)?;
            tx.commit()?;
            Ok(value)
        };
        run().map_err(|e: DbError| e.into_store_error(op, &self.path))
    }
}

impl crate::usage::UsageReports for SqliteStore {
    fn usage_report(
        &self,
        query: &crate::usage::UsageQuery,
    ) -> Result<crate::usage::UsageReport, StoreError> {
        self.read("usage report", |tx| {
            crate::usage::assemble(query, |group| usage::usage_cells(tx, query, group))
        })
    }
}

impl RunStore for SqliteStore {
    fn token_store(&self) -> Option<&dyn crate::api_tokens::TokenStore> {
        Some(self)
    }

    fn event_log_bound(&self) -> u64 {
        self.event_log_bound
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    fn set_event_log_bound(&self, max_bytes: u64) {
        self.event_log_bound
            .store(max_bytes, std::sync::atomic::Ordering::Relaxed);
    }

    fn runs_dir(&self) -> &Path {
        &self.runs_dir
    }

    fn insert_run(&self, run: &RunRecord) -> Result<(), StoreError> {
        crate::run_id::validate_run_id(&run.run_id)?;
        let owner = crate::owner::RunOwner::current();
        self.write("insert run", |tx| runs::insert_run(tx, run, &owner))
    }

    fn finish_run(&self, run_id: &str, envelope: &Envelope) -> Result<(), StoreError> {
        self.write("finish run", |tx| {
            runs::finish_run(tx, run_id, envelope, jiff::Timestamp::now())
        })
    }

    fn reopen_run(&self, run_id: &str) -> Result<(), StoreError> {
        crate::run_id::validate_run_id(run_id)?;
        let me = crate::owner::RunOwner::current();
        self.write("reopen run", |tx| reopen::reopen_run(tx, run_id, &me))?
            .into_result(run_id, || StoreError::RunNotFound {
                op: "reopen run",
                run_id: run_id.to_owned(),
                path: self.path.clone(),
            })
    }

    fn list_runs_within(
        &self,
        labels: &agentgate_protocol::Labels,
        window: crate::TimeWindow,
        limit: usize,
        offset: usize,
    ) -> Result<RunList, StoreError> {
        self.read("list runs", |tx| {
            runs::list_runs(tx, labels, window, limit, offset)
        })
    }

    fn get_run(&self, run_id: &str) -> Result<Option<RunDetail>, StoreError> {
        self.read("read run", |tx| runs::get_run(tx, run_id))
    }

    fn find_run(&self, prefix: &str) -> Result<Option<RunDetail>, StoreError> {
        crate::run_id::validate_run_id(prefix)?;
        match self.read("find run", |tx| runs::find_run(tx, prefix))? {
            runs::Found::One(detail) => Ok(Some(*detail)),
            runs::Found::None => Ok(None),
            runs::Found::Several { candidates, more } => Err(StoreError::AmbiguousRunId {
                prefix: prefix.to_owned(),
                candidates,
                more,
            }),
        }
    }

    fn insert_attempt(&self, run_id: &str, attempt: &AttemptRecord) -> Result<(), StoreError> {
        self.write("insert attempt", |tx| {
            runs::insert_attempt(tx, run_id, attempt)
        })
    }

    fn try_lock_session(&self, name: &str) -> Result<Option<SessionLock>, StoreError> {
        session_locks::try_lock(&self.path.with_file_name("locks"), name)
    }

    fn get_session(&self, name: &str, provider: &str) -> Result<Option<SessionRecord>, StoreError> {
        self.read("read session", |tx| sessions::get(tx, name, provider))
    }

    fn put_session(&self, session: &SessionRecord) -> Result<(), StoreError> {
        self.write("store session", |tx| sessions::put(tx, session))
    }

    fn delete_session(&self, name: &str, provider: &str) -> Result<bool, StoreError> {
        self.write("delete session", |tx| sessions::delete(tx, name, provider))
    }

    fn list_sessions(&self) -> Result<Vec<SessionRecord>, StoreError> {
        self.read("list sessions", |tx| sessions::list(tx))
    }

    fn add_session_rotation(&self, rotation: &SessionRotation) -> Result<(), StoreError> {
        self.write("store session rotation", |tx| {
            sessions::add_rotation(tx, rotation)
        })
    }

    fn list_session_rotations(
        &self,
        name: Option<&str>,
    ) -> Result<Vec<SessionRotation>, StoreError> {
        self.read("list session rotations", |tx| {
            sessions::list_rotations(tx, name)
        })
    }

    fn spent(
        &self,
        scope: &crate::spend::SpendScope,
        since: jiff::Timestamp,
    ) -> Result<crate::spend::Spent, StoreError> {
        self.read("spend", |tx| spend::spent(tx, scope, since))
    }

    fn get_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
    ) -> Result<Option<Usage>, StoreError> {
        self.read("read thread totals", |tx| {
            thread_totals::get(tx, provider, thread_id)
        })
    }

    fn put_thread_totals(
        &self,
        provider: &str,
        thread_id: &str,
        totals: &Usage,
    ) -> Result<(), StoreError> {
        self.write("store thread totals", |tx| {
            thread_totals::put(tx, provider, thread_id, totals, jiff::Timestamp::now())
        })
    }

    fn put_quota(&self, provider: &str, state: &QuotaState) -> Result<(), StoreError> {
        self.write("store quota state", |tx| quota::put(tx, provider, state))
    }

    fn get_quota(&self, provider: &str) -> Result<Option<QuotaState>, StoreError> {
        self.read("read quota state", |tx| quota::get(tx, provider))
    }

    fn list_quota(&self) -> Result<Vec<(String, QuotaState)>, StoreError> {
        self.read("list quota states", |tx| quota::list(tx))
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    // First, so that the statements below wait for a lock rather than fail.
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // WAL is a property of the file, kept across opens. A file system
    // without shared memory (some network mounts) refuses it and keeps the
    // rollback journal: still correct, only more locking.
    //
    // Switching a new file to WAL while another connection does the same can
    // report SQLITE_BUSY without consulting the busy handler, so retry that
    // step ourselves, bounded by the same timeout.
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn
            .pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get::<_, String>(0))
        {
            Ok(_mode) => break,
            Err(e)
                if matches!(
                    e.sqlite_error_code(),
                    Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)
                ) && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => return Err(e),
        }
    }
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    // Each agentgate process is short-lived and usually holds the only
    // connection: by default its close would checkpoint the WAL into the
    // database, fsync both and delete the WAL, for the next process to
    // create it again (four fsyncs and a delete per run, most of the
    // store's cost). Keep the WAL, bounded by the automatic checkpoint.
    //
    // The bound is a trade: the first connection of every process rebuilds
    // the WAL index by reading the whole WAL, while a checkpoint costs two
    // fsyncs. A run writes about 8 pages, so with SQLite's default of 1000
    // pages an open read up to 4 MB (about 1 ms, on the critical path of
    // every run); at [`WAL_CHECKPOINT_PAGES`] it reads at most half a
    // megabyte (about 0.4 ms) and one run in about sixteen pays the
    // checkpoint.
    conn.pragma_update(None, "wal_autocheckpoint", WAL_CHECKPOINT_PAGES)?;
    conn.set_db_config(
        rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
        true,
    )?;
    let mut persist = 1;
    conn.file_control(
        Some(rusqlite::MAIN_DB),
        rusqlite::FileControl::PersistWal(&mut persist),
    )?;
    conn.pragma_update(None, "foreign_keys", true)
}

/// Errors inside a store call, before they get the call's name and path.
#[derive(Debug)]
pub(crate) enum DbError {
    Sql(rusqlite::Error),
    Json {
        op: &'static str,
        source: serde_json::Error,
    },
    Invalid {
        column: &'static str,
        value: String,
    },
    RunNotFound(String),
    JobNotFound(String),
    JobExists(String),
    LeaseLost(String),
}

impl From<rusqlite::Error> for DbError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Sql(error)
    }
}

impl DbError {
    fn into_store_error(self, op: &'static str, path: &Path) -> StoreError {
        let path = path.to_path_buf();
        match self {
            Self::Sql(source) => sql_error(op, path, source),
            Self::Json { op, source } => StoreError::Json { op, path, source },
            Self::Invalid { column, value } => StoreError::InvalidValue {
                op,
                path,
                column,
                value,
            },
            Self::RunNotFound(run_id) => StoreError::RunNotFound { op, run_id, path },
            Self::JobNotFound(job_id) => StoreError::JobNotFound { op, job_id, path },
            Self::JobExists(job_id) => StoreError::JobExists { job_id, path },
            Self::LeaseLost(job_id) => StoreError::LeaseLost { op, job_id },
        }
    }
}

fn sql_error(op: &'static str, path: PathBuf, source: rusqlite::Error) -> StoreError {
    match source.sqlite_error_code() {
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            StoreError::Corrupt { path, source }
        }
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy {
            op,
            path,
            timeout_s: BUSY_TIMEOUT.as_secs(),
        },
        _ => StoreError::Sql { op, path, source },
    }
}

/// The error for a failure while opening: damage and lock timeouts get
/// their own advice.
pub(crate) fn open_error(path: &Path, source: rusqlite::Error) -> StoreError {
    match sql_error("open", path.to_path_buf(), source) {
        StoreError::Sql { path, source, .. } => StoreError::Open { path, source },
        other => other,
    }
}
