//! The `/metrics` route of `serve`'s router ([`scrape`]), behind the API's
//! bearer token, and the page both it and the worker's listener answer.

use std::sync::Arc;

use agentgate_executor::Executor;
use agentgate_store::StoreBackend;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use jiff::Timestamp;

use agentgate_executor::{METRICS_CONTENT_TYPE, Metrics, render_metrics};

use crate::error::ApiError;
use crate::state::AppState;

/// `GET /metrics`: the Prometheus text format (version 0.0.4), behind the
/// bearer token. Cluster gauges read from the store, then this process's
/// counters since it started (see the book: docs/operating/metrics.md).
#[utoipa::path(
    get,
    path = "/metrics",
    tag = "server",
    responses(
        (status = 200, description = "The metrics, in the Prometheus text format 0.0.4",
         content_type = "text/plain; version=0.0.4; charset=utf-8", body = String),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn scrape(State(state): State<Arc<AppState>>) -> Response {
    let now = state.clock.now();
    page(
        state.store.clone(),
        now,
        state.metrics.clone(),
        state.queue.clone(),
    )
    .await
}

pub(crate) async fn page(
    store: Arc<dyn StoreBackend>,
    now: Timestamp,
    metrics: Arc<Metrics>,
    executor: Option<Arc<Executor>>,
) -> Response {
    let rendered = tokio::task::spawn_blocking(move || {
        render_metrics(store.as_ref(), now, &metrics, executor.as_deref())
    })
    .await;
    match rendered {
        Ok(text) => ([(header::CONTENT_TYPE, METRICS_CONTENT_TYPE)], text).into_response(),
        Err(e) => ApiError::internal(format!("the metrics scrape failed: {e}")).into_response(),
    }
}
