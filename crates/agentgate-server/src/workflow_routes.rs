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
//!
//! The server reads and works in its own folders only ([`WorkflowRoots`]):
//! a `file` (a `.yaml`, `.yml` or `.json` file) and a `base_dir` must
//! lie, once `..` and symbolic links are resolved, in the folder the
//! server was started in or in its config file's folder. Anything else is
//! refused before it is read, so a client cannot have the server open an
//! arbitrary path; and a file that does not parse is refused with its line
//! and the kind of fault, never its text (see `Workflow::from_yaml`).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentgate_core::RequestError;
use agentgate_store::NewJob;
use agentgate_tools::workflow::Workflow;
use agentgate_tools::workflow::definition::WorkflowDef;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ApiError;
use crate::run_routes::{RunAccepted, accepted, refused};
use crate::state::AppState;
use agentgate_executor::{JobRequest, WorkflowJobRequest};

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
    /// tool registry) are found from, as a file's own folder would be. It
    /// must lie in the server's folders (the folder it was started in, its
    /// config file's folder).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub base_dir: Option<String>,
    /// Instead of `workflow`: the absolute path of a workflow file (`.yaml`,
    /// `.yml` or `.json`) on the server's machine, in the server's folders
    /// (the folder it was started in, its config file's folder). A file
    /// that does not parse is refused with its line, never its text.
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
    /// Labels of the workflow's job, `{"key": "value"}` (as a run's): listed
    /// and cancelled by label like runs (a cancel stops its running steps);
    /// its envelope and every step's run carry them.
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub labels: std::collections::BTreeMap<String, String>,
}

/// `POST /v1/workflows`: queue a workflow.
#[utoipa::path(
    post,
    path = "/v1/workflows",
    tag = "workflows",
    params(
        ("traceparent" = Option<String>, Header, description = "A W3C trace context (`00-TRACEID-SPANID-FLAGS`): with traces exported (`OTEL_EXPORTER_OTLP_*`, docs/operating/tracing.md), the job's span is its child, and its CLIs join the trace. Ignored when malformed"),
        ("tracestate" = Option<String>, Header, description = "The W3C trace state that goes with `traceparent`"),
    ),
    request_body(content = WorkflowSubmission, description = "The workflow (its text or JSON with base_dir, or an absolute file path), its input, and the queue's fields"),
    responses(
        (status = 201, description = "Queued: a run of kind workflow; follow it with /v1/runs/{id} and /v1/runs/{id}/events", body = RunAccepted),
        (status = 200, description = "The run an earlier request with this idempotency_key created; nothing queued", body = RunAccepted),
        (status = 400, description = "The body is not JSON", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 413, description = "The body is over 1 MiB", body = crate::error::ErrorBody),
        (status = 422, description = "The workflow is invalid (the message names the line and the kind of fault, never the file's text), a field is, or `file`/`base_dir` is outside the server's folders; or an agent step's sandbox level is below the config's `sandbox.require` (`field: sandbox`, the message names the step); nothing queued", body = crate::error::ErrorBody),
    ),
)]
pub async fn submit_workflow(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<crate::access::Caller>,
    headers: axum::http::HeaderMap,
    body: Bytes,
) -> Result<(StatusCode, Json<RunAccepted>), ApiError> {
    let trace = crate::trace_header::trace_context(&headers);
    // Read strictly: a key given twice is refused (422), naming it.
    let submission: WorkflowSubmission = ApiError::strict_body(&body)?;
    check_queue_fields(&submission).map_err(refused)?;
    agentgate_protocol::check_labels(&submission.labels)
        .map_err(|e| refused(agentgate_core::RequestError::new("labels", e.to_string())))?;
    let labels = crate::submitters::with_submitter(&caller, &submission.labels).map_err(refused)?;
    let roots = WorkflowRoots::of(&state);
    let now = state.clock.now();
    // Loading reads files and enqueueing writes the store: both block.
    let enqueuing = state.clone();
    let enqueued = tokio::task::spawn_blocking(move || {
        crate::submitters::check_limit(enqueuing.store.as_ref(), &caller)?;
        let wf = load(&submission, &roots).map_err(refused)?;
        check_sandbox(&wf, &enqueuing.config).map_err(refused)?;
        let stored = JobRequest::Workflow(Box::new(WorkflowJobRequest {
            base_dir: wf.base_dir.clone(),
            workflow: wf.def,
            input: submission.input,
            priority: submission.priority,
            idempotency_key: submission.idempotency_key.clone(),
            not_before: submission.not_before,
        }));
        let mut job = NewJob {
            job_id: agentgate_core::new_run_id(),
            request: stored
                .to_stored()
                .map_err(|e| ApiError::internal(format!("failed to store the workflow: {e}")))?,
            priority: i32::try_from(submission.priority).unwrap_or_default(),
            not_before: submission.not_before,
            idempotency_key: submission.idempotency_key,
            // A workflow names no provider: one slot of `max_running`.
            providers: Vec::new(),
            session: None,
            writes_in: None,
            ignore_quota: true,
            planned: true,
            labels,
        };
        if let Some(context) = &trace {
            agentgate_executor::keep_trace_context(&mut job.request, context);
        }
        // The agents' secrets are sealed, as a run's are.
        agentgate_executor::seal_job(&mut job, &enqueuing.keys)
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

/// Every agent step's run (a decision's agent too) meets the config's
/// sandbox rules (`sandbox.require`, ...), as a run's request must: a
/// refusal names the field `sandbox` and the step.
fn check_sandbox(wf: &Workflow, cfg: &agentgate_core::Config) -> Result<(), RequestError> {
    for id in wf.ids() {
        let Some(step) = wf.step(id) else { continue };
        let agent = step
            .agent
            .as_ref()
            .or(step.decision.as_ref().map(|d| &d.agent));
        let Some(agent) = agent else { continue };
        // Checked when the workflow was loaded: a request that does not
        // read is refused there, naming its step.
        let Ok(request) = agentgate_tools::workflow::agent_request(agent, &wf.base_dir) else {
            continue;
        };
        let Ok((flags, _)) = request.to_flags() else {
            continue;
        };
        agentgate_core::check_sandbox_policy(cfg, &flags)
            .map_err(|e| RequestError::new(e.field(), format!("step `{id}`: {e}")))?;
    }
    Ok(())
}

fn check_queue_fields(s: &WorkflowSubmission) -> Result<(), RequestError> {
    agentgate_core::check_queue_fields(s.priority, s.idempotency_key.as_deref())
}

/// The folders a submitted workflow may be read from and work in: the
/// server's working folder and its config file's folder, resolved; `/` is
/// never one (a server started there takes workflows from its config's
/// folder only).
#[derive(Debug, Clone, Default)]
pub(crate) struct WorkflowRoots {
    /// As found (absolute), for the check by words.
    given: Vec<PathBuf>,
    /// Resolved.
    resolved: Vec<PathBuf>,
}

impl WorkflowRoots {
    fn of(state: &AppState) -> WorkflowRoots {
        let cwd = std::env::current_dir().ok();
        let config = state
            .config
            .source
            .path()
            .and_then(|p| std::path::absolute(p).ok())
            .and_then(|p| p.parent().map(Path::to_path_buf));
        WorkflowRoots::new(cwd.into_iter().chain(config))
    }

    fn new(folders: impl IntoIterator<Item = PathBuf>) -> WorkflowRoots {
        let mut roots = WorkflowRoots::default();
        for folder in folders {
            if let Ok(resolved) = std::fs::canonicalize(&folder)
                && resolved != Path::new("/")
            {
                roots.given.push(lexically_normal(&folder));
                roots.resolved.push(resolved);
            }
        }
        roots
    }

    /// `path` (absolute) resolved, if it lies in a root; else why not. A
    /// path whose words already leave the roots is refused before the file
    /// system is asked anything.
    fn admit(&self, field: &str, path: &Path) -> Result<PathBuf, RequestError> {
        let outside = || {
            let roots: Vec<String> = self
                .resolved
                .iter()
                .map(|r| r.display().to_string())
                .collect();
            RequestError::new(
                field,
                format!(
                    "{} is outside the folders this server takes workflows from ({}): send the \
                     workflow's text with a base_dir inside them, or start the server in the \
                     workflow's project",
                    path.display(),
                    if roots.is_empty() {
                        "none: the server runs in / without a config file".to_owned()
                    } else {
                        roots.join(", ")
                    }
                ),
            )
        };
        let words = lexically_normal(path);
        if !self
            .given
            .iter()
            .chain(&self.resolved)
            .any(|r| words.starts_with(r))
        {
            return Err(outside());
        }
        let resolved = std::fs::canonicalize(path).map_err(|e| {
            RequestError::new(field, format!("cannot read {}: {e}", path.display()))
        })?;
        if !self.resolved.iter().any(|r| resolved.starts_with(r)) {
            return Err(outside());
        }
        Ok(resolved)
    }
}

/// `path` with `.` and `..` taken out by their words alone.
fn lexically_normal(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The extensions of a workflow file the server reads.
const WORKFLOW_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

/// The submitted workflow, loaded and checked; its files within `roots`.
fn load(s: &WorkflowSubmission, roots: &WorkflowRoots) -> Result<Workflow, RequestError> {
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
            let named = path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| WORKFLOW_EXTENSIONS.contains(&e));
            if !named {
                return Err(RequestError::new(
                    "file",
                    format!(
                        "{} is not a workflow file (.yaml, .yml or .json)",
                        path.display()
                    ),
                ));
            }
            let path = roots.admit("file", &path)?;
            Workflow::load_file(&path).map_err(invalid)
        }
        (Some(_), None, None) => Err(RequestError::new(
            "base_dir",
            "a submitted workflow needs the absolute folder its paths are relative to",
        )),
        (Some(workflow), None, Some(base_dir)) => {
            let base_dir = roots.admit("base_dir", &absolute("base_dir", base_dir)?)?;
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
        let roots = WorkflowRoots::new([dir.path().to_path_buf()]);
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
                serde_json::json!({"file": format!("{base}/no-such-workflow.yaml")}),
                "file",
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
            let err = load(&submission(body.clone()), &roots).unwrap_err();
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
        let roots = WorkflowRoots::new([dir.path().to_path_buf()]);
        let from_text = load(
            &submission(serde_json::json!({"workflow": yaml, "base_dir": base})),
            &roots,
        )
        .unwrap();
        let object = serde_json::to_value(&from_text.def).unwrap();
        let from_object = load(
            &submission(serde_json::json!({"workflow": object, "base_dir": base})),
            &roots,
        )
        .unwrap();
        assert_eq!(from_text.def, from_object.def);
        assert_eq!(
            from_text.base_dir,
            std::fs::canonicalize(dir.path()).unwrap()
        );
    }

    /// Issue 31: the server reads no path outside its folders, and a file
    /// that does not parse is refused without its text.
    #[test]
    fn the_server_reads_only_its_own_folders_and_never_echoes_a_file() {
        let project = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(project.path()).unwrap();
        let roots = WorkflowRoots::new([root.clone()]);
        let secret = elsewhere.path().join("secret.yaml");
        std::fs::write(&secret, "version: 1\nname: w\nsteps: [{id: a, tool: t}]\n").unwrap();
        std::os::unix::fs::symlink(&secret, root.join("link.yaml")).unwrap();
        std::fs::write(root.join("shadow.yaml"), "root:$6$salt-5e1d$hash:20228::\n").unwrap();
        std::fs::write(root.join("notes.txt"), "version: 1\n").unwrap();
        let escape = format!(
            "{}/../{}/secret.yaml",
            root.display(),
            elsewhere.path().file_name().unwrap().to_string_lossy()
        );
        for (body, field, says) in [
            (
                serde_json::json!({"file": "/etc/shadow"}),
                "file",
                "is not a workflow file",
            ),
            (
                serde_json::json!({"file": secret.display().to_string()}),
                "file",
                "is outside the folders this server takes workflows from",
            ),
            (serde_json::json!({"file": escape}), "file", "is outside"),
            (
                serde_json::json!({"file": root.join("link.yaml").display().to_string()}),
                "file",
                "is outside",
            ),
            (
                serde_json::json!({"file": root.join("notes.txt").display().to_string()}),
                "file",
                "is not a workflow file",
            ),
            (
                serde_json::json!({"workflow": "version: 1\n", "base_dir": elsewhere.path().display().to_string()}),
                "base_dir",
                "is outside",
            ),
            (
                serde_json::json!({"workflow": "version: 1\n", "base_dir": "/etc"}),
                "base_dir",
                "is outside",
            ),
        ] {
            let err = load(&submission(body.clone()), &roots).unwrap_err();
            assert_eq!(err.field, field, "{body}: {err}");
            assert!(err.message.contains(says), "{body}: {err}");
        }
        let err = load(
            &submission(
                serde_json::json!({"file": root.join("shadow.yaml").display().to_string()}),
            ),
            &roots,
        )
        .unwrap_err();
        assert!(err.message.contains("line 1 column 1"), "{err}");
        for text in ["salt", "5e1d", "root:"] {
            assert!(!err.message.contains(text), "{err}");
        }
        // A server started in `/` takes nothing from there.
        assert!(WorkflowRoots::new([PathBuf::from("/")]).resolved.is_empty());
    }
}
