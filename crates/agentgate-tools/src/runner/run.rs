//! [`run_tool`]: one tool run from start to envelope.

use std::os::unix::fs::OpenOptionsExt as _;
use std::time::Instant;

use agentgate_core::{CancelRequest, new_run_id};
use agentgate_core::{RedactorBuilder, is_secret};
use agentgate_protocol::{
    CancelReason, CancelledEvent, Envelope, ErrorInfo, ErrorSource, EventBody, ResultEvent,
    StartEvent, ToolEnvelope, ToolErrorCode, ToolStatus,
};
use agentgate_store::{RunKind, RunRecord, RunStore};
use agentgate_supervise::{Invocation, SupervisorConfig};
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::copy_in;
use super::emit::Emitter;
use super::prepare::{RunPaths, sandbox_spec, scoped_env};
use super::request::{RunnerSetup, ToolObserver, ToolRunError, ToolRunRequest};
use super::verdict::{Evidence, Verdict, decide, not_started};
use super::watch::watch;
use crate::error_codes as codes;
use crate::sandbox::{SANDBOX_SUBCOMMAND, SandboxReport};

/// Runs one tool: records the run in `store` (kind `tool`), checks the
/// policy's verdict and the required variables, prepares the workspace,
/// runs `agentgate __sandbox` under the supervisor, watches it, decides the
/// outcome, and returns the envelope (also stored, inside the run's
/// envelope, and carried by the last event).
///
/// A first cancel request creates `CANCEL_FILE` and gives the tool
/// `limits.cancel_grace` to stop; then the termination table runs. A
/// second (or an `immediate` one) kills the tool's group at once.
///
/// `Err` only when the run cannot be recorded or prepared: then nothing
/// started.
pub async fn run_tool(
    req: ToolRunRequest,
    setup: &RunnerSetup,
    store: &dyn RunStore,
    observer: &mut dyn ToolObserver,
    cancel: Option<mpsc::Receiver<CancelRequest>>,
) -> Result<ToolEnvelope, ToolRunError> {
    let started = Instant::now();
    let manifest = &req.target.manifest;
    let mut private = setup.private_paths.clone();
    private.push(store.runs_dir().to_path_buf());
    // Checked before anything is recorded: a refused path starts nothing.
    let copying = copy_in::plan(&req, &private)?;
    let run_id = req.run_id.clone().unwrap_or_else(new_run_id);
    let dir = store.run_dir(&run_id)?;
    let workspace = match &req.resume_from {
        None => dir.join("work"),
        Some(earlier) => resumed_workspace(store, earlier, &manifest.name)?,
    };
    let paths = RunPaths::new(dir, workspace);
    store.insert_run(&RunRecord {
        run_id: run_id.clone(),
        started_at: Timestamp::now(),
        providers: vec![manifest.name.clone()],
        model: None,
        session: None,
        cwd: Some(paths.workspace.display().to_string()),
        prompt_bytes: 0,
        kind: RunKind::Tool,
        parent_run_id: req.parent_run_id.clone(),
        labels: req.labels.clone(),
    })?;
    let files = store.create_run_files(&run_id)?;
    paths.create()?;
    copy_in::copy(&copying, &paths.workspace)?;

    let mut secrets = RedactorBuilder::new();
    for (name, value) in &req.caller_env {
        if is_secret(name) && manifest.env.require.contains(name) {
            secrets.env(name, value);
        }
    }
    let mut em = Emitter::new(&run_id, files, secrets.build(), observer);
    em.emit(EventBody::Start(StartEvent {
        tool: Some(manifest.name.clone()),
        args: Some(req.args.clone()),
        cwd: Some(paths.workspace.display().to_string()),
        ..StartEvent::default()
    }));

    let trace_id = req.trace_id.clone().unwrap_or_else(|| run_id.clone());
    let verdict = match (
        &req.refusal,
        scoped_env(
            &manifest.env.require,
            &req.caller_env,
            &paths.seed(&run_id, &trace_id, req.limits.timeout),
        ),
    ) {
        (Some(refusal), _) => not_started(
            &req.limits,
            codes::E_POLICY,
            format!("refused by the tool policy: {refusal}"),
        ),
        (None, Err(missing)) => not_started(
            &req.limits,
            codes::E_ENV_MISSING,
            format!(
                "the tool requires {} in the environment; not set: {}",
                manifest.env.require.join(", "),
                missing.join(", ")
            ),
        ),
        (None, Ok(env)) => supervised(&req, setup, &paths, &private, env, cancel, &mut em).await,
    };

    let envelope = ToolEnvelope {
        exit_code: ToolEnvelope::exit_status_for(
            verdict.status,
            verdict.code.as_deref(),
            verdict.class,
            verdict.retryable,
        ),
        run_id: run_id.clone(),
        tool: manifest.name.clone(),
        version: manifest.version.clone(),
        status: verdict.status,
        code: verdict.code,
        class: verdict.class,
        retryable: verdict.retryable,
        error: verdict.error.map(|e| em.redact(&e)),
        hint: verdict.hint.map(|h| em.redact(&h)),
        artifacts: verdict.artifacts,
        metrics: verdict.metrics,
        actions: verdict.actions,
        tool_exit: verdict.tool_exit,
        duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        cpu_ms: verdict.cpu_ms,
        max_rss_kib: verdict.max_rss_kib,
        limits: Some(verdict.limits),
        workspace: Some(paths.workspace.display().to_string()),
        parent_run_id: req.parent_run_id.clone(),
        resumed_from: req.resume_from.clone(),
        stderr_tail: verdict.stderr_tail.map(|t| em.redact(&t)),
        warnings: verdict.warnings,
    };
    let stored = stored_envelope(&envelope);
    if let Some(kind) = envelope.error_kind() {
        if envelope.status == ToolStatus::Cancelled {
            em.emit(EventBody::Cancelled(CancelledEvent {
                reason: CancelReason::Request,
                signal: None,
            }));
        } else {
            let mut info = ErrorInfo::new(
                kind,
                ErrorSource::Internal,
                envelope.error.clone().unwrap_or_default(),
            );
            info.recoverable = envelope.retryable;
            info.tool = envelope.code.clone().map(|code| {
                Box::new(ToolErrorCode {
                    code,
                    hint: envelope.hint.clone(),
                })
            });
            em.emit(EventBody::Error(info));
        }
    }
    em.emit(EventBody::Result(ResultEvent {
        envelope: Box::new(stored.clone()),
    }));
    em.finish();
    if let Err(e) = store.finish_run(&run_id, &stored) {
        tracing::warn!("tool run {run_id}: cannot record its end: {e}");
    }
    Ok(envelope)
}

/// The run's envelope as the store keeps it: agent-shaped, the tool's
/// whole result in `tool`.
fn stored_envelope(tool: &ToolEnvelope) -> Envelope {
    let mut envelope = Envelope {
        duration_ms: tool.duration_ms,
        stderr_tail: tool.stderr_tail.clone(),
        tool: Some(Box::new(tool.clone())),
        ..Envelope::new(tool.run_id.clone())
    };
    if let Some(kind) = tool.error_kind() {
        envelope.error = tool.error.clone();
        envelope.error_type = Some(kind);
        envelope.exit_code = Some(tool.exit_code);
        envelope.recoverable = Some(tool.retryable);
    }
    envelope
}

/// The workspace of an earlier run of the same tool: its own `work/`, or,
/// for a run that itself continued an earlier one, the workspace it ran
/// in (its envelope's `workspace`, which must be a run's folder of the
/// store).
fn resumed_workspace(
    store: &dyn RunStore,
    earlier: &str,
    tool: &str,
) -> Result<std::path::PathBuf, ToolRunError> {
    let Some(detail) = store.find_run(earlier)? else {
        return Err(ToolRunError::Resume(format!("no run `{earlier}`")));
    };
    let record = &detail.summary.record;
    if record.kind != RunKind::Tool || record.providers.first().map(String::as_str) != Some(tool) {
        return Err(ToolRunError::Resume(format!(
            "run {} is not a run of the tool `{tool}`",
            record.run_id
        )));
    }
    workspace_of(store, &record.run_id, detail.envelope.as_ref())
        .ok_or_else(|| ToolRunError::Resume(format!("run {} has no workspace left", record.run_id)))
}

/// Where the tool run `run_id` (with its stored `envelope`) worked, if that
/// folder is still there: its own `work/`, else the workspace its envelope
/// names, when that is a run's `work/` in the store.
pub fn workspace_of(
    store: &dyn RunStore,
    run_id: &str,
    envelope: Option<&Envelope>,
) -> Option<std::path::PathBuf> {
    let own = store.run_dir(run_id).ok()?.join("work");
    if own.is_dir() {
        return Some(own);
    }
    let named = std::path::PathBuf::from(envelope?.tool.as_ref()?.workspace.as_ref()?);
    let runs = std::fs::canonicalize(store.runs_dir()).ok()?;
    let named = std::fs::canonicalize(named).ok()?;
    let in_store = named
        .parent()
        .is_some_and(|run| run.parent() == Some(runs.as_path()))
        && named.file_name().is_some_and(|n| n == "work");
    (in_store && named.is_dir()).then_some(named)
}

/// Starts the sandbox under the supervisor and decides the outcome.
async fn supervised(
    req: &ToolRunRequest,
    setup: &RunnerSetup,
    paths: &RunPaths,
    private: &[std::path::PathBuf],
    env: Vec<(String, String)>,
    cancel: Option<mpsc::Receiver<CancelRequest>>,
    em: &mut Emitter<'_>,
) -> Verdict {
    let path_var = env
        .iter()
        .find(|(k, _)| k == "PATH")
        .map(|(_, v)| v.clone())
        .unwrap_or_default();
    let spec = sandbox_spec(req, paths, &path_var, private);
    if let Err(e) = write_private_json(&paths.spec, &spec) {
        return not_started(
            &req.limits,
            codes::E_SPAWN,
            format!(
                "cannot write the sandbox spec {}: {e}",
                paths.spec.display()
            ),
        );
    }
    let inv = Invocation {
        program: setup.sandbox_program.clone(),
        args: vec![
            SANDBOX_SUBCOMMAND.into(),
            paths.spec.clone().into_os_string(),
        ],
        env: env.into_iter().map(|(k, v)| (k.into(), v.into())).collect(),
        env_clear: true,
        env_remove: Vec::new(),
        cwd: Some(paths.workspace.clone()),
        stdin: req.stdin.clone(),
    };
    let cfg = SupervisorConfig {
        timeout: Some(req.limits.timeout),
        idle_timeout: None,
        keeper: setup.keeper.clone(),
        ..SupervisorConfig::default()
    };
    let watched = watch(inv, cfg, &req.limits, &paths.cancel_file, cancel, em).await;
    let sandbox = std::fs::read(&paths.report)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<SandboxReport>(&bytes).ok());
    decide(&Evidence {
        seen: &watched.seen,
        report: &watched.report,
        sandbox: sandbox.as_ref(),
        exit_codes: &req.target.manifest.exit_codes,
        result_required: req.target.manifest.result_required,
        limits: &req.limits,
        workspace: &paths.workspace,
        classify: &req.classify,
    })
}

fn write_private_json(
    path: &std::path::Path,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    use std::io::Write as _;
    let bytes = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    file.write_all(&bytes)
}
