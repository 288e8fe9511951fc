//! `GET /v1/webhooks/deliveries`: the outbox's deliveries, newest first,
//! with each try (time, status code, error, outcome); filtered by
//! `status`, `event` and `url`, a page at a time (`limit`, `cursor`).

use std::sync::Arc;

use agentgate_store::{DeliveryAttempt, DeliveryFilter, DeliveryRecord, DeliveryState};
use axum::Json;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::state::AppState;

/// The page size without `limit`.
pub const DEFAULT_LIMIT: usize = 50;

/// The largest `limit`.
pub const MAX_LIMIT: usize = 500;

/// The query of `GET /v1/webhooks/deliveries`.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct DeliveryParams {
    /// Only deliveries in this state: `pending`, `delivered`, `refused`
    /// or `failed`.
    pub status: Option<String>,
    /// Only deliveries of this event, e.g. `run.ended`.
    pub event: Option<String>,
    /// Only deliveries to this URL (exactly as subscribed or given).
    pub url: Option<String>,
    /// At most this many (1 to 500, default 50).
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page, unchanged.
    pub cursor: Option<String>,
}

/// A page of deliveries.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryList {
    /// The deliveries, newest first.
    pub deliveries: Vec<DeliveryView>,
    /// Pass as `cursor` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// One delivery: a message to one URL.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DeliveryView {
    /// The delivery's id.
    pub id: i64,
    /// The message's id: the `webhook-id` header, the same on every try.
    pub message_id: String,
    /// The event, e.g. `run.ended`.
    pub event: String,
    /// The destination.
    pub url: String,
    /// The job (run) the event is about, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub job_id: Option<String>,
    /// `pending`, `delivered`, `refused` (never sent: the address is not
    /// allowed) or `failed` (every try failed).
    pub status: String,
    /// When the message was written (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub created_at: Timestamp,
    /// When a pending delivery is tried next (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub next_attempt_at: Option<Timestamp>,
    /// The tries, oldest first.
    pub attempts: Vec<AttemptView>,
}

/// One try of a delivery.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct AttemptView {
    /// Its number, from 1.
    pub n: u32,
    /// When it was made (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub at: Timestamp,
    /// The answer's HTTP status, if one came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status_code: Option<u16>,
    /// Why it failed or was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// `delivered`, `failed` or `refused`.
    pub outcome: String,
}

impl DeliveryView {
    fn of(d: DeliveryRecord) -> DeliveryView {
        DeliveryView {
            id: d.delivery_id,
            message_id: d.message_id,
            event: d.event,
            url: d.url,
            job_id: d.job_id,
            status: d.state.as_str().to_owned(),
            created_at: d.created_at,
            next_attempt_at: d.next_attempt_at,
            attempts: d.attempts.into_iter().map(AttemptView::of).collect(),
        }
    }
}

impl AttemptView {
    fn of(a: DeliveryAttempt) -> AttemptView {
        AttemptView {
            n: a.n,
            at: a.at,
            status_code: a.status_code,
            error: a.error,
            outcome: a.outcome,
        }
    }
}

impl DeliveryParams {
    fn filter(self) -> Result<DeliveryFilter, ApiError> {
        let state = self
            .status
            .map(|s| {
                s.parse::<DeliveryState>().map_err(|_| {
                    ApiError::invalid_parameter(
                        "status",
                        format!("`{s}` is not pending, delivered, refused or failed"),
                    )
                })
            })
            .transpose()?;
        let limit = match self.limit {
            None => DEFAULT_LIMIT,
            Some(text) => match text.parse::<usize>() {
                Ok(n) if (1..=MAX_LIMIT).contains(&n) => n,
                _ => {
                    return Err(ApiError::invalid_parameter(
                        "limit",
                        format!("`{text}` is not a number from 1 to {MAX_LIMIT}"),
                    ));
                }
            },
        };
        let before = self
            .cursor
            .map(|c| {
                c.parse::<i64>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    ApiError::invalid_parameter("cursor", "not a cursor this route gave")
                })
            })
            .transpose()?;
        Ok(DeliveryFilter {
            state,
            event: self.event,
            url: self.url,
            before,
            limit,
        })
    }
}

/// `GET /v1/webhooks/deliveries`: the webhook deliveries and their tries.
#[utoipa::path(
    get,
    path = "/v1/webhooks/deliveries",
    tag = "webhooks",
    params(DeliveryParams),
    responses(
        (status = 200, description = "A page of deliveries, newest first", body = DeliveryList),
        (status = 400, description = "A query parameter is invalid", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn v1_webhook_deliveries(
    State(state): State<Arc<AppState>>,
    query: Result<Query<DeliveryParams>, QueryRejection>,
) -> Result<Json<DeliveryList>, ApiError> {
    let Query(params) = query.map_err(|e| ApiError::invalid_parameter("query", e.body_text()))?;
    let filter = params.filter()?;
    let limit = filter.limit;
    let store = state.store.clone();
    let deliveries = tokio::task::spawn_blocking(move || store.list_webhook_deliveries(&filter))
        .await
        .map_err(|e| ApiError::internal(format!("listing the deliveries failed: {e}")))?
        .map_err(|e| ApiError::store(&e))?;
    let next_cursor = (deliveries.len() == limit)
        .then(|| deliveries.last().map(|d| d.delivery_id.to_string()))
        .flatten();
    Ok(Json(DeliveryList {
        deliveries: deliveries.into_iter().map(DeliveryView::of).collect(),
        next_cursor,
    }))
}
