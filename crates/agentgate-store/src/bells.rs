//! Bells: "run X has new events" and "job X changed", rung within this
//! process, so that whoever follows a run (the SSE streams of `serve`)
//! waits for them instead of polling the store.
//!
//! ## What rings
//!
//! - [`Bell::Events`]`(run id)`: every event writer of this process, once
//!   the event can be read by others: [`crate::EventsWriter`] right after
//!   the line's `write` (the file has no buffer: the bytes are readable at
//!   once), the PostgreSQL writer task after the batch's commit. The
//!   PostgreSQL listener (`postgres/events_listen.rs`) rings it too for
//!   the events another process committed (`NOTIFY agentgate_events`).
//! - [`Bell::Job`]`(job id)`: whoever changes a job's state where a
//!   follower would want to know (the executor when a job's turn ends,
//!   the API's cancel), and the PostgreSQL listener for the queue's
//!   notifications (`agentgate_jobs`).
//!
//! ## What a bell says
//!
//! Only "look again": a bell carries no data. The file or the table stays
//! the source of truth (replay, `Last-Event-ID`, a slow reader all read
//! it), so nothing can be lost by a bell: a follower subscribes
//! ([`watch()`]) *before* it reads, and any ring after that makes its next
//! [`BellWatch::rung`] return at once, however many rings came between.
//!
//! ## Cost
//!
//! One map of the bells someone waits on, behind a mutex; a ring with no
//! watcher anywhere in the process is one atomic load (a worker or an
//! `agentgate run` never takes the lock). A bell's entry goes away with
//! its last watcher.
//!
//! [`written_here`] says whether a writer of this process has the run's
//! events open ([`WriterMark`]), and [`hears_other_processes`] whether a
//! listener hears other processes' writes: together they tell a follower
//! whether a bell will come or it must poll.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex, MutexGuard, PoisonError};

use tokio::sync::watch;

/// What a bell is about.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Bell {
    /// New events of this run were stored.
    Events(String),
    /// This job's state changed.
    Job(String),
}

#[derive(Default)]
struct Registry {
    events: HashMap<String, watch::Sender<u64>>,
    jobs: HashMap<String, watch::Sender<u64>>,
    /// Runs whose events a writer of this process has open, and how many.
    writers: HashMap<String, usize>,
}

impl Registry {
    fn map(&mut self, events: bool) -> &mut HashMap<String, watch::Sender<u64>> {
        if events {
            &mut self.events
        } else {
            &mut self.jobs
        }
    }
}

static REGISTRY: LazyLock<Mutex<Registry>> = LazyLock::new(Mutex::default);

/// Watchers alive in the process: rings skip the lock while it is 0.
static WATCHERS: AtomicUsize = AtomicUsize::new(0);

/// A listener hears other processes' writes (PostgreSQL `LISTEN` is up).
static HEARING: AtomicUsize = AtomicUsize::new(0);

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(PoisonError::into_inner)
}

fn ring_in(events: bool, id: &str) {
    if WATCHERS.load(Ordering::SeqCst) == 0 {
        return;
    }
    if let Some(bell) = registry().map(events).get(id) {
        bell.send_modify(|rings| *rings = rings.wrapping_add(1));
    }
}

/// Rings [`Bell::Events`] of `run_id`.
pub fn ring_events(run_id: &str) {
    ring_in(true, run_id);
}

/// Rings [`Bell::Job`] of `job_id`.
pub fn ring_job(job_id: &str) {
    ring_in(false, job_id);
}

/// Rings `bell`.
pub fn ring(bell: &Bell) {
    match bell {
        Bell::Events(id) => ring_events(id),
        Bell::Job(id) => ring_job(id),
    }
}

/// Rings every bell someone waits on: what happened meanwhile is unknown
/// (a listener reconnected).
pub fn ring_all() {
    if WATCHERS.load(Ordering::SeqCst) == 0 {
        return;
    }
    let registry = registry();
    for bell in registry.events.values().chain(registry.jobs.values()) {
        bell.send_modify(|rings| *rings = rings.wrapping_add(1));
    }
}

/// Waits for `bell` from now on: a ring after this call makes the next
/// [`BellWatch::rung`] return.
pub fn watch(bell: Bell) -> BellWatch {
    let (events, id) = match &bell {
        Bell::Events(id) => (true, id.clone()),
        Bell::Job(id) => (false, id.clone()),
    };
    let mut registry = registry();
    let sender = registry
        .map(events)
        .entry(id)
        .or_insert_with(|| watch::Sender::new(0));
    let receiver = sender.subscribe();
    WATCHERS.fetch_add(1, Ordering::SeqCst);
    BellWatch {
        bell,
        receiver: Some(receiver),
    }
}

/// One watcher of one bell (see [`watch()`]). Dropping it unsubscribes.
#[derive(Debug)]
pub struct BellWatch {
    bell: Bell,
    /// `Some` until dropped.
    receiver: Option<watch::Receiver<u64>>,
}

impl BellWatch {
    /// The bell watched.
    pub fn bell(&self) -> &Bell {
        &self.bell
    }

    /// How many times the bell has rung so far: a read of the store begun
    /// now sees every change rung up to this count.
    pub fn rings(&self) -> u64 {
        self.receiver.as_ref().map_or(0, |r| *r.borrow())
    }

    /// Returns once the bell rang since the last call (or since [`watch()`]);
    /// at once if it already did.
    pub async fn rung(&mut self) {
        let Some(receiver) = self.receiver.as_mut() else {
            return std::future::pending().await;
        };
        if receiver.changed().await.is_err() {
            // The sender lives while a receiver does; never here.
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for BellWatch {
    fn drop(&mut self) {
        let mut registry = registry();
        let events = matches!(self.bell, Bell::Events(_));
        let id = match &self.bell {
            Bell::Events(id) | Bell::Job(id) => id,
        };
        drop(self.receiver.take());
        let map = registry.map(events);
        if map.get(id).is_some_and(|s| s.receiver_count() == 0) {
            map.remove(id);
        }
        WATCHERS.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Marks a run's events as written by this process while it lives: held by
/// every event writer ([`crate::EventsWriter`], the PostgreSQL sink).
#[derive(Debug)]
pub struct WriterMark {
    run_id: String,
}

impl WriterMark {
    /// Marks `run_id` as written here.
    pub fn new(run_id: &str) -> WriterMark {
        *registry().writers.entry(run_id.to_owned()).or_default() += 1;
        WriterMark {
            run_id: run_id.to_owned(),
        }
    }
}

impl Drop for WriterMark {
    fn drop(&mut self) {
        let mut registry = registry();
        if let Some(n) = registry.writers.get_mut(&self.run_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                registry.writers.remove(&self.run_id);
            }
        }
    }
}

/// Whether a writer of this process has `run_id`'s events open: its every
/// event rings [`Bell::Events`].
pub fn written_here(run_id: &str) -> bool {
    registry().writers.contains_key(run_id)
}

/// Whether a listener of this process hears the events and job changes
/// that other processes store (PostgreSQL's `LISTEN`, connected now).
pub fn hears_other_processes() -> bool {
    HEARING.load(Ordering::SeqCst) > 0
}

/// Hears other processes' event writes and job changes and rings their
/// bells in this process while it lives
/// ([`crate::RunStore::listen_for_bells`]); dropping it stops that.
pub struct BellListener {
    _stop: Box<dyn Send>,
}

impl std::fmt::Debug for BellListener {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BellListener").finish_non_exhaustive()
    }
}

#[cfg_attr(not(feature = "postgres"), expect(dead_code))]
impl BellListener {
    /// A listener that stops when `stop` is dropped.
    pub(crate) fn new(stop: Box<dyn Send>) -> BellListener {
        BellListener { _stop: stop }
    }
}

/// Held by a listener while it hears other processes.
#[derive(Debug)]
pub(crate) struct Hearing(AtomicBool);

#[cfg_attr(not(feature = "postgres"), expect(dead_code))]
impl Hearing {
    pub(crate) fn new() -> Hearing {
        Hearing(AtomicBool::new(false))
    }

    /// Says whether the listener hears now.
    pub(crate) fn set(&self, on: bool) {
        if self.0.swap(on, Ordering::SeqCst) != on {
            if on {
                HEARING.fetch_add(1, Ordering::SeqCst);
            } else {
                HEARING.fetch_sub(1, Ordering::SeqCst);
            }
        }
    }
}

impl Drop for Hearing {
    fn drop(&mut self) {
        self.set(false);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    async fn rang(watch: &mut BellWatch) -> bool {
        tokio::time::timeout(Duration::from_millis(50), watch.rung())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn a_ring_after_watching_is_never_lost_and_rings_coalesce() {
        let mut events = watch(Bell::Events("bells-run-a".to_owned()));
        let mut job = watch(Bell::Job("bells-run-a".to_owned()));
        assert!(!rang(&mut events).await, "nothing rang yet");
        ring_events("bells-run-a");
        ring_events("bells-run-a");
        assert!(rang(&mut events).await);
        assert!(!rang(&mut events).await, "two rings before a wait are one");
        assert!(!rang(&mut job).await, "the job's bell is another bell");
        ring_job("bells-run-a");
        assert!(rang(&mut job).await);
        ring_all();
        assert!(rang(&mut events).await && rang(&mut job).await);
        ring_events("bells-someone-else");
        assert!(!rang(&mut events).await);
    }

    #[tokio::test]
    async fn the_last_watcher_takes_its_bell_away() {
        let first = watch(Bell::Events("bells-run-b".to_owned()));
        let second = watch(Bell::Events("bells-run-b".to_owned()));
        drop(first);
        assert!(registry().events.contains_key("bells-run-b"));
        drop(second);
        assert!(!registry().events.contains_key("bells-run-b"));
    }

    #[test]
    fn writers_mark_their_runs_while_they_live() {
        assert!(!written_here("bells-run-c"));
        let one = WriterMark::new("bells-run-c");
        let two = WriterMark::new("bells-run-c");
        drop(one);
        assert!(written_here("bells-run-c"));
        drop(two);
        assert!(!written_here("bells-run-c"));
    }
}
