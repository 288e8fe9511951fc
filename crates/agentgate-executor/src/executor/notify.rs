//! The executor's ear on the shared queue: what other processes change,
//! acted on at once ([`agentgate_store::QueueWatcher`]; PostgreSQL's
//! `LISTEN agentgate_jobs`, nothing on SQLite).
//!
//! The store's watcher for an executor
//! (`JobQueue::watch_queue_for_executor`) has a wake channel of its own:
//! when a claim pass finds nothing to claim, the executor puts that channel
//! on the store's list of idle executors (`idle.rs`), and a job queued or
//! ended on any host wakes ONE executor of that list, the one waiting
//! longest (not the job's last holder), rather than every listener.
//!
//! One thread (`agentgate-notify`) receives the store's notices:
//! - this executor's own wake (a job queued, enqueued by a `serve`,
//!   released or retried by another worker, its lease taken back; or one
//!   ended: a slot, or a session's turn, freed on any host): its row left
//!   the list, so it will register again; wake the claim loop, so an idle
//!   executor claims without waiting for its poll. The broadcast's notices
//!   of jobs queued and ended are not forwarded to such a watcher, and do
//!   not wake the loop; a watcher without a wake channel (a store that has
//!   none) still wakes it on each of them, as before;
//! - a cancel asked for a job this executor runs: stop its run now, by the
//!   path the lease renewal takes when it finds the cancel (the job is
//!   marked cancelled by a client, the engine's cancel channel runs the
//!   termination table on the CLI's process group);
//! - notices missed (the listener reconnected, or this thread fell behind):
//!   a wake may have been lost, and the row may be gone: register again
//!   at the next pass that finds nothing, wake the claim loop, and read
//!   the cancel flag of every job running here.
//!
//! The poll ([`super::TICK`]) and the lease renewal's cancel check stay as
//! they were: a notice only makes them early. If the store cannot listen,
//! a warning says so and they are all there is.

use std::sync::atomic::Ordering;
use std::sync::{Arc, Weak};
use std::time::Duration;

use agentgate_core::CancelRequest;
use agentgate_store::{JobState, QueueChange, QueueNotice, QueueWatcher};

use super::{Inner, Wake, lock};

/// How often the thread checks that its executor still exists while no
/// notice comes.
const CHECK: Duration = Duration::from_secs(1);

/// Start listening, if the store can; the thread ends with the executor.
pub(super) fn start(inner: &Arc<Inner>) -> Result<(), std::io::Error> {
    let watcher = match inner.store.watch_queue_for_executor() {
        Ok(Some(watcher)) => watcher,
        Ok(None) => return Ok(()),
        Err(e) => {
            tracing::warn!(
                "cannot watch the queue ({e}): other processes' jobs and cancels are seen \
                 at the next poll and lease renewal"
            );
            return Ok(());
        }
    };
    if let Some(channel) = watcher.wake_channel() {
        let _ = inner.idle.channel.set(channel.to_owned());
    }
    let executor = Arc::downgrade(inner);
    std::thread::Builder::new()
        .name("agentgate-notify".into())
        .spawn(move || follow(&executor, &watcher))?;
    Ok(())
}

fn follow(executor: &Weak<Inner>, watcher: &QueueWatcher) {
    loop {
        let notice = match watcher.recv_timeout(CHECK) {
            Ok(Some(notice)) => notice,
            Ok(None) if executor.strong_count() > 0 => continue,
            Ok(None) | Err(_) => return,
        };
        let Some(inner) = executor.upgrade() else {
            return;
        };
        match notice {
            QueueNotice::Change {
                change: QueueChange::Queued | QueueChange::Ended,
                ..
            } => {
                if watcher.wake_channel().is_none() {
                    inner.wake_for(Wake::Broadcast);
                }
            }
            QueueNotice::Woken => {
                inner.forget_registration();
                inner.wake_for(Wake::Woken);
            }
            QueueNotice::Change {
                change: QueueChange::CancelRequested,
                job_id,
            } => {
                if cancel_asked(&inner, &job_id) {
                    tracing::info!(job = job_id, "cancel asked: stopping the run");
                }
            }
            QueueNotice::Missed => {
                inner.forget_registration();
                inner.wake_for(Wake::Missed);
                recheck_cancels(&inner);
            }
            QueueNotice::Interrupted { reason } => tracing::warn!(
                "stopped hearing of the queue's changes ({reason}); reconnecting, \
                 meanwhile polling and lease renewals see them"
            ),
        }
    }
}

/// A client asked to cancel `job_id`: if it runs here and was not
/// cancelled yet, its run is stopped (as the lease renewal does when it
/// finds the request). Whether it was.
fn cancel_asked(inner: &Inner, job_id: &str) -> bool {
    let shared = lock(&inner.shared);
    let Some(slot) = shared.running.get(job_id) else {
        return false;
    };
    if slot.cancelled.swap(true, Ordering::SeqCst) {
        return false;
    }
    let _ = slot.cancel.try_send(CancelRequest { immediate: false });
    true
}

/// Cancel the jobs running here whose cancel was asked (notices of it may
/// have been missed).
fn recheck_cancels(inner: &Inner) {
    let running: Vec<String> = lock(&inner.shared).running.keys().cloned().collect();
    for job_id in running {
        match inner.store.get_job(&job_id) {
            Ok(Some(job))
                if job.state == JobState::Running
                    && job.cancel_requested
                    && job.lease_owner.as_deref() == Some(inner.owner.as_str()) =>
            {
                if cancel_asked(inner, &job_id) {
                    tracing::info!(job = job_id, "cancel asked: stopping the run");
                }
            }
            Ok(_) => {}
            Err(e) => tracing::warn!(job = job_id, "failed to read the job: {e}"),
        }
    }
}
