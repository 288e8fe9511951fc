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
//! false (followers poll again), it reconnects (after [`FIRST_RETRY`],
//! doubling up to [`LAST_RETRY`], forever), and once listening again it
//! rings every bell: what was written meanwhile was not heard. A ping every
//! [`PING_EVERY`] finds a connection cut without a reset. Dropping the
//! returned [`BellListener`] ends it.

use std::sync::OnceLock;
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Client};

use super::listen::{JOBS_CHANNEL, ListenTarget};
use super::{PgError, PgStore, describe_sql_error};
use crate::bells::{self, BellListener, Hearing};
use crate::error::StoreError;
use crate::queue_watch::{QueueNotice, parse_payload};

/// The notification channel of stored events.
pub const EVENTS_CHANNEL: &str = "agentgate_events";

const FIRST_RETRY: Duration = Duration::from_millis(100);
const LAST_RETRY: Duration = Duration::from_secs(5);
const PING_EVERY: Duration = Duration::from_secs(30);
const PING_TIMEOUT: Duration = Duration::from_secs(20);

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
            listen(&target).await
        })?
    };
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    drop(store.handle().spawn(follow(target, first, stop_rx)));
    Ok(BellListener::new(Box::new(stop_tx)))
}

enum Heard {
    Notification { channel: String, payload: String },
    Closed(String),
}

struct Listening {
    client: Client,
    heard: mpsc::UnboundedReceiver<Heard>,
}

async fn listen(target: &ListenTarget) -> Result<Listening, PgError> {
    let connecting = target.config.connect(target.tls.clone());
    let (client, mut connection) = tokio::time::timeout(target.timeout, connecting)
        .await
        .map_err(|_| PgError::TimedOut {
            what: "opening the events' listening connection",
            after: target.timeout,
        })??;
    let (tx, heard) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let reason = loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(n))) => {
                    let heard = Heard::Notification {
                        channel: n.channel().to_owned(),
                        payload: n.payload().to_owned(),
                    };
                    if tx.send(heard).is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break describe_sql_error(&e),
                None => break "the connection was closed".to_owned(),
            }
        };
        let _ = tx.send(Heard::Closed(reason));
    });
    let listening = tokio::time::timeout(
        target.timeout,
        client.batch_execute(&format!("LISTEN {EVENTS_CHANNEL}; LISTEN {JOBS_CHANNEL}")),
    )
    .await
    .map_err(|_| PgError::TimedOut {
        what: "LISTEN",
        after: target.timeout,
    })?;
    listening?;
    Ok(Listening { client, heard })
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

impl Listening {
    /// Rings bells until the connection fails (its reason) or `stop`.
    async fn ring_until_closed(&mut self) -> String {
        let mut ping = tokio::time::interval(PING_EVERY);
        ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ping.tick().await;
        loop {
            tokio::select! {
                heard = self.heard.recv() => match heard {
                    Some(Heard::Notification { channel, payload }) => ring(&channel, &payload),
                    Some(Heard::Closed(reason)) => return reason,
                    None => return "the connection's task ended".to_owned(),
                },
                _ = ping.tick() => {
                    match tokio::time::timeout(PING_TIMEOUT, self.client.simple_query("")).await {
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => return describe_sql_error(&e),
                        Err(_) => return "the server did not answer a ping".to_owned(),
                    }
                }
            }
        }
    }
}

async fn follow(target: ListenTarget, mut listening: Listening, mut stop: oneshot::Receiver<()>) {
    let hearing = Hearing::new();
    loop {
        hearing.set(true);
        let reason = tokio::select! {
            _ = &mut stop => return,
            reason = listening.ring_until_closed() => reason,
        };
        hearing.set(false);
        drop(listening);
        // The store logs nothing itself; the followers' poll covers the
        // time away, and the reconnection rings them all.
        let _ = reason;
        let mut delay = FIRST_RETRY;
        listening = loop {
            tokio::select! {
                _ = &mut stop => return,
                () = tokio::time::sleep(delay) => {}
            }
            match listen(&target).await {
                Ok(again) => break again,
                Err(_) => delay = (delay * 2).min(LAST_RETRY),
            }
        };
        // Not heard while away: everyone looks again.
        bells::ring_all();
    }
}
