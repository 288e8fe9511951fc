//! `POST /v1/runs/cancel`: cancel every queued or running run (job) that
//! carries all the labels given, e.g. `{"labels": {"chat": "42"}}` (seed
//! 001's `kill_all(chat_id)`, for a whole server and every process that
//! shares its store).
//!
//! The runs are found through the store's label index
//! ([`agentgate_store::JobFilter::labels`]): the queued ones, then the
//! running ones, page by page. Each is cancelled exactly as `POST
//! /v1/runs/{id}/cancel` cancels one ([`crate::run_routes`]'s
//! `cancel_one`): a queued run ends `cancelled` at once, a running one is
//! marked and stopped through its executor (its CLI gets the termination
//! table). A run that ended between the listing and its cancel is not an
//! error: it is left out. No labels at all is refused (422): it would
//! cancel everything.

use std::sync::Arc;

use agentgate_store::{JobCursor, JobFilter, JobState};
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};

use crate::error::ApiError;
use crate::run_routes::{RunAccepted, cancel_one};
use crate::state::AppState;

/// The body of `POST /v1/runs/cancel`.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct LabelCancel {
    /// The labels a run must all carry to be cancelled, `{"key": "value"}`;
    /// at least one.
    pub labels: std::collections::BTreeMap<String, String>,
}

/// What `POST /v1/runs/cancel` did.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct LabelCancelled {
    /// The runs cancelled, each as a single cancel answers: `status`
    /// `cancelled` for a queued run (ended now), `running` with
    /// `cancel_requested` for one being stopped.
    pub cancelled: Vec<RunAccepted>,
}

/// How many jobs one page of the listing reads.
const PAGE: usize = 500;

/// `POST /v1/runs/cancel`: cancel every queued or running run with these labels.
#[utoipa::path(
    post,
    path = "/v1/runs/cancel",
    tag = "runs",
    request_body(content = LabelCancel, description = "The labels every run to cancel carries"),
    responses(
        (status = 200, description = "The runs cancelled (queued ones ended, running ones being stopped); an empty list when none matched", body = LabelCancelled),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 422, description = "No labels, or a label that is not valid (`field`: labels)", body = crate::error::ErrorBody),
    ),
)]
pub async fn cancel_by_label(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<crate::access::Caller>,
    body: Bytes,
) -> Result<Json<LabelCancelled>, ApiError> {
    let body: LabelCancel = ApiError::strict_body(&body)?;
    let invalid = |message: String| {
        ApiError::new(StatusCode::UNPROCESSABLE_ENTITY, "invalid_request", message)
            .with_field("labels")
    };
    if body.labels.is_empty() {
        return Err(invalid(
            "no labels: a cancel by label needs at least one (it would cancel every run)".into(),
        ));
    }
    agentgate_protocol::check_labels(&body.labels).map_err(|e| invalid(e.to_string()))?;
    let mut cancelled = Vec::new();
    for state_now in [JobState::Queued, JobState::Running] {
        let mut filter = JobFilter {
            state: Some(state_now),
            labels: body.labels.clone(),
            ..JobFilter::default()
        };
        // A team's token cancels its team's runs only.
        if !crate::submitters::narrow(&caller, &mut filter) {
            continue;
        }
        for run_id in matching(&state, filter).await? {
            match cancel_one(&state, run_id).await {
                Ok((_, accepted)) => cancelled.push(accepted),
                // Ended (or gone) since it was listed: nothing to cancel.
                Err(e) if matches!(e.status(), StatusCode::CONFLICT | StatusCode::NOT_FOUND) => {}
                Err(e) => return Err(e),
            }
        }
    }
    Ok(Json(LabelCancelled { cancelled }))
}

/// Every job id `filter` lists, page by page.
async fn matching(state: &Arc<AppState>, filter: JobFilter) -> Result<Vec<String>, ApiError> {
    let store = Arc::clone(&state.store);
    tokio::task::spawn_blocking(move || {
        let mut ids = Vec::new();
        let mut cursor: Option<JobCursor> = None;
        loop {
            let page = store.list_jobs(&filter, PAGE, cursor.as_ref())?;
            ids.extend(page.jobs.into_iter().map(|job| job.job_id));
            match page.next {
                Some(next) => cursor = Some(next),
                None => return Ok(ids),
            }
        }
    })
    .await
    .map_err(|e| ApiError::internal(format!("listing the runs to cancel failed: {e}")))?
    .map_err(|e: agentgate_store::StoreError| ApiError::store(&e))
}
