//! Other processes' event writes and job changes, heard on PostgreSQL and
//! rung as this process's bells ([`crate::bells`]):
//! [`RunStore::listen_for_bells`](crate::RunStore::listen_for_bells).
//!
//! ## Who notifies
//!
//! The event writer task (`events.rs`) stores each batch with one
//! statement that also calls `pg_notify('agentgate_events',
//! '<process tag>:<run id>')`: one notification per batch (a CLI that
//! prints a line at a time costs one per line; a burst is one per insert),
//! sent only when the batch commits, so a listener never hears of events
//! it cannot read yet. The process tag ([`process_tag`]) lets the writing
//! process skip its own notifications: it rang its bell itself, after the
//! commit, without the round trip. The queue's trigger (`listen.rs`,
//! `agentgate_jobs`) says when a job is queued again, cancelled or ends.
//!
//! ## The listening connection
//!
//! One connection of its own (a `LISTEN` belongs to its session), made as
//! the pool's are, listening on both channels. While it listens,
//! [`crate::bells::hears_other_processes`] is true and followers wait for
//! bells with only a slow poll behind them. When it drops, that turns
//! false (followers poll again), it reconnects (after 100 ms,
//! doubling up to a 5 s wait, forever: `listen.rs`'s `reconnect`), and once listening again it
//! rings every bell: what was written meanwhile was not heard. A ping every
//! 30 s (on the connection `listen.rs` opens for both) finds a connection
//! cut without a reset. Dropping the
//! returned [`BellListener`] ends it.

use std::sync::OnceLock;

use tokio::sync::oneshot;

use super::PgStore;
use super::listen::{JOBS_CHANNEL, ListenTarget, Listening, listen, reconnect};
use crate::bells::{self, BellListener, Hearing};
use crate::error::StoreError;
use crate::queue_watch::{QueueNotice, parse_payload};

/// The notification channel of stored events.
pub const EVENTS_CHANNEL: &str = "agentgate_events";

/// The channels the bells' connection listens on.
const CHANNELS: &[&str] = &[EVENTS_CHANNEL, JOBS_CHANNEL];

/// The bells' connection, as a timeout names it.
const WHAT: &str = "opening the events' listening connection";

/// This process's tag in event notifications: random, made once.
pub(super) fn process_tag() -> &'static str {
    static TAG: OnceLock<String> = OnceLock::new();
    TAG.get_or_init(|| {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            // Without randomness: the pid and the time, unique enough to
            // tell this process from the others of the database.
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            bytes[..4].copy_from_slice(&std::process::id().to_le_bytes());
            bytes[4..].copy_from_slice(&nanos.to_le_bytes());
        }
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    })
}

/// The payload of the notification of `run_id`'s stored events.
pub(super) fn events_payload(run_id: &str) -> String {
    format!("{}:{run_id}", process_tag())
}

/// Starts listening (the first connection is made before this returns, so
/// a failure shows at once).
pub(super) fn listen_for_bells(store: &PgStore) -> Result<BellListener, StoreError> {
    let target = store.listen_target().clone();
    let first = {
        let target = target.clone();
        store.block("listen for other processes' events", async move {
            listen(&target, CHANNELS, WHAT).await
        })?
    };
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    drop(store.handle().spawn(follow(target, first, stop_rx)));
    Ok(BellListener::new(Box::new(stop_tx)))
}

/// Rings the bell a notification names.
fn ring(channel: &str, payload: &str) {
    if channel == EVENTS_CHANNEL {
        match payload.split_once(':') {
            // This process's own: rung already, after its commit.
            Some((tag, _)) if tag == process_tag() => {}
            Some((_, run_id)) => bells::ring_events(run_id),
            None => bells::ring_all(),
        }
    } else if channel == JOBS_CHANNEL {
        match parse_payload(payload) {
            Some(QueueNotice::Change { job_id, .. }) => bells::ring_job(&job_id),
            _ => bells::ring_all(),
        }
    }
}

async fn follow(target: ListenTarget, mut listening: Listening, mut stop: oneshot::Receiver<()>) {
    let hearing = Hearing::new();
    loop {
        hearing.set(true);
        // Why it ended is not logged: the store logs nothing itself; the
        // followers' poll covers the time away, and the reconnection rings
        // them all.
        loop {
            let heard = tokio::select! {
                _ = &mut stop => return,
                heard = listening.next() => heard,
            };
            match heard {
                Ok((channel, payload)) => ring(&channel, &payload),
                Err(_) => break,
            }
        }
        hearing.set(false);
        drop(listening);
        let Some(again) = reconnect(&target, CHANNELS, WHAT, &mut stop).await else {
            return;
        };
        listening = again;
        // Not heard while away: everyone looks again.
        bells::ring_all();
    }
}
