//! The queue's changes on PostgreSQL: `LISTEN agentgate_jobs` on a
//! connection of its own ([`crate::JobQueue::watch_queue`]).
//!
//! ## Who notifies
//!
//! The database itself: schema version 4 (`schema/v4_notify.sql`) puts a
//! trigger on `jobs` that calls `pg_notify('agentgate_jobs',
//! '<change>:<job id>')` when a row is inserted queued, when a job's cancel
//! is asked, when a job goes back to queued or its `not_before` or priority
//! changes, and when a job ends. A trigger, not a `NOTIFY` in each
//! statement of `jobs.rs`, so every write path (present and future, and an
//! operator's SQL) notifies, and like any `NOTIFY` it is sent only when its
//! transaction commits: a listener never hears of a change it cannot read
//! yet, nor of one rolled back. A lease renewal changes none of the columns
//! the trigger watches and costs no notification.
//!
//! ## The listening connection
//!
//! A `LISTEN` belongs to its session, and a pooled connection's messages
//! are dropped by the pool, so the listener opens one connection of its own,
//! made as the pool's are: the same parsed URL ([`ListenTarget`], kept by
//! `connect.rs`), the same TLS connector, the same timeout. One task drives
//! it and forwards each notification of the channel; another ([`follow`])
//! turns them into [`QueueNotice`]s, pings the server every [`PING_EVERY`]
//! (a connection cut without a reset is found within a minute), and when
//! the connection ends says [`QueueNotice::Interrupted`], reconnects after
//! [`FIRST_RETRY`], doubling up to [`LAST_RETRY`] between tries, forever,
//! and once listening again says [`QueueNotice::Missed`]: what changed
//! meanwhile was not heard, so the consumer reads the queue again. Nothing
//! here panics; dropping the [`QueueWatcher`] ends both tasks and closes
//! the connection.
//!
//! ## An executor's watcher
//!
//! The broadcast tells every listener of every job queued or ended: with N
//! idle executors, each change made N of them look at the queue, and one
//! claimed. An executor's watcher ([`watch_for_executor`]) also listens on
//! a channel of its own, a random name (`idle.rs`), and forwards from the
//! broadcast only the cancels: of the jobs queued and ended it hears just
//! [`QueueNotice::Woken`], sent by the trigger of schema version 8 to the
//! one idle executor a change picked (see `idle.rs`). The broadcast itself
//! is unchanged, for [`watch`] and the bells' listener.

use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_postgres::{AsyncMessage, Client};
use tokio_postgres_rustls::MakeRustlsConnect;

use super::{PgError, PgStore, describe_sql_error};
use crate::error::StoreError;
use crate::queue_watch::{NoticeSender, QueueChange, QueueNotice, QueueWatcher, parse_payload};

/// The notification channel of the queue's changes (the trigger of schema
/// version 4 notifies on it).
pub const JOBS_CHANNEL: &str = "agentgate_jobs";

/// The first wait before reconnecting.
const FIRST_RETRY: Duration = Duration::from_millis(100);

/// The longest wait between two reconnection tries.
const LAST_RETRY: Duration = Duration::from_secs(5);

/// How often the listening connection is checked with an empty query.
const PING_EVERY: Duration = Duration::from_secs(30);

/// How long a ping may take before the connection is given up.
const PING_TIMEOUT: Duration = Duration::from_secs(20);

/// The listening connection, as a timeout names it.
const WHAT: &str = "opening the listening connection";

/// The most notices a watcher holds unread (more become one `Missed`).
const CAPACITY: usize = 4096;

/// How to open a connection as the pool does.
#[derive(Clone)]
pub(crate) struct ListenTarget {
    pub(crate) config: tokio_postgres::Config,
    pub(crate) tls: MakeRustlsConnect,
    /// The limit on opening a connection (the pool's create timeout).
    pub(crate) timeout: Duration,
}

/// Starts listening to every change (the first connection is made before
/// this returns, so a failure shows at once) and returns the watcher.
pub(super) fn watch(store: &PgStore) -> Result<QueueWatcher, StoreError> {
    start(store, Ears { wake: None })
}

/// Starts listening as an executor does (see the module doc): the
/// broadcast's cancels and the wakes on a new channel of its own.
pub(super) fn watch_for_executor(store: &PgStore) -> Result<QueueWatcher, StoreError> {
    let channel = super::idle::new_wake_channel()?;
    let watcher = start(
        store,
        Ears {
            wake: Some(channel.clone()),
        },
    )?;
    Ok(watcher.with_wake_channel(channel))
}

fn start(store: &PgStore, ears: Ears) -> Result<QueueWatcher, StoreError> {
    let target = store.listen_target().clone();
    let first = {
        let (target, ears) = (target.clone(), ears.clone());
        store.block("listen for queue changes", async move {
            listen(&target, &ears.channels(), WHAT).await
        })?
    };
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let (watcher, sender) = QueueWatcher::channel(CAPACITY, Box::new(stop_tx));
    // The task ends when the watcher is dropped or the runtime stops.
    drop(
        store
            .handle()
            .spawn(follow(target, ears, first, sender, stop_rx)),
    );
    Ok(watcher)
}

/// What a watcher listens to and forwards.
#[derive(Clone)]
struct Ears {
    /// An executor's own wake channel; `None`: every change is forwarded.
    wake: Option<String>,
}

impl Ears {
    fn channels(&self) -> Vec<&str> {
        let mut channels = vec![JOBS_CHANNEL];
        channels.extend(self.wake.as_deref());
        channels
    }

    /// The notice a notification makes, if this watcher forwards it.
    fn notice(&self, channel: &str, payload: &str) -> Option<QueueNotice> {
        if channel == JOBS_CHANNEL {
            // A payload this version does not know: rescan.
            let notice = parse_payload(payload).unwrap_or(QueueNotice::Missed);
            let woken_instead = self.wake.is_some()
                && matches!(
                    notice,
                    QueueNotice::Change {
                        change: QueueChange::Queued | QueueChange::Ended,
                        ..
                    }
                );
            (!woken_instead).then_some(notice)
        } else if self.wake.as_deref() == Some(channel) {
            Some(QueueNotice::Woken)
        } else {
            None
        }
    }
}

/// What the connection's task hands over.
enum Event {
    /// A notification: its channel and payload.
    Notification { channel: String, payload: String },
    /// The connection ended, for this reason.
    Closed(String),
}

/// A connection that listens on some channels, pinged every
/// [`PING_EVERY`]: the queue's watcher here and the bells' listener
/// (`events_listen.rs`) both use it.
pub(super) struct Listening {
    client: Client,
    events: mpsc::UnboundedReceiver<Event>,
    ping: tokio::time::Interval,
}

/// Opens a connection (`what` names it in a timeout) and `LISTEN`s on
/// `channels`.
pub(super) async fn listen(
    target: &ListenTarget,
    channels: &[&str],
    what: &'static str,
) -> Result<Listening, PgError> {
    let connecting = target.config.connect(target.tls.clone());
    let (client, mut connection) = tokio::time::timeout(target.timeout, connecting)
        .await
        .map_err(|_| PgError::TimedOut {
            what,
            after: target.timeout,
        })??;
    let (tx, events) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let reason = loop {
            match std::future::poll_fn(|cx| connection.poll_message(cx)).await {
                Some(Ok(AsyncMessage::Notification(n))) => {
                    let event = Event::Notification {
                        channel: n.channel().to_owned(),
                        payload: n.payload().to_owned(),
                    };
                    if tx.send(event).is_err() {
                        return;
                    }
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => break describe_sql_error(&e),
                None => break "the connection was closed".to_owned(),
            }
        };
        let _ = tx.send(Event::Closed(reason));
    });
    let statement = channels
        .iter()
        .map(|c| format!("LISTEN {c}"))
        .collect::<Vec<_>>()
        .join("; ");
    let listening = tokio::time::timeout(target.timeout, client.batch_execute(&statement))
        .await
        .map_err(|_| PgError::TimedOut {
            what: "LISTEN",
            after: target.timeout,
        })?;
    listening?;
    let start = tokio::time::Instant::now() + PING_EVERY;
    let mut ping = tokio::time::interval_at(start, PING_EVERY);
    ping.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    Ok(Listening {
        client,
        events,
        ping,
    })
}

impl Listening {
    /// The next notification (channel, payload), pinging the server
    /// meanwhile; `Err`: why the connection failed.
    pub(super) async fn next(&mut self) -> Result<(String, String), String> {
        loop {
            tokio::select! {
                event = self.events.recv() => return match event {
                    Some(Event::Notification { channel, payload }) => Ok((channel, payload)),
                    Some(Event::Closed(reason)) => Err(reason),
                    None => Err("the connection's task ended".to_owned()),
                },
                _ = self.ping.tick() => {
                    match tokio::time::timeout(PING_TIMEOUT, self.client.simple_query("")).await {
                        Ok(Ok(_)) => {}
                        Ok(Err(e)) => return Err(describe_sql_error(&e)),
                        Err(_) => {
                            return Err(format!(
                                "the server did not answer a ping within {} s",
                                PING_TIMEOUT.as_secs()
                            ));
                        }
                    }
                }
            }
        }
    }

    /// Forwards the queue's notices until the connection fails (its
    /// reason) or the watcher is gone (`None`).
    async fn forward(&mut self, ears: &Ears, sender: &NoticeSender) -> Option<String> {
        loop {
            match self.next().await {
                Ok((channel, payload)) => {
                    if let Some(notice) = ears.notice(&channel, &payload)
                        && !sender.send(notice)
                    {
                        return None;
                    }
                }
                Err(reason) => return Some(reason),
            }
        }
    }
}

/// Opens a new listening connection after a failure: after
/// [`FIRST_RETRY`], doubling up to [`LAST_RETRY`] between tries, until one
/// listens or `stop` (`None`).
pub(super) async fn reconnect(
    target: &ListenTarget,
    channels: &[&str],
    what: &'static str,
    stop: &mut oneshot::Receiver<()>,
) -> Option<Listening> {
    let mut delay = FIRST_RETRY;
    loop {
        tokio::select! {
            _ = &mut *stop => return None,
            () = tokio::time::sleep(delay) => {}
        }
        match listen(target, channels, what).await {
            Ok(again) => return Some(again),
            Err(_) => delay = (delay * 2).min(LAST_RETRY),
        }
    }
}

/// Follows `listening`, reconnecting when it fails (see the module doc),
/// until `stop` (the watcher dropped).
async fn follow(
    target: ListenTarget,
    ears: Ears,
    mut listening: Listening,
    sender: NoticeSender,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        let reason = tokio::select! {
            _ = &mut stop => return,
            ended = listening.forward(&ears, &sender) => match ended {
                Some(reason) => reason,
                None => return,
            },
        };
        drop(listening);
        if !sender.send(QueueNotice::Interrupted { reason }) {
            return;
        }
        let Some(again) = reconnect(&target, &ears.channels(), WHAT, &mut stop).await else {
            return;
        };
        listening = again;
        if !sender.send(QueueNotice::Missed) {
            return;
        }
    }
}
