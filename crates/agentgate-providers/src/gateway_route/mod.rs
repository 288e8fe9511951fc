//! Where a CLI's model calls go, and how a run points them at its gateway.
//!
//! Two halves, one file per built-in CLI (`claude.rs`, `codex.rs`,
//! `gemini.rs`, `qwen.rs`, `opencode.rs`):
//!
//! - **The plan** ([`plan_upstream`]): from the environment the CLI would
//!   run with ([`CliEnv`]) and its files under the home folder, the base URL
//!   its model calls would go to without a gateway, the wire API they
//!   speak, and the credential they carry: an API key the gateway can hold
//!   instead of the CLI ([`UpstreamKey::ApiKey`]), or a login of the CLI's
//!   own that passes through ([`UpstreamKey::Passthrough`]). A login the
//!   gateway cannot stand in front of is a [`RouteError::Unsupported`]
//!   saying why.
//! - **The pointing** ([`GatewayTarget`] in `CliRequest::gateway`): each
//!   CLI's command line replaces the base URL with the gateway's, gives the
//!   CLI the stub key in place of the real one, and lists every variable
//!   that may hold the real key (or an upstream base URL) in
//!   `CliCommand::env_remove`, so neither agentgate's environment nor the
//!   request's `env` hands it to the CLI. With a passthrough login only the
//!   base URL changes.
//!
//! Key values are secrets: no `Debug`, `Display` or error here shows one.
//!
//! The CLIs' folders import this module (their tables hold its `point_*`
//! parts); it imports none of them.

mod claude;
mod codex;
mod env;
mod gemini;
mod keys;
mod opencode;
mod qwen;

// The tests are `tests/suite/gateway_route/` (they build each CLI's
// command, and the CLIs' folders import this one).

use std::ffi::OsString;
use std::fmt;
use std::path::{Path, PathBuf};

use agentgate_protocol::WireApi;

use crate::argv::Context;
use crate::provider::{CliCommand, CommandError};

pub use env::CliEnv;

pub(crate) use claude::point as point_claude;
pub(crate) use codex::point as point_codex;
pub(crate) use gemini::point as point_gemini;
pub(crate) use opencode::point as point_opencode;
pub(crate) use qwen::point as point_qwen;
pub(crate) use qwen::settings_edit as qwen_settings_edit;

/// Where a CLI's model calls would go without a gateway, and with what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpstreamPlan {
    /// The wire API the calls speak.
    pub api: WireApi,
    /// The base URL the CLI would use (`https://api.anthropic.com`): what
    /// it appends its request paths to, so the gateway's base URL replaces
    /// it one for one.
    pub upstream: String,
    /// The credential the calls carry.
    pub key: UpstreamKey,
    /// What the user should know (a setting that was read, a key left in a
    /// file the agent can read).
    pub notes: Vec<String>,
    /// What the CLI's command line needs to point it at the gateway.
    pub pointing: Pointing,
}

/// The credential of a CLI's model calls.
#[derive(Clone, PartialEq, Eq)]
pub enum UpstreamKey {
    /// An API key the gateway holds; the CLI gets a stub.
    ApiKey {
        /// The key: a secret, never in `Debug`, `Display` or errors.
        value: String,
        /// Where it was read (`ANTHROPIC_API_KEY`, `file /run/key`).
        from: String,
    },
    /// The CLI's own login passes through unchanged.
    Passthrough {
        /// What login passes through (`Claude subscription login`).
        login: String,
    },
}

impl fmt::Debug for UpstreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ApiKey { from, .. } => f
                .debug_struct("ApiKey")
                .field("value", &"<redacted>")
                .field("from", from)
                .finish(),
            Self::Passthrough { login } => {
                f.debug_struct("Passthrough").field("login", login).finish()
            }
        }
    }
}

impl fmt::Display for UpstreamKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ApiKey { from, .. } => write!(f, "API key from {from}"),
            Self::Passthrough { login } => write!(f, "passthrough ({login})"),
        }
    }
}

/// What a CLI's command line needs, besides the gateway's base URL and
/// stub, to point the CLI at the gateway.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pointing {
    /// Claude Code: `ANTHROPIC_BASE_URL`, and the stub in `key_var`
    /// (`ANTHROPIC_API_KEY`, sent as `x-api-key`, or
    /// `ANTHROPIC_AUTH_TOKEN`, sent as `authorization: Bearer`: as the
    /// real key was given).
    Claude {
        /// The variable the stub goes in.
        key_var: String,
    },
    /// Codex: the model provider `provider`; the built-in `openai` one is
    /// pointed with `-c openai_base_url=...` (it cannot be redefined), any
    /// other with `-c model_providers.<id>.base_url=...`; the stub goes in
    /// `key_var` (the provider's `env_key`, or `CODEX_API_KEY`).
    Codex {
        /// The model provider's id.
        provider: String,
        /// The variable the stub goes in.
        key_var: String,
    },
    /// Gemini CLI: `GOOGLE_GEMINI_BASE_URL` and `GEMINI_API_KEY`.
    Gemini,
    /// Qwen Code: `OPENAI_BASE_URL` and the stub in `key_var`; when the
    /// base URL came from a `modelProviders` entry of its settings (which
    /// outranks the variables), that entry, pointed at the gateway, in a
    /// copy of its system settings.
    Qwen {
        /// The variable the stub goes in (`OPENAI_API_KEY`, or the
        /// entry's `envKey`).
        key_var: String,
        /// The `modelProviders.openai` entry of the model, if one was used.
        provider_entry: Option<serde_json::Value>,
    },
    /// opencode: `provider.<provider>.options.baseURL` (and `apiKey`, the
    /// stub) in `OPENCODE_CONFIG_CONTENT`.
    Opencode {
        /// The provider id of the model (`anthropic` in
        /// `anthropic/claude-sonnet-4-5`).
        provider: String,
    },
}

/// Where the config file says a provider's calls go, and with which key:
/// each field replaces what the CLI's own settings say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UpstreamOverrides {
    /// The upstream base URL.
    pub upstream: Option<String>,
    /// The variable of agentgate's environment holding the key.
    pub key_env: Option<String>,
    /// The file holding the key (its text, trimmed).
    pub key_file: Option<PathBuf>,
}

/// The gateway a run points its CLI at.
#[derive(Clone, PartialEq, Eq)]
pub struct GatewayTarget {
    /// The gateway's base URL (`http://127.0.0.1:PORT/<secret>`): it
    /// replaces the upstream's base URL in the CLI's settings.
    pub base_url: String,
    /// The key the CLI is given instead of the real one (needed when the
    /// plan's key is an API key; unused with a passthrough login).
    pub stub_key: Option<String>,
    /// The plan the gateway was started from.
    pub plan: UpstreamPlan,
}

impl fmt::Debug for GatewayTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The base URL holds the run's secret; the stub is a key.
        f.debug_struct("GatewayTarget")
            .field("base_url", &"<redacted>")
            .field("stub_key", &self.stub_key.as_ref().map(|_| "<redacted>"))
            .field("plan", &self.plan)
            .finish()
    }
}

/// Why a CLI's upstream could not be planned. No variant holds a key.
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// The gateway cannot stand between this CLI (or this login of it) and
    /// its model.
    #[error("{provider} behind the gateway: not supported: {why}")]
    Unsupported {
        /// The provider.
        provider: String,
        /// Why, and what to do instead.
        why: String,
    },
    /// A settings file of the CLI could not be read or parsed.
    #[error("{provider}: failed to read {}: {why}", path.display())]
    Settings {
        /// The provider.
        provider: String,
        /// The file.
        path: PathBuf,
        /// What is wrong (never the file's text).
        why: String,
    },
    /// The key file the config names could not be read.
    #[error("failed to read the key file {}: {source}", path.display())]
    KeyFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The key variable or file the config names is empty or unset.
    #[error("the gateway's key for {provider}: {what} is not set or empty")]
    KeyMissing {
        /// The provider.
        provider: String,
        /// The variable or file.
        what: String,
    },
}

impl RouteError {
    fn unsupported(provider: &str, why: impl Into<String>) -> RouteError {
        RouteError::Unsupported {
            provider: provider.to_owned(),
            why: why.into(),
        }
    }
}

/// What a planner of one CLI is given.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PlanInput<'a> {
    pub provider: &'a str,
    pub env: &'a CliEnv,
    /// The home folder (the given one, else the environment's `HOME`).
    pub home: Option<&'a Path>,
    pub model: Option<&'a str>,
    pub overrides: &'a UpstreamOverrides,
}

/// Where `provider`'s model calls would go without a gateway, with which
/// credential, and what its command line needs to point it at one.
/// `cli_env` is the environment the CLI would run with; `home` its home
/// folder (the environment's `HOME` when `None`); `model` the run's model;
/// `overrides` the config's per-provider settings.
pub fn plan_upstream(
    provider: &str,
    cli_env: &CliEnv,
    home: Option<&Path>,
    model: Option<&str>,
    overrides: &UpstreamOverrides,
) -> Result<UpstreamPlan, RouteError> {
    let home_var = cli_env.get("HOME").map(PathBuf::from);
    let input = PlanInput {
        provider,
        env: cli_env,
        home: home.or(home_var.as_deref()),
        model,
        overrides,
    };
    let mut plan = match provider {
        "claude" => claude::plan(&input)?,
        "codex" => codex::plan(&input)?,
        "gemini" => gemini::plan(&input)?,
        "qwen" => qwen::plan(&input)?,
        "opencode" => opencode::plan(&input)?,
        _ => {
            let why = no_route(provider).unwrap_or(CUSTOM_WHY);
            return Err(RouteError::unsupported(provider, why));
        }
    };
    if let Some(upstream) = &overrides.upstream {
        plan.notes.push(format!(
            "upstream {upstream} from the config, instead of {}",
            plan.upstream
        ));
        plan.upstream = upstream.trim_end_matches('/').to_owned();
    }
    Ok(plan)
}

/// Why `provider` can never run behind a gateway (agentgate has no route
/// for its model calls), or `None` when it has one (whose login may still
/// be refused when a run plans its upstream with [`plan_upstream`]).
pub fn no_route(provider: &str) -> Option<&'static str> {
    match provider {
        "claude" | "codex" | "gemini" | "qwen" | "opencode" => None,
        "cursor" => Some(CURSOR_WHY),
        "agy" => Some(AGY_WHY),
        _ => Some(CUSTOM_WHY),
    }
}

/// The gateway's parts a command needs, when the request has one; an
/// error when the plan holds an API key and the target no stub.
pub(crate) fn target<'a>(
    ctx: &Context<'a>,
) -> Result<Option<(&'a GatewayTarget, Option<&'a str>)>, CommandError> {
    let Some(target) = ctx.request.gateway.as_ref() else {
        return Ok(None);
    };
    let stub = match (&target.plan.key, target.stub_key.as_deref()) {
        (UpstreamKey::ApiKey { .. }, None) => {
            return Err(ctx.unsupported(
                "run behind the gateway with an API key but no stub key for the CLI",
            ));
        }
        (UpstreamKey::ApiKey { .. }, Some(stub)) => Some(stub),
        (UpstreamKey::Passthrough { .. }, _) => None,
    };
    Ok(Some((target, stub)))
}

/// The plan's pointing was made for another CLI.
pub(crate) fn wrong_pointing(ctx: &Context<'_>) -> CommandError {
    ctx.unsupported("run behind a gateway planned for another CLI")
}

/// Sets `name` for the CLI and keeps any other value of it (agentgate's
/// own, the request's) from reaching it.
pub(crate) fn set_var(cmd: &mut CliCommand, name: &str, value: &str) {
    remove_var(cmd, name);
    cmd.env.retain(|(k, _)| k != name);
    cmd.env.push((OsString::from(name), OsString::from(value)));
}

/// Keeps `name` out of the CLI's environment (unless the command sets it).
pub(crate) fn remove_var(cmd: &mut CliCommand, name: &str) {
    if !cmd.env_remove.iter().any(|k| k == name) {
        cmd.env_remove.push(OsString::from(name));
    }
}

/// Removes the variables that may hold the real key: the CLI's own key
/// names, and the variable the plan read it from.
pub(crate) fn remove_key_vars(cmd: &mut CliCommand, plan: &UpstreamPlan, names: &[&str]) {
    for name in names {
        remove_var(cmd, name);
    }
    if let UpstreamKey::ApiKey { from, .. } = &plan.key
        && let Some(var) = keys::var_of_source(from)
    {
        remove_var(cmd, var);
    }
}

/// Why cursor-agent cannot run behind a gateway.
pub(crate) const CURSOR_WHY: &str = "cursor-agent has no setting for its model API's base URL (its calls go to Cursor's own servers)";
/// Why Antigravity cannot run behind a gateway.
pub(crate) const AGY_WHY: &str = "Antigravity has no setting for its model API's base URL";
/// Why a CLI the config describes cannot run behind a gateway.
pub(crate) const CUSTOM_WHY: &str = "a CLI described in the config file: agentgate does not know where its model calls go or how to redirect them";

/// A request with a gateway is refused, with `why`.
pub(crate) fn refuse(ctx: &Context<'_>, why: &str) -> Result<(), CommandError> {
    if ctx.request.gateway.is_some() {
        return Err(ctx.unsupported(format!("run behind the gateway: not supported: {why}")));
    }
    Ok(())
}

/// cursor-agent's table part: a gateway is refused.
pub(crate) fn refuse_cursor(ctx: &Context<'_>, _: &mut CliCommand) -> Result<(), CommandError> {
    refuse(ctx, CURSOR_WHY)
}

/// Antigravity's table part: a gateway is refused.
pub(crate) fn refuse_agy(ctx: &Context<'_>, _: &mut CliCommand) -> Result<(), CommandError> {
    refuse(ctx, AGY_WHY)
}
