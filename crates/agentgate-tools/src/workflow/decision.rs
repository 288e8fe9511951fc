//! A decision step: the tool step it is `for` ended asking for a decision
//! (`action_required`); an agent answers it with one of `choices` (its
//! output schema is made from them), the workflow being `waiting_ai`
//! meanwhile. With `answer: tool` the tool runs again in its workspace
//! (its checkpoints kept) with the answer on stdin as JSON and in its
//! arguments, as many rounds as it asks, at most `max_rounds`; with
//! `answer: next` the answer only goes to the steps after.

use agentgate_protocol::{
    ErrorInfo, ErrorKind, ErrorSource, StepOutcome, ToolStatus, WorkflowState,
};
use serde_json::{Value, json};

use super::cancel::Scope;
use super::context::Ctx;
use super::context::{TryEnd, step_timeout};
use super::definition::{AnswerTo, DecisionDef, StepDef};
use super::kinds::{
    AgentChild, ToolChild, agent_end, render, run_agent_child, run_tool_child, tool_end,
    tool_outcome,
};

/// The most rounds when the decision sets no `max_rounds`.
const DEFAULT_MAX_ROUNDS: u32 = 3;

/// One try of a decision step.
pub(super) async fn decision_try(
    ctx: &Ctx<'_>,
    step: &StepDef,
    attempt: u32,
    scope: &Scope,
) -> TryEnd {
    let Some(d) = &step.decision else {
        return TryEnd::invalid("not a decision step");
    };
    let Some(asked) = ctx.end_of(&d.for_step) else {
        return TryEnd::Skipped(format!("`{}` did not run", d.for_step));
    };
    let Some(mut action) = asked.outcome.action.clone() else {
        return TryEnd::Skipped(format!("`{}` asked for no decision", d.for_step));
    };
    let Some(tool_step) = ctx.wf.step(&d.for_step) else {
        return TryEnd::invalid(format!("no step `{}`", d.for_step));
    };
    let schema = match write_schema(ctx, &step.id, &d.choices) {
        Ok(p) => p,
        Err(e) => return TryEnd::invalid(e),
    };
    if let Some(run) = &asked.outcome.run_id {
        ctx.tally()
            .last_tool_run
            .entry(step.id.clone())
            .or_insert_with(|| run.clone());
    }
    let max_rounds = d.max_rounds.unwrap_or(DEFAULT_MAX_ROUNDS).max(1);
    let mut round = 0;
    loop {
        round += 1;
        ctx.state(WorkflowState::WaitingAi, Some(&step.id), None);
        let mut values = ctx.scope();
        values.action = Some(action.clone());
        let child = AgentChild {
            step_id: &step.id,
            attempt,
            agent: &d.agent,
            values: values.clone(),
            timeout: step.timeout.clone(),
            output_schema: Some(schema.clone()),
        };
        let answered = run_agent_child(ctx, child, scope).await;
        ctx.state(WorkflowState::Running, Some(&step.id), None);
        let envelope = match answered {
            Ok(e) => e,
            Err(end) => return end,
        };
        let agent_outcome = match agent_end(&envelope) {
            TryEnd::Ok(o) => o,
            other => return other,
        };
        let answer = match checked_answer(envelope.structured_output.as_ref(), d) {
            Ok(a) => a,
            Err(e) => {
                return TryEnd::Failed {
                    outcome: agent_outcome,
                    error: ErrorInfo::new(ErrorKind::InvalidOutput, ErrorSource::Internal, e),
                    code: Some("invalid_output".to_owned()),
                    child: Some(envelope.run_id.clone()),
                };
            }
        };
        if d.answer == AnswerTo::Next {
            return TryEnd::Ok(StepOutcome {
                output: answer,
                action: Some(action),
                ..agent_outcome
            });
        }
        values.answer = Some(answer.clone());
        let templates = d.args.as_ref().unwrap_or(&tool_step.args);
        let args = match templates
            .iter()
            .map(|t| render(t, &values))
            .collect::<Result<Vec<_>, _>>()
        {
            Ok(a) => a,
            Err(e) => return TryEnd::invalid(format!("decision args: {e}")),
        };
        let Some(tool) = tool_step.tool.as_deref() else {
            return TryEnd::invalid(format!("`{}` is not a tool step", d.for_step));
        };
        let mut stdin = json!({"action": action.get("action"), "context": action.get("context")});
        if let (Some(obj), Some(ans)) = (stdin.as_object_mut(), answer.as_object()) {
            obj.extend(ans.clone());
        }
        let child = ToolChild {
            step_id: &step.id,
            attempt,
            tool,
            args,
            copy_in: Vec::new(),
            stdin: Some(stdin.to_string().into_bytes()),
            timeout: step_timeout(step),
        };
        let ran = match run_tool_child(ctx, child, scope).await {
            Ok(e) => e,
            Err(end) => return end,
        };
        if ran.status == ToolStatus::ActionRequired {
            if round >= max_rounds {
                return TryEnd::Failed {
                    outcome: tool_outcome(&ran),
                    error: ErrorInfo::new(
                        ErrorKind::ToolError,
                        ErrorSource::Internal,
                        format!(
                            "the tool asked again after {round} answers (max_rounds {max_rounds})"
                        ),
                    ),
                    code: None,
                    child: Some(ran.run_id.clone()),
                };
            }
            if let Some(next) = tool_outcome(&ran).action {
                action = next;
            }
            continue;
        }
        return match tool_end(&ran) {
            TryEnd::Ok(o) => TryEnd::Ok(StepOutcome {
                output: answer,
                action: Some(action),
                ..o
            }),
            other => other,
        };
    }
}

/// The agent's answer, checked against the choices: `{choice, reason}`.
fn checked_answer(answer: Option<&Value>, d: &DecisionDef) -> Result<Value, String> {
    let Some(answer) = answer else {
        return Err("the agent gave no structured answer".to_owned());
    };
    let choice = answer.get("choice").and_then(Value::as_str).unwrap_or("");
    if !d.choices.iter().any(|c| c == choice) {
        return Err(format!(
            "the agent chose {:?}, not one of {}",
            choice,
            d.choices.join(", ")
        ));
    }
    Ok(json!({
        "choice": choice,
        "reason": answer.get("reason").cloned().unwrap_or(Value::Null),
    }))
}

/// Writes the decision's output schema into the workflow run's folder.
fn write_schema(
    ctx: &Ctx<'_>,
    step_id: &str,
    choices: &[String],
) -> Result<std::path::PathBuf, String> {
    let schema = json!({
        "type": "object",
        "properties": {
            "choice": {"type": "string", "enum": choices},
            "reason": {"type": "string"},
        },
        "required": ["choice"],
        "additionalProperties": false,
    });
    let dir = ctx.store.run_dir(ctx.run_id()).map_err(|e| e.to_string())?;
    let path = dir.join(format!("decision-{step_id}.schema.json"));
    std::fs::write(&path, schema.to_string())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(path)
}
