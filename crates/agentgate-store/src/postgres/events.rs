//! Run events in the `run_events` table: one row per event, the JSON line
//! exactly as `serde_json::to_string` wrote it, so any host can read or
//! follow any run.
//!
//! ## Writing without a round trip per event
//!
//! [`PgStore::create_run_files`](crate::RunStore::create_run_files) hands
//! the run a [`PgEventSink`]. `write_event` encodes the event and sends the
//! line down an unbounded channel to a writer task on the store's runtime;
//! it never waits for the database. The task takes whatever has arrived
//! since its last batch (at most [`MAX_BATCH`] lines) and stores it with one
//! `INSERT … SELECT … FROM unnest(…)`, its own transaction, in arrival
//! (`seq`) order. While a batch is on the wire the next one gathers, so
//! 1000 events written at once cost a handful of round trips rather than
//! 1000 (the `batches_*` test pins it: 1000 events arriving while the first
//! insert waits are stored by at most 2 inserts).
//!
//! `sync` sends a marker down the same channel and waits until the task has
//! committed everything before it. A failed insert is kept: the next
//! `write_event` or `sync` returns it, and every later one too (the events
//! of the failed batch are lost, so a later one would leave a gap in `seq`).
//! Events written but not yet synced are lost if the store is dropped or the
//! process dies first; the run engine syncs at the end of a run.
//!
//! ## Telling followers
//!
//! Once a batch is committed the task rings the run's bell in this process
//! ([`crate::bells::ring_events`]), and the same statement that stores it
//! notifies `agentgate_events` with `<process tag>:<run id>` for the
//! followers of other processes (`events_listen.rs`): one notification per
//! batch, delivered at its commit. The sink marks the run
//! [`crate::bells::written_here`] while it lives.

use std::sync::{Arc, Mutex, PoisonError};

use agentgate_protocol::{Event, MAX_LINE_BYTES};
use deadpool_postgres::Pool;
use tokio::sync::mpsc;

use super::values::{clamp_bigint, from_bigint, to_bigint};
use super::{PgError, PgStore, describe_sql_error};
use crate::error::StoreError;
use crate::event_log::{EventLog, PREFIX_BYTES, oversize_note};
use crate::run_files::EventLogWriter;
use crate::run_store::EventLine;

/// The most events one insert stores.
pub(super) const MAX_BATCH: usize = 1000;

/// What the writer task receives.
enum Message {
    Line {
        seq: i64,
        line: String,
    },
    /// Answer once everything before it is committed.
    Sync(std::sync::mpsc::SyncSender<()>),
}

/// The event log of one run on PostgreSQL. See the module doc.
#[derive(Debug)]
pub(super) struct PgEventSink {
    run_id: String,
    database: String,
    sender: mpsc::UnboundedSender<Message>,
    /// The first failed insert's message, kept for every later call.
    failed: Arc<Mutex<Option<String>>>,
    _mark: crate::bells::WriterMark,
}

impl std::fmt::Debug for Message {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Message::Line { seq, .. } => write!(f, "Line({seq})"),
            Message::Sync(_) => f.write_str("Sync"),
        }
    }
}

impl PgEventSink {
    /// A sink for `run_id`'s events, its writer task started on the store's
    /// runtime.
    pub(super) fn start(store: &PgStore, run_id: &str) -> PgEventSink {
        let (sender, receiver) = mpsc::unbounded_channel();
        let failed = Arc::new(Mutex::new(None));
        store.handle().spawn(write_batches(
            store.pool().clone(),
            run_id.to_owned(),
            receiver,
            Arc::clone(&failed),
        ));
        PgEventSink {
            run_id: run_id.to_owned(),
            database: store.database().to_owned(),
            sender,
            failed,
            _mark: crate::bells::WriterMark::new(run_id),
        }
    }

    fn error(&self, message: String) -> StoreError {
        StoreError::Postgres {
            op: "store the run's events",
            database: self.database.clone(),
            message: format!("run `{}`: {message}", self.run_id),
        }
    }

    /// The kept failure, if an insert failed.
    fn check(&self) -> Result<(), StoreError> {
        let failed = self.failed.lock().unwrap_or_else(PoisonError::into_inner);
        match failed.as_ref() {
            Some(message) => Err(self.error(message.clone())),
            None => Ok(()),
        }
    }

    fn send(&self, message: Message) -> Result<(), StoreError> {
        self.sender
            .send(message)
            .map_err(|_| self.error("the store's event writer stopped".to_owned()))
    }
}

impl EventLogWriter for PgEventSink {
    fn write_event(&mut self, event: &Event) -> Result<u64, StoreError> {
        self.check()?;
        let encode = |source| StoreError::EncodeEvent {
            path: self.database.clone().into(),
            source,
        };
        let line = crate::run_files::event_line(event).map_err(encode)?;
        let seq = to_bigint("run_events.seq", event.seq)
            .map_err(|e| e.into_store_error("store the run's events", &self.database))?;
        let written = line.len() as u64 + 1;
        self.send(Message::Line { seq, line })?;
        Ok(written)
    }

    fn flush(&mut self) -> Result<(), StoreError> {
        // Committed is as durable as this backend gets.
        self.sync()
    }

    fn sync(&mut self) -> Result<(), StoreError> {
        let (tx, rx) = std::sync::mpsc::sync_channel(1);
        self.send(Message::Sync(tx))?;
        // The task answers after its commit; it drops the sender unanswered
        // only if the runtime stops.
        rx.recv()
            .map_err(|_| self.error("the store's event writer stopped".to_owned()))?;
        self.check()
    }
}

/// The writer task: batches until every sender is gone.
async fn write_batches(
    pool: Pool,
    run_id: String,
    mut receiver: mpsc::UnboundedReceiver<Message>,
    failed: Arc<Mutex<Option<String>>>,
) {
    let mut seqs: Vec<i64> = Vec::new();
    let mut lines: Vec<String> = Vec::new();
    let mut syncs = Vec::new();
    while let Some(first) = receiver.recv().await {
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Line { seq, line } => {
                    seqs.push(seq);
                    lines.push(line);
                }
                Message::Sync(reply) => syncs.push(reply),
            }
            if seqs.len() < MAX_BATCH {
                next = receiver.try_recv().ok();
            }
        }
        let broken = failed
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some();
        if !seqs.is_empty() && !broken {
            match insert_batch(&pool, &run_id, &seqs, &lines).await {
                // Committed: readable by every follower now.
                Ok(()) => crate::bells::ring_events(&run_id),
                Err(message) => {
                    *failed.lock().unwrap_or_else(PoisonError::into_inner) = Some(message);
                }
            }
        }
        seqs.clear();
        lines.clear();
        for reply in syncs.drain(..) {
            // The syncing caller may be gone; no one else needs the answer.
            let _ = reply.send(());
        }
    }
}

/// Stores one batch in one statement (and one transaction), which also
/// notifies [`EVENTS_CHANNEL`](super::EVENTS_CHANNEL) at its commit.
async fn insert_batch(
    pool: &Pool,
    run_id: &str,
    seqs: &[i64],
    lines: &[String],
) -> Result<(), String> {
    let client = pool.get().await.map_err(|e| e.to_string())?;
    let payload = super::events_listen::events_payload(run_id);
    client
        .execute(
            "WITH stored AS (INSERT INTO run_events (run_id, seq, line) \
             SELECT $1, seq, line FROM unnest($2::bigint[], $3::text[]) AS e (seq, line) \
             RETURNING 1) \
             SELECT pg_notify('agentgate_events', $4) WHERE EXISTS (SELECT 1 FROM stored)",
            &[&run_id, &seqs, &lines, &payload],
        )
        .await
        .map_err(|e| describe_sql_error(&e))?;
    Ok(())
}

/// The run's events above `after`, in `seq` order, at most `limit`.
pub(super) fn read_event_lines(
    store: &PgStore,
    run_id: &str,
    after: Option<u64>,
    limit: usize,
) -> Result<Vec<EventLine>, StoreError> {
    crate::run_id::validate_run_id(run_id)?;
    // Nothing is stored above i64::MAX.
    let after = match after.map(i64::try_from) {
        None => -1,
        Some(Ok(after)) => after,
        Some(Err(_)) => return Ok(Vec::new()),
    };
    let run_id = run_id.to_owned();
    let limit = clamp_bigint(limit);
    store.call("read the run's events", move |client| {
        Box::pin(async move {
            // A row over the line limit (written before it held) is not
            // fetched whole: its start names the note that stands for it.
            // Both are `integer`s to the database (as `octet_length` is).
            let max = i32::try_from(MAX_LINE_BYTES).unwrap_or(i32::MAX);
            let prefix = i32::try_from(PREFIX_BYTES).unwrap_or(i32::MAX);
            let rows = client
                .query(
                    "SELECT seq, CASE WHEN octet_length(line) <= $4 THEN line END, \
                     octet_length(line)::bigint, \
                     CASE WHEN octet_length(line) > $4 THEN left(line, $5) END \
                     FROM run_events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3",
                    &[&run_id, &after, &limit, &max, &prefix],
                )
                .await?;
            let mut lines = Vec::with_capacity(rows.len());
            for row in &rows {
                let seq = from_bigint("run_events.seq", row.try_get(0)?)?;
                let line = match row.try_get::<_, Option<String>>(1)? {
                    Some(line) => line,
                    None => {
                        let total = from_bigint("run_events.line", row.try_get(2)?)?;
                        let start: String =
                            row.try_get::<_, Option<String>>(3)?.unwrap_or_default();
                        let Some(note) = oversize_note(start.as_bytes(), total) else {
                            continue;
                        };
                        serde_json::to_string(&note).map_err(|source| PgError::Json {
                            op: "encode the note of an over-long event",
                            source,
                        })?
                    }
                };
                lines.push(EventLine { seq, line });
            }
            Ok(lines)
        })
    })
}

/// The `seq` the run's next event takes: the highest stored plus one, 0
/// when it has none.
pub(super) fn next_seq(store: &PgStore, run_id: &str) -> Result<u64, StoreError> {
    let run_id = run_id.to_owned();
    store.call("read the run's last event", move |client| {
        Box::pin(async move {
            let highest: Option<i64> = client
                .query_one(
                    "SELECT max(seq) FROM run_events WHERE run_id = $1",
                    &[&run_id],
                )
                .await?
                .try_get(0)?;
            match highest {
                None => Ok(0),
                // A bigint's highest plus one always fits a u64.
                Some(highest) => Ok(from_bigint("run_events.seq", highest)? + 1),
            }
        })
    })
}

/// Every event of the run, parsed. Types this version does not know are
/// kept (`EventBody::Unknown`), as the file reader keeps them; a row that is
/// not an event at all is [`StoreError::BadEventLine`], numbered from 1 in
/// `seq` order. A run with no events has an empty log.
pub(super) fn read_events(store: &PgStore, run_id: &str) -> Result<EventLog, StoreError> {
    let lines = read_event_lines(store, run_id, None, usize::MAX)?;
    let mut events = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let event = serde_json::from_str::<Event>(&line.line).map_err(|source| {
            StoreError::BadEventLine {
                path: format!("{} (run_events of `{run_id}`)", store.database()).into(),
                line: i + 1,
                source,
            }
        })?;
        events.push(event);
    }
    Ok(EventLog {
        events,
        truncated_tail: None,
    })
}
