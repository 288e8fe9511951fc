//! opencode: the model is `provider/model` (the run's, else its config's
//! `model`); the provider's entry of its config (the global config files,
//! `OPENCODE_CONFIG`, then `OPENCODE_CONFIG_CONTENT`, later ones winning)
//! gives `options.baseURL` and `options.apiKey` (`{env:VAR}` reads a
//! variable) and its SDK package (`npm`). The built-in `anthropic`
//! (`https://api.anthropic.com/v1`, `ANTHROPIC_API_KEY`, Messages) and
//! `openai` (`https://api.openai.com/v1`, `OPENAI_API_KEY`, Responses)
//! are known; a provider on `@ai-sdk/openai-compatible` speaks Chat
//! Completions. The key: the config's `apiKey`, else its login
//! (`auth.json` in its data folder), else the provider's variable.
//!
//! Pointed through `OPENCODE_CONFIG_CONTENT`:
//! `provider.<id>.options.baseURL` and `apiKey` (the stub), merged over
//! what the run already gives there (read off the real CLI, 1.18: it keeps
//! a path prefix of the base URL for all three packages). A project's
//! `opencode.json` is not read here.

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

const CONFIG_CONTENT: &str = "OPENCODE_CONFIG_CONTENT";

/// What agentgate knows of a provider opencode has built in.
struct Known {
    id: &'static str,
    api: WireApi,
    upstream: &'static str,
    key_var: &'static str,
}

const KNOWN: [Known; 2] = [
    Known {
        id: "anthropic",
        api: WireApi::AnthropicMessages,
        upstream: "https://api.anthropic.com/v1",
        key_var: "ANTHROPIC_API_KEY",
    },
    Known {
        id: "openai",
        api: WireApi::OpenaiResponses,
        upstream: "https://api.openai.com/v1",
        key_var: "OPENAI_API_KEY",
    },
];

/// opencode's config files, merged (later ones win), and the files read.
fn config(input: &PlanInput<'_>) -> Result<(Map<String, Value>, Vec<PathBuf>), RouteError> {
    let env = input.env;
    let dir = env
        .get("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| input.home.map(|h| h.join(".config")))
        .map(|d| d.join("opencode"));
    let mut files: Vec<PathBuf> = dir
        .map(|d| {
            ["config.json", "opencode.json", "opencode.jsonc"]
                .iter()
                .map(|f| d.join(f))
                .collect()
        })
        .unwrap_or_default();
    files.extend(env.get("OPENCODE_CONFIG").map(PathBuf::from));
    let mut merged = Map::new();
    let mut read = Vec::new();
    for f in files {
        if let Some(map) = keys::read_json(input.provider, &f)? {
            merge(&mut merged, map);
            read.push(f);
        }
    }
    Ok((merged, read))
}

fn merge(into: &mut Map<String, Value>, from: Map<String, Value>) {
    for (k, v) in from {
        match (into.get_mut(&k), v) {
            (Some(Value::Object(a)), Value::Object(b)) => merge(a, b),
            (_, v) => {
                into.insert(k, v);
            }
        }
    }
}

/// `OPENCODE_CONFIG_CONTENT` as the CLI's environment has it.
fn config_content(input: &PlanInput<'_>) -> Result<Map<String, Value>, RouteError> {
    match input.env.get(CONFIG_CONTENT) {
        None => Ok(Map::new()),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(map)) => Ok(map),
            _ => Err(RouteError::Settings {
                provider: input.provider.to_owned(),
                path: PathBuf::from(CONFIG_CONTENT),
                why: "not a JSON object".into(),
            }),
        },
    }
}

pub(super) fn plan(input: &PlanInput<'_>) -> Result<UpstreamPlan, RouteError> {
    let (mut merged, files) = config(input)?;
    let content = config_content(input)?;
    let content_key = |id: &str| {
        content
            .get("provider")
            .and_then(|p| p.get(id)?.get("options")?.get("apiKey")?.as_str())
            .map(str::to_owned)
    };
    merge(&mut merged, content.clone());
    let model = input.model.map(str::to_owned).or_else(|| {
        merged
            .get("model")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let Some((id, _)) = model.as_deref().and_then(|m| m.split_once('/')) else {
        return Err(RouteError::unsupported(
            input.provider,
            "no model given as provider/model (with -m or its config's `model`): the provider decides where its calls go",
        ));
    };
    let entry = merged
        .get("provider")
        .and_then(|p| p.get(id))
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let known = KNOWN.iter().find(|k| k.id == id);
    let npm = entry.get("npm").and_then(Value::as_str);
    let api = match (npm, known) {
        (Some("@ai-sdk/openai-compatible"), _) => WireApi::OpenaiChat,
        (Some("@ai-sdk/anthropic"), _) => WireApi::AnthropicMessages,
        (Some("@ai-sdk/openai"), _) => WireApi::OpenaiResponses,
        (None, Some(k)) => k.api,
        (npm, _) => {
            return Err(RouteError::unsupported(
                input.provider,
                format!(
                    "its provider {id:?}{}: only anthropic, openai and providers on @ai-sdk/openai-compatible, @ai-sdk/anthropic or @ai-sdk/openai are routed",
                    npm.map(|n| format!(" (npm {n})")).unwrap_or_default()
                ),
            ));
        }
    };
    let options = entry.get("options").and_then(Value::as_object);
    let option = |k: &str| {
        options
            .and_then(|o| o.get(k)?.as_str())
            .filter(|v| !v.is_empty())
    };
    let mut notes = Vec::new();
    let upstream = match (option("baseURL"), known) {
        (Some(url), _) => {
            notes.push(format!("upstream from provider.{id}.options.baseURL"));
            base(url)
        }
        (None, Some(k)) => k.upstream.to_owned(),
        (None, None) => {
            return Err(RouteError::unsupported(
                input.provider,
                format!("its provider {id:?} has no options.baseURL"),
            ));
        }
    };
    let env_vars: Vec<String> = entry
        .get("env")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .or_else(|| known.map(|k| vec![k.key_var.to_owned()]))
        .unwrap_or_default();
    let key = match keys::from_overrides(input)? {
        Some(key) => key,
        None => key_of(
            input,
            id,
            option("apiKey"),
            content_key(id),
            &env_vars,
            &files,
            &mut notes,
        )?,
    };
    Ok(UpstreamPlan {
        api,
        upstream,
        key,
        notes,
        pointing: Pointing::Opencode {
            provider: id.to_owned(),
        },
    })
}

/// The key of provider `id`: its config's `apiKey`, its login, its
/// variables, in opencode's order.
fn key_of(
    input: &PlanInput<'_>,
    id: &str,
    api_key: Option<&str>,
    from_content: Option<String>,
    env_vars: &[String],
    files: &[PathBuf],
    notes: &mut Vec<String>,
) -> Result<UpstreamKey, RouteError> {
    if let Some(value) = api_key {
        if let Some(var) = value
            .strip_prefix("{env:")
            .and_then(|v| v.strip_suffix('}'))
        {
            return keys::from_env(input.env, &[var]).ok_or_else(|| {
                RouteError::unsupported(
                    input.provider,
                    format!("provider.{id}.options.apiKey reads {var}, which is not set"),
                )
            });
        }
        if from_content.as_deref() == Some(value) {
            return Ok(UpstreamKey::ApiKey {
                value: value.to_owned(),
                from: CONFIG_CONTENT.into(),
            });
        }
        let list: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
        notes.push(format!(
            "the key stays in its config ({}), where the agent can read it: write `{{env:VAR}}` there instead for the gateway to hold it",
            list.join(", ")
        ));
        return Ok(UpstreamKey::Passthrough {
            login: format!("the apiKey of provider {id} in its config"),
        });
    }
    if let Some(login) = auth_json(input, id)? {
        return Ok(login);
    }
    let vars: Vec<&str> = env_vars.iter().map(String::as_str).collect();
    if let Some(key) = keys::from_env(input.env, &vars) {
        return Ok(key);
    }
    if KNOWN.iter().any(|k| k.id == id) {
        return Err(RouteError::unsupported(
            input.provider,
            format!(
                "no key for provider {id}: {} is not set and it has no login (set it, or name the key in the config)",
                vars.join(", ")
            ),
        ));
    }
    Ok(UpstreamKey::Passthrough {
        login: format!("none: provider {id} names no key"),
    })
}

/// The login `opencode auth login` saved for `id`, if any.
fn auth_json(input: &PlanInput<'_>, id: &str) -> Result<Option<UpstreamKey>, RouteError> {
    let Some(file) = input
        .env
        .get("XDG_DATA_HOME")
        .map(PathBuf::from)
        .or_else(|| input.home.map(|h| h.join(".local/share")))
        .map(|d| d.join("opencode/auth.json"))
    else {
        return Ok(None);
    };
    let Some(auth) = keys::read_json(input.provider, &file)? else {
        return Ok(None);
    };
    let Some(kind) = auth.get(id).and_then(|e| e.get("type")?.as_str()) else {
        return Ok(None);
    };
    let login = match kind {
        "oauth" => format!("opencode's OAuth login for {id}"),
        _ => format!(
            "opencode's saved {kind} login for {id} (in {})",
            file.display()
        ),
    };
    Ok(Some(UpstreamKey::Passthrough { login }))
}

/// Points opencode at the request's gateway, if it has one: its
/// `OPENCODE_CONFIG_CONTENT` (the one this command already sets, else the
/// request's, else agentgate's) with the provider's `baseURL` and `apiKey`.
pub(crate) fn point(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some((target, stub)) = target(ctx)? else {
        return Ok(());
    };
    let Pointing::Opencode { provider } = &target.plan.pointing else {
        return Err(wrong_pointing(ctx));
    };
    let current = cmd
        .env
        .iter()
        .rev()
        .find(|(k, _)| k == CONFIG_CONTENT)
        .map(|(_, v)| v.to_string_lossy().into_owned())
        .or_else(|| {
            ctx.request
                .env
                .iter()
                .rev()
                .find(|(k, _)| k == CONFIG_CONTENT)
                .map(|(_, v)| v.clone())
        })
        .or_else(|| {
            (!ctx.request.env_clear)
                .then(|| std::env::var(CONFIG_CONTENT).ok())
                .flatten()
        });
    let mut config = match current.as_deref().map(str::trim) {
        None | Some("") => Map::new(),
        Some(text) => match serde_json::from_str(text) {
            Ok(Value::Object(m)) => m,
            _ => {
                return Err(ctx.unsupported(format!(
                    "run behind the gateway: {CONFIG_CONTENT} is set to something other than a JSON object"
                )));
            }
        },
    };
    let mut options = json!({ "baseURL": target.base_url });
    if let Some(stub) = stub {
        options["apiKey"] = json!(stub);
    }
    let mut extra = Map::new();
    extra.insert(
        "provider".into(),
        json!({ provider.as_str(): { "options": options } }),
    );
    merge(&mut config, extra);
    set_var(cmd, CONFIG_CONTENT, &Value::Object(config).to_string());
    let known: Vec<&str> = KNOWN.iter().map(|k| k.key_var).collect();
    remove_key_vars(cmd, &target.plan, &known);
    Ok(())
}
