//! [`WebhookOutbox`] on [`SqliteStore`]: the `webhook_deliveries` and
//! `webhook_attempts` tables (version 14). A claim is one write
//! transaction (SQLite has one writer at a time: no two processes lease
//! the same delivery).

use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};

use super::values::{opt_timestamp_from_sql, timestamp_from_sql, timestamp_to_sql};
use super::{DbError, SqliteStore};
use crate::error::StoreError;
use crate::webhooks::{
    AfterAttempt, ClaimedDelivery, DeliveryAttempt, DeliveryFilter, DeliveryRecord, DeliveryState,
    NewWebhookDelivery, WebhookOutbox, lease_end,
};

impl WebhookOutbox for SqliteStore {
    fn enqueue_webhooks(
        &self,
        deliveries: &[NewWebhookDelivery],
        now: Timestamp,
    ) -> Result<usize, StoreError> {
        self.write("enqueue webhooks", |tx| {
            let mut added = 0;
            for d in deliveries {
                added += tx.execute(
                    "INSERT OR IGNORE INTO webhook_deliveries \
                     (message_id, event, url, job_id, payload, state, created_at, next_attempt_at) \
                     VALUES (?1, ?2, ?3, ?4, ?5, 'pending', ?6, ?6)",
                    params![
                        d.message_id,
                        d.event,
                        d.url,
                        d.job_id,
                        d.payload,
                        timestamp_to_sql(now)
                    ],
                )?;
            }
            Ok(added)
        })
    }

    fn claim_webhooks(
        &self,
        owner: &str,
        lease: Duration,
        limit: usize,
        now: Timestamp,
    ) -> Result<Vec<ClaimedDelivery>, StoreError> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.write("claim webhooks", |tx| {
            let now_text = timestamp_to_sql(now);
            let mut stmt = tx.prepare(
                "SELECT delivery_id, message_id, event, url, payload, attempts, created_at \
                 FROM webhook_deliveries WHERE state = 'pending' AND next_attempt_at <= ?1 \
                 AND (lease_expires_at IS NULL OR lease_expires_at <= ?1) \
                 ORDER BY next_attempt_at, delivery_id LIMIT ?2",
            )?;
            let rows = stmt.query_map(params![now_text, limit], |row| Ok(claimed(row)))?;
            let mut claimed_rows = Vec::new();
            for row in rows {
                claimed_rows.push(row??);
            }
            let until = timestamp_to_sql(lease_end(now, lease));
            for d in &claimed_rows {
                tx.execute(
                    "UPDATE webhook_deliveries SET lease_owner = ?2, lease_expires_at = ?3 \
                     WHERE delivery_id = ?1",
                    params![d.delivery_id, owner, until],
                )?;
            }
            Ok(claimed_rows)
        })
    }

    fn record_webhook_attempt(
        &self,
        delivery_id: i64,
        owner: &str,
        attempt: &DeliveryAttempt,
        after: AfterAttempt,
    ) -> Result<bool, StoreError> {
        let (state, next) = match after {
            AfterAttempt::Done(state) => (state, None),
            AfterAttempt::RetryAt(at) => (DeliveryState::Pending, Some(timestamp_to_sql(at))),
        };
        self.write("record a webhook attempt", |tx| {
            let changed = tx.execute(
                "UPDATE webhook_deliveries SET state = ?3, next_attempt_at = ?4, \
                 attempts = attempts + 1, lease_owner = NULL, lease_expires_at = NULL \
                 WHERE delivery_id = ?1 AND lease_owner = ?2",
                params![delivery_id, owner, state.as_str(), next],
            )?;
            if changed == 0 {
                return Ok(false);
            }
            tx.execute(
                "INSERT OR REPLACE INTO webhook_attempts \
                 (delivery_id, n, at, status_code, error, outcome) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    delivery_id,
                    attempt.n,
                    timestamp_to_sql(attempt.at),
                    attempt.status_code,
                    attempt.error,
                    attempt.outcome
                ],
            )?;
            Ok(true)
        })
    }

    fn list_webhook_deliveries(
        &self,
        filter: &DeliveryFilter,
    ) -> Result<Vec<DeliveryRecord>, StoreError> {
        let limit = i64::try_from(filter.limit.max(1)).unwrap_or(i64::MAX);
        let state = filter.state.map(DeliveryState::as_str);
        self.read("list webhook deliveries", |tx| {
            let mut stmt = tx.prepare(
                "SELECT delivery_id, message_id, event, url, job_id, state, created_at, \
                 next_attempt_at FROM webhook_deliveries \
                 WHERE (?1 IS NULL OR state = ?1) AND (?2 IS NULL OR event = ?2) \
                 AND (?3 IS NULL OR url = ?3) AND (?4 IS NULL OR delivery_id < ?4) \
                 ORDER BY delivery_id DESC LIMIT ?5",
            )?;
            let rows = stmt.query_map(
                params![state, filter.event, filter.url, filter.before, limit],
                |row| Ok(record(row)),
            )?;
            let mut records = Vec::new();
            for row in rows {
                records.push(row??);
            }
            let mut attempts = tx.prepare(
                "SELECT n, at, status_code, error, outcome FROM webhook_attempts \
                 WHERE delivery_id = ?1 ORDER BY n",
            )?;
            for r in &mut records {
                let rows = attempts.query_map([r.delivery_id], |row| Ok(attempt(row)))?;
                for row in rows {
                    r.attempts.push(row??);
                }
            }
            Ok(records)
        })
    }

    fn next_webhook_due(&self) -> Result<Option<Timestamp>, StoreError> {
        self.read("find the next webhook due", |tx| {
            let text: Option<String> = tx
                .query_row(
                    "SELECT MIN(next_attempt_at) FROM webhook_deliveries WHERE state = 'pending'",
                    [],
                    |row| row.get(0),
                )
                .optional()?
                .flatten();
            opt_timestamp_from_sql("webhook_deliveries.next_attempt_at", text)
        })
    }
}

fn claimed(row: &Row<'_>) -> Result<ClaimedDelivery, DbError> {
    let attempts: i64 = row.get("attempts")?;
    Ok(ClaimedDelivery {
        delivery_id: row.get("delivery_id")?,
        message_id: row.get("message_id")?,
        event: row.get("event")?,
        url: row.get("url")?,
        payload: row.get("payload")?,
        attempts: u32::try_from(attempts).unwrap_or(0),
        created_at: timestamp_from_sql("webhook_deliveries.created_at", row.get("created_at")?)?,
    })
}

fn record(row: &Row<'_>) -> Result<DeliveryRecord, DbError> {
    let state: DeliveryState =
        super::values::name_from_sql("webhook_deliveries.state", row.get("state")?)?;
    Ok(DeliveryRecord {
        delivery_id: row.get("delivery_id")?,
        message_id: row.get("message_id")?,
        event: row.get("event")?,
        url: row.get("url")?,
        job_id: row.get("job_id")?,
        state,
        created_at: timestamp_from_sql("webhook_deliveries.created_at", row.get("created_at")?)?,
        next_attempt_at: opt_timestamp_from_sql(
            "webhook_deliveries.next_attempt_at",
            row.get("next_attempt_at")?,
        )?
        .filter(|_| state == DeliveryState::Pending),
        attempts: Vec::new(),
    })
}

fn attempt(row: &Row<'_>) -> Result<DeliveryAttempt, DbError> {
    let n: i64 = row.get("n")?;
    let status: Option<i64> = row.get("status_code")?;
    Ok(DeliveryAttempt {
        n: u32::try_from(n).unwrap_or(0),
        at: timestamp_from_sql("webhook_attempts.at", row.get("at")?)?,
        status_code: status.and_then(|s| u16::try_from(s).ok()),
        error: row.get("error")?,
        outcome: row.get("outcome")?,
    })
}
