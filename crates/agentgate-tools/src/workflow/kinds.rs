//! The runs a step makes: a registry tool through the tool runner, an
//! agent through the run engine of `agentgate_core` (planned from the
//! step's request as `POST /v1/runs` would be). Each run is named before
//! it starts, linked to the workflow run (`parent_run_id`), announced by a
//! `task_started`, and its events are nested in the workflow's stream as
//! `task_progress` (all a tool's; an agent's without its `text_delta`s and
//! heartbeats, which stay in its own stream). A try of a tool step after a
//! failed try or a crash continues in the last try's workspace, so the
//! tool finds its checkpoints.

use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::RunRequest;
use agentgate_core::{EventSink, RunOptions, new_run_id};
use agentgate_protocol::{
    Envelope, ErrorInfo, ErrorKind, ErrorSource, Event, EventBody, StepOutcome, TaskProgressEvent,
    ToolEnvelope, ToolStatus,
};
use serde_json::{Value, json};

use super::agent::agent_request;
use super::cancel::Scope;
use super::context::Ctx;
use super::context::{TryEnd, started, step_timeout};
use super::definition::StepDef;
use super::journal::Journal;
use super::refs;
use crate::invoke::{RunOverrides, request_for};
use crate::runner::{ToolRunError, run_tool, workspace_of};

/// One try of a `tool` step.
pub(super) async fn tool_try(ctx: &Ctx<'_>, step: &StepDef, attempt: u32, scope: &Scope) -> TryEnd {
    let Some(tool) = &step.tool else {
        return TryEnd::invalid("not a tool step");
    };
    let values = ctx.scope();
    let args = match render_all(&step.args, &values) {
        Ok(a) => a,
        Err(e) => return TryEnd::invalid(format!("args: {e}")),
    };
    let copy_in = match render_all(&step.copy_in, &values) {
        Ok(paths) => paths.iter().map(PathBuf::from).collect(),
        Err(e) => return TryEnd::invalid(format!("copy_in: {e}")),
    };
    let stdin = match step
        .stdin
        .as_deref()
        .map(|t| render(t, &values))
        .transpose()
    {
        Ok(s) => s.map(String::into_bytes),
        Err(e) => return TryEnd::invalid(format!("stdin: {e}")),
    };
    let child = ToolChild {
        step_id: &step.id,
        attempt,
        tool,
        args,
        copy_in,
        stdin,
        timeout: step_timeout(step),
    };
    match run_tool_child(ctx, child, scope).await {
        Ok(envelope) => tool_end(&envelope),
        Err(end) => end,
    }
}

/// A tool run a step asks for.
pub(super) struct ToolChild<'a> {
    pub step_id: &'a str,
    pub attempt: u32,
    pub tool: &'a str,
    pub args: Vec<String>,
    pub copy_in: Vec<PathBuf>,
    pub stdin: Option<Vec<u8>>,
    pub timeout: Option<Duration>,
}

/// Runs a tool for a step, continuing in the step's last tool run's
/// workspace when it has one.
pub(super) async fn run_tool_child(
    ctx: &Ctx<'_>,
    child: ToolChild<'_>,
    scope: &Scope,
) -> Result<ToolEnvelope, TryEnd> {
    let (registry, setup) = match &ctx.env.tools {
        Ok((registry, setup)) => (registry, setup),
        Err(e) => return Err(TryEnd::invalid(format!("tool `{}`: {e}", child.tool))),
    };
    let overrides = RunOverrides {
        timeout: child.timeout,
        ..RunOverrides::default()
    };
    let mut request = request_for(
        registry,
        child.tool,
        child.args,
        &overrides,
        ctx.env.caller_env.clone(),
    )
    .map_err(|e| TryEnd::invalid(e.to_string()))?;
    request.copy_in = child.copy_in;
    request.copy_in_base = Some(ctx.wf.base_dir.clone());
    request.stdin = child.stdin;
    request.parent_run_id = Some(ctx.run_id().to_owned());
    request.trace_id = Some(ctx.run_id().to_owned());
    request.labels = ctx.labels.clone();
    let earlier = ctx.tally().last_tool_run.get(child.step_id).cloned();
    // The earlier run may have died before it made its workspace: then
    // start afresh. One that continued an earlier one has that one's.
    let earlier = earlier.filter(|id| {
        let envelope = ctx
            .store
            .get_run(id)
            .ok()
            .flatten()
            .and_then(|d| d.envelope);
        workspace_of(ctx.store, id, envelope.as_ref()).is_some()
    });
    let run_id = new_run_id();
    request.run_id = Some(run_id.clone());
    request.resume_from = earlier.clone();
    started(
        ctx,
        child.step_id,
        child.attempt,
        &run_id,
        "tool",
        earlier.as_deref(),
    );
    let mut observer = Nest::new(&ctx.journal, child.step_id, &run_id);
    let store = ctx.store;
    let observer = &mut observer;
    let out = scope
        .run_with(move |rx| run_tool(request, setup, store, observer, Some(rx)))
        .await;
    out.map_err(|e: ToolRunError| TryEnd::Failed {
        outcome: StepOutcome {
            run_id: Some(run_id.clone()),
            ..StepOutcome::default()
        },
        error: ErrorInfo::new(ErrorKind::Unknown, ErrorSource::Internal, e.to_string()),
        code: None,
        child: Some(run_id.clone()),
    })
}

/// What a tool step's try amounts to.
pub(super) fn tool_end(envelope: &ToolEnvelope) -> TryEnd {
    let outcome = tool_outcome(envelope);
    match envelope.status {
        ToolStatus::Ok | ToolStatus::ActionRequired => TryEnd::Ok(outcome),
        ToolStatus::Cancelled => TryEnd::Cancelled(outcome),
        ToolStatus::Error => {
            let kind = envelope.error_kind().unwrap_or(ErrorKind::ToolError);
            let message = match (&envelope.code, &envelope.error) {
                (Some(code), Some(error)) => format!("{code}: {error}"),
                (Some(code), None) => code.clone(),
                (None, Some(error)) => error.clone(),
                (None, None) => "the tool failed".to_owned(),
            };
            let mut error = ErrorInfo::new(kind, ErrorSource::Structured, message);
            error.recoverable = envelope.retryable;
            TryEnd::Failed {
                outcome,
                error,
                code: envelope.code.clone(),
                child: Some(envelope.run_id.clone()),
            }
        }
    }
}

/// A tool run's outcome: its envelope, its metrics, its last action.
pub(super) fn tool_outcome(envelope: &ToolEnvelope) -> StepOutcome {
    StepOutcome {
        result: serde_json::to_value(envelope).unwrap_or(Value::Null),
        output: Value::Object(envelope.metrics.clone()),
        action: envelope
            .actions
            .last()
            .map(|a| json!({"action": a.action, "context": a.context})),
        run_id: Some(envelope.run_id.clone()),
    }
}

/// One try of an `agent` step.
pub(super) async fn agent_try(
    ctx: &Ctx<'_>,
    step: &StepDef,
    attempt: u32,
    scope: &Scope,
) -> TryEnd {
    let Some(agent) = &step.agent else {
        return TryEnd::invalid("not an agent step");
    };
    let child = AgentChild {
        step_id: &step.id,
        attempt,
        agent,
        values: ctx.scope(),
        timeout: step.timeout.clone(),
        output_schema: None,
    };
    match run_agent_child(ctx, child, scope).await {
        Ok(envelope) => agent_end(&envelope),
        Err(end) => end,
    }
}

/// An agent run a step asks for.
pub(super) struct AgentChild<'a> {
    pub step_id: &'a str,
    pub attempt: u32,
    /// The step's request, as written.
    pub agent: &'a Value,
    /// What its prompt's references see.
    pub values: refs::Scope,
    /// The step's timeout, for a request that sets none.
    pub timeout: Option<String>,
    /// A schema file that replaces the request's.
    pub output_schema: Option<PathBuf>,
}

/// Plans and runs an agent for a step.
pub(super) async fn run_agent_child(
    ctx: &Ctx<'_>,
    child: AgentChild<'_>,
    scope: &Scope,
) -> Result<Envelope, TryEnd> {
    let mut request: RunRequest = agent_request(child.agent, &ctx.wf.base_dir)
        .map_err(|e| TryEnd::invalid(format!("agent: {e}")))?;
    if let Some(prompt) = &request.prompt {
        request.prompt = Some(
            render(prompt, &child.values).map_err(|e| TryEnd::invalid(format!("prompt: {e}")))?,
        );
    }
    // A skill's input is rendered as the prompt is: each text in it.
    if let Some(input) = &mut request.input {
        render_texts(input, &child.values).map_err(|e| TryEnd::invalid(format!("input: {e}")))?;
    }
    if request.timeout.is_none() {
        request.timeout = child.timeout;
    }
    // The workflow's labels, under the step's own.
    for (key, value) in &ctx.labels {
        request
            .labels
            .entry(key.clone())
            .or_insert_with(|| value.clone());
    }
    if let Some(schema) = child.output_schema {
        request.output_schema = Some(schema);
    }
    let (flags, task) = request
        .to_flags()
        .map_err(|e| TryEnd::invalid(format!("agent: {e}")))?;
    let mut plan = agentgate_core::plan(&ctx.env.config, &flags, task)
        .map_err(|e| TryEnd::invalid(format!("agent: {e}")))?;
    if let Some(submitter) = &ctx.env.submitter {
        plan.submitted_by(submitter.clone());
    }
    let run_id = new_run_id();
    if let Some(hook) = &ctx.env.before_agent_run {
        hook(child.step_id, &run_id, &mut plan);
    }
    started(ctx, child.step_id, child.attempt, &run_id, "agent", None);
    let options = RunOptions {
        keeper: ctx.env.keeper.clone(),
        tool_server: ctx.env.tool_server.clone(),
        run_id: Some(run_id.clone()),
        parent_run_id: Some(ctx.run_id().to_owned()),
        hidden: ctx.env.hidden.clone(),
        ..RunOptions::default()
    };
    let mut sink = Nest::new(&ctx.journal, child.step_id, &run_id);
    let (plan, options, sink, store) = (&plan, &options, &mut sink, ctx.store);
    let outcome = scope
        .run_with(move |rx| agentgate_core::run(plan, options, Some(store), sink, rx))
        .await;
    Ok(outcome.envelope)
}

/// What an agent step's try amounts to.
pub(super) fn agent_end(envelope: &Envelope) -> TryEnd {
    let outcome = StepOutcome {
        result: serde_json::to_value(envelope).unwrap_or(Value::Null),
        output: match &envelope.structured_output {
            Some(v) => v.clone(),
            None if envelope.is_success() => Value::String(envelope.response.clone()),
            None => Value::Null,
        },
        action: None,
        run_id: Some(envelope.run_id.clone()),
    };
    match envelope.error_type {
        None => TryEnd::Ok(outcome),
        Some(ErrorKind::Cancelled) => TryEnd::Cancelled(outcome),
        Some(kind) => {
            let mut error = ErrorInfo::new(
                kind,
                ErrorSource::Structured,
                envelope
                    .error
                    .clone()
                    .unwrap_or_else(|| kind.as_str().to_owned()),
            );
            error.recoverable = envelope.recoverable.unwrap_or(kind.recoverable());
            TryEnd::Failed {
                outcome,
                error,
                code: Some(kind.as_str().to_owned()),
                child: Some(envelope.run_id.clone()),
            }
        }
    }
}

/// Renders each template.
fn render_all(templates: &[String], values: &refs::Scope) -> Result<Vec<String>, String> {
    templates.iter().map(|t| render(t, values)).collect()
}

/// Renders one template.
pub(super) fn render(template: &str, values: &refs::Scope) -> Result<String, String> {
    let t = refs::Template::parse(template)?;
    t.render(values).map_err(|e| e.to_string())
}

/// Nests a step's run's events in the workflow's stream.
struct Nest {
    journal: Journal,
    step_id: String,
    run_id: String,
}

impl Nest {
    fn new(journal: &Journal, step_id: &str, run_id: &str) -> Self {
        Nest {
            journal: journal.clone(),
            step_id: step_id.to_owned(),
            run_id: run_id.to_owned(),
        }
    }

    fn nest(&mut self, event: &Event) {
        if matches!(
            event.body,
            EventBody::TextDelta(_) | EventBody::Heartbeat(_) | EventBody::Result(_)
        ) {
            return;
        }
        self.journal
            .emit(EventBody::TaskProgress(TaskProgressEvent {
                task_id: self.step_id.clone(),
                child_run_id: self.run_id.clone(),
                event: Box::new(event.clone()),
            }));
    }
}

impl EventSink for Nest {
    fn emit(&mut self, event: &Event) {
        self.nest(event);
    }
}

impl crate::runner::ToolObserver for Nest {
    fn event(&mut self, event: &Event) {
        self.nest(event);
    }
}

/// Render every text of `value` (a skill's `input`) in place.
fn render_texts(value: &mut Value, values: &refs::Scope) -> Result<(), String> {
    match value {
        Value::String(s) => {
            *s = render(s, values)?;
        }
        Value::Array(items) => {
            for v in items {
                render_texts(v, values)?;
            }
        }
        Value::Object(fields) => {
            for v in fields.values_mut() {
                render_texts(v, values)?;
            }
        }
        _ => {}
    }
    Ok(())
}
