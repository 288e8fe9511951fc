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
//! The file (or table) is the source of truth: the follower reads what it
//! has, keeps a line without its newline until the rest arrives, and
//! between two reads waits (see "Waiting"). A queued run has no file yet:
//! the follower waits for it.
//!
//! A store that keeps events in a table (PostgreSQL: any host's runs, any
//! host's server) has no file ([`RunStore::events_file`] is `None`): the
//! follower reads [`RunStore::read_event_lines`] for the lines after the
//! last seq it sent, the same lines the file would hold.
//!
//! ## Waiting: bells, with polling as the fallback
//!
//! The follower does not sleep a fixed poll between reads: it waits on
//! the bells of [`agentgate_store::bells`] (`wake.rs`), watched before its
//! first read so no write after it goes unheard. A bell carries no data,
//! only "look again", so a replay, a `Last-Event-ID`, a slow client and a
//! lost bell all come down to reading the file or table again.
//!
//! - The followed run's events bell: rung by every event writer of this
//!   process once the line can be read (the executor's run: after the
//!   file's `write`, or the PostgreSQL batch's commit). The follower then
//!   reads the new lines and nothing else.
//! - For a job, the job's bell (the executor rings it when a job's turn
//!   ends, ended or queued again; the API's cancel rings it) and the next
//!   run's events bell (`ID.2` starting): the follower then also asks the
//!   store whether the job ended and whether its next run began.
//! - Other processes' writes on PostgreSQL: `serve` listens
//!   (`NOTIFY agentgate_events` per stored batch, and the queue's
//!   `agentgate_jobs`) and rings the same bells
//!   (`agentgate-store/src/postgres/events_listen.rs`).
//!
//! Without a bell within [`EventStreamOptions::fallback`](crate::EventStreamOptions::fallback)
//! (1 s) the follower looks anyway: a bell never rung (a job another
//! process cancels on SQLite) costs at most that. Where no bell can come
//! it polls every [`EventStreamOptions::poll`](crate::EventStreamOptions::poll)
//! (100 ms), as before bells: a run's file that another process writes (an
//! `agentgate run`, or a worker on the same SQLite store: file
//! notification is not used), or a PostgreSQL store whose listener is
//! down. A run "written here" ([`agentgate_store::bells::written_here`])
//! or heard from others never polls fast; neither does a run that has not
//! started, nor a job queued again. While its job is queued a follower
//! reads nothing: it asks the job's state once per fallback (one store
//! read), however long the queue, until a bell or that state says a run
//! began; the followers of one job share that read (`job_look.rs`: one
//! read per fallback period for all of them, and one per ring of the
//! job's bell). The bell test: `suite::serve_events_lockstep` (a CLI that prints
//! its next line only once the client has the last, with the polls at
//! 30 s).
//!
//! ## A job that runs again
//!
//! A job runs again after a recoverable failure (a retry), a quota wait or
//! a restart, each time as a new run (`ID.2`, `ID.3`, ...). Its stream
//! follows them in turn: after a run's `result`, while the job is queued
//! again, one `event: requeued` message (no `id:`; data: the job's
//! `run_id`, `status`, `attempts`, `waiting_for`, `not_before`, `error`),
//! then the next run's events. A follower that reaches the next run
//! without having seen the job queued (a replay of an ended job, or a
//! retry that began before it looked) sends the message then, with the
//! job's state as it is: every stream of a job that ran again has one
//! `requeued` between each two runs. Message ids keep increasing across the
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
//! abandoned before it ran, or a process killed mid-run. So at a job's bell
//! (and, polling, every
//! [`EventStreamOptions::status_every`](crate::EventStreamOptions::status_every))
//! the follower asks the store whether the run ended (the job's state; for
//! a run that is not a job, the run's status), *before* reading the file:
//! a run seen ended has written all it will write, so once that read is
//! done without a `result` the stream ends with one last message,
//! `event: end`, whose data is a [`StreamEnd`](crate::views::StreamEnd)
//! (status, error, envelope if any), without an `id:`. It is
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
//! [`EventStreamOptions::keep_alive`](crate::EventStreamOptions::keep_alive).
//! A client that goes away stops its follower at once (it waits on the
//! channel's close too); at shutdown every stream ends. A bell is one
//! entry in a map while someone waits on it, and a follower watches at
//! most three (its run, the job's next run, the job).

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::Arc;

use agentgate_store::{RunStore, validate_run_id};
use axum::Extension;
use axum::extract::{Path, Query, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::Stream;
use tokio::sync::mpsc;

use crate::error::ApiError;
use crate::state::AppState;

mod chunks;
pub use chunks::EventsQuery;
mod follower;
mod job_look;
mod pending;
mod wake;

use follower::Follower;

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
        ("coalesce" = Option<String>, Query, description = "`paragraph`, `sentence` or `size`: also send the answer in readable chunks, each an `answer_chunk` event in a message without `id:` (cut at a blank line or closed code fence, a sentence or line end, or only by size and idle time; never inside a word or an open code fence; concatenated, the chunks are the answer text as it streamed). Resumed with Last-Event-ID, chunks count from the resume point"),
        ("coalesce_min_interval" = Option<String>, Query, description = "With `coalesce`: at most one chunk per this duration (`1s`, the default; `0` for no limit); the end is not held back"),
        ("coalesce_max_chars" = Option<u64>, Query, description = "With `coalesce`: a chunk's size in characters (default 2000); a code fence is cut only past twice this, at a line end"),
        ("coalesce_idle" = Option<String>, Query, description = "With `coalesce`: send what came after this long without new text (`2s`, the default; `0` for never)"),
    ),
    responses(
        (status = 200, content_type = "text/event-stream", body = String, description = "One message per protocol event (`id:` its `seq`, `data:` its JSON line exactly as in the run's events.jsonl, an `Event`), live until the run's final `result` event; a job that runs again (retry, quota wait, restart) sends `event: requeued` and goes on with its next run, ids continuing; a run that ended without a `result` ends with `event: end` and a StreamEnd as data; `: keep-alive` comments while idle"),
        (status = 400, description = "Last-Event-ID is not a whole number (not ASCII, or any other text; empty is no Last-Event-ID), or a `coalesce` parameter is not valid (the parameter is named)", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
    ),
)]
pub async fn run_events(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<crate::access::Caller>,
    Path(id): Path<String>,
    query: Result<Query<EventsQuery>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
) -> Result<Sse<impl Stream<Item = Message>>, ApiError> {
    let after = last_event_id(&headers)?;
    let chunks = query
        .map_err(|e| ApiError::invalid_parameter("query", e.body_text()))?
        .follower()?;
    let unknown = || ApiError::no_such(format!("no run has the id `{id}`"));
    crate::submitters::ensure_visible(&state, &caller, &id, unknown).await?;
    let (watched, feed) = watch(&state, id).await?;
    let options = state.event_streams;
    let (tx, rx) = mpsc::channel(BUFFERED_MESSAGES);
    let follower = Follower {
        state,
        look: follower::shared_look(&watched),
        watched,
        feed,
        after,
        tx,
        run_index: 1,
        offset: 0,
        last_seq: None,
        saw_result: false,
        told_requeued: false,
        chunks,
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
struct Feed {
    /// The run.
    run_id: String,
    /// Its events file; `None`: the store's table, by run id.
    file: Option<PathBuf>,
}

impl Feed {
    fn of(store: &dyn RunStore, run_id: &str) -> Result<Feed, agentgate_store::StoreError> {
        Ok(Feed {
            run_id: run_id.to_owned(),
            file: store.events_file(run_id)?,
        })
    }

    fn describe(&self) -> String {
        match &self.file {
            Some(path) => path.display().to_string(),
            None => format!("the events of run {}", self.run_id),
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
