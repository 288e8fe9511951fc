//! `GET /v1/workers`: the executors sharing the store ([`agentgate_executor::Presence`]).

use std::sync::Arc;

use agentgate_store::{Presence, WorkerRecord};
use axum::Json;
use axum::extract::State;
use jiff::Timestamp;
use serde::Serialize;
use utoipa::ToSchema;

use crate::error::ApiError;
use crate::state::AppState;

/// `GET /v1/workers`: every worker in the store, oldest start first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WorkerList {
    /// The workers (`agentgate worker`, and `agentgate serve` with its
    /// executor).
    pub workers: Vec<WorkerView>,
}

/// One worker, as of its last heartbeat.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct WorkerView {
    /// Its id (random, new at each start).
    pub id: String,
    /// `worker` or `serve`.
    pub kind: String,
    /// The host it runs on.
    pub host: String,
    /// Its process id there.
    pub pid: u32,
    /// The providers whose jobs it claims; empty: every provider.
    pub providers: Vec<String>,
    /// The most jobs it runs at once (`--concurrency`); null: only the
    /// config's `queue:` limits.
    pub concurrency: Option<u32>,
    /// The ids of the jobs (runs) it runs now.
    pub running: Vec<String>,
    /// When it started (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub started_at: Timestamp,
    /// Its last heartbeat (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub last_heartbeat: Timestamp,
    /// Seconds between its heartbeats.
    pub heartbeat_every_s: f64,
    /// `running`, `draining` (stopping: it claims nothing more), or `lost`
    /// (no heartbeat for three periods: dead, or cut off from the store;
    /// its jobs are taken back when their leases expire).
    pub state: String,
}

impl WorkerView {
    fn of(w: WorkerRecord, now: Timestamp) -> WorkerView {
        let state = match w.presence(now) {
            Presence::Running => "running",
            Presence::Draining => "draining",
            Presence::Lost => "lost",
        };
        WorkerView {
            id: w.worker_id,
            kind: w.kind.as_str().to_owned(),
            host: w.host,
            pid: w.pid,
            providers: w.providers,
            concurrency: w.concurrency,
            running: w.running_jobs,
            started_at: w.started_at,
            last_heartbeat: w.last_heartbeat,
            heartbeat_every_s: w.heartbeat_every.as_secs_f64(),
            state: state.to_owned(),
        }
    }
}

/// `GET /v1/workers`: the executors sharing the store.
#[utoipa::path(
    get,
    path = "/v1/workers",
    tag = "workers",
    responses(
        (status = 200, description = "Every worker of the store", body = WorkerList),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn list_workers(
    State(state): State<Arc<AppState>>,
) -> Result<Json<WorkerList>, ApiError> {
    let now = state.clock.now();
    let store = state.store.clone();
    let workers = tokio::task::spawn_blocking(move || store.list_workers())
        .await
        .map_err(|e| ApiError::internal(format!("listing the workers failed: {e}")))?
        .map_err(|e| ApiError::internal(format!("failed to list the workers: {e}")))?;
    Ok(Json(WorkerList {
        workers: workers
            .into_iter()
            .map(|w| WorkerView::of(w, now))
            .collect(),
    }))
}
