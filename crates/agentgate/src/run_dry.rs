//! `agentgate run --dry-run`: plan every step into a throwaway scratch
//! folder and print it as JSON; nothing runs, nothing is stored.

use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_core::config::Config;
use agentgate_core::prompt::{TaskInput, estimate_tokens};
use agentgate_core::provider::locate_binary;
use agentgate_core::run::{Step, exhausted_quota};
use agentgate_store::{RunStore, Store};
use serde_json::{Map, Value, json};

use crate::output::print_json;
use crate::run_cmd::{Args, is_secret};
use crate::run_plan::{Planned, StepInfo, plan};

/// Print the plan; exit 0 when every step could be planned, else 2.
pub fn print(args: &Args, cfg: &Config, task: TaskInput) -> anyhow::Result<ExitCode> {
    let out = match plan(args, cfg, task) {
        Ok(planned) => describe(args, &planned),
        Err(e) => json!({
            "dry_run": true,
            "provider": args.provider.as_deref().or(args.agent.as_deref()),
            "chain": args.chain,
            "program": null,
            "argv": null,
            "steps": [],
            "error": {"kind": "invalid_input", "message": format!("{e:#}")},
        }),
    };
    print_json(&out, args.pretty())?;
    Ok(ExitCode::from(if out["error"].is_null() { 0 } else { 2 }))
}

/// The whole plan: the first step's fields at the top (a one-provider run
/// reads as before), every step under `steps`, the chain's policies.
fn describe(args: &Args, planned: &Planned) -> Value {
    let store = existing_store(args);
    let now = planned.opts.now.unwrap_or_else(jiff::Timestamp::now);
    let steps: Vec<Value> = planned
        .opts
        .steps
        .iter()
        .zip(&planned.steps)
        .map(|(step, info)| describe_step(args, step, info, store.as_ref(), now))
        .collect();
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
    out.insert("chain".into(), json!(planned.opts.chain));
    out.insert("on_dirty".into(), json!(planned.opts.on_dirty.as_str()));
    out.insert("handoff".into(), json!(planned.opts.handoff.as_str()));
    out.insert("session".into(), json!(planned.opts.session));
    out.insert("warnings".into(), json!(planned.warnings));
    out.insert("steps".into(), Value::Array(steps));
    out.insert("error".into(), error);
    Value::Object(out)
}

fn describe_step(
    args: &Args,
    step: &Step,
    info: &StepInfo,
    store: Option<&Store>,
    now: jiff::Timestamp,
) -> Value {
    let provider = step.provider.name();
    let stored = match (&args.session, store) {
        (Some(name), Some(store)) => store
            .get_session(name, provider)
            .ok()
            .flatten()
            .map(|s| s.native_session_id),
        _ => None,
    };
    let request = step.request_for(stored);
    let parts = if request.resume.is_some() {
        &info.prompt.resumed_parts
    } else {
        &info.prompt.parts
    };
    let skip = store
        .filter(|_| !args.ignore_quota)
        .and_then(|s| exhausted_quota(s, provider, now))
        .map(|q| json!({"reason": "quota exhausted", "reset_at": q.reset_at.map(|t| t.to_string()), "source": q.source}));
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
        "persona": info.prompt.persona,
        "model": request.model,
        "model_source": info.model_source,
        "model_resolution": step.model_resolution,
        "default_model": step.default_model,
        "resume": request.resume,
        "timeout_s": step.timeout.map(|d| d.as_secs_f64()),
        "output_schema": request.output_schema.as_ref().map(|p| p.display().to_string()),
        "skipped": skip,
        "error": null,
    });
    let error = |out: &mut Value, message: String| {
        out["error"] = json!({"kind": "invalid_input", "message": message});
    };
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
    let scratch = match tempfile::Builder::new()
        .prefix("agentgate-dry-run-")
        .tempdir()
    {
        Ok(d) => d,
        Err(e) => {
            error(&mut out, format!("failed to create a scratch folder: {e}"));
            return out;
        }
    };
    match step.provider.plan(&request, &program, scratch.path()) {
        Ok(plan) => {
            let mut argv = vec![plan.program.display().to_string()];
            argv.extend(plan.display_args());
            out["argv"] = json!(argv);
            let mut env = Map::new();
            let extra = request.env.iter().map(|(k, v)| (k.clone(), v.clone()));
            let planned = plan.env.iter().map(|(k, v)| {
                (
                    k.to_string_lossy().into_owned(),
                    v.to_string_lossy().into_owned(),
                )
            });
            for (k, v) in planned.chain(extra) {
                let v = if is_secret(&k) {
                    "<redacted>".into()
                } else {
                    v
                };
                env.insert(k, Value::String(v));
            }
            out["env"] = Value::Object(env);
            out["cwd"] = json!(plan.cwd.display().to_string());
            out["prompt_on_stdin"] = json!(plan.stdin.is_some());
        }
        Err(e) => error(&mut out, e.to_string()),
    }
    out
}

/// The store, only if it already exists (a dry run creates nothing).
fn existing_store(args: &Args) -> Option<Store> {
    if args.no_store {
        return None;
    }
    let path = agentgate_store::default_db_path().ok()?;
    if !path.is_file() {
        return None;
    }
    Store::open(&path).ok()
}
