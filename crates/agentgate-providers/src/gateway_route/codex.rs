//! Codex: its `config.toml` (in `CODEX_HOME`, else `~/.codex`) names the
//! model provider (`model_provider`, a profile's first; the built-in
//! `openai` by default). The built-in one goes to `openai_base_url`, else
//! `https://api.openai.com/v1`, or with a ChatGPT login
//! `https://chatgpt.com/backend-api/codex`; its credential is
//! `CODEX_API_KEY`, else the login in `auth.json`, else `OPENAI_API_KEY`
//! (which `codex exec` 0.169 does not read itself: agentgate's gateway
//! uses it and gives Codex the stub in `CODEX_API_KEY`). A `[model_providers.X]` table gives `base_url`, `env_key`
//! and `wire_api` (`responses` unless `chat`).
//!
//! Pointed with `-c openai_base_url=...` for the built-in provider (Codex
//! refuses to redefine `model_providers.openai`) or `-c
//! model_providers.X.base_url=...`, and the stub in the key's variable;
//! both read off the real CLI (0.169), which keeps a path prefix of the
//! base URL. The built-in provider first tries a WebSocket (`GET
//! .../responses` with an upgrade), then falls back to `POST`.

use std::path::{Path, PathBuf};

use agentgate_protocol::WireApi;
use toml::{Table, Value};

use super::keys::{self, base};
use super::{
    PlanInput, Pointing, RouteError, UpstreamKey, UpstreamPlan, remove_key_vars, set_var, target,
    wrong_pointing,
};
use crate::argv::Context;
use crate::provider::{CliCommand, CommandError};

const OPENAI: &str = "openai";
const CODEX_API_KEY: &str = "CODEX_API_KEY";
const OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// The variable a custom provider without `env_key` is given the stub in.
const GATEWAY_KEY: &str = "CODEX_GATEWAY_KEY";
const API_UPSTREAM: &str = "https://api.openai.com/v1";
const CHATGPT_UPSTREAM: &str = "https://chatgpt.com/backend-api/codex";

pub(super) fn plan(input: &PlanInput<'_>) -> Result<UpstreamPlan, RouteError> {
    let home = input
        .env
        .get("CODEX_HOME")
        .map(PathBuf::from)
        .or_else(|| input.home.map(|h| h.join(".codex")));
    let config = match &home {
        Some(h) => read_toml(input.provider, &h.join("config.toml"))?,
        None => Table::new(),
    };
    let provider = model_provider(&config);
    if provider == OPENAI {
        builtin(input, &config, home.as_deref())
    } else {
        custom(input, &config, &provider, home.as_deref())
    }
}

/// `model_provider`, of the selected profile first; `openai` when unset.
fn model_provider(config: &Table) -> String {
    let profile = config
        .get("profile")
        .and_then(Value::as_str)
        .and_then(|p| config.get("profiles")?.get(p)?.get("model_provider"))
        .and_then(Value::as_str);
    profile
        .or_else(|| config.get("model_provider").and_then(Value::as_str))
        .unwrap_or(OPENAI)
        .to_owned()
}

fn builtin(
    input: &PlanInput<'_>,
    config: &Table,
    home: Option<&Path>,
) -> Result<UpstreamPlan, RouteError> {
    let configured = config.get("openai_base_url").and_then(Value::as_str);
    let mut notes = Vec::new();
    let mut default_upstream = API_UPSTREAM;
    // What Codex itself would use first: CODEX_API_KEY, then its login;
    // OPENAI_API_KEY last (Codex alone would run without a credential).
    let key = match keys::from_overrides(input)?
        .or_else(|| keys::from_env(input.env, &[CODEX_API_KEY]))
    {
        Some(k) => k,
        None => match auth_json_login(input, home)? {
            Some((login, true)) => {
                default_upstream = CHATGPT_UPSTREAM;
                login
            }
            Some((login, false)) => {
                notes.push(
                    "the API key stays in Codex's auth.json, where the agent can read it: give it in CODEX_API_KEY instead for the gateway to hold it".into(),
                );
                login
            }
            None => match keys::from_env(input.env, &[OPENAI_API_KEY]) {
                Some(k) => {
                    notes.push(format!(
                        "the key is {OPENAI_API_KEY}, which `codex exec` does not read itself: behind the gateway Codex gets the stub in {CODEX_API_KEY}"
                    ));
                    k
                }
                None => {
                    return Err(RouteError::unsupported(
                        input.provider,
                        format!(
                            "no credential found: {CODEX_API_KEY} and {OPENAI_API_KEY} are not set and there is no login in {} (log in, set one, or name the key in the config)",
                            home.map_or("CODEX_HOME".into(), |h| h
                                .join("auth.json")
                                .display()
                                .to_string())
                        ),
                    ));
                }
            },
        },
    };
    if configured.is_some() {
        notes.push("upstream from openai_base_url in config.toml".into());
    }
    Ok(UpstreamPlan {
        api: WireApi::OpenaiResponses,
        upstream: configured.map_or(default_upstream.to_owned(), base),
        key,
        notes,
        pointing: Pointing::Codex {
            provider: OPENAI.into(),
            key_var: CODEX_API_KEY.into(),
        },
    })
}

/// The login of `auth.json`, and whether it is a ChatGPT one; `None`
/// without the file.
fn auth_json_login(
    input: &PlanInput<'_>,
    home: Option<&Path>,
) -> Result<Option<(UpstreamKey, bool)>, RouteError> {
    let auth = match home.map(|h| h.join("auth.json")) {
        Some(f) => keys::read_json(input.provider, &f)?,
        None => None,
    };
    let Some(auth) = auth else {
        return Ok(None);
    };
    let mode = auth.get("auth_mode").and_then(|m| m.as_str());
    let has_tokens = auth.get("tokens").is_some_and(|t| !t.is_null());
    if mode.is_some_and(|m| m.starts_with("chatgpt")) || (mode.is_none() && has_tokens) {
        return Ok(Some((
            UpstreamKey::Passthrough {
                login: "ChatGPT login (Codex's auth.json)".into(),
            },
            true,
        )));
    }
    if keys::str_at(&auth, &[OPENAI_API_KEY]).is_some() {
        return Ok(Some((
            UpstreamKey::Passthrough {
                login: "Codex's API-key login (auth.json)".into(),
            },
            false,
        )));
    }
    Err(RouteError::unsupported(
        input.provider,
        format!(
            "its login ({}) is neither a ChatGPT login nor an API key",
            mode.unwrap_or("no auth_mode")
        ),
    ))
}

fn custom(
    input: &PlanInput<'_>,
    config: &Table,
    provider: &str,
    home: Option<&Path>,
) -> Result<UpstreamPlan, RouteError> {
    if !provider
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(RouteError::unsupported(
            input.provider,
            format!("its model provider id {provider:?} cannot be named in a `-c` override"),
        ));
    }
    let Some(table) = config
        .get("model_providers")
        .and_then(|p| p.get(provider))
        .and_then(Value::as_table)
    else {
        return Err(RouteError::unsupported(
            input.provider,
            format!(
                "its model provider {provider:?} is not a [model_providers.{provider}] of config.toml (Codex's other built-in providers are not routed)"
            ),
        ));
    };
    let get = |k: &str| table.get(k).and_then(Value::as_str);
    let api = match get("wire_api") {
        Some("chat") => WireApi::OpenaiChat,
        _ => WireApi::OpenaiResponses,
    };
    let env_key = get("env_key");
    let mut notes = vec![format!("model provider {provider} of config.toml")];
    let key = match (keys::from_overrides(input)?, env_key) {
        (Some(key), _) => key,
        (None, Some(var)) => keys::from_env(input.env, &[var]).ok_or_else(|| {
            RouteError::unsupported(
                input.provider,
                format!("its model provider {provider} reads its key from {var}, which is not set"),
            )
        })?,
        (None, None)
            if table.get("requires_openai_auth").and_then(Value::as_bool) == Some(true) =>
        {
            match auth_json_login(input, home)? {
                Some((login, _)) => login,
                None => {
                    return Err(RouteError::unsupported(
                        input.provider,
                        format!(
                            "its model provider {provider} needs Codex's login, and there is none"
                        ),
                    ));
                }
            }
        }
        (None, None) if get("experimental_bearer_token").is_some() => {
            notes.push(
                "the key stays in config.toml (experimental_bearer_token), where the agent can read it: give it in an env_key variable instead for the gateway to hold it".into(),
            );
            UpstreamKey::Passthrough {
                login: format!("the bearer token of model provider {provider}"),
            }
        }
        (None, None) => UpstreamKey::Passthrough {
            login: format!("none: model provider {provider} names no key"),
        },
    };
    Ok(UpstreamPlan {
        api,
        upstream: get("base_url").map_or(API_UPSTREAM.to_owned(), base),
        key,
        notes,
        pointing: Pointing::Codex {
            provider: provider.to_owned(),
            key_var: env_key.unwrap_or(GATEWAY_KEY).to_owned(),
        },
    })
}

fn read_toml(provider: &str, path: &Path) -> Result<Table, RouteError> {
    match std::fs::read_to_string(path) {
        Ok(text) => text.parse::<Table>().map_err(|e| RouteError::Settings {
            provider: provider.to_owned(),
            path: path.to_path_buf(),
            // The message quotes the line it failed on, which may hold a
            // token: only where it is.
            why: match e.span() {
                Some(span) => format!("invalid TOML at byte {}", span.start),
                None => "invalid TOML".into(),
            },
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Table::new()),
        Err(e) => Err(RouteError::Settings {
            provider: provider.to_owned(),
            path: path.to_path_buf(),
            why: e.to_string(),
        }),
    }
}

/// A TOML basic string for a `-c key=value` override: a JSON string is one
/// (the same escapes: `\"`, `\\`, `\n`, `\uXXXX` for the other controls),
/// except that TOML does not allow a raw DEL, which JSON leaves as it is.
fn toml_string(s: &str) -> String {
    serde_json::Value::from(s)
        .to_string()
        .replace('\u{7f}', "\\u007f")
}

/// Points Codex at the request's gateway, if it has one.
pub(crate) fn point(ctx: &Context<'_>, cmd: &mut CliCommand) -> Result<(), CommandError> {
    let Some((target, stub)) = target(ctx)? else {
        return Ok(());
    };
    let Pointing::Codex { provider, key_var } = &target.plan.pointing else {
        return Err(wrong_pointing(ctx));
    };
    let url = toml_string(&target.base_url);
    let mut overrides = Vec::new();
    if provider == OPENAI {
        overrides.push(format!("openai_base_url={url}"));
    } else {
        overrides.push(format!("model_providers.{provider}.base_url={url}"));
        if stub.is_some() && key_var == GATEWAY_KEY {
            overrides.push(format!(
                "model_providers.{provider}.env_key={}",
                toml_string(GATEWAY_KEY)
            ));
        }
    }
    for o in overrides {
        cmd.args.push("-c".into());
        cmd.args.push(o.into());
    }
    remove_key_vars(cmd, &target.plan, &[CODEX_API_KEY, OPENAI_API_KEY, key_var]);
    if let Some(stub) = stub {
        set_var(cmd, key_var, stub);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_toml_string_reads_back_as_the_text_it_quotes() {
        for text in [
            "http://127.0.0.1:4000/s3cr3t",
            "a \"b\" \\ c\nd\u{1}\u{7f}é",
        ] {
            let table: Table = format!("k = {}", toml_string(text)).parse().unwrap();
            assert_eq!(table["k"].as_str(), Some(text));
        }
    }
}
