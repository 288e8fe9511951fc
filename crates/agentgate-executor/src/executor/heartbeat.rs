//! A claimed job's lease, kept while its run goes on; and the run stopped
//! when the lease cannot be kept.
//!
//! The lease is renewed every third of `queue.lease`, each renewal on a
//! blocking thread of its own (one at a time), so a store call that hangs
//! (a database behind a network partition) never delays this loop. The
//! run stops at once, through the engine's cancel channel (the
//! supervisor's termination of the CLI's process group), when:
//!
//! - a renewal finds the lease lost (another executor took the job back):
//!   [`LeaseEnd::Lost`];
//! - the lease runs out by this executor's own clock: no renewal has
//!   landed, and the last one that did (or the claim) holds the lease
//!   until [`held_until`] — its `lease` counted from when it was sent,
//!   less a [`margin`] of a quarter of the lease. That is earlier than the
//!   database's `lease_expires_at` (the holder's clock read before the
//!   call, plus the lease), so the CLI is ended before another executor
//!   may take the job back: [`LeaseEnd::RanOut`]. Nothing more is written
//!   for the job after that: the run's writes are refused before they
//!   reach the store (`fence.rs`) and the job's end is not written
//!   (`job_end.rs`); the store may take the job back at any moment, and a
//!   write that waited for the network to heal would land under someone
//!   else's lease.
//!
//! Whose clock: the holder computes `lease_expires_at` from its own clock,
//! and the executor that takes the lease back compares it with its own.
//! The margin therefore has to cover the skew between the hosts' clocks
//! plus the time the CLI takes to end after its termination; hosts are
//! assumed to agree within a few seconds (NTP), and the lease to be long
//! enough that a quarter of it covers that (docs/config.md, `queue.lease`).

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use agentgate_core::CancelRequest;
use agentgate_store::{Heartbeat, StoreBackend, StoreError};
use tokio::time::Instant;

use super::job::{Job, LeaseEnd};

/// What the executor keeps back of a lease: a quarter of it.
pub fn margin(lease: Duration) -> Duration {
    lease / 4
}

/// Until when a renewal (or claim) sent at `sent` holds the lease, by this
/// executor's clock (see the module notes).
pub fn held_until(sent: Instant, lease: Duration) -> Instant {
    sent + lease.saturating_sub(margin(lease))
}

impl Job {
    /// Drive `run`, renewing the lease (see the module notes); the run's
    /// outcome, and how the lease fared.
    pub(super) async fn with_heartbeat<T>(
        &self,
        run: impl std::future::Future<Output = T>,
    ) -> (T, LeaseEnd) {
        let inner = &self.inner;
        let lease = inner.config.queue.lease;
        let claimed = Instant::from_std(self.claim_sent);
        let mut until = held_until(claimed, lease);
        // The first renewal a third of the lease after the claim (at once
        // if the run took that long to start), then every third.
        let mut beat = tokio::time::interval_at(claimed + lease / 3, lease / 3);
        beat.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tokio::pin!(run);
        let mut state = LeaseEnd::Held;
        // When the renewal under way was sent; its answer comes on `answers`.
        let mut renewing: Option<Instant> = None;
        let (answers_tx, mut answers) = tokio::sync::mpsc::channel(1);
        loop {
            tokio::select! {
                outcome = &mut run => return (outcome, state),
                _ = beat.tick(), if state == LeaseEnd::Held && renewing.is_none() => {
                    renewing = Some(Instant::now());
                    self.renew(lease, answers_tx.clone());
                }
                Some(answer) = answers.recv() => {
                    let sent = renewing.take().unwrap_or_else(Instant::now);
                    if state != LeaseEnd::Held {
                        continue;
                    }
                    match answer {
                        Ok(hb) => {
                            until = held_until(sent, lease);
                            if hb.cancel_requested && !self.cancelled.swap(true, Ordering::SeqCst) {
                                let _ = self.cancel_tx.try_send(CancelRequest { immediate: false });
                            }
                        }
                        Err(StoreError::LeaseLost { .. }) => {
                            state = LeaseEnd::Lost;
                            let _ = self.cancel_tx.try_send(CancelRequest { immediate: true });
                        }
                        Err(e) => tracing::warn!(job = self.id(), "failed to renew the lease: {e}"),
                    }
                }
                () = tokio::time::sleep_until(until), if state == LeaseEnd::Held => {
                    tracing::warn!(
                        job = self.id(),
                        "no lease renewal landed in time: stopping the run before the lease \
                         ends; nothing more is written for this job"
                    );
                    state = LeaseEnd::RanOut;
                    self.fenced.store(true, Ordering::SeqCst);
                    let _ = self.cancel_tx.try_send(CancelRequest { immediate: true });
                }
            }
        }
    }

    /// One renewal, on a blocking thread; its answer goes to `answer`.
    fn renew(
        &self,
        lease: Duration,
        answer: tokio::sync::mpsc::Sender<Result<Heartbeat, StoreError>>,
    ) {
        let store: Arc<dyn StoreBackend> = self.inner.store.clone();
        let clock = self.inner.clock.clone();
        let (job_id, token) = (self.id().to_owned(), self.claimed.token.clone());
        tokio::task::spawn_blocking(move || {
            let renewed = store.heartbeat(&job_id, &token, lease, clock.now());
            let _ = answer.blocking_send(renewed);
        });
    }
}
