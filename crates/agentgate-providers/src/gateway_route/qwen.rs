//! Qwen Code with its OpenAI-compatible auth (`security.auth.selectedType`
//! `openai`): the model's entry of `modelProviders.openai` in its settings
//! (its `baseUrl`, `envKey` and `wireApi`) outranks `OPENAI_BASE_URL` and
//! `OPENAI_API_KEY`, which outrank the settings' `security.auth.baseUrl`
//! and `apiKey` (Qwen's own table of its resolution layers); the default
//! base is `https://api.openai.com/v1` (it appends `/chat/completions`).
//! Qwen OAuth and its other auth types are not routed.
//!
//! Pointed with `OPENAI_BASE_URL` and the stub in the key's variable, and
//! when the base came from a `modelProviders` entry, that entry with the
//! gateway's base in the run's copy of its system settings (which
//! overrides the user's). The variables were read off the real CLI
//! (0.24): it keeps a path prefix of the base URL.

use std::path::PathBuf;

use agentgate_protocol::WireApi;
use serde_json::{Map, Value, json};

use super::keys::{self, base};
use super::{
    PlanInput, Pointing, RouteError, UpstreamKey, UpstreamPlan, remove_key_vars, set_var, target,
    wrong_pointing,
};
use crate::argv::Context;
use crate::provider::{CliCommand, CommandError};
use crate::system_settings::QWEN;

const API_KEY: &str = "OPENAI_API_KEY";
const BASE_URL: &str = "OPENAI_BASE_URL";
const DEFAULT_UPSTREAM: &str = "https://api.openai.com/v1";

/// A settings file and its object.
type SettingsFile = (PathBuf, Map<String, Value>);

/// The settings Qwen reads, the one that wins first: the system settings,
/// then the user's.
fn settings(input: &PlanInput<'_>) -> Result<Vec<SettingsFile>, RouteError> {
    // The file the run's copy overlays (`qwen/mod.rs`), per platform.
    let system = input
        .env
        .get(QWEN.settings_env)
        .map(PathBuf::from)
        .unwrap_or_else(|| QWEN.default_settings());
    let user = input.home.map(|h| h.join(".qwen/settings.json"));
    let mut out = Vec::new();
    for path in std::iter::once(system).chain(user) {
        if let Some(map) = keys::read_json(input.provider, &path)? {
            out.push((path, map));
        }
    }
    Ok(out)
}

pub(super) fn plan(input: &PlanInput<'_>) -> Result<UpstreamPlan, RouteError> {
    let env = input.env;
    let files = settings(input)?;
    let first = |path: &[&str]| {
        files
            .iter()
            .find_map(|(f, s)| keys::str_at(s, path).map(|v| (f.clone(), v.to_owned())))
    };
    let auth = first(&["security", "auth", "selectedType"]).map(|(_, v)| v);
    match auth.as_deref() {
        None | Some("openai") => {}
        Some("qwen-oauth") => {
            return Err(RouteError::unsupported(
                input.provider,
                "Qwen OAuth calls Qwen's own service with a token the gateway cannot stand in for: use its OpenAI-compatible auth (`openai`) with a key",
            ));
        }
        Some(other) => {
            return Err(RouteError::unsupported(
                input.provider,
                format!(
                    "its auth type {other:?}: only the OpenAI-compatible one (`openai`) is routed"
                ),
            ));
        }
    }
    let model = input
        .model
        .map(str::to_owned)
        .or_else(|| env.get("OPENAI_MODEL").map(str::to_owned))
        .or_else(|| first(&["model", "name"]).map(|(_, v)| v));
    let entry = model.as_deref().and_then(|m| provider_entry(&files, m));
    let mut notes = Vec::new();
    let entry_str = |k: &str| entry.as_ref().and_then(|e| e.get(k)?.as_str());
    let upstream = if let Some(url) = entry_str("baseUrl") {
        notes.push("upstream from the model's modelProviders entry".into());
        base(url)
    } else if let Some(url) = env.get(BASE_URL) {
        notes.push(format!("upstream from {BASE_URL}"));
        base(url)
    } else if let Some((file, url)) = first(&["security", "auth", "baseUrl"]) {
        notes.push(format!(
            "upstream from security.auth.baseUrl of {}",
            file.display()
        ));
        base(&url)
    } else {
        DEFAULT_UPSTREAM.to_owned()
    };
    let api = match entry_str("wireApi") {
        Some("responses") => WireApi::OpenaiResponses,
        _ => WireApi::OpenaiChat,
    };
    let key_var = entry_str("envKey").unwrap_or(API_KEY).to_owned();
    let key = match keys::from_overrides(input)?.or_else(|| keys::from_env(env, &[&key_var])) {
        Some(key) => key,
        None => key_in_settings(input, &files, &key_var, &mut notes)?,
    };
    if auth.is_none() {
        notes.push(
            "no auth type is selected in its settings: Qwen needs `--auth-type openai` (or security.auth.selectedType) to use the key".into(),
        );
    }
    let has_entry_base = entry_str("baseUrl").is_some();
    Ok(UpstreamPlan {
        api,
        upstream,
        key,
        notes,
        pointing: Pointing::Qwen {
            key_var,
            provider_entry: entry.filter(|_| has_entry_base),
        },
    })
}

/// The model's entry of `modelProviders.openai`, from the settings that
/// win first.
fn provider_entry(files: &[SettingsFile], model: &str) -> Option<Value> {
    files.iter().find_map(|(_, s)| {
        s.get("modelProviders")?
            .get("openai")?
            .as_array()?
            .iter()
            .find(|e| e.get("id").and_then(Value::as_str) == Some(model))
            .cloned()
    })
}

/// A key written in a settings file (its `env` block, or
/// `security.auth.apiKey`) passes through: it stays where the agent can
/// read it.
fn key_in_settings(
    input: &PlanInput<'_>,
    files: &[SettingsFile],
    key_var: &str,
    notes: &mut Vec<String>,
) -> Result<UpstreamKey, RouteError> {
    for (file, s) in files {
        let place = if keys::str_at(s, &["env", key_var]).is_some() {
            format!("{key_var} in the `env` of {}", file.display())
        } else if keys::str_at(s, &["security", "auth", "apiKey"]).is_some() {
            format!("security.auth.apiKey of {}", file.display())
        } else {
            continue;
        };
        notes.push(format!(
            "the key stays in {place}, where the agent can read it: give it in {key_var} instead for the gateway to hold it"
        ));
        return Ok(UpstreamKey::Passthrough {
            login: format!("the key in {place}"),
        });
    }
    Err(RouteError::unsupported(
        input.provider,
        format!(
            "no key found: {key_var} is not set and its settings hold none (set it, or name the key in the config)"
        ),
    ))
}

/// The `modelProviders` the run's system settings copy gives Qwen: the
/// model's entry pointed at the gateway (and its key variable at the
/// stub's), when the plan took the base URL from one.
pub(crate) fn settings_edit(ctx: &Context<'_>) -> Option<Value> {
    let target = ctx.request.gateway.as_ref()?;
    let Pointing::Qwen {
        provider_entry: Some(entry),
        ..
    } = &target.plan.pointing
    else {
        return None;
    };
    let mut entry = entry.clone();
    entry["baseUrl"] = json!(target.base_url);
    Some(json!({ "openai": [entry] }))
}

/// Points Qwen Code at the request's gateway, if it has one (the settings
/// copy is written by `qwen`'s settings code, with [`settings_edit`]).
pub(crate) fn point(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some((target, stub)) = target(ctx)? else {
        return Ok(());
    };
    let Pointing::Qwen { key_var, .. } = &target.plan.pointing else {
        return Err(wrong_pointing(ctx));
    };
    set_var(cmd, BASE_URL, &target.base_url);
    remove_key_vars(cmd, &target.plan, &[API_KEY, key_var]);
    if let Some(stub) = stub {
        set_var(cmd, key_var, stub);
    }
    Ok(())
}
