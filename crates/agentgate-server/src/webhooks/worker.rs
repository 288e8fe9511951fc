//! The delivery worker: a task of `agentgate serve` that sends the
//! outbox's due deliveries. Each pass reads when the next delivery is due
//! (a read, no lock); when one is, it leases up to [`IN_FLIGHT`] of them
//! (the store's claim: one server per delivery) and sends each in a task
//! of its own, then records the try and what follows (delivered on a 2xx,
//! refused, or retried by `schedule.rs`). Between passes it sleeps
//! [`POLL`]. A server that dies mid-try leaves its lease ([`LEASE`]) to
//! expire, and the delivery is sent again: at least once, with the same
//! `webhook-id`.
//!
//! `webhook-timestamp` is the system's time when the try is sent (the
//! receiver checks it against its own clock); the schedule and the
//! recorded attempt times are the executor's clock.

use std::sync::Arc;
use std::time::Duration;

use agentgate_core::WebhookUrl;
use agentgate_executor::Clock;
use agentgate_store::{
    AfterAttempt, ClaimedDelivery, DeliveryAttempt, DeliveryState, StoreBackend,
};
use bytes::Bytes;
use tokio::task::JoinSet;

use super::client::{Signed, Tried, deliver};
use super::schedule::{after_failure, jitter};
use super::signature::WebhookSecret;

/// The longest one try may take.
pub const TRY_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a claimed delivery is this server's before another may take it.
pub const LEASE: Duration = Duration::from_secs(60);

/// How often the worker looks for due deliveries.
pub const POLL: Duration = Duration::from_millis(250);

/// The most deliveries sent at once.
pub const IN_FLIGHT: usize = 16;

/// What the worker needs.
#[derive(Debug, Clone)]
pub(super) struct Sender {
    pub store: Arc<dyn StoreBackend>,
    pub clock: Arc<dyn Clock>,
    pub secret: WebhookSecret,
    pub allow_private: bool,
    pub owner: String,
    pub tls: Arc<rustls::ClientConfig>,
}

impl Sender {
    /// Send due deliveries until the task is aborted.
    pub(super) async fn run(self) {
        let mut sending: JoinSet<()> = JoinSet::new();
        loop {
            while sending.try_join_next().is_some() {}
            let free = IN_FLIGHT.saturating_sub(sending.len());
            let claimed = if free > 0 {
                self.claim(free).await
            } else {
                Vec::new()
            };
            if claimed.is_empty() {
                tokio::select! {
                    _ = tokio::time::sleep(POLL) => {}
                    Some(_) = sending.join_next(), if !sending.is_empty() => {}
                }
                continue;
            }
            for delivery in claimed {
                let me = self.clone();
                sending.spawn(async move { me.send(delivery).await });
            }
        }
    }

    async fn claim(&self, free: usize) -> Vec<ClaimedDelivery> {
        let me = self.clone();
        let claimed = tokio::task::spawn_blocking(move || {
            let now = me.clock.now();
            match me.store.next_webhook_due()? {
                Some(due) if due <= now => {}
                _ => return Ok(Vec::new()),
            }
            me.store.claim_webhooks(&me.owner, LEASE, free, now)
        })
        .await;
        match claimed {
            Ok(Ok(claimed)) => claimed,
            Ok(Err(e)) => {
                tracing::warn!("webhooks: cannot claim deliveries: {e}");
                Vec::new()
            }
            Err(e) => {
                tracing::warn!("webhooks: the claim failed: {e}");
                Vec::new()
            }
        }
    }

    async fn send(&self, delivery: ClaimedDelivery) {
        let tries = delivery.attempts + 1;
        let tried = match WebhookUrl::parse(&delivery.url) {
            Err(why) => Tried::Refused(format!("not a webhook URL: {why}")),
            Ok(url) => {
                let timestamp = jiff::Timestamp::now().as_second();
                let body = Bytes::from(delivery.payload.clone());
                let signed = Signed {
                    id: delivery.message_id.clone(),
                    timestamp,
                    signature: self.secret.sign(&delivery.message_id, timestamp, &body),
                };
                deliver(
                    &url,
                    self.allow_private,
                    &signed,
                    body,
                    TRY_TIMEOUT,
                    &self.tls,
                )
                .await
            }
        };
        let now = self.clock.now();
        let (attempt, after) = match tried {
            Tried::Answered(code) if (200..300).contains(&code) => (
                outcome(tries, now, Some(code), None, "delivered"),
                AfterAttempt::Done(DeliveryState::Delivered),
            ),
            Tried::Answered(code) => (
                outcome(
                    tries,
                    now,
                    Some(code),
                    Some(format!("answered {code}")),
                    "failed",
                ),
                after_failure(tries, now, jitter()),
            ),
            Tried::Refused(why) => (
                outcome(tries, now, None, Some(why), "refused"),
                AfterAttempt::Done(DeliveryState::Refused),
            ),
            Tried::Failed(why) => (
                outcome(tries, now, None, Some(why), "failed"),
                after_failure(tries, now, jitter()),
            ),
        };
        match &after {
            AfterAttempt::Done(DeliveryState::Failed) => tracing::warn!(
                delivery = delivery.delivery_id,
                url = delivery.url,
                "webhooks: giving up on a delivery after {tries} tries"
            ),
            AfterAttempt::Done(DeliveryState::Refused) => tracing::warn!(
                delivery = delivery.delivery_id,
                url = delivery.url,
                "webhooks: delivery refused: {}",
                attempt.error.as_deref().unwrap_or_default()
            ),
            _ => tracing::debug!(
                delivery = delivery.delivery_id,
                outcome = attempt.outcome,
                "webhooks: delivery tried"
            ),
        }
        let me = self.clone();
        let id = delivery.delivery_id;
        let recorded = tokio::task::spawn_blocking(move || {
            me.store
                .record_webhook_attempt(id, &me.owner, &attempt, after)
        })
        .await;
        match recorded {
            Ok(Ok(true)) => {}
            Ok(Ok(false)) => tracing::warn!(
                delivery = id,
                "webhooks: the delivery's lease was taken before its try was recorded"
            ),
            Ok(Err(e)) => tracing::warn!(delivery = id, "webhooks: cannot record a try: {e}"),
            Err(e) => tracing::warn!(delivery = id, "webhooks: recording a try failed: {e}"),
        }
    }
}

fn outcome(
    n: u32,
    at: jiff::Timestamp,
    status_code: Option<u16>,
    error: Option<String>,
    outcome: &str,
) -> DeliveryAttempt {
    DeliveryAttempt {
        n,
        at,
        status_code,
        error,
        outcome: outcome.to_owned(),
    }
}
