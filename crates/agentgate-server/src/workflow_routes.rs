//! `POST /v1/workflows`: queue a workflow as a job whose run is the
//! workflow run (job id = run id). Everything else is the runs' API: `GET
//! /v1/runs/{id}` (its envelope's `workflow` holds the steps),
//! `/v1/runs/{id}/events` (SSE of the workflow's events, the steps' own
//! nested as `task_progress`), `POST /v1/runs/{id}/cancel` (reaches every
//! running step).
//!
//! The workflow comes as the file's text (`workflow`: YAML or JSON, with
//! `base_dir`, the absolute folder its relative paths and the tool
//! registry are found from), as a JSON object (`workflow`, with
//! `base_dir`), or as the absolute path of a file the server reads
//! (`file`; its folder is the base). It is loaded and checked as
//! `agentgate workflow validate` does: refused with 422 naming the line
//! and the reason, nothing queued. The job stores the checked definition,
//! so a later change of the file does not change a queued or resumed run.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentgate_core::request::RequestError;
use agentgate_store::NewJob;
use agentgate_tools::workflow::Workflow;
use agentgate_tools::workflow::definition::WorkflowDef;
use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;
use crate::executor::workflow_job::{WORKFLOW_KIND, WorkflowJobRequest};
use crate::run_routes::{RunAccepted, accepted, refused};
use crate::state::AppState;

/// The body of `POST /v1/workflows`.
#[derive(Debug, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields, default)]
pub struct WorkflowSubmission {
    /// The workflow: the file's text (YAML or JSON), or the workflow as a
    /// JSON object. Give it with `base_dir`, or give `file` instead.
    #[schema(value_type = Value)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workflow: Option<Value>,
    /// With `workflow`: the absolute folder its relative paths (and the
    /// tool registry) are found from, as a file's own folder would be.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
    /// Instead of `workflow`: the absolute path of a workflow file on the
    /// server's machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The workflow's input (`${input...}`).
    #[schema(value_type = Value)]
    #[serde(skip_serializing_if = "Value::is_null")]
    pub input: Value,
    /// Higher runs first (-1000 to 1000).
    pub priority: i64,
    /// A repeated key returns the run the first submission created.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Not started before this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_before: Option<Timestamp>,
}

/// `POST /v1/workflows`: queue a workflow.
#[utoipa::path(
    post,
    path = "/v1/workflows",
    tag = "workflows",
    request_body(content = WorkflowSubmission, description = "The workflow (its text or JSON with base_dir, or an absolute file path), its input, and the queue's fields"),
    responses(
        (status = 201, description = "Queued: a run of kind workflow; follow it with /v1/runs/{id} and /v1/runs/{id}/events", body = RunAccepted),
        (status = 200, description = "The run an earlier request with this idempotency_key created; nothing queued", body = RunAccepted),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = crate::error::ErrorBody),
        (status = 422, description = "The workflow is invalid (the message names the line and the reason) or a field is; nothing queued", body = crate::error::ErrorBody),
    ),
)]
pub async fn submit_workflow(
    State(state): State<Arc<AppState>>,
    body: Bytes,
) -> Result<(StatusCode, Json<RunAccepted>), ApiError> {
    let submission: WorkflowSubmission = serde_json::from_slice(&body).map_err(|e| {
        let status = if e.is_data() {
            StatusCode::UNPROCESSABLE_ENTITY
        } else {
            StatusCode::BAD_REQUEST
        };
        ApiError::new(status, "bad_request", format!("the body: {e}")).with_field("request")
    })?;
    check_queue_fields(&submission).map_err(refused)?;
    let now = state.clock.now();
    // Loading reads files and enqueueing writes the store: both block.
    let enqueuing = state.clone();
    let enqueued = tokio::task::spawn_blocking(move || {
        let wf = load(&submission).map_err(refused)?;
        let stored = WorkflowJobRequest {
            kind: WORKFLOW_KIND.to_owned(),
            base_dir: wf.base_dir.clone(),
            workflow: wf.def,
            input: submission.input,
            priority: submission.priority,
            idempotency_key: submission.idempotency_key.clone(),
            not_before: submission.not_before,
        };
        let mut job = NewJob {
            job_id: agentgate_core::run::new_run_id(),
            request: serde_json::to_value(&stored)
                .map_err(|e| ApiError::internal(format!("failed to store the workflow: {e}")))?,
            priority: i32::try_from(submission.priority).unwrap_or_default(),
            not_before: submission.not_before,
            idempotency_key: submission.idempotency_key,
            providers: Vec::new(),
            session: None,
        };
        // The agents' secrets are sealed, as a run's are.
        crate::executor::sealing::seal_job(&mut job, &enqueuing.keys)
            .map_err(|e| ApiError::internal(format!("failed to queue the workflow: {e}")))?;
        enqueuing
            .store
            .enqueue(&job, now)
            .map_err(|e| ApiError::internal(format!("failed to queue the workflow: {e}")))
    })
    .await
    .map_err(|e| ApiError::internal(format!("the enqueue failed: {e}")))??;
    Ok(accepted(&state, enqueued))
}

fn check_queue_fields(s: &WorkflowSubmission) -> Result<(), RequestError> {
    agentgate_core::request::check_queue_fields(s.priority, s.idempotency_key.as_deref())
}

/// The submitted workflow, loaded and checked.
fn load(s: &WorkflowSubmission) -> Result<Workflow, RequestError> {
    let invalid =
        |e: agentgate_tools::workflow::WorkflowError| RequestError::new("workflow", e.to_string());
    match (&s.workflow, &s.file, &s.base_dir) {
        (Some(_), Some(_), _) => Err(RequestError::new(
            "file",
            "give `workflow` (with `base_dir`) or `file`, not both",
        )),
        (None, None, _) => Err(RequestError::new(
            "workflow",
            "give the workflow (`workflow` with `base_dir`) or its file (`file`)",
        )),
        (None, Some(file), _) => {
            let path = absolute("file", file)?;
            Workflow::load_file(&path).map_err(invalid)
        }
        (Some(_), None, None) => Err(RequestError::new(
            "base_dir",
            "a submitted workflow needs the absolute folder its paths are relative to",
        )),
        (Some(workflow), None, Some(base_dir)) => {
            let base_dir = absolute("base_dir", base_dir)?;
            if !base_dir.is_dir() {
                return Err(RequestError::new(
                    "base_dir",
                    format!("{} is not a folder", base_dir.display()),
                ));
            }
            match workflow {
                Value::String(text) => {
                    Workflow::from_yaml(text, "(submitted)", &base_dir).map_err(invalid)
                }
                Value::Object(_) => {
                    let def: WorkflowDef = serde_json::from_value(workflow.clone())
                        .map_err(|e| RequestError::new("workflow", e.to_string()))?;
                    Workflow::from_def(def, &base_dir).map_err(invalid)
                }
                _ => Err(RequestError::new(
                    "workflow",
                    "expected the file's text (a string) or the workflow (an object)",
                )),
            }
        }
    }
}

fn absolute(field: &str, path: &str) -> Result<PathBuf, RequestError> {
    let path = Path::new(path);
    if !path.is_absolute() {
        return Err(RequestError::new(
            field,
            format!(
                "{} is not absolute (the server's working folder is not the caller's)",
                path.display()
            ),
        ));
    }
    Ok(path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn submission(v: Value) -> WorkflowSubmission {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn a_submission_is_refused_naming_its_field() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().display().to_string();
        let yaml = "version: 1\nname: w\nsteps:\n  - id: a\n    tool: t\n";
        for (body, field, says) in [
            (serde_json::json!({}), "workflow", "give the workflow"),
            (
                serde_json::json!({"workflow": yaml}),
                "base_dir",
                "absolute folder",
            ),
            (
                serde_json::json!({"workflow": yaml, "base_dir": "rel"}),
                "base_dir",
                "not absolute",
            ),
            (
                serde_json::json!({"workflow": yaml, "file": "/x.yaml", "base_dir": base}),
                "file",
                "not both",
            ),
            (
                serde_json::json!({"file": "/no/such/workflow.yaml"}),
                "workflow",
                "cannot read",
            ),
            (
                serde_json::json!({"workflow": 7, "base_dir": base}),
                "workflow",
                "expected",
            ),
            (
                serde_json::json!({"workflow": "version: 1\nname: w\nsteps:\n  - id: a\n    tol: t\n", "base_dir": base}),
                "workflow",
                "line 5",
            ),
        ] {
            let err = load(&submission(body.clone())).unwrap_err();
            assert_eq!(err.field, field, "{body}: {err}");
            assert!(err.message.contains(says), "{body}: {err}");
        }
        for (body, field) in [
            (serde_json::json!({"priority": 1001}), "priority"),
            (
                serde_json::json!({"idempotency_key": ""}),
                "idempotency_key",
            ),
        ] {
            let err = check_queue_fields(&submission(body.clone())).unwrap_err();
            assert_eq!(err.field, field, "{body}");
        }
    }

    #[test]
    fn text_and_object_give_the_same_workflow() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().display().to_string();
        let yaml = "version: 1\nname: w\nsteps:\n  - id: a\n    tool: t\n    args: [x]\n";
        let from_text = load(&submission(
            serde_json::json!({"workflow": yaml, "base_dir": base}),
        ))
        .unwrap();
        let object = serde_json::to_value(&from_text.def).unwrap();
        let from_object = load(&submission(
            serde_json::json!({"workflow": object, "base_dir": base}),
        ))
        .unwrap();
        assert_eq!(from_text.def, from_object.def);
        assert_eq!(from_text.base_dir, dir.path());
    }
}
