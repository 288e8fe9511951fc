//! The write routes of the queue: `POST /v1/runs` (submit a run) and
//! `POST /v1/runs/{id}/cancel`.
//!
//! Submit: the body is a [`RunRequest`]. Not JSON: 400. Refused by the
//! request's own checks or by planning it against the server's config (an
//! unknown provider, agent or chain, a missing file): 422 naming the field
//! the refusal carries ([`RequestError::field`], from the planner's
//! [`agentgate_core::PlanError::field`]: never from a message's
//! text), nothing queued. The job stores it as a [`JobRequest::Run`]
//! (tagged `kind: run`, see `job_request.rs`). Otherwise the job is enqueued under a new run id and the
//! executor woken: 201; a request repeating an `idempotency_key` gets the
//! first run instead: 200, nothing queued.
//!
//! Cancel: a queued run ends `cancelled` at once, its envelope a run's
//! envelope with `error_type: cancelled`, exit code 130, no provider and
//! no attempts (it never started): 200. A running one is marked in the
//! store (an executor of another process learns it from its next
//! heartbeat) and, when it runs in this server, stopped at once through
//! the engine's cancel channel: 202, its envelope (once ended) says
//! `cancelled`, unless its CLI ended first: a cancel is a request, the
//! run's own end stands (see `executor/job_end.rs`). A run that had already
//! ended `cancelled`: 200, unchanged
//! (a cancel is idempotent). A run that ended otherwise: 409, unchanged.
//! An unknown id: 404.

use std::sync::Arc;

use agentgate_core::{RequestError, RunRequest};
use agentgate_protocol::{Envelope, ErrorInfo, ErrorKind, ErrorSource};
use agentgate_store::{CancelOutcome, JobRecord, JobState, NewJob};
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::{Extension, Json};
use jiff::Timestamp;
use serde::Serialize;

use crate::access::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::views::{RunState, envelope_or_null};
use agentgate_executor::JobRequest;
use agentgate_executor::{claim_facts, error_envelope, plan_request};

/// The answer to `POST /v1/runs` and to a cancel.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RunAccepted {
    /// The run's id (also its job's).
    pub run_id: String,
    /// Where it is.
    pub status: RunState,
    /// Whether this request created the run (false: an idempotency key
    /// repeated, or a cancel).
    pub created: bool,
    /// When the run was submitted.
    pub created_at: Timestamp,
    /// Not started before this time.
    pub not_before: Timestamp,
    /// Higher runs first.
    pub priority: i32,
    /// The providers of its plan, in failover order.
    pub providers: Vec<String>,
    /// Its logical session.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
    /// The caller's key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// A cancel was asked while it ran.
    pub cancel_requested: bool,
    /// The final envelope, once ended.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = envelope_or_null)]
    pub envelope: Option<Envelope>,
}

impl RunAccepted {
    pub(crate) fn of(job: JobRecord, created: bool) -> RunAccepted {
        RunAccepted {
            run_id: job.job_id,
            status: job.state.into(),
            created,
            created_at: job.created_at,
            not_before: job.not_before,
            priority: job.priority,
            providers: job.providers,
            session: job.session,
            idempotency_key: job.idempotency_key,
            cancel_requested: job.cancel_requested,
            envelope: job.envelope,
        }
    }
}

/// `POST /v1/runs`: queue a run.
#[utoipa::path(
    post,
    path = "/v1/runs",
    tag = "runs",
    params(
        ("traceparent" = Option<String>, Header, description = "A W3C trace context (`00-TRACEID-SPANID-FLAGS`): with traces exported (`OTEL_EXPORTER_OTLP_*`, docs/operating/tracing.md), the job's span is its child, and its CLIs join the trace. Ignored when malformed"),
        ("tracestate" = Option<String>, Header, description = "The W3C trace state that goes with `traceparent`"),
    ),
    request_body(content = RunRequest, description = "The run: the fields of `agentgate run`'s flags (paths absolute), plus priority, idempotency_key, not_before"),
    responses(
        (status = 201, description = "Queued", body = RunAccepted),
        (status = 200, description = "The run an earlier request with this idempotency_key created; nothing queued", body = RunAccepted),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = crate::error::ErrorBody),
        (status = 422, description = "Refused by its checks or by planning it against the config; `field` names what is wrong; nothing queued. A run whose sandbox level (its `sandbox`, else the config's for its agent or provider, else `off`) is below the config's `sandbox.require` is refused with `field: sandbox`", body = crate::error::ErrorBody),
    ),
)]
pub async fn submit(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<RunAccepted>), ApiError> {
    let trace = crate::trace_header::trace_context(&headers);
    // Read strictly: a key given twice is refused (422), naming it.
    let value: serde_json::Value = ApiError::strict_body(&body)?;
    let request = RunRequest::from_value(value).map_err(refused)?;
    let labels = crate::submitters::with_submitter(&caller, &request.labels).map_err(refused)?;
    crate::webhooks::check_callback(&state.config, request.callback_url.as_deref())
        .map_err(refused)?;
    let now = state.clock.now();
    // Planning reads the request's files and enqueueing writes the store:
    // both block, so neither runs on the server's async workers.
    let planning = state.clone();
    let enqueued = tokio::task::spawn_blocking(move || {
        crate::submitters::check_limit(planning.store.as_ref(), &caller)?;
        let plan = plan_request(&planning.config, &request, now).map_err(refused)?;
        // What its claim needs, stored from this one planning.
        let facts = claim_facts(&plan, &request);
        let mut job = NewJob {
            job_id: agentgate_core::new_run_id(),
            request: JobRequest::Run(Box::new(request.clone()))
                .to_stored()
                .map_err(|e| ApiError::internal(format!("failed to store the request: {e}")))?,
            priority: i32::try_from(request.priority).unwrap_or_default(),
            not_before: request.not_before,
            idempotency_key: request.idempotency_key.clone(),
            providers: facts.providers,
            session: request.session.clone(),
            writes_in: facts.writes_in,
            ignore_quota: facts.ignore_quota,
            planned: true,
            // The caller's labels and the token's (the request keeps the
            // caller's: the run's envelope shows those).
            labels,
        };
        if let Some(context) = &trace {
            agentgate_executor::keep_trace_context(&mut job.request, context);
        }
        // The store never holds a secret of the request in clear.
        agentgate_executor::seal_job(&mut job, &planning.keys)
            .map_err(|e| ApiError::internal(format!("failed to queue the run: {e}")))?;
        planning
            .store
            .enqueue(&job, now)
            .map_err(|e| ApiError::internal(format!("failed to queue the run: {e}")))
    })
    .await
    .map_err(|e| ApiError::internal(format!("the enqueue failed: {e}")))??;
    Ok(accepted(&state, enqueued))
}

/// The answer to a submit: 201 and the executor woken when `enqueued`
/// created the job, else 200 (an idempotency key repeated).
pub(crate) fn accepted(
    state: &AppState,
    enqueued: agentgate_store::Enqueued,
) -> (StatusCode, Json<RunAccepted>) {
    if enqueued.created
        && let Some(executor) = &state.queue
    {
        executor.wake();
    }
    let status = if enqueued.created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    (
        status,
        Json(RunAccepted::of(enqueued.job, enqueued.created)),
    )
}

/// `POST /v1/runs/{id}/cancel`: a queued run is cancelled at once, a
/// running one stopped through its supervisor.
#[utoipa::path(
    post,
    path = "/v1/runs/{id}/cancel",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses(
        (status = 200, description = "Cancelled (it was queued), or it had been cancelled already", body = RunAccepted),
        (status = 202, description = "It is running: being stopped; its envelope will say `cancelled`", body = RunAccepted),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
        (status = 409, description = "It already ended otherwise", body = crate::error::ErrorBody),
    ),
)]
pub async fn cancel(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    Path(run_id): Path<String>,
) -> Result<(StatusCode, Json<RunAccepted>), ApiError> {
    let unknown = || not_found(&run_id);
    crate::submitters::ensure_visible(&state, &caller, &run_id, unknown).await?;
    let (status, accepted) = cancel_one(&state, run_id).await?;
    Ok((status, Json(accepted)))
}

/// Cancel one run as `POST /v1/runs/{id}/cancel` does (also each run of
/// a cancel by label): 200 for a queued run cancelled (or one cancelled
/// before), 202 for a running one being stopped, an error otherwise.
pub(crate) async fn cancel_one(
    state: &Arc<AppState>,
    run_id: String,
) -> Result<(StatusCode, RunAccepted), ApiError> {
    let store = state.store.clone();
    let now = state.clock.now();
    let id = run_id.clone();
    let webhooks = Arc::clone(state);
    let (outcome, job) = tokio::task::spawn_blocking(move || {
        let error = ErrorInfo::new(
            ErrorKind::Cancelled,
            ErrorSource::Internal,
            "cancelled before it started",
        );
        let outcome = store.cancel(&id, Some(&error_envelope(&id, &error)), now)?;
        if outcome == CancelOutcome::Cancelled {
            // Ended here, never claimed: its run.ended (webhooks).
            let (store, config) = (webhooks.store.as_ref(), &webhooks.config);
            agentgate_executor::webhook_outbox::job_written(store, config, now, &id);
        }
        let job = store.get_job(&id)?;
        Ok::<_, agentgate_store::StoreError>((outcome, job))
    })
    .await
    .map_err(|e| ApiError::internal(format!("the cancel failed: {e}")))?
    .map_err(|e| match e {
        agentgate_store::StoreError::JobNotFound { .. } => not_found(&run_id),
        other => ApiError::internal(format!("failed to cancel the run: {other}")),
    })?;
    let job = job.ok_or_else(|| not_found(&run_id))?;
    // Its event streams look at its state now.
    agentgate_store::bells::ring_job(&run_id);
    let status = match outcome {
        CancelOutcome::Cancelled | CancelOutcome::AlreadyEnded(JobState::Cancelled) => {
            StatusCode::OK
        }
        CancelOutcome::Requested => {
            // Another process holding the job hears of it from the store
            // (PostgreSQL's notice), else at its next lease renewal.
            if let Some(executor) = &state.queue {
                executor.cancel(&run_id);
            }
            StatusCode::ACCEPTED
        }
        CancelOutcome::AlreadyEnded(ended) => {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "conflict",
                format!("run {run_id} already ended ({ended}); nothing to cancel"),
            ));
        }
    };
    Ok((status, RunAccepted::of(job, false)))
}

pub(crate) fn refused(e: RequestError) -> ApiError {
    ApiError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        "invalid_request",
        e.message,
    )
    .with_field(e.field)
}

fn not_found(run_id: &str) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not_found",
        format!("no run {run_id}"),
    )
}
