//! [`WebhookOutbox`] on [`PgStore`]: the `webhook_deliveries` and
//! `webhook_attempts` tables (schema v13). A claim leases the due rows it
//! locks with `FOR UPDATE SKIP LOCKED`: several servers on one database
//! never lease the same delivery at once.

use std::time::Duration;

use jiff::Timestamp;
use tokio_postgres::Row;

use super::{PgError, PgStore};
use crate::error::StoreError;
use crate::webhooks::{
    AfterAttempt, ClaimedDelivery, DeliveryAttempt, DeliveryFilter, DeliveryRecord, DeliveryState,
    NewWebhookDelivery, WebhookOutbox, lease_end,
};

impl WebhookOutbox for PgStore {
    fn enqueue_webhooks(
        &self,
        deliveries: &[NewWebhookDelivery],
        now: Timestamp,
    ) -> Result<usize, StoreError> {
        let deliveries = deliveries.to_vec();
        self.transaction("enqueue webhooks", move |tx| {
            Box::pin(async move {
                let mut added = 0;
                for d in &deliveries {
                    added += tx
                        .execute(
                            "INSERT INTO webhook_deliveries (message_id, event, url, job_id, \
                             payload, state, created_at, next_attempt_at) \
                             VALUES ($1, $2, $3, $4, $5, 'pending', $6, $6) \
                             ON CONFLICT (message_id, url) DO NOTHING",
                            &[&d.message_id, &d.event, &d.url, &d.job_id, &d.payload, &now],
                        )
                        .await?;
                }
                Ok(usize::try_from(added).unwrap_or(usize::MAX))
            })
        })
    }

    fn claim_webhooks(
        &self,
        owner: &str,
        lease: Duration,
        limit: usize,
        now: Timestamp,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let owner = owner.to_owned();
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let until = lease_end(now, lease);
        self.transaction("claim webhooks", move |tx| {
            Box::pin(async move {
                tx.query(
                    "UPDATE webhook_deliveries SET lease_owner = $3, lease_expires_at = $4 \
                     WHERE delivery_id IN (SELECT delivery_id FROM webhook_deliveries \
                       WHERE state = 'pending' AND next_attempt_at <= $1 \
                       AND (lease_expires_at IS NULL OR lease_expires_at <= $1) \
                       ORDER BY next_attempt_at, delivery_id LIMIT $2 \
                       FOR UPDATE SKIP LOCKED) \
                     RETURNING delivery_id, message_id, event, url, payload, attempts, created_at",
                    &[&now, &limit, &owner, &until],
                )
                .await?
                .iter()
                .map(claimed)
                .collect()
            })
        })
    }

    fn record_webhook_attempt(
        &self,
        delivery_id: i64,
        owner: &str,
        attempt: &DeliveryAttempt,
        after: AfterAttempt,
    ) -> Result<bool, StoreError> {
        let (owner, attempt) = (owner.to_owned(), attempt.clone());
        let (state, next) = match after {
            AfterAttempt::Done(state) => (state, None),
            AfterAttempt::RetryAt(at) => (DeliveryState::Pending, Some(at)),
        };
        self.transaction("record a webhook attempt", move |tx| {
            Box::pin(async move {
                let changed = tx
                    .execute(
                        "UPDATE webhook_deliveries SET state = $3, next_attempt_at = $4, \
                         attempts = attempts + 1, lease_owner = NULL, lease_expires_at = NULL \
                         WHERE delivery_id = $1 AND lease_owner = $2",
                        &[&delivery_id, &owner, &state.as_str(), &next],
                    )
                    .await?;
                if changed == 0 {
                    return Ok(false);
                }
                tx.execute(
                    "INSERT INTO webhook_attempts (delivery_id, n, at, status_code, error, outcome) \
                     VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (delivery_id, n) DO UPDATE SET \
                     at = excluded.at, status_code = excluded.status_code, \
                     error = excluded.error, outcome = excluded.outcome",
                    &[
                        &delivery_id,
                        &i64::from(attempt.n),
                        &attempt.at,
                        &attempt.status_code.map(i32::from),
                        &attempt.error,
                        &attempt.outcome,
                    ],
                )
                .await?;
                Ok(true)
            })
        })
    }

    fn list_webhook_deliveries(
        &self,
        filter: &DeliveryFilter,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let filter = filter.clone();
        let limit = i64::try_from(filter.limit.max(1)).unwrap_or(i64::MAX);
        self.transaction("list webhook deliveries", move |tx| {
            Box::pin(async move {
                let state = filter.state.map(DeliveryState::as_str);
                let rows = tx
                    .query(
                        "SELECT delivery_id, message_id, event, url, job_id, state, created_at, \
                         next_attempt_at FROM webhook_deliveries \
                         WHERE ($1::text IS NULL OR state = $1) \
                         AND ($2::text IS NULL OR event = $2) \
                         AND ($3::text IS NULL OR url = $3) \
                         AND ($4::bigint IS NULL OR delivery_id < $4) \
                         ORDER BY delivery_id DESC LIMIT $5",
                        &[&state, &filter.event, &filter.url, &filter.before, &limit],
                    )
                    .await?;
                let mut records = rows.iter().map(record).collect::<Result<Vec<_>, _>>()?;
                for r in &mut records {
                    r.attempts = tx
                        .query(
                            "SELECT n, at, status_code, error, outcome FROM webhook_attempts \
                             WHERE delivery_id = $1 ORDER BY n",
                            &[&r.delivery_id],
                        )
                        .await?
                        .iter()
                        .map(attempt)
                        .collect::<Result<Vec<_>, _>>()?;
                }
                Ok(records)
            })
        })
    }

    fn next_webhook_due(&self) -> Result<Option<Timestamp>, StoreError> {
        self.call("find the next webhook due", move |client| {
            Box::pin(async move {
                let row = client
                    .query_one(
                        "SELECT MIN(next_attempt_at) FROM webhook_deliveries \
                         WHERE state = 'pending'",
                        &[],
                    )
                    .await?;
                Ok(row.try_get::<_, Option<Timestamp>>(0)?)
            })
        })
    }
}

fn claimed(row: &Row) -> Result<ClaimedDelivery, PgError> {
    let attempts: i64 = row.try_get("attempts")?;
    Ok(ClaimedDelivery {
        delivery_id: row.try_get("delivery_id")?,
        message_id: row.try_get("message_id")?,
        event: row.try_get("event")?,
        url: row.try_get("url")?,
        payload: row.try_get("payload")?,
        attempts: u32::try_from(attempts).unwrap_or(0),
        created_at: row.try_get("created_at")?,
    })
}

fn record(row: &Row) -> Result<DeliveryRecord, PgError> {
    let state: String = row.try_get("state")?;
    let state: DeliveryState = state.parse().map_err(|_| PgError::Invalid {
        column: "webhook_deliveries.state",
        value: state.clone(),
    })?;
    let next: Option<Timestamp> = row.try_get("next_attempt_at")?;
    Ok(DeliveryRecord {
        delivery_id: row.try_get("delivery_id")?,
        message_id: row.try_get("message_id")?,
        event: row.try_get("event")?,
        url: row.try_get("url")?,
        job_id: row.try_get("job_id")?,
        state,
        created_at: row.try_get("created_at")?,
        next_attempt_at: next.filter(|_| state == DeliveryState::Pending),
        attempts: Vec::new(),
    })
}

fn attempt(row: &Row) -> Result<DeliveryAttempt, PgError> {
    let n: i64 = row.try_get("n")?;
    let status: Option<i32> = row.try_get("status_code")?;
    Ok(DeliveryAttempt {
        n: u32::try_from(n).unwrap_or(0),
        at: row.try_get("at")?,
        status_code: status.and_then(|s| u16::try_from(s).ok()),
        error: row.try_get("error")?,
        outcome: row.try_get("outcome")?,
    })
}
