//! Claude Code: its calls go to `ANTHROPIC_BASE_URL` (else
//! `https://api.anthropic.com`; it appends `/v1/messages`), with
//! `ANTHROPIC_API_KEY` (sent as `x-api-key`) or `ANTHROPIC_AUTH_TOKEN`
//! (sent as `authorization: Bearer`), else its subscription login
//! (`.credentials.json` in `CLAUDE_CONFIG_DIR`, else `~/.claude`).
//! Pointed with `ANTHROPIC_BASE_URL` and the stub in the variable the real
//! key was in (both read off the real CLI, 2.1.x: it keeps a path prefix
//! of the base URL).

use std::path::PathBuf;

use agentgate_protocol::WireApi;

use super::keys::{self, base};
use super::{
    PlanInput, Pointing, RouteError, UpstreamKey, UpstreamPlan, remove_key_vars, set_var, target,
    wrong_pointing,
};
use crate::argv::Context;
use crate::provider::{CliCommand, CommandError};

const API_KEY: &str = "ANTHROPIC_API_KEY";
const AUTH_TOKEN: &str = "ANTHROPIC_AUTH_TOKEN";
const BASE_URL: &str = "ANTHROPIC_BASE_URL";
const DEFAULT_UPSTREAM: &str = "https://api.anthropic.com";

/// Variables that send Claude Code's calls elsewhere than the Anthropic API.
const OTHER_CLOUDS: [(&str, &str); 3] = [
    ("CLAUDE_CODE_USE_BEDROCK", "Amazon Bedrock"),
    ("CLAUDE_CODE_USE_VERTEX", "Google Vertex AI"),
    ("CLAUDE_CODE_USE_FOUNDRY", "Microsoft Foundry"),
];

pub(super) fn plan(input: &PlanInput<'_>) -> Result<UpstreamPlan, RouteError> {
    let env = input.env;
    for (var, cloud) in OTHER_CLOUDS {
        if env.get(var).is_some_and(|v| v != "0" && v != "false") {
            return Err(RouteError::unsupported(
                input.provider,
                format!(
                    "{var} is set: its calls go to {cloud}, whose API the gateway does not speak"
                ),
            ));
        }
    }
    let dir = env
        .get("CLAUDE_CONFIG_DIR")
        .map(PathBuf::from)
        .or_else(|| input.home.map(|h| h.join(".claude")));
    if let Some(dir) = &dir {
        refuse_settings_env(input, &dir.join("settings.json"))?;
    }
    let upstream = env.get(BASE_URL).map_or(DEFAULT_UPSTREAM.to_owned(), base);
    let mut notes = Vec::new();
    if env.get(BASE_URL).is_some() {
        notes.push(format!("upstream from {BASE_URL}"));
    }
    // The stub goes where the real key was: the header the CLI sends
    // follows the variable.
    let key_var = if env.get(API_KEY).is_none() && env.get(AUTH_TOKEN).is_some() {
        AUTH_TOKEN
    } else {
        API_KEY
    };
    let key = match keys::from_overrides(input)? {
        Some(key) => key,
        None => match keys::from_env(env, &[API_KEY, AUTH_TOKEN]) {
            Some(key) => key,
            None => passthrough(input, dir)?,
        },
    };
    Ok(UpstreamPlan {
        api: WireApi::AnthropicMessages,
        upstream,
        key,
        notes,
        pointing: Pointing::Claude {
            key_var: key_var.to_owned(),
        },
    })
}

/// No key in the environment: the subscription login, if there is one.
fn passthrough(input: &PlanInput<'_>, dir: Option<PathBuf>) -> Result<UpstreamKey, RouteError> {
    if input.env.get("CLAUDE_CODE_OAUTH_TOKEN").is_some() {
        return Ok(UpstreamKey::Passthrough {
            login: "Claude subscription token (CLAUDE_CODE_OAUTH_TOKEN, left in its environment)"
                .into(),
        });
    }
    let credentials = dir.map(|d| d.join(".credentials.json"));
    match &credentials {
        Some(file) if file.is_file() => Ok(UpstreamKey::Passthrough {
            login: "Claude subscription login".into(),
        }),
        _ => Err(RouteError::unsupported(
            input.provider,
            format!(
                "no credential found: neither {API_KEY} nor {AUTH_TOKEN} is set, and there is no login{} (set one, or name the key in the config)",
                credentials
                    .map(|f| format!(" in {}", f.display()))
                    .unwrap_or_default()
            ),
        )),
    }
}

/// Claude Code applies its settings' `env` over its environment, and asks
/// an `apiKeyHelper` for its key: either would undo the pointing.
fn refuse_settings_env(input: &PlanInput<'_>, path: &std::path::Path) -> Result<(), RouteError> {
    let Some(settings) = keys::read_json(input.provider, path)? else {
        return Ok(());
    };
    if settings.contains_key("apiKeyHelper") {
        return Err(RouteError::unsupported(
            input.provider,
            format!(
                "{} sets apiKeyHelper, whose key the gateway cannot stand in for (give the key in {API_KEY} instead)",
                path.display()
            ),
        ));
    }
    for var in [BASE_URL, API_KEY, AUTH_TOKEN] {
        if keys::str_at(&settings, &["env", var]).is_some() {
            return Err(RouteError::unsupported(
                input.provider,
                format!(
                    "{} sets {var} in its `env`, which Claude Code applies over the gateway's settings (set it in agentgate's environment instead)",
                    path.display()
                ),
            ));
        }
    }
    Ok(())
}

/// Points Claude Code at the request's gateway, if it has one.
pub(crate) fn point(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some((target, stub)) = target(ctx)? else {
        return Ok(());
    };
    let Pointing::Claude { key_var } = &target.plan.pointing else {
        return Err(wrong_pointing(ctx));
    };
    set_var(cmd, BASE_URL, &target.base_url);
    remove_key_vars(cmd, &target.plan, &[API_KEY, AUTH_TOKEN]);
    if let Some(stub) = stub {
        set_var(cmd, key_var, stub);
    }
    Ok(())
}
