//! `GET /v1/runs/{id}/events`: a run's protocol events as Server-Sent
//! Events, replayed from its `events.jsonl` and followed live.
//!
//! ## One stream
//!
//! Each client gets a follower task that reads the run's `events.jsonl`
//! (`RunStore::events_path`) and sends one SSE message per complete line:
//! `id:` the event's `seq`, `data:` the line exactly as written (no
//! `event:` field, so `EventSource.onmessage` sees them). With a
//! `Last-Event-ID` header only events with a larger `seq` are sent. The
//! stream ends after the `result` event.
//!
//! The writer is whoever runs the run (an executor, or an `agentgate run`
//! in another process), so the follower polls: it reads what the file has,
//! keeps a line without its newline until the rest arrives, sleeps
//! [`EventStreamOptions::poll`](crate::EventStreamOptions::poll), reads again. A queued run has no file yet:
//! the follower waits for it.
//!
//! A store that keeps events in a table (PostgreSQL: any host's runs, any
//! host's server) has no file ([`RunStore::events_file`] is `None`): the
//! follower polls [`RunStore::read_event_lines`] for the lines after the
//! last seq it sent, the same lines the file would hold.
//!
//! ## A job that runs again
//!
//! A job runs again after a recoverable failure (a retry), a quota wait or
//! a restart, each time as a new run (`ID.2`, `ID.3`, ...). Its stream
//! follows them in turn: after a run's `result`, while the job is queued
//! again, one `event: requeued` message (no `id:`; data: the job's
//! `run_id`, `status`, `attempts`, `waiting_for`, `not_before`, `error`),
//! then the next run's events. Message ids keep increasing across the
//! runs: a later run's event has the id of its `seq` plus one more than
//! the last id of the run before, so `Last-Event-ID` resumes anywhere. The
//! first run's ids are its seqs. The stream ends once the job is final:
//! after its last `result`, or with `end`. A workflow job runs again in
//! its own run (a resume): its events continue the same file after the
//! `requeued` message, ids still their seqs.
//!
//! ## The end, with or without a `result` event
//!
//! A run can end without a `result` line: a job cancelled while queued or
//! abandoned before it ran, or a process killed mid-run. So every
//! [`EventStreamOptions::status_every`](crate::EventStreamOptions::status_every) the follower asks the store whether
//! the run ended (the job's state; for a run that is not a job, the run's
//! status), *before* reading the file: a run seen ended has written all it
//! will write, so once that read is done without a `result` the stream
//! ends with one last message, `event: end`, whose data is a
//! [`StreamEnd`] (status, error, envelope if any), without an `id:`. It is
//! not a protocol event: the `id:`ed messages are exactly the file's lines.
//!
//! ## Bounds
//!
//! Memory per client: one read buffer ([`READ_CHUNK`]), the incomplete last
//! line (at most [`MAX_LINE`]: a longer one, which agentgate never writes,
//! is read past and sent as a `log` note with its `seq` and size) and a
//! channel of
//! [`BUFFERED_MESSAGES`]: a slow client slows its own follower only. Idle
//! streams get a `: keep-alive` comment every
//! [`EventStreamOptions::keep_alive`](crate::EventStreamOptions::keep_alive). A client that goes away stops its
//! follower at the next send or poll; at shutdown every stream ends.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use agentgate_store::{RunStatus, RunStore, validate_run_id};
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use serde::Deserialize;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use crate::error::ApiError;
use crate::state::AppState;
use crate::views::StreamEnd;

mod pending;

use pending::{Pending, Whole};

/// Messages buffered per client before its follower waits.
pub const BUFFERED_MESSAGES: usize = 32;
/// Bytes read from the file at a time.
pub const READ_CHUNK: usize = 16 * 1024;
/// Event lines read from the store's table at a time.
const TABLE_BATCH: usize = 256;
/// The longest line a stream carries: the one line limit. agentgate writes
/// no longer line; one in an older log is sent as the note that stands
/// for it ([`agentgate_store::oversize_note`]), never held whole.
pub const MAX_LINE: usize = agentgate_protocol::MAX_LINE_BYTES;

type Message = Result<Event, Infallible>;

/// `GET /v1/runs/{id}/events`: the run's events as Server-Sent Events,
/// from the first or after `Last-Event-ID`, live until the `result` event.
#[utoipa::path(
    get,
    path = "/v1/runs/{id}/events",
    tag = "runs",
    params(
        ("id" = String, Path, description = "The run's id"),
        ("Last-Event-ID" = Option<u64>, Header, description = "Send only the events whose `seq` is larger (what an SSE client sends when it reconnects)"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "One message per protocol event (`id:` its `seq`, `data:` its JSON line exactly as in the run's events.jsonl, an `Event`), live until the run's final `result` event; a job that runs again (retry, quota wait, restart) sends `event: requeued` and goes on with its next run, ids continuing; a run that ended without a `result` ends with `event: end` and a StreamEnd as data; `: keep-alive` comments while idle"),
        (status = 400, description = "Last-Event-ID is not a whole number (not ASCII, or any other text; empty is no Last-Event-ID)", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
    ),
)]
pub async fn run_events(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Message>>, ApiError> {
    let after = last_event_id(&headers)?;
    let (watched, feed) = watch(&state, id).await?;
    let options = state.event_streams;
    let (tx, rx) = mpsc::channel(BUFFERED_MESSAGES);
    let follower = Follower {
        state,
        watched,
        feed,
        after,
        tx,
        run_index: 1,
        offset: 0,
        last_seq: None,
        saw_result: false,
        told_requeued: false,
    };
    tokio::spawn(follower.run());
    let stream = futures_util::stream::unfold(rx, |mut rx| async move {
        rx.recv().await.map(|message| (message, rx))
    });
    Ok(Sse::new(stream).keep_alive(
        KeepAlive::new()
            .interval(options.keep_alive)
            .text("keep-alive"),
    ))
}

fn last_event_id(headers: &HeaderMap) -> Result<Option<u64>, ApiError> {
    let Some(value) = headers.get("last-event-id") else {
        return Ok(None);
    };
    // Not ASCII: refused, not read as absent (which would replay the whole
    // stream to a client that meant to resume).
    let text = value
        .to_str()
        .map_err(|_| {
            ApiError::invalid_parameter(
                "Last-Event-ID header",
                "it is not ASCII text; give the `id` of the last message received (a whole number)",
            )
        })?
        .trim();
    if text.is_empty() {
        return Ok(None);
    }
    text.parse().map(Some).map_err(|_| {
        ApiError::invalid_parameter(
            "Last-Event-ID header",
            format!(
                "`{}` is not an event's seq (a whole number)",
                text.chars().take(64).collect::<String>()
            ),
        )
    })
}

/// What tells that the run ended.
#[derive(Debug, Clone)]
enum Watched {
    /// A job of the queue: its state.
    Job(String),
    /// A run started outside the queue (`agentgate run`): its status.
    Run(String),
}

/// Where a run's events are read from.
#[derive(Debug, Clone)]
enum Feed {
    /// Its events file.
    File(PathBuf),
    /// The store's table, by run id.
    Table(String),
}

impl Feed {
    fn of(store: &dyn RunStore, run_id: &str) -> Result<Feed, agentgate_store::StoreError> {
        Ok(match store.events_file(run_id)? {
            Some(path) => Feed::File(path),
            None => Feed::Table(run_id.to_owned()),
        })
    }

    fn describe(&self) -> String {
        match self {
            Feed::File(path) => path.display().to_string(),
            Feed::Table(run_id) => format!("the events of run {run_id}"),
        }
    }
}

/// The run `id` (a job, else a run of the store) and where its events are;
/// 404 when there is neither.
async fn watch(state: &Arc<AppState>, id: String) -> Result<(Watched, Feed), ApiError> {
    let store = Arc::clone(&state.store);
    let lookup = id.clone();
    let found = tokio::task::spawn_blocking(move || {
        if validate_run_id(&lookup).is_err() {
            return Ok(None);
        }
        let watched = if store.get_job(&lookup)?.is_some() {
            Watched::Job(lookup.clone())
        } else if store.get_run(&lookup)?.is_some() {
            Watched::Run(lookup.clone())
        } else {
            return Ok(None);
        };
        Ok(Some((watched, Feed::of(store.as_ref(), &lookup)?)))
    })
    .await
    .map_err(|e| ApiError::internal(format!("looking up the run failed: {e}")))?
    .map_err(|e: agentgate_store::StoreError| ApiError::store(&e))?;
    found.ok_or_else(|| ApiError::no_such(format!("no run has the id `{id}`")))
}

/// The fields of an event line the follower reads.
#[derive(Deserialize)]
struct Head<'a> {
    seq: u64,
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
}

enum Step {
    /// Go on.
    More,
    /// The stream is over (the `result` was sent, or the client left).
    Done,
}

struct Follower {
    state: Arc<AppState>,
    watched: Watched,
    /// Where the followed run's events are.
    feed: Feed,
    /// `Last-Event-ID`: only messages with a larger id are sent.
    after: Option<u64>,
    tx: mpsc::Sender<Message>,
    /// Which of a job's runs is followed: 1 is the job's id, then `.2`, ...
    run_index: u32,
    /// Added to a seq to make a message's id: one more than the last id
    /// of the job's earlier runs (0 for its first run).
    offset: u64,
    /// The last seq read in the followed run.
    last_seq: Option<u64>,
    /// The followed run's `result` was read.
    saw_result: bool,
    /// The `requeued` message for the followed run was sent.
    told_requeued: bool,
}

impl Follower {
    async fn run(mut self) {
        let options = self.state.event_streams;
        let mut stopping = self.state.stopping.subscribe();
        let mut file: Option<tokio::fs::File> = None;
        let mut pending = Pending::default();
        let mut chunk = vec![0u8; READ_CHUNK];
        let mut status_checked: Option<Instant> = None;
        loop {
            // The status first: a run seen ended has written everything.
            let mut ended = None;
            if status_checked.is_none_or(|at| at.elapsed() >= options.status_every) {
                status_checked = Some(Instant::now());
                ended = self.ended().await;
            }
            // Likewise a job's next run: once it exists, the followed one
            // has written everything.
            let next = self.next_run_feed().await;
            match self.feed.clone() {
                Feed::File(path) => {
                    if file.is_none() {
                        match tokio::fs::File::open(&path).await {
                            Ok(f) => file = Some(f),
                            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                            Err(e) => {
                                tracing::warn!(path = %path.display(), error = %e, "cannot open a run's events");
                                return;
                            }
                        }
                    }
                    if let Some(f) = file.as_mut()
                        && let Step::Done = self.read_new(f, &mut pending, &mut chunk).await
                    {
                        return;
                    }
                }
                Feed::Table(run_id) => {
                    if let Step::Done = self.read_table(&run_id).await {
                        return;
                    }
                }
            }
            if let Some(feed) = next {
                self.follow_next_run(feed);
                file = None;
                pending = Pending::default();
                continue;
            }
            if let Some(end) = ended {
                // After the job's (or run's) last `result`, the stream just
                // ends; without one, `end` says how it ended.
                if !self.saw_result
                    && let Ok(event) = Event::default().event("end").json_data(&end)
                {
                    let _ = self.tx.send(Ok(event)).await;
                }
                return;
            }
            if self.saw_result && !self.told_requeued {
                match self.send_requeued().await {
                    Ok(told) => self.told_requeued = told,
                    Err(()) => return,
                }
            }
            tokio::select! {
                () = tokio::time::sleep(options.poll) => {}
                () = self.tx.closed() => return,
                _ = stopping.changed() => return,
            }
        }
    }

    /// Where the job's next run's events are, once that run has started
    /// (its events file exists; without files, its run is stored).
    async fn next_run_feed(&self) -> Option<Feed> {
        let Watched::Job(id) = &self.watched else {
            return None;
        };
        let next = format!("{id}.{}", self.run_index + 1);
        let store = Arc::clone(&self.state.store);
        let feed = tokio::task::spawn_blocking(move || -> Option<Feed> {
            match Feed::of(store.as_ref(), &next).ok()? {
                Feed::File(path) => path.exists().then_some(Feed::File(path)),
                Feed::Table(run_id) => store
                    .get_run(&run_id)
                    .ok()
                    .flatten()
                    .map(|_| Feed::Table(run_id)),
            }
        });
        feed.await.ok().flatten()
    }

    /// Go on with the job's next run: its ids continue after this run's.
    fn follow_next_run(&mut self, feed: Feed) {
        self.offset += self.last_seq.map_or(0, |seq| seq + 1);
        self.run_index += 1;
        self.feed = feed;
        self.last_seq = None;
        self.saw_result = false;
        self.told_requeued = false;
    }

    /// The job's run ended with a `result` but the job goes on (a retry, a
    /// quota wait, a restart): one `event: requeued` message, no `id:`,
    /// with the job's state, once the job is queued again. Whether it was
    /// sent; `Err` when the client left.
    async fn send_requeued(&self) -> Result<bool, ()> {
        let Watched::Job(id) = &self.watched else {
            return Ok(false);
        };
        let store = Arc::clone(&self.state.store);
        let lookup = id.clone();
        let job = tokio::task::spawn_blocking(move || store.get_job(&lookup))
            .await
            .ok()
            .and_then(Result::ok)
            .flatten();
        // Still running: the executor has not ended the run's turn yet.
        let Some(job) = job.filter(|j| j.state == agentgate_store::JobState::Queued) else {
            return Ok(false);
        };
        let body = serde_json::json!({
            "run_id": job.job_id,
            "status": job.state.as_str(),
            "attempts": job.attempts,
            "waiting_for": job.waiting_for,
            "not_before": job.not_before,
            "error": job.error,
        });
        match Event::default().event("requeued").json_data(&body) {
            Ok(event) => self.tx.send(Ok(event)).await.map(|()| true).map_err(|_| ()),
            Err(_) => Ok(false),
        }
    }

    /// Sends every line the store's table has now after the last one sent.
    async fn read_table(&mut self, run_id: &str) -> Step {
        loop {
            let store = Arc::clone(&self.state.store);
            let (run, after) = (run_id.to_owned(), self.last_seq);
            let read = tokio::task::spawn_blocking(move || {
                store.read_event_lines(&run, after, TABLE_BATCH)
            })
            .await;
            let lines = match read {
                Ok(Ok(lines)) => lines,
                Ok(Err(e)) => {
                    // Asked again at the next poll.
                    tracing::warn!(events = %self.feed.describe(), error = %e, "cannot read a run's events");
                    return Step::More;
                }
                Err(_) => return Step::Done,
            };
            let full = lines.len() == TABLE_BATCH;
            for line in lines {
                if let Step::Done = self.send_line(line.line.as_bytes()).await {
                    return Step::Done;
                }
            }
            if !full {
                return Step::More;
            }
        }
    }

    /// Sends every complete line the file has now.
    async fn read_new(
        &mut self,
        file: &mut tokio::fs::File,
        pending: &mut Pending,
        chunk: &mut [u8],
    ) -> Step {
        loop {
            let n = match file.read(chunk).await {
                Ok(0) => return Step::More,
                Ok(n) => n,
                Err(e) => {
                    tracing::warn!(events = %self.feed.describe(), error = %e, "cannot read a run's events");
                    return Step::Done;
                }
            };
            let mut fresh = chunk.get(..n).unwrap_or_default();
            while let Some(pos) = fresh.iter().position(|b| *b == b'\n') {
                let (head, rest) = fresh.split_at(pos);
                fresh = rest.get(1..).unwrap_or_default();
                let step = match pending.take_line(head) {
                    Whole::Borrowed => self.send_line(head).await,
                    Whole::Owned(line) => self.send_line(&line).await,
                    Whole::Over { prefix, total } => self.send_oversize(&prefix, total).await,
                };
                if let Step::Done = step {
                    return Step::Done;
                }
            }
            pending.add(fresh);
        }
    }

    /// A line over the limit: the note that stands for it.
    async fn send_oversize(&mut self, prefix: &[u8], total: u64) -> Step {
        let note = agentgate_store::oversize_note(prefix, total)
            .and_then(|note| serde_json::to_vec(&note).ok());
        match note {
            Some(line) => self.send_line(&line).await,
            None => {
                tracing::warn!(events = %self.feed.describe(), "skipped an over-long line of a run's events that names no event");
                Step::More
            }
        }
    }

    /// One line of the file as one message (unless `Last-Event-ID` passed
    /// it); `Done` after the `result` event.
    async fn send_line(&mut self, line: &[u8]) -> Step {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            return Step::More;
        }
        let (Ok(text), Ok(head)) = (
            std::str::from_utf8(line),
            serde_json::from_slice::<Head<'_>>(line),
        ) else {
            tracing::warn!(events = %self.feed.describe(), "skipped a damaged line of a run's events");
            return Step::More;
        };
        if text.contains('\r') {
            tracing::warn!(events = %self.feed.describe(), "skipped an event line with a carriage return");
            return Step::More;
        }
        let id = self.offset + head.seq;
        self.last_seq = Some(head.seq);
        if self.after.is_none_or(|after| id > after) {
            let event = Event::default().id(id.to_string()).data(text);
            if self.tx.send(Ok(event)).await.is_err() {
                return Step::Done;
            }
        }
        if head.kind != "result" {
            // A run that goes on after its `result` (a workflow resumed
            // in its own run): the job's next turn.
            self.saw_result = false;
            self.told_requeued = false;
            return Step::More;
        }
        self.saw_result = true;
        match self.watched {
            // A job may run again: the job's state decides the end.
            Watched::Job(_) => Step::More,
            Watched::Run(_) => Step::Done,
        }
    }

    /// How the run ended, if it did. A store error counts as not ended (it
    /// is asked again at the next poll).
    async fn ended(&self) -> Option<StreamEnd> {
        let store = Arc::clone(&self.state.store);
        let watched = self.watched.clone();
        let asked =
            tokio::task::spawn_blocking(move || -> Result<_, agentgate_store::StoreError> {
                Ok(match &watched {
                    Watched::Job(id) => store.get_job(id)?.and_then(|job| {
                        job.state.is_final().then(|| StreamEnd {
                            run_id: job.job_id,
                            status: job.state.as_str().to_owned(),
                            error: job.error,
                            envelope: job.envelope,
                        })
                    }),
                    Watched::Run(id) => store.get_run(id)?.and_then(|run| {
                        (run.summary.status != RunStatus::Running).then(|| StreamEnd {
                            run_id: run.summary.record.run_id.clone(),
                            status: run.summary.status.as_str().to_owned(),
                            error: run.summary.error.clone(),
                            envelope: run.envelope,
                        })
                    }),
                })
            })
            .await;
        match asked {
            Ok(Ok(end)) => end,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot read whether a run ended");
                None
            }
            Err(_) => None,
        }
    }
}
