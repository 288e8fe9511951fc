//! A person's answers to the `ask` decisions of the approval policy:
//! `GET /v1/runs/{id}/approvals` (what the run waits on now) and `POST
//! /v1/runs/{id}/approvals/{request_id}` (allow or deny one).
//!
//! A run in permission mode `ask` executing in this server opens its place
//! at the executor's approval desk; its `approval_request` events with
//! `decision: ask` are the requests a person may answer, each until the
//! policy's `ask_timeout` (then it is denied by `timeout`). An answer to a
//! request the run does not wait on now (answered already, timed out, or
//! never asked) is refused with 409 and changes nothing. A job executed
//! again after a takeover runs as `<id>.<n>`: the job's id reaches it.
//! Runs executed by `agentgate worker` processes have no desk: their
//! `ask` decisions end by timeout.
//!
//! A run cannot answer its own requests: an answer sent from a process of
//! a run seated at the desk (its CLI, anything the CLI started, even a
//! daemon that left its group) is refused with 403, whatever token it
//! presents (`answer_origin.rs` says how, and what it cannot see).

use std::sync::Arc;

use agentgate_core::warm::desk::{ApprovalDesk, DeskError, HumanAnswer};
use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, Path, State};
use axum::http::{Extensions, StatusCode};
use axum::{Extension, Json};
use serde::{Deserialize, Serialize};

use crate::access::Caller;
use crate::answer_origin::{self, Origin};
use crate::error::ApiError;
use crate::state::AppState;

/// A person's answer.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApprovalAnswer {
    /// `allow` or `deny`.
    pub decision: String,
    /// Why (given to the agent with a denial).
    #[serde(default)]
    pub message: Option<String>,
}

/// An answer taken.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ApprovalAnswered {
    /// The run (the job's id).
    pub run_id: String,
    /// The request answered.
    pub request_id: String,
    /// `allow` or `deny`.
    pub decision: String,
}

/// What a run waits on a person for.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct PendingApprovals {
    /// The run (the job's id).
    pub run_id: String,
    /// The `request_id`s of its `approval_request` events that wait for
    /// an answer now.
    pub pending: Vec<String>,
}

/// `GET /v1/runs/{id}/approvals`: the requests the run waits on now.
#[utoipa::path(
    get,
    path = "/v1/runs/{id}/approvals",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The requests waiting for a person (empty when none, or when the run does not execute here)", body = PendingApprovals),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
    ),
)]
pub async fn pending(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    Path(run_id): Path<String>,
) -> Result<Json<PendingApprovals>, ApiError> {
    known_job(&state, &caller, &run_id).await?;
    let pending = state
        .queue
        .as_ref()
        .and_then(|executor| {
            let desk = executor.approvals();
            place_of(desk, &run_id).map(|place| desk.pending(&place))
        })
        .unwrap_or_default();
    Ok(Json(PendingApprovals { run_id, pending }))
}

/// `POST /v1/runs/{id}/approvals/{request_id}`: allow or deny one request.
#[utoipa::path(
    post,
    path = "/v1/runs/{id}/approvals/{request_id}",
    tag = "runs",
    params(
        ("id" = String, Path, description = "The run's id"),
        ("request_id" = String, Path, description = "The `request_id` of its `approval_request` event"),
    ),
    request_body(content = ApprovalAnswer, description = "The decision"),
    responses(
        (status = 200, description = "Taken: the run goes on with it (an `approval_decision` event by `human`)", body = ApprovalAnswered),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 403, description = "The answer was sent from a process of a run waiting for approvals (an agent answering for itself), or from a connection that cannot be attributed; nothing changed", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
        (status = 409, description = "The run does not wait on this request now (answered, timed out, never asked, ended, or not executing in this server); nothing changed", body = crate::error::ErrorBody),
        (status = 422, description = "`decision` is not `allow` or `deny`", body = crate::error::ErrorBody),
    ),
)]
pub async fn answer(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    Path((run_id, request_id)): Path<(String, String)>,
    extensions: Extensions,
    body: Bytes,
) -> Result<Json<ApprovalAnswered>, ApiError> {
    // Read strictly: a key given twice (`"decision"` twice) is refused.
    if let Err(e) = agentgate_protocol::strict_json::check_unique_keys(&body)
        && e.is_data()
    {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid_request",
            format!("the body: {e}"),
        )
        .with_field("decision"));
    }
    let answer: ApprovalAnswer = serde_json::from_slice(&body).map_err(|e| {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "bad_request",
            format!("the body is not an answer ({{\"decision\": \"allow\" | \"deny\"}}): {e}"),
        )
        .with_field("decision")
    })?;
    let allow = match answer.decision.as_str() {
        "allow" => true,
        "deny" => false,
        other => {
            return Err(ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_request",
                format!("decision `{other}` is neither `allow` nor `deny`"),
            )
            .with_field("decision"));
        }
    };
    known_job(&state, &caller, &run_id).await?;
    let Some(executor) = &state.queue else {
        return Err(conflict(format!(
            "run {run_id} is not executed by this server (it runs without an executor): \
             its ask decisions end by timeout"
        )));
    };
    let desk = executor.approvals();
    let peer = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|c| c.0)
        .ok_or_else(|| {
            forbidden("cannot tell who sent this answer: the connection's address is unknown")
        })?;
    refuse_a_runs_own(peer, desk.process_groups()).await?;
    let place = place_of(desk, &run_id)
        .ok_or_else(|| conflict(DeskError::NoSuchRun(run_id.clone()).to_string()))?;
    desk.answer(
        &place,
        HumanAnswer {
            request_id: request_id.clone(),
            allow,
            message: answer.message,
        },
    )
    .map_err(|e| conflict(e.to_string()))?;
    Ok(Json(ApprovalAnswered {
        run_id,
        request_id,
        decision: answer.decision,
    }))
}

/// The desk's place of job `run_id`'s execution: the job's id, or
/// `<id>.<n>` when the job was executed again.
fn place_of(desk: &ApprovalDesk, run_id: &str) -> Option<String> {
    let again = format!("{run_id}.");
    desk.runs().into_iter().find(|place| {
        place == run_id
            || place
                .strip_prefix(&again)
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// 404 unless the store has a job `run_id`.
async fn known_job(state: &Arc<AppState>, caller: &Caller, run_id: &str) -> Result<(), ApiError> {
    let unknown = || {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no run {run_id}"),
        )
    };
    crate::submitters::ensure_visible(state, caller, run_id, unknown).await?;
    let store = state.store.clone();
    let id = run_id.to_owned();
    let job = tokio::task::spawn_blocking(move || store.get_job(&id))
        .await
        .map_err(|e| ApiError::internal(format!("the lookup failed: {e}")))?
        .map_err(|e| ApiError::internal(format!("failed to read the run: {e}")))?;
    match job {
        Some(_) => Ok(()),
        None => Err(ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no run {run_id}"),
        )),
    }
}

/// 403 when the answer from `peer` comes from a process of a run seated
/// at the desk (`groups`: each run's CLI process group), or from a socket
/// of this host that no process holds.
async fn refuse_a_runs_own(peer: SocketAddr, groups: Vec<(String, u32)>) -> Result<(), ApiError> {
    let seated = format!("{groups:?}");
    let origin = tokio::task::spawn_blocking(move || answer_origin::origin(peer, &groups))
        .await
        .map_err(|e| ApiError::internal(format!("the check of the answer's origin failed: {e}")))?;
    tracing::debug!(%peer, ?origin, seated, "the origin of an approval answer");
    match origin {
        Origin::Outside => Ok(()),
        Origin::Run { run_id, pid } => {
            tracing::warn!(
                run = %run_id,
                pid,
                "refused an approval answer sent from a run's own processes"
            );
            Err(forbidden(&format!(
                "this answer comes from process {pid}, one of run {run_id}'s: a run cannot answer \
                 approval requests (a person answers from outside the runs)"
            )))
        }
        Origin::Unattributable => Err(forbidden(
            "this answer comes from a connection of this host that no process holds any more, \
             so it cannot be told from a run's own: answer from a client that waits for the reply",
        )),
    }
}

fn forbidden(message: &str) -> ApiError {
    ApiError::new(StatusCode::FORBIDDEN, "forbidden", message.to_owned())
}

fn conflict(message: String) -> ApiError {
    ApiError::new(StatusCode::CONFLICT, "conflict", message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_jobs_place_is_its_id_or_a_later_execution_of_it() {
        let desk = ApprovalDesk::new();
        let _a = desk.open("run_a.2");
        let _b = desk.open("run_b");
        let _c = desk.open("run_ab");
        assert_eq!(place_of(&desk, "run_a").as_deref(), Some("run_a.2"));
        assert_eq!(place_of(&desk, "run_b").as_deref(), Some("run_b"));
        assert_eq!(place_of(&desk, "run_c"), None);
        let _x = desk.open("run_d.x");
        assert_eq!(place_of(&desk, "run_d"), None, "not an execution number");
    }
}
