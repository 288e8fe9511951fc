//! agentgate's run store: what agentgate remembers between runs.
//!
//! - [`RunStore`]: the operations, one trait for every backend: runs and
//!   their attempts, sessions (logical name ↔ provider-native id), cumulative
//!   token totals of provider threads, quota states.
//! - [`SqliteStore`] (alias [`Store`]): the embedded default, one SQLite file
//!   in WAL mode at [`default_db_path`]. A PostgreSQL backend will implement
//!   the same trait.
//! - [`RunFiles`]: a run's folder, `runs/<run_id>/` next to the database,
//!   with `events.jsonl` (the run's events, one per line) and `stderr.log`
//!   (the provider CLIs' stderr, raw): the audit trail.
//!   [`RunStore::read_events`] reads the events back;
//!   [`RunStore::reopen_run`] and [`RunStore::reopen_run_files`] let a later
//!   process continue a run that ended or was abandoned.
//! - [`SavedResult`] and [`Settlement`]: a run's end kept beside the run
//!   (`result.json`) and written with its job's end in one transaction
//!   ([`JobQueue::settle`]), so a finished result is never thrown away and
//!   a job's state always agrees with its last run's.
//! - [`records`](RunRecord): the plain structs stored and returned.
//! - [`JobQueue`]: the queue `agentgate serve` executes runs from: jobs
//!   with priorities, leases and idempotency keys (see its module doc for
//!   the rules and how the claim works).
//! - [`QueueWatcher`]: the queue's changes as other processes make them
//!   ([`JobQueue::watch_queue`], PostgreSQL's `LISTEN`).
//! - [`bells`]: "run X has new events", "job X changed", rung in this
//!   process by the event writers (and by the PostgreSQL listener for
//!   other processes' writes), so a run's followers wait instead of poll.
//! - [`WorkerRegistry`]: worker presence, which executors share the store
//!   and what each runs now (see its module doc).
//! - [`SessionLock`]: one run at a time per session name
//!   ([`RunStore::try_lock_session`]).
//! - [`RunOwner`]: who runs a running run; a run whose owner died reads as
//!   [`RunStatus::Abandoned`].
//!
//! - [`WebhookOutbox`]: the webhook deliveries `serve` sends, written when
//!   their event happens, leased by one process at a time, and their
//!   attempts.
//! - [`UsageReports`]: what the stored runs spent, by day, week or month
//!   and one dimension ([`UsageQuery`] -> [`UsageReport`]).
//!
//! - [`TokenStore`]: the API tokens of `agentgate serve` (hashed, with
//!   scopes and teams) and who submitted each job.
//!
//! - [`store_choice`]: which store a command uses (`--store`,
//!   `AGENTGATE_STORE`, the config's `store:`, the default SQLite file).
//!
//! Every call is synchronous and returns [`StoreError`], which names the
//! file involved and, where it helps, what to do next.

#![warn(missing_docs)]
// Without a backend (the engine's build: `default-features = false`) the
// store is its types, traits and file formats; the helpers the backends
// share (leases, claims, cursors) have no caller.
#![cfg_attr(
    not(any(feature = "sqlite", feature = "postgres")),
    expect(
        dead_code,
        reason = "the backends' shared helpers are unused in a build without a backend"
    )
)]

mod api_tokens;
mod backend;
pub mod bells;
mod claim_next;
mod error;
mod event_log;
mod job_queue;
mod jobs;
mod lease;
mod listing;
mod location;
mod owner;
#[cfg(feature = "postgres")]
mod postgres;
mod queue_watch;
mod records;
mod redact;
mod reopen;
mod run_files;
mod run_id;
mod run_store;
mod session_lock;
mod settle;
mod spend;
#[cfg(feature = "sqlite")]
mod sqlite;
pub mod store_choice;
mod time_window;
mod usage;
mod webhooks;
mod workers;

pub use api_tokens::{
    ApiTokenRecord, CreateTokenError, NewApiToken, RESERVED_LABEL_PREFIX, SERVER_TOKEN_NAME,
    SUBMITTER_TEAM_LABEL, SUBMITTER_TOKEN_LABEL, Scope, SpendLimits, Submitter, TOKEN_PREFIX,
    TokenBudget, TokenLimits, TokenStore, UnknownScope, check_token_name, create_api_token,
    generate_token, hash_token, hashes_equal, parse_expiry,
};
pub use backend::{StoreBackend, StoreLocation, open_store};
pub use claim_next::{ClaimLimits, NextClaim};
pub use error::StoreError;
pub use event_log::{EventLog, PREFIX_BYTES, TruncatedTail, oversize_note};
pub use job_queue::JobQueue;
pub use jobs::{
    ActiveJobCount, CancelOutcome, ClaimedJob, Enqueued, ExpiredJob, ExpiryPolicy, FinalState,
    Heartbeat, InvalidCursor, JobCounts, JobCursor, JobFilter, JobOutcome, JobPage, JobRecord,
    JobState, LeaseToken, NewJob, PlannedFacts,
};
pub use listing::{RunList, UnreadableRow};
pub use location::{DB_FILE_NAME, default_db_path};
pub use owner::{OwnerState, RunOwner};
#[cfg(feature = "postgres")]
pub use postgres::{
    EVENTS_CHANNEL, JOBS_CHANNEL, PG_SCHEMA_VERSION, PgOptions, PgStore, WAKE_CHANNEL_PREFIX,
};
pub use queue_watch::{QueueChange, QueueNotice, QueueWatcher, WatchEnded, parse_payload};
pub use records::{
    AttemptRecord, QuotaState, QuotaStatus, RunDetail, RunKind, RunRecord, RunStatus, RunSummary,
    SessionRecord, SessionRotation, UnknownName, effective_status,
};
pub use redact::redact_url;
pub use run_files::{
    DEFAULT_EVENT_LOG_MAX, EVENTS_FILE_NAME, EventLogWriter, EventsWriter, RunFiles,
    STDERR_FILE_NAME, StderrWriter, kept_past_log_bound,
};
pub use run_id::{MAX_RUN_ID_LEN, validate_run_id};
pub use run_store::{AMBIGUOUS_CANDIDATES_SHOWN, EventLine, RunStore};
pub use session_lock::{SessionLock, lock_file_name};
pub use settle::{AfterRun, RESULT_FILE_NAME, SavedResult, Settlement};
pub use spend::{SpendScope, Spent};
#[cfg(feature = "sqlite")]
pub use sqlite::{BUSY_TIMEOUT, SCHEMA_VERSION, SqliteStore};
pub use time_window::{TimeWindow, TimeWindowError, parse_since, parse_until};
pub use usage::{
    UsageBucket, UsageFigures, UsageGroup, UsageParamError, UsageQuery, UsageReport, UsageReports,
    UsageRow,
};
pub use webhooks::{
    AfterAttempt, ClaimedDelivery, DeliveryAttempt, DeliveryFilter, DeliveryRecord, DeliveryState,
    NewWebhookDelivery, WebhookOutbox,
};
pub use workers::{
    LOST_AFTER_BEATS, PRUNE_AFTER, Presence, WorkerKind, WorkerRecord, WorkerRegistry, WorkerState,
};

/// The default store: SQLite.
#[cfg(feature = "sqlite")]
pub type Store = SqliteStore;
