//! The executor on the store's list of idle executors: one job queued or
//! ended wakes one idle executor, not all of them (PostgreSQL; see
//! `agentgate_store`'s `postgres/idle.rs` for the list and its trigger).
//!
//! The rule, applied at the end of each claim pass ([`Inner::after_pass`]):
//! the executor is on the list exactly when its last pass ended with room
//! left and nothing more to claim. A pass that ended for want of room
//! takes it off the list (a wake sent to a full executor would be spent
//! on a pass that cannot claim); a pass that claimed some jobs and then
//! found no more, with room left, keeps it on (or puts it there): it can
//! take the next job as well as an executor that claimed nothing.
//!
//! Registering is done once, with a local flag ([`IdleEntry::registered`]):
//! the flag is set before the row is written (a wake that comes right
//! after the write clears it, and is not overwritten), and cleared by the
//! notice thread (`notify.rs`) when the wake comes (the trigger deleted
//! the row) or notices were missed (the row may have been taken meanwhile):
//! the next pass that finds nothing registers again. Right after it
//! registers, the executor looks at the queue once more: a job queued
//! between its pass and its row's commit, whose trigger did not see the
//! row, is claimed now rather than at the next poll.
//!
//! At stop the row is deleted (whatever the flag says: after a `Missed`
//! it may still be there). A row left by an executor killed while idle
//! costs one lost wake; the poll ([`super::TICK`]) covers that, as it
//! covers every wake that did not come.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

use super::Inner;

/// This executor's place on the list of idle executors.
#[derive(Debug, Default)]
pub(super) struct IdleEntry {
    /// Its watcher's wake channel; unset when the store has none (SQLite,
    /// or the watcher could not start): it never registers then.
    pub(super) channel: OnceLock<String>,
    /// It registered and has not been woken (nor missed notices) since.
    pub(super) registered: AtomicBool,
}

/// How a claim pass ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum PassEnd {
    /// No job may start now and this executor has room for one.
    NothingToClaim,
    /// This executor runs as many jobs as it may.
    Full,
    /// The executor stops.
    Stopping,
}

impl PassEnd {
    /// How the claim thread's debug log names it.
    pub(super) fn as_str(self) -> &'static str {
        match self {
            PassEnd::NothingToClaim => "nothing to claim",
            PassEnd::Full => "full",
            PassEnd::Stopping => "stopping",
        }
    }
}

impl Inner {
    /// Puts this executor on the list or takes it off after a pass (see
    /// the module notes). Whether it just registered: the caller then
    /// looks at the queue once more.
    pub(super) fn after_pass(&self, end: PassEnd) -> bool {
        let Some(channel) = self.idle.channel.get() else {
            return false;
        };
        match end {
            PassEnd::NothingToClaim => {
                if self.idle.registered.swap(true, Ordering::SeqCst) {
                    return false;
                }
                let providers = self.providers.as_ref().map(|only| only.0.as_slice());
                match self
                    .store
                    .register_idle(channel, &self.owner, providers, self.clock.now())
                {
                    Ok(()) => {
                        tracing::debug!("idle: waiting to be woken");
                        true
                    }
                    Err(e) => {
                        self.idle.registered.store(false, Ordering::SeqCst);
                        tracing::warn!(
                            "failed to register as idle ({e}): new jobs are seen at the next poll"
                        );
                        false
                    }
                }
            }
            PassEnd::Full => {
                if self.idle.registered.swap(false, Ordering::SeqCst)
                    && let Err(e) = self.store.unregister_idle(channel)
                {
                    tracing::warn!("failed to leave the list of idle executors: {e}");
                }
                false
            }
            PassEnd::Stopping => false,
        }
    }

    /// The notice thread heard this executor's wake, or missed notices:
    /// its row is gone or may be; the next pass that finds nothing
    /// registers again.
    pub(super) fn forget_registration(&self) {
        self.idle.registered.store(false, Ordering::SeqCst);
    }

    /// At stop: off the list, whatever the flag says.
    pub(super) fn leave_idle_list(&self) {
        let Some(channel) = self.idle.channel.get() else {
            return;
        };
        self.idle.registered.store(false, Ordering::SeqCst);
        if let Err(e) = self.store.unregister_idle(channel) {
            tracing::warn!("failed to leave the list of idle executors: {e}");
        }
    }
}
