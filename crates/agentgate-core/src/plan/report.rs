//! What `agentgate run --dry-run` prints: every step of a plan as the run
//! would invoke it (program, argv with secret flags' values hidden,
//! environment with secret-named values hidden, prompt parts,
//! model and its resolution, the session it would resume, whether its
//! quota would skip it, its workspace mode and, for `worktree`, the
//! repository and commit it would check out, its sandbox level and what
//! the config adds to it, its permission mode and the
//! notices the run would emit before it starts (a mode mapped onto one the
//! CLI has, a flag left out)), or why no plan could be made. Nothing runs and
//! nothing is written; a step's files (a system-prompt file) go to a
//! folder made for them and removed after. Every secret the run would
//! redact is redacted here too.

use std::path::PathBuf;

use agentgate_store::RunStore;
use jiff::Timestamp;
use serde_json::{Map, Value, json};

use super::error::PlanError;
use super::{Plan, Step};
use crate::prompt::estimate_tokens;
use crate::quota::exhausted_quota;
use crate::redact::{is_secret, mask_secret_flags, secret_flag_values};
use crate::run_flags::RunFlags;
use crate::settings::WorkspaceMode;
use crate::workspace::{head_commit, locate_repository};
use agentgate_providers::{CommandError, Scratch, locate_binary};

/// The report of `plan` (or of the error that stopped it). `store` is
/// read for the sessions a `--session` name maps to and the quota states;
/// `None` when there is no store yet.
pub fn report(
    plan: Result<&Plan, &PlanError>,
    flags: &RunFlags,
    store: Option<&dyn RunStore>,
) -> Value {
    let plan = match plan {
        Ok(plan) => plan,
        Err(e) => {
            let named = |list: &[String]| (!list.is_empty()).then(|| list.join(","));
            return json!({
                "dry_run": true,
                "provider": named(&flags.providers).or_else(|| named(&flags.agents)),
                "chain": flags.chain,
                "program": null,
                "argv": null,
                "steps": [],
                "error": {"kind": "invalid_input", "message": e.to_string()},
            });
        }
    };
    let now = plan.now();
    let redactor = plan.redactor();
    let steps: Vec<Value> = plan
        .steps
        .iter()
        .map(|step| {
            let mut out = describe_step(plan, step, store, now);
            // A secret anywhere else (an argument, the prompt): the run
            // would not show it either.
            redactor.redact_json(&mut out);
            out
        })
        .collect();
    // The first step's fields at the top: a one-provider run reads as a
    // single invocation.
    let mut out = match steps.first() {
        Some(Value::Object(first)) => first.clone(),
        _ => Map::new(),
    };
    let error = steps
        .iter()
        .find(|s| !s["error"].is_null())
        .map(|s| s["error"].clone())
        .unwrap_or(Value::Null);
    out.insert("dry_run".into(), json!(true));
    out.insert("chain".into(), json!(plan.chain));
    out.insert("on_dirty".into(), json!(plan.on_dirty.as_str()));
    out.insert("handoff".into(), json!(plan.handoff.as_str()));
    out.insert("session".into(), json!(plan.session));
    out.insert("warnings".into(), json!(plan.warnings));
    out.insert("steps".into(), Value::Array(steps));
    out.insert("error".into(), error);
    Value::Object(out)
}

/// Whether a report says the plan can run (it has no `error`).
pub fn report_ok(report: &Value) -> bool {
    report["error"].is_null()
}

fn describe_step(plan: &Plan, step: &Step, store: Option<&dyn RunStore>, now: Timestamp) -> Value {
    let provider = step.provider.name();
    let stored = match (&plan.session, store) {
        (Some(name), Some(store)) => store
            .get_session(name, provider)
            .ok()
            .flatten()
            .map(|s| s.native_session_id),
        _ => None,
    };
    let request = step.request_for(stored);
    let parts = if request.resume.is_some() {
        &step.prompt.resumed_parts
    } else {
        &step.prompt.parts
    };
    let skip = store
        .filter(|_| !plan.ignore_quota)
        .and_then(|s| exhausted_quota(s, &step.quota_key, now))
        .map(|q| {
            let reason = if crate::quota::is_quota_hold(&q) {
                "quota held"
            } else {
                "quota exhausted"
            };
            json!({"reason": reason, "message": q.message, "reset_at": q.reset_at.map(|t| t.to_string()), "source": q.source})
        });
    let mut out = json!({
        "agent": step.agent,
        "provider": provider,
        "program": null,
        "argv": null,
        "env": {},
        "cwd": request.cwd.display().to_string(),
        "prompt_on_stdin": null,
        "prompt_bytes": request.prompt.len(),
        "prompt_tokens_estimate": estimate_tokens(&request.prompt),
        "prompt_parts": parts,
        "persona": step.prompt.persona,
        "model": request.model,
        "model_source": step.model_source.as_str(),
        "model_resolution": step.model_resolution,
        "default_model": step.default_model,
        "resume": request.resume,
        "timeout_s": step.timeout.map(|d| d.as_secs_f64()),
        "output_schema": request.output_schema.as_ref().map(|p| p.display().to_string()),
        "skipped": skip,
        "workspace": step.workspace.as_str(),
        "worktree": null,
        "tools": step.tools,
        "rotation": step.rotation.as_ref().map(|r| json!({
            "max_context_tokens": r.max_context_tokens,
            "handoff": r.handoff.as_str(),
        })),
        "permission_mode": request.permission_mode.as_str(),
        "notices": step.notices,
        "error": null,
    });
    let error = |out: &mut Value, message: String| {
        out["error"] = json!({"kind": "invalid_input", "message": message});
    };
    if let Some(g) = &step.gateway {
        match gateway_report(g, &step.provider, &request, plan.home.as_deref()) {
            Ok(report) => out["gateway"] = report,
            Err(message) => error(&mut out, message),
        }
    }
    out["sandbox"] = sandbox_report(step.sandbox.as_ref());
    if step.workspace == WorkspaceMode::Worktree {
        // Where the run would check out, or why it could not.
        match locate_repository(&request.cwd).and_then(|at| Ok((head_commit(&at.toplevel)?, at))) {
            Ok((base, at)) => {
                out["worktree"] = json!({
                    "repository": at.toplevel.display().to_string(),
                    "subfolder": at.prefix.display().to_string(),
                    "base_commit": base,
                    "branch": "agentgate/<run_id>",
                });
            }
            Err(e) => error(&mut out, e.to_string()),
        }
    }
    let program = match locate_binary(step.provider.as_ref(), step.binary.as_deref()) {
        Ok(p) => {
            out["program"] = json!(p.display().to_string());
            p
        }
        Err(e) => {
            error(&mut out, e.to_string());
            // Still show the argv, with the bare executable name.
            PathBuf::from(step.provider.binary_name())
        }
    };
    let scratch = Scratch::temporary();
    // In mode `ask` the CLI runs in its long-lived mode, the prompt a turn
    // written to its stdin.
    let asks = request.permission_mode == crate::settings::PermissionMode::Ask;
    let command = match asks {
        false => step.provider.command(&request, &program, &scratch),
        true => step
            .provider
            .warm_command(&request, &program, &scratch)
            .unwrap_or_else(|| Err(CommandError::no_long_lived_mode(step.provider.name())))
            .map(|w| w.command),
    };
    match command {
        Ok(cmd) => {
            let mut argv = vec![cmd.program.display().to_string()];
            argv.extend(cmd.display_args());
            let secrets = secret_flag_values(&request.extra_args);
            out["argv"] = json!(mask_secret_flags(&argv, &secrets));
            let mut env = Map::new();
            let extra = cmd
                .request_env(&request.env)
                .map(|(k, v)| (k.clone(), v.clone()));
            let planned = cmd.env.iter().map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            });
            for (k, v) in planned.chain(extra) {
                let v = if is_secret(&k) {
                    format!("[redacted:{k}]")
                } else {
                    v
                };
                env.insert(k, Value::String(v));
            }
            out["env"] = Value::Object(env);
            out["cwd"] = json!(cmd.cwd.display().to_string());
            out["prompt_on_stdin"] = json!(cmd.stdin.is_some() || asks);
            if let Some(notices) = out["notices"].as_array_mut() {
                notices.extend(cmd.notices.iter().map(|n| json!(n)));
            }
        }
        Err(e) => error(&mut out, e.to_string()),
    }
    out
}

/// What a step's gateway would do: where the calls go and with which
/// credentials (never the key itself), its limits and recording.
fn gateway_report(
    g: &super::step::StepGateway,
    provider: &std::sync::Arc<dyn agentgate_providers::Provider>,
    request: &agentgate_providers::CliRequest,
    home: Option<&std::path::Path>,
) -> Result<Value, String> {
    use agentgate_providers::{CliEnv, UpstreamKey, UpstreamOverrides, plan_upstream};
    let overrides = UpstreamOverrides {
        upstream: g.upstream.clone(),
        key_env: g.key_env.clone(),
        key_file: g.key_file.clone(),
    };
    let name = provider.name();
    let plan = plan_upstream(
        name,
        &CliEnv::for_request(request),
        home,
        request.model.as_deref(),
        &overrides,
    )
    .map_err(|e| format!("the model gateway cannot serve {name}: {e}"))?;
    let (key_mode, key_source) = match &plan.key {
        UpstreamKey::ApiKey { from, .. } => ("api_key", from.clone()),
        UpstreamKey::Passthrough { login } => ("passthrough", login.clone()),
    };
    let l = &g.limits;
    Ok(json!({
        "api": plan.api.as_str(),
        "upstream": plan.upstream,
        "key_mode": key_mode,
        "key_source": key_source,
        "notes": plan.notes,
        "record_model_calls": g.record_model_calls,
        "limits": {
            "max_model_calls": l.max_model_calls,
            "max_input_tokens": l.max_input_tokens,
            "max_output_tokens": l.max_output_tokens,
            "max_model_time_s": l.max_model_time.map(|d| d.as_secs_f64()),
        },
    }))
}

/// A step's sandbox: its level, and what the config adds to the built-in
/// rules (`{"level": "off"}` without one).
fn sandbox_report(sandbox: Option<&super::step::StepSandbox>) -> Value {
    let Some(s) = sandbox else {
        return json!({"level": agentgate_protocol::SandboxLevel::Off.as_str()});
    };
    let paths = |list: &[PathBuf]| -> Vec<String> {
        list.iter().map(|p| p.display().to_string()).collect()
    };
    json!({
        "level": s.level.as_str(),
        "env_allow": s.env_allow,
        "hide": paths(&s.hide),
        "read_allow": paths(&s.read_allow),
        "write_allow": paths(&s.write_allow),
        "egress_allow": s.egress_allow,
        "container": s.container.as_ref().map(|c| json!({
            "engine": c.engine,
            "image": c.image,
            "name": c.name,
            "args": c.args,
        })),
    })
}
