//! The webhook outbox: messages to deliver, one row per (message,
//! destination URL), written when their event happens and delivered later
//! by `agentgate serve`'s delivery worker, and each delivery's attempts.
//!
//! ## The rules
//!
//! - [`WebhookOutbox::enqueue_webhooks`] inserts a delivery unless one with
//!   the same message id and URL exists: a message id is derived from its
//!   event (a job's end, a wait), so two processes that see the same event
//!   write it once.
//! - [`WebhookOutbox::claim_webhooks`] takes the pending deliveries that
//!   are due (`next_attempt_at` passed) and not leased by another
//!   process (or whose lease expired), and leases them to `owner` for
//!   `lease`: with several servers on one PostgreSQL, each delivery is
//!   sent by one of them at a time (`FOR UPDATE SKIP LOCKED`). A
//!   process that dies while sending leaves its lease to expire; the
//!   delivery is sent again: at least once.
//! - [`WebhookOutbox::record_webhook_attempt`] writes an attempt (status
//!   code, error, time, outcome) and the delivery's next state: delivered,
//!   refused, failed (no more tries), or pending again at a later time. It
//!   is written only by the lease's holder.
//! - [`WebhookOutbox::list_webhook_deliveries`]: newest first, filtered by
//!   state, event and URL, a page at a time.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use crate::error::StoreError;
use crate::records::UnknownName;

/// Where a delivery is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// To be sent (again) at `next_attempt_at`.
    Pending,
    /// A 2xx answer came.
    Delivered,
    /// Never sent: the destination's address is not allowed.
    Refused,
    /// Every try failed until the schedule's end.
    Failed,
}

impl DeliveryState {
    /// Every state.
    pub const ALL: [DeliveryState; 4] =
        [Self::Pending, Self::Delivered, Self::Refused, Self::Failed];

    /// The stored name.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Delivered => "delivered",
            Self::Refused => "refused",
            Self::Failed => "failed",
        }
    }
}

impl fmt::Display for DeliveryState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for DeliveryState {
    type Err = UnknownName;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|state| state.as_str() == s)
            .ok_or_else(|| UnknownName(s.to_owned()))
    }
}

/// A delivery to write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewWebhookDelivery {
    /// The message's id, the `webhook-id` header (the same on every try).
    pub message_id: String,
    /// The event's name, e.g. `run.ended`.
    pub event: String,
    /// The destination.
    pub url: String,
    /// The body, JSON text, sent as is on every try.
    pub payload: String,
    /// The job (or run) the event is about, if any.
    pub job_id: Option<String>,
}

/// A claimed delivery, to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimedDelivery {
    /// The delivery's id.
    pub delivery_id: i64,
    /// See [`NewWebhookDelivery::message_id`].
    pub message_id: String,
    /// The event's name.
    pub event: String,
    /// The destination.
    pub url: String,
    /// The body.
    pub payload: String,
    /// Tries made before this one.
    pub attempts: u32,
    /// When it was written.
    pub created_at: Timestamp,
}

/// One attempt, as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryAttempt {
    /// Its number, from 1.
    pub n: u32,
    /// When it was made.
    pub at: Timestamp,
    /// The answer's HTTP status, if one came.
    pub status_code: Option<u16>,
    /// Why it failed or was refused, if it did.
    pub error: Option<String>,
    /// `delivered`, `refused`, or `failed` (this try).
    pub outcome: String,
}

/// What becomes of a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterAttempt {
    /// Done: delivered, refused, or failed for good.
    Done(DeliveryState),
    /// Pending again, not before this time.
    RetryAt(Timestamp),
}

/// A delivery as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeliveryRecord {
    /// Its id.
    pub delivery_id: i64,
    /// The message's id (`webhook-id`).
    pub message_id: String,
    /// The event's name.
    pub event: String,
    /// The destination.
    pub url: String,
    /// The job the event is about, if any.
    pub job_id: Option<String>,
    /// Where it is.
    pub state: DeliveryState,
    /// When it was written.
    pub created_at: Timestamp,
    /// When it is tried next (pending only).
    pub next_attempt_at: Option<Timestamp>,
    /// Its attempts, oldest first.
    pub attempts: Vec<DeliveryAttempt>,
}

/// Which deliveries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeliveryFilter {
    /// Only in this state.
    pub state: Option<DeliveryState>,
    /// Only of this event.
    pub event: Option<String>,
    /// Only to this URL.
    pub url: Option<String>,
    /// Only older than this delivery id (the page's cursor).
    pub before: Option<i64>,
    /// At most this many (1 or more).
    pub limit: usize,
}

/// The webhook outbox's operations, one trait for every backend (see the
/// module notes).
pub trait WebhookOutbox {
    /// Write the deliveries that are not stored yet; how many were new.
    fn enqueue_webhooks(
        &self,
        deliveries: &[NewWebhookDelivery],
        now: Timestamp,
    ) -> Result<usize, StoreError>;

    /// Lease up to `limit` due pending deliveries to `owner` for `lease`.
    fn claim_webhooks(
        &self,
        owner: &str,
        lease: Duration,
        limit: usize,
        now: Timestamp,
    ) -> Result<Vec<ClaimedDelivery>, StoreError>;

    /// Record an attempt of `delivery_id` and what follows; `false` (and
    /// nothing written) if `owner` no longer holds its lease.
    fn record_webhook_attempt(
        &self,
        delivery_id: i64,
        owner: &str,
        attempt: &DeliveryAttempt,
        after: AfterAttempt,
    ) -> Result<bool, StoreError>;

    /// The deliveries `filter` selects, newest first, with their attempts.
    fn list_webhook_deliveries(
        &self,
        filter: &DeliveryFilter,
    ) -> Result<Vec<DeliveryRecord>, StoreError>;

    /// When the earliest pending delivery is due, if any is pending.
    fn next_webhook_due(&self) -> Result<Option<Timestamp>, StoreError>;
}

/// `lease` past `now`, saturating.
pub(crate) fn lease_end(now: Timestamp, lease: Duration) -> Timestamp {
    jiff::SignedDuration::try_from(lease)
        .ok()
        .and_then(|d| now.checked_add(d).ok())
        .unwrap_or(Timestamp::MAX)
}
