//! A queued job's request as the store keeps it: a [`JobRequest`], either
//! a run ([`RunRequest`]: the body of `POST /v1/runs`, what `agentgate
//! submit` sends for `agentgate run`'s flags, a schedule's or a watched
//! folder's request) or a workflow ([`WorkflowJobRequest`], from `POST
//! /v1/workflows`), tagged by `kind`: `{"kind": "run", "prompt": ...}`,
//! `{"kind": "workflow", "workflow": ..., "base_dir": ...}`.
//!
//! It is read with serde ([`JobRequest::from_stored`], and its
//! `Deserialize`): the tag picks the type, each type refuses what it does
//! not know, and a refusal names its field ([`RequestError`]). A request
//! with no `kind` is a run's: the rows queued before the tag existed stored
//! a run's request as its body (workflows were always tagged), so every row
//! an older version queued reads as it was meant.
//!
//! The store's column stays JSON: sealing (`executor/sealing.rs`) works on
//! it in place, choosing how by [`JobKind::of`] (the tag alone, read with
//! serde), because a sealed request (its `env` values `[sealed]`, a
//! `sealed` object beside them) is not a request until it is opened. The
//! executor opens a job's request, then reads it here.

use std::path::PathBuf;

use agentgate_core::sealed::{self, KeyRing, SealError};
use agentgate_core::{RequestError, RunRequest};
use agentgate_store::JobRecord;
use agentgate_tools::workflow::definition::WorkflowDef;
use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// The name of the tag.
pub const KIND_TAG: &str = "kind";

/// What a job runs: the value of its request's `kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum JobKind {
    /// A run ([`RunRequest`]).
    Run,
    /// A workflow ([`WorkflowJobRequest`]).
    Workflow,
}

impl JobKind {
    /// The kind of the stored request `stored`, from its tag alone (the
    /// rest is not read: it may be sealed); no tag is a run's. A tag that
    /// names no kind, or a request that is not an object, is refused.
    pub fn of(stored: &Value) -> Result<JobKind, RequestError> {
        /// The tag, the request's other fields ignored.
        #[derive(Deserialize)]
        struct Tag {
            #[serde(default)]
            kind: Option<JobKind>,
        }
        match stored {
            Value::Object(_) => Tag::deserialize(stored)
                .map(|tag| tag.kind.unwrap_or(JobKind::Run))
                .map_err(|e| RequestError::new(KIND_TAG, e.to_string())),
            _ => Err(RequestError::new("request", "expected a JSON object")),
        }
    }

    /// `run` or `workflow`, as the tag and the API's `kind` say it.
    pub const fn as_str(self) -> &'static str {
        match self {
            JobKind::Run => "run",
            JobKind::Workflow => "workflow",
        }
    }
}

/// A workflow job's request (without its tag): the definition checked
/// when it was submitted, so a later change of its file does not change a
/// queued or resumed run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkflowJobRequest {
    /// The workflow, checked when it was submitted.
    pub workflow: WorkflowDef,
    /// Its input (`${input...}`).
    #[serde(default)]
    pub input: Value,
    /// The folder its relative paths, and the tool registry, are found
    /// from (absolute).
    pub base_dir: PathBuf,
    /// Higher is claimed first.
    #[serde(default)]
    pub priority: i64,
    /// The caller's key, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotency_key: Option<String>,
    /// Not started before this time.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<jiff::Timestamp>,
}

/// A job's request: a run or a workflow, tagged by `kind` when stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum JobRequest {
    /// A run: the fields of `agentgate run`'s flags and the queue's own.
    Run(Box<RunRequest>),
    /// A workflow.
    Workflow(Box<WorkflowJobRequest>),
}

impl JobRequest {
    /// What it runs.
    pub fn kind(&self) -> JobKind {
        match self {
            JobRequest::Run(_) => JobKind::Run,
            JobRequest::Workflow(_) => JobKind::Workflow,
        }
    }

    /// The run's request; `None` for a workflow.
    pub fn as_run(&self) -> Option<&RunRequest> {
        match self {
            JobRequest::Run(run) => Some(run.as_ref()),
            JobRequest::Workflow(_) => None,
        }
    }

    /// The request of `job` (opened: see the module notes).
    pub fn of(job: &JobRecord) -> Result<JobRequest, RequestError> {
        JobRequest::from_stored(job.request.clone())
    }

    /// Read a stored request: by its tag (none: a run), each kind with its
    /// own type; a refusal names the field (a run's: as `POST /v1/runs`
    /// would; a workflow's: `workflow`).
    pub fn from_stored(stored: Value) -> Result<JobRequest, RequestError> {
        let kind = JobKind::of(&stored)?;
        let Value::Object(mut fields) = stored else {
            return Err(RequestError::new("request", "expected a JSON object"));
        };
        fields.remove(KIND_TAG);
        fields.remove(agentgate_telemetry::STORED_KEY);
        match kind {
            JobKind::Run => RunRequest::from_value(Value::Object(fields))
                .map(|run| JobRequest::Run(Box::new(run))),
            JobKind::Workflow => serde_json::from_value(Value::Object(fields))
                .map(|workflow| JobRequest::Workflow(Box::new(workflow)))
                .map_err(|e| {
                    RequestError::new("workflow", format!("the stored workflow job: {e}"))
                }),
        }
    }

    /// The request as the store keeps it: tagged.
    pub fn to_stored(&self) -> Result<Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    /// The request as the store keeps it, its secrets sealed for job
    /// `job_id` (see `seal_stored`).
    pub fn to_sealed(&self, keys: &KeyRing, job_id: &str) -> Result<Value, SealError> {
        let mut stored = self
            .to_stored()
            .map_err(|e| SealError::Corrupt(e.to_string()))?;
        seal_stored(&mut stored, keys, job_id)?;
        Ok(stored)
    }

    /// The request as it was submitted, for the API (`GET /v1/runs/{id}`'s
    /// `request`): a run's without its tag (the body of `POST /v1/runs`),
    /// a workflow's as stored.
    pub fn to_submitted(&self) -> Result<Value, serde_json::Error> {
        match self {
            JobRequest::Run(run) => serde_json::to_value(run.as_ref()),
            JobRequest::Workflow(_) => self.to_stored(),
        }
    }
}

/// Seal the secrets of the stored request `stored` of job `job_id` in
/// place ([`agentgate_core::sealed`]), by its kind: a run's request is one
/// run request, a workflow's has one per agent step. A request whose tag
/// does not read is sealed as a run's: no secret is left in clear for want
/// of a tag.
pub fn seal_stored(stored: &mut Value, keys: &KeyRing, job_id: &str) -> Result<(), SealError> {
    if JobKind::of(stored) == Ok(JobKind::Workflow) {
        if let Some(def) = stored.get_mut("workflow") {
            sealed::seal_workflow(def, keys, job_id)?;
        }
        return Ok(());
    }
    match stored.as_object_mut() {
        Some(object) => sealed::seal_request(object, keys, job_id),
        None => Ok(()),
    }
}

/// Keep `context` (a submitting request's trace context) with the stored
/// request `stored` (see the module notes).
pub fn keep_trace_context(stored: &mut Value, context: &agentgate_telemetry::TraceContext) {
    if let Some(object) = stored.as_object_mut() {
        object.insert(agentgate_telemetry::STORED_KEY.into(), context.to_stored());
    }
}

/// The trace context kept with the stored request `stored`, if any.
pub fn trace_context_of(stored: &Value) -> Option<agentgate_telemetry::TraceContext> {
    agentgate_telemetry::TraceContext::from_stored(stored.get(agentgate_telemetry::STORED_KEY)?)
}

impl<'de> Deserialize<'de> for JobRequest {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let stored = Value::deserialize(deserializer)?;
        JobRequest::from_stored(stored).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests;
