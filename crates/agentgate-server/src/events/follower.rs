//! One client's follower: the loop that reads the run's events and waits,
//! between reads, for a bell (see the module notes' "Waiting").

use std::sync::Arc;
use std::time::{Duration, Instant};

use agentgate_store::{RunStatus, bells};
use axum::response::sse::Event;
use serde::Deserialize;
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use super::job_look::{Fresh, JobLook, JobLooks};
use super::pending::{Pending, Whole};
use super::wake::{Waits, Wake};
use super::{Feed, Message, READ_CHUNK, TABLE_BATCH, Watched};
use crate::state::{AppState, EventStreamOptions};
use crate::views::StreamEnd;

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
    /// The read failed (the store did not answer): what is left to read
    /// is unknown, so a run seen ended does not end the stream yet; the
    /// next look reads again.
    Unread,
}

/// The followed run's events file as read so far.
struct FileRead {
    /// Open once it exists.
    file: Option<tokio::fs::File>,
    /// The last line, until its newline comes.
    pending: Pending,
    chunk: Vec<u8>,
}

impl FileRead {
    fn new() -> FileRead {
        FileRead {
            file: None,
            pending: Pending::default(),
            chunk: vec![0u8; READ_CHUNK],
        }
    }
}

/// What a look at the followed job or run found: how it ended, if it
/// did, and whether the job is queued.
type Status = (Option<StreamEnd>, bool);

/// The shared looks at followed jobs, of every server of the process (job
/// ids are unique across stores: random run ids).
static JOB_LOOKS: std::sync::LazyLock<JobLooks<Status>> =
    std::sync::LazyLock::new(JobLooks::default);

/// The look a follower of `watched` shares with the job's other
/// followers; `None` for a run's follower.
pub(super) fn shared_look(watched: &Watched) -> Option<Arc<JobLook<Status>>> {
    match watched {
        Watched::Job(id) => Some(JOB_LOOKS.of(id)),
        Watched::Run(_) => None,
    }
}

pub(super) struct Follower {
    pub(super) state: Arc<AppState>,
    /// The followed job's look, shared with its other followers.
    pub(super) look: Option<Arc<JobLook<Status>>>,
    pub(super) watched: Watched,
    /// Where the followed run's events are.
    pub(super) feed: Feed,
    /// `Last-Event-ID`: only messages with a larger id are sent.
    pub(super) after: Option<u64>,
    pub(super) tx: mpsc::Sender<Message>,
    /// Which of a job's runs is followed: 1 is the job's id, then `.2`, ...
    pub(super) run_index: u32,
    /// Added to a seq to make a message's id: one more than the last id
    /// of the job's earlier runs (0 for its first run).
    pub(super) offset: u64,
    /// The last seq read in the followed run.
    pub(super) last_seq: Option<u64>,
    /// The followed run's `result` was read.
    pub(super) saw_result: bool,
    /// The `requeued` message for the followed run was sent.
    pub(super) told_requeued: bool,
    /// `?coalesce=`: the answer's chunks among the events (`chunks.rs`).
    pub(super) chunks: Option<agentgate_core::ChunkFollower>,
}

impl Follower {
    pub(super) async fn run(mut self) {
        let options = self.state.event_streams;
        let mut stopping = self.state.stopping.subscribe();
        let mut read = FileRead::new();
        // Watched before the first read: no write after it goes unheard.
        let mut waits = Waits::new(&self.watched, &self.feed.run_id, self.next_run_id());
        let mut status_checked: Option<Instant> = None;
        // The job was queued when last asked: none of its runs writes.
        let mut queued = false;
        // The followed run's events were read since the job was seen
        // queued.
        let mut read_while_queued = false;
        let mut wake = Wake::Changed;
        loop {
            // Only new lines of the followed run: read them, nothing else.
            let look_around = wake != Wake::NewEvents;
            if !look_around {
                // A run of the job writes: it left the queue.
                queued = false;
            }
            // The status first: a run seen ended has written everything.
            let mut ended = None;
            let mut next = None;
            if look_around {
                if matches!(wake, Wake::Changed | Wake::JobRang)
                    || status_checked.is_none_or(|at| at.elapsed() >= options.status_every)
                {
                    status_checked = Some(Instant::now());
                    let rings = waits.job_rings();
                    let fresh = match wake {
                        Wake::JobRang => Fresh::AfterRing(rings),
                        // A poll: no bell said the job changed. A queued
                        // job's followers poll every fallback.
                        Wake::Poll if queued => Fresh::Within(options.fallback),
                        Wake::Poll => Fresh::Within(options.status_every),
                        Wake::Changed | Wake::NewEvents => Fresh::Now,
                    };
                    (ended, queued) = self.status(fresh, rings).await;
                }
                // Likewise a job's next run: once it exists, the followed
                // one has written everything. A queued job has none yet.
                if !queued {
                    next = self.next_run_feed().await;
                }
            }
            // A queued job writes nothing: once what its last run wrote
            // is read (a follower may come, or look, after that run ended
            // and the job went back to the queue), one look at its state
            // is all a follower of a queued job costs (until a bell, or
            // the fallback).
            let read_now = !queued || wake == Wake::NewEvents || !read_while_queued;
            read_while_queued = queued;
            let mut unread = false;
            if read_now {
                match self.read_feed(&mut read).await {
                    Step::Done => return,
                    Step::Unread => unread = true,
                    Step::More => {}
                }
            }
            if let Some(feed) = next {
                // The job ran again before this follower saw it queued (a
                // short backoff, or a slow reader): the `requeued` message
                // still comes between the two runs' events.
                if self.saw_result
                    && !self.told_requeued
                    && self.send_requeued(Requeued::Always).await.is_err()
                {
                    return;
                }
                self.follow_next_run(feed);
                waits.follow_next(&self.feed.run_id, self.next_run_id());
                read = FileRead::new();
                wake = Wake::Changed;
                continue;
            }
            if let Some(end) = ended.filter(|_| !unread) {
                // After the job's (or run's) last `result`, the stream just
                // ends; without one, `end` says how it ended. Not after a
                // failed read: the lines the run wrote before it ended may
                // still be unread (the status is read again, then them).
                if !self.saw_result
                    && let Ok(event) = Event::default().event("end").json_data(&end)
                {
                    let _ = self.tx.send(Ok(event)).await;
                }
                return;
            }
            if look_around && self.saw_result && !self.told_requeued {
                match self.send_requeued(Requeued::IfQueued).await {
                    Ok(told) => self.told_requeued = told,
                    Err(()) => return,
                }
            }
            let poll = if queued {
                options.fallback
            } else {
                self.poll_after(&options, read.file.is_some())
            };
            wake = loop {
                let chunk_due = self
                    .chunks
                    .as_ref()
                    .and_then(agentgate_core::ChunkFollower::next_wake)
                    .map(tokio::time::Instant::from_std);
                tokio::select! {
                    woke = waits.next(poll) => break woke,
                    () = self.tx.closed() => return,
                    _ = stopping.changed() => return,
                    () = sleep_until_opt(chunk_due) => {
                        if self.send_due_chunks().await.is_err() {
                            return;
                        }
                    }
                }
            };
        }
    }

    /// How long to wait for a bell before reading anyway: the fallback
    /// when a bell will come (a writer of this process, a listener hearing
    /// the others, or a run that has not started), the poll when only
    /// reading can tell (another process writes a file).
    fn poll_after(&self, options: &EventStreamOptions, file_open: bool) -> Duration {
        let run_id = &self.feed.run_id;
        let not_started = match &self.feed.file {
            Some(_) => !file_open,
            None => self.last_seq.is_none(),
        };
        let waiting_for_next_run = self.saw_result && self.told_requeued;
        if bells::written_here(run_id) || not_started || waiting_for_next_run {
            return options.fallback;
        }
        if self.feed.file.is_none() && bells::hears_other_processes() {
            return options.fallback;
        }
        options.poll
    }

    /// The id of the job's run after the followed one (`None` for a run
    /// that is not a job's).
    fn next_run_id(&self) -> Option<String> {
        match &self.watched {
            Watched::Job(id) => Some(format!("{id}.{}", self.run_index + 1)),
            Watched::Run(_) => None,
        }
    }

    /// Sends what the followed run's events have now.
    async fn read_feed(&mut self, read: &mut FileRead) -> Step {
        let Some(path) = self.feed.file.clone() else {
            let run_id = self.feed.run_id.clone();
            return self.read_table(&run_id).await;
        };
        if read.file.is_none() {
            match tokio::fs::File::open(&path).await {
                Ok(f) => read.file = Some(f),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Step::More,
                Err(e) => {
                    tracing::warn!(path = %path.display(), error = %e, "cannot open a run's events");
                    return Step::Done;
                }
            }
        }
        let FileRead {
            file: Some(file),
            pending,
            chunk,
        } = read
        else {
            return Step::More;
        };
        self.read_new(file, pending, chunk).await
    }

    /// Where the job's next run's events are, once that run has started
    /// (its events file exists; without files, its run is stored).
    async fn next_run_feed(&self) -> Option<Feed> {
        let next = self.next_run_id()?;
        let store = Arc::clone(&self.state.store);
        let feed = tokio::task::spawn_blocking(move || -> Option<Feed> {
            let feed = Feed::of(store.as_ref(), &next).ok()?;
            let started = match &feed.file {
                Some(path) => path.exists(),
                None => store.get_run(&feed.run_id).ok().flatten().is_some(),
            };
            started.then_some(feed)
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
    /// with the job's state, once the job is queued again (`IfQueued`), or
    /// whatever its state when its next run has already begun (`Always`).
    /// Whether it was sent; `Err` when the client left.
    async fn send_requeued(&self, when: Requeued) -> Result<bool, ()> {
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
        let Some(job) = job
            .filter(|j| when == Requeued::Always || j.state == agentgate_store::JobState::Queued)
        else {
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
                    return Step::Unread;
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

    /// The chunks that time made due (`?coalesce=`); `Err` when the
    /// client is gone.
    async fn send_due_chunks(&mut self) -> Result<(), ()> {
        let Some(chunks) = &mut self.chunks else {
            return Ok(());
        };
        for out in chunks.poll(std::time::Instant::now()) {
            if let Some(m) = super::chunks::chunk_message(&out) {
                self.tx.send(Ok(m)).await.map_err(|_| ())?;
            }
        }
        Ok(())
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
            // With `?coalesce=`, the chunks the event completed come after
            // it (those of the end before the `result`).
            let mut before = Vec::new();
            let mut after = Vec::new();
            if let Some(chunks) = &mut self.chunks
                && let Ok(parsed) = serde_json::from_str::<agentgate_protocol::Event>(text)
            {
                let mut seen_self = false;
                for out in chunks.observe(parsed, std::time::Instant::now()) {
                    match super::chunks::chunk_message(&out) {
                        Some(m) if seen_self => after.push(m),
                        Some(m) => before.push(m),
                        None => seen_self = true,
                    }
                }
            }
            let event = Event::default().id(id.to_string()).data(text);
            let messages = before.into_iter().chain([event]).chain(after);
            for message in messages {
                if self.tx.send(Ok(message)).await.is_err() {
                    return Step::Done;
                }
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

    /// How the followed job or run stands: a job's from the look its
    /// followers share (fresh as `fresh` says; `rings`: the job's bell's
    /// count before the read).
    async fn status(&self, fresh: Fresh, rings: u64) -> Status {
        match &self.look {
            Some(look) => look.look(fresh, rings, || self.read_status()).await,
            None => self.read_status().await,
        }
    }

    /// Reads how the run ended, if it did, and whether it is a job waiting
    /// in the queue. A store error counts as neither (it is asked again at
    /// the next look).
    async fn read_status(&self) -> Status {
        let store = Arc::clone(&self.state.store);
        let watched = self.watched.clone();
        let asked =
            tokio::task::spawn_blocking(move || -> Result<_, agentgate_store::StoreError> {
                Ok(match &watched {
                    Watched::Job(id) => match store.get_job(id)? {
                        None => (None, false),
                        Some(job) if job.state == agentgate_store::JobState::Queued => (None, true),
                        Some(job) => (
                            job.state.is_final().then(|| StreamEnd {
                                run_id: job.job_id,
                                status: job.state.as_str().to_owned(),
                                error: job.error,
                                envelope: job.envelope,
                            }),
                            false,
                        ),
                    },
                    Watched::Run(id) => (
                        store.get_run(id)?.and_then(|run| {
                            (run.summary.status != RunStatus::Running).then(|| StreamEnd {
                                run_id: run.summary.record.run_id.clone(),
                                status: run.summary.status.as_str().to_owned(),
                                error: run.summary.error.clone(),
                                envelope: run.envelope,
                            })
                        }),
                        false,
                    ),
                })
            })
            .await;
        match asked {
            Ok(Ok(status)) => status,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "cannot read whether a run ended");
                (None, false)
            }
            Err(_) => (None, false),
        }
    }
}

async fn sleep_until_opt(at: Option<tokio::time::Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// When [`Follower::send_requeued`] sends its message.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Requeued {
    /// Only while the job is queued again.
    IfQueued,
    /// Whatever the job's state: its next run has begun.
    Always,
}
