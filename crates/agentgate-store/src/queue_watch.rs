//! Watching the job queue for changes made by other processes
//! ([`crate::JobQueue::watch_queue`]).
//!
//! An executor finds new work by polling the queue; on a store shared by
//! many hosts that alone would leave a cancel waiting for the holder's next
//! lease renewal and a new job waiting for the next poll. A [`QueueWatcher`]
//! tells it at once instead: a job became claimable, a running job's cancel
//! was asked, a job ended (its slot is free). The notices are hints: the
//! consumer still reads the queue to act, and a notice may have been lost
//! (the connection dropped, the consumer fell behind), which the watcher
//! says with [`QueueNotice::Missed`] so the consumer rescans. Polling and
//! the lease renewal stay the fallback.
//!
//! Two kinds of watcher:
//! - [`crate::JobQueue::watch_queue`]: every change, as the database
//!   broadcasts it (every listener hears every job queued, ended or
//!   cancelled);
//! - [`crate::JobQueue::watch_queue_for_executor`]: what one executor of
//!   many needs. It hears the cancels of the broadcast, but of the jobs
//!   queued and ended only its own [`QueueNotice::Woken`]: the watcher has
//!   a channel of its own ([`QueueWatcher::wake_channel`]), the executor
//!   puts it on the store's list of idle executors
//!   ([`crate::JobQueue::register_idle`]) when it finds nothing to claim,
//!   and each job queued or ended wakes one executor of that list, not all
//!   of them (`src/postgres/idle.rs`).
//!
//! SQLite has no watcher (`None`): one host, where the executor of the
//! process that changes the queue wakes itself. PostgreSQL's is
//! `src/postgres/listen.rs` (`LISTEN` on a connection of its own).

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, TrySendError};
use std::time::Duration;

/// What happened to a job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum QueueChange {
    /// It was enqueued or put back in the queue (released, retried, its
    /// lease taken back), or its `not_before` or priority changed: a claim
    /// may take it.
    Queued,
    /// It runs and a cancel was asked: its executor should stop it.
    CancelRequested,
    /// It ended (from running: its slot is free; from queued: a later job
    /// of its session may go first now).
    Ended,
}

impl QueueChange {
    /// The change's name in a notification's payload.
    pub fn as_str(self) -> &'static str {
        match self {
            QueueChange::Queued => "queued",
            QueueChange::CancelRequested => "cancel",
            QueueChange::Ended => "ended",
        }
    }

    /// The change named `name` in a payload; `None` for a name this
    /// version does not know.
    pub fn from_name(name: &str) -> Option<QueueChange> {
        match name {
            "queued" => Some(QueueChange::Queued),
            "cancel" => Some(QueueChange::CancelRequested),
            "ended" => Some(QueueChange::Ended),
            _ => None,
        }
    }
}

impl fmt::Display for QueueChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One thing a [`QueueWatcher`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueNotice {
    /// `job_id` changed so.
    Change {
        /// What happened.
        change: QueueChange,
        /// The job.
        job_id: String,
    },
    /// This watcher's executor was taken off the list of idle executors
    /// and woken: a job was queued or one ended (a slot freed), and it was
    /// the one executor told (only a watcher with a
    /// [`wake_channel`](QueueWatcher::wake_channel) hears this).
    Woken,
    /// Notices may have been lost (the watcher reconnected, or the consumer
    /// fell behind): read the queue again.
    Missed,
    /// The watcher lost its connection (`reason`, without secrets) and is
    /// reconnecting; a [`QueueNotice::Missed`] follows once it listens
    /// again.
    Interrupted {
        /// What failed.
        reason: String,
    },
}

/// The watcher stopped for good (its store was dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the queue watcher stopped")]
pub struct WatchEnded;

/// Queue changes as they happen (see the module doc). Dropping it stops
/// the listening.
pub struct QueueWatcher {
    notices: Receiver<QueueNotice>,
    overflowed: Arc<AtomicBool>,
    /// The channel this watcher's own wakes come on, if it has one.
    wake_channel: Option<String>,
    /// Dropped with the watcher: tells the listener to stop.
    _listener: Box<dyn Send>,
}

impl fmt::Debug for QueueWatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QueueWatcher").finish_non_exhaustive()
    }
}

impl QueueWatcher {
    /// A watcher fed by the returned sender, which holds at most `capacity`
    /// notices not yet received (more become one [`QueueNotice::Missed`]);
    /// `listener` is kept until the watcher is dropped.
    #[cfg_attr(not(feature = "postgres"), expect(dead_code))]
    pub(crate) fn channel(
        capacity: usize,
        listener: Box<dyn Send>,
    ) -> (QueueWatcher, NoticeSender) {
        let (tx, rx) = std::sync::mpsc::sync_channel(capacity.max(1));
        let overflowed = Arc::new(AtomicBool::new(false));
        let watcher = QueueWatcher {
            notices: rx,
            overflowed: overflowed.clone(),
            wake_channel: None,
            _listener: listener,
        };
        (watcher, NoticeSender { tx, overflowed })
    }

    /// The same watcher, hearing its own wakes on `channel`.
    #[cfg_attr(not(feature = "postgres"), expect(dead_code))]
    pub(crate) fn with_wake_channel(mut self, channel: String) -> QueueWatcher {
        self.wake_channel = Some(channel);
        self
    }

    /// The channel on which this watcher hears [`QueueNotice::Woken`]: the
    /// name its executor registers as idle under
    /// ([`crate::JobQueue::register_idle`]). `None` for a watcher of every
    /// change ([`crate::JobQueue::watch_queue`]): its consumer acts on the
    /// queued and ended notices themselves.
    pub fn wake_channel(&self) -> Option<&str> {
        self.wake_channel.as_deref()
    }

    /// The next notice, waiting at most `timeout`; `Ok(None)` if none came.
    /// [`WatchEnded`] once the listener is gone for good.
    pub fn recv_timeout(&self, timeout: Duration) -> Result<Option<QueueNotice>, WatchEnded> {
        if self.overflowed.swap(false, Ordering::SeqCst) {
            return Ok(Some(QueueNotice::Missed));
        }
        match self.notices.recv_timeout(timeout) {
            Ok(notice) => Ok(Some(notice)),
            Err(RecvTimeoutError::Timeout) => Ok(None),
            Err(RecvTimeoutError::Disconnected) => Err(WatchEnded),
        }
    }
}

/// The listener's end of a [`QueueWatcher`]: never blocks.
#[derive(Debug)]
pub(crate) struct NoticeSender {
    tx: SyncSender<QueueNotice>,
    overflowed: Arc<AtomicBool>,
}

#[cfg_attr(not(feature = "postgres"), expect(dead_code))]
impl NoticeSender {
    /// Hands `notice` over; a full watcher gets a [`QueueNotice::Missed`]
    /// instead. `false` once the watcher is dropped.
    pub(crate) fn send(&self, notice: QueueNotice) -> bool {
        match self.tx.try_send(notice) {
            Ok(()) => true,
            Err(TrySendError::Full(_)) => {
                self.overflowed.store(true, Ordering::SeqCst);
                true
            }
            Err(TrySendError::Disconnected(_)) => false,
        }
    }
}

/// A notification's payload, `<change>:<job id>` (job ids never contain a
/// colon), as the database's trigger writes it; `None` if it is not one.
pub fn parse_payload(payload: &str) -> Option<QueueNotice> {
    let (name, job_id) = payload.split_once(':')?;
    let change = QueueChange::from_name(name)?;
    (!job_id.is_empty()).then(|| QueueNotice::Change {
        change,
        job_id: job_id.to_owned(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_name_a_change_and_a_job() {
        assert_eq!(
            parse_payload("cancel:job-1.2"),
            Some(QueueNotice::Change {
                change: QueueChange::CancelRequested,
                job_id: "job-1.2".to_owned()
            })
        );
        for change in [
            QueueChange::Queued,
            QueueChange::CancelRequested,
            QueueChange::Ended,
        ] {
            assert_eq!(QueueChange::from_name(change.as_str()), Some(change));
        }
        assert_eq!(parse_payload("renamed:job-1"), None);
        assert_eq!(parse_payload("queued:"), None);
        assert_eq!(parse_payload("queued"), None);
    }

    #[test]
    fn a_full_watcher_reports_missed_notices() {
        let (watcher, sender) = QueueWatcher::channel(1, Box::new(()));
        let notice = |id: &str| QueueNotice::Change {
            change: QueueChange::Queued,
            job_id: id.to_owned(),
        };
        assert!(sender.send(notice("a")));
        assert!(sender.send(notice("b")), "full: kept as a missed notice");
        let wait = Duration::from_millis(10);
        assert_eq!(watcher.recv_timeout(wait), Ok(Some(QueueNotice::Missed)));
        assert_eq!(watcher.recv_timeout(wait), Ok(Some(notice("a"))));
        assert_eq!(watcher.recv_timeout(wait), Ok(None));
        drop(sender);
        assert_eq!(watcher.recv_timeout(wait), Err(WatchEnded));
        let (watcher, sender) = QueueWatcher::channel(1, Box::new(()));
        drop(watcher);
        assert!(!sender.send(notice("c")), "the watcher is gone");
    }
}
