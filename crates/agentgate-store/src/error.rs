//! The store's one error type.

use std::io;
use std::path::PathBuf;

/// What went wrong in the store: each variant says what failed, on which
/// file, and where it helps, what to do next.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// No folder to put the store in.
    #[error(
        "failed to locate agentgate's data folder: none of AGENTGATE_HOME, XDG_DATA_HOME or \
         HOME is set; set AGENTGATE_HOME to a writable folder"
    )]
    NoDataDir,

    /// A file or folder operation failed.
    #[error("failed to {op} {}: {source}", path.display())]
    Io {
        /// What was being done, e.g. `create the run folder`.
        op: &'static str,
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },

    #[cfg(feature = "sqlite")]
    /// The database could not be opened.
    #[error(
        "failed to open the run store {}: {source}; check that the file and its folder are \
         readable and writable, or set AGENTGATE_HOME to use another folder",
        path.display()
    )]
    Open {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },

    #[cfg(feature = "sqlite")]
    /// The file is not a SQLite database, or a damaged one.
    #[error(
        "the run store {} is damaged or is not a SQLite database ({source}); move it aside \
         (e.g. `mv {0} {0}.broken`, with its -wal and -shm files) and agentgate will start a \
         new, empty one",
        path.display()
    )]
    Corrupt {
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },

    /// The database was written by a newer agentgate.
    #[error(
        "failed to use the run store {}: its schema version {found} is newer than this \
         agentgate knows ({supported}); upgrade agentgate, or set AGENTGATE_HOME to use another \
         folder",
        path.display()
    )]
    TooNew {
        /// The database file.
        path: PathBuf,
        /// The schema version found in the file.
        found: i64,
        /// The newest schema version this build knows.
        supported: i64,
    },

    #[cfg(feature = "sqlite")]
    /// A schema migration failed; the database is left at `from`.
    #[error(
        "failed to migrate the run store {} from schema version {from} to {to}: {source}",
        path.display()
    )]
    Migrate {
        /// The database file.
        path: PathBuf,
        /// The version the file had.
        from: i64,
        /// The version the failed step leads to.
        to: i64,
        /// The cause.
        source: rusqlite::Error,
    },

    /// Another process held the database locked for longer than the busy
    /// timeout.
    #[error(
        "failed to {op} in the run store {}: the database stayed locked by another process \
         for longer than {timeout_s} s; retry, and check for a hung agentgate process",
        path.display()
    )]
    Busy {
        /// What was being done, e.g. `insert run`.
        op: &'static str,
        /// The database file.
        path: PathBuf,
        /// The busy timeout, in seconds.
        timeout_s: u64,
    },

    #[cfg(feature = "sqlite")]
    /// A query failed.
    #[error("failed to {op} in the run store {}: {source}", path.display())]
    Sql {
        /// What was being done, e.g. `insert run`.
        op: &'static str,
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: rusqlite::Error,
    },

    /// A PostgreSQL call failed: no connection, a query refused, a timeout.
    #[error("failed to {op} in the run store {database}: {message}")]
    Postgres {
        /// What was being done, e.g. `insert run`.
        op: &'static str,
        /// The database's URL, without its password.
        database: String,
        /// The server's or the driver's message.
        message: String,
    },

    /// A store named by `--store`, `AGENTGATE_STORE` or the config's
    /// `store:` that agentgate cannot use as given.
    #[error("invalid store `{store}`: {reason}")]
    InvalidStore {
        /// The store as given, without a password.
        store: String,
        /// What is wrong, and what would be right.
        reason: String,
    },

    /// A stored value this version cannot read.
    #[error(
        "failed to {op} in the run store {}: column `{column}` holds `{value}`, which this \
         agentgate does not understand; upgrade agentgate",
        path.display()
    )]
    InvalidValue {
        /// What was being done.
        op: &'static str,
        /// The database file.
        path: PathBuf,
        /// The table and column, e.g. `runs.status`.
        column: &'static str,
        /// The stored value.
        value: String,
    },

    /// A JSON value could not be written or read.
    #[error("failed to {op} in the run store {}: {source}", path.display())]
    Json {
        /// What was being done, e.g. `encode the envelope`.
        op: &'static str,
        /// The database file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },

    /// The run does not exist.
    #[error(
        "failed to {op}: there is no run `{run_id}` in the run store {}; insert the run first",
        path.display()
    )]
    RunNotFound {
        /// What was being done.
        op: &'static str,
        /// The run id.
        run_id: String,
        /// The database file.
        path: PathBuf,
    },

    /// The run cannot be reopened: it is running, and its owner process is
    /// alive (or runs on another host, where it cannot be checked, or was
    /// never recorded).
    #[error(
        "failed to reopen run `{run_id}`: it is still running, owned by {owner}; wait for it \
         to end (or for that process to die) and reopen it then"
    )]
    RunStillRunning {
        /// The run id.
        run_id: String,
        /// Who runs it, e.g. `pid 123 on host build-1`.
        owner: String,
    },

    /// The run changed between the read and the write of a reopen, and is
    /// not running now (another process finished it, or changed it back):
    /// nothing was written.
    #[error(
        "failed to reopen run `{run_id}`: it changed while it was being reopened (another \
         process wrote it at the same time); read it again and retry"
    )]
    RunChangedWhileReopening {
        /// The run id.
        run_id: String,
    },

    /// The job does not exist.
    #[error(
        "failed to {op}: there is no job `{job_id}` in the run store {}",
        path.display()
    )]
    JobNotFound {
        /// What was being done.
        op: &'static str,
        /// The job id.
        job_id: String,
        /// The database file.
        path: PathBuf,
    },

    /// A job with this id was enqueued before.
    #[error(
        "failed to enqueue job `{job_id}` in the run store {}: a job with this id exists; \
         job ids must be unique, so enqueue with a new one",
        path.display()
    )]
    JobExists {
        /// The job id.
        job_id: String,
        /// The database file.
        path: PathBuf,
    },

    /// The job is no longer running under the lease token given: its lease
    /// expired and was taken back, or the job ended. The executor must stop
    /// working on it and write nothing more.
    #[error(
        "failed to {op}: job `{job_id}` is no longer held by this lease (it expired and was \
         taken back, or the job ended); stop working on it"
    )]
    LeaseLost {
        /// What was being done, e.g. `finish job`.
        op: &'static str,
        /// The job id.
        job_id: String,
    },

    /// A lease duration the store cannot use.
    #[error(
        "invalid lease duration {duration:?}: give a duration above zero and under a few \
         years"
    )]
    InvalidLease {
        /// The duration given.
        duration: std::time::Duration,
    },

    /// The operating system gave no random bits (a lease token, an API token).
    #[error("failed to draw random bits from the operating system's random source: {source}")]
    Random {
        /// The cause.
        source: io::Error,
    },

    /// A run id prefix matches several runs.
    #[error(
        "run id prefix `{prefix}` is ambiguous: it matches {}; give more characters",
        candidates_text(candidates, *more)
    )]
    AmbiguousRunId {
        /// The prefix given.
        prefix: String,
        /// The matching run ids, at most [`crate::AMBIGUOUS_CANDIDATES_SHOWN`],
        /// sorted.
        candidates: Vec<String>,
        /// Whether more runs matched than `candidates` lists.
        more: bool,
    },

    /// A run id (or prefix) with characters a run id cannot have.
    #[error(
        "invalid run id `{run_id}`: {reason}; run ids have 1 to {max_len} letters, digits, \
         `-`, `_` or `.`, and do not start with `.`"
    )]
    InvalidRunId {
        /// The id given.
        run_id: String,
        /// What is wrong with it.
        reason: &'static str,
        /// The longest id accepted, in bytes.
        max_len: usize,
    },

    /// A line of an events file, other than a truncated last line, is not an
    /// event.
    #[error(
        "failed to read the events of a run: line {line} of {} is not a valid event ({source}); \
         the file was modified or damaged",
        path.display()
    )]
    BadEventLine {
        /// The events file.
        path: PathBuf,
        /// The line number, from 1.
        line: usize,
        /// The cause.
        source: serde_json::Error,
    },

    /// An event could not be encoded for the events file.
    #[error("failed to encode an event for {}: {source}", path.display())]
    EncodeEvent {
        /// The events file.
        path: PathBuf,
        /// The cause.
        source: serde_json::Error,
    },

    /// The run's folder already holds an events file.
    #[error(
        "failed to create the files of run `{run_id}`: {} already exists; run ids must be \
         unique, so this run id was used before",
        path.display()
    )]
    RunFilesExist {
        /// The run id.
        run_id: String,
        /// The existing events file.
        path: PathBuf,
    },
}

fn candidates_text(candidates: &[String], more: bool) -> String {
    let mut text = candidates.join(", ");
    if more {
        text.push_str(" and more");
    }
    text
}
