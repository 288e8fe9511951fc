//! A step's sandbox (`--sandbox`): its level (the flags', else the
//! agent's `sandbox:`, else the provider's `sandbox.providers.<p>.level`,
//! else the config's `sandbox.level`, else `off`), what the config adds to
//! the built-in rules (`env_allow`, the config's and the provider's; the
//! paths; `egress_allow` for `strict`; the container for `container`), and
//! the config's policy (`sandbox.require`), checked for every step so that
//! `serve` and `worker` refuse a run that asks for less before queueing
//! it. A `strict` step reaches its model only through the gateway:
//! `build.rs` turns the gateway on for it ([`needs_gateway`]).

use agentgate_protocol::SandboxLevel;

use super::error::PlanError;
use super::step::StepSandbox;
use crate::config::{AgentSpec, Config};
use crate::run_flags::RunFlags;

/// The level of a step of `provider`, and where it came from (for
/// messages).
pub(super) fn level(
    provider: &str,
    cfg: &Config,
    agent: Option<&AgentSpec>,
    flags: &RunFlags,
) -> (SandboxLevel, String) {
    if let Some(level) = flags.sandbox {
        return (level, "asked with --sandbox".to_owned());
    }
    if let Some(a) = agent
        && let Some(level) = a.sandbox
    {
        return (level, format!("agent `{}`'s `sandbox:`", a.name));
    }
    if let Some(level) = cfg.sandbox.provider(provider).and_then(|p| p.level) {
        return (
            level,
            format!("the config's `sandbox.providers.{provider}.level`"),
        );
    }
    match cfg.sandbox.level {
        Some(level) => (level, "the config's `sandbox.level`".to_owned()),
        None => (
            SandboxLevel::Off,
            "the default: no level was asked for".to_owned(),
        ),
    }
}

/// Whether a step at `sandbox` needs a model gateway (`strict`: its only
/// way out).
pub(super) fn needs_gateway(sandbox: Option<&StepSandbox>) -> bool {
    sandbox.is_some_and(|s| s.level == SandboxLevel::Strict)
}

/// The sandbox of a step of `provider` (`None`: `off`), after the
/// config's policy: a level below `sandbox.require` is refused, as are
/// `strict` for a provider the gateway cannot stand in front of (or with
/// `--no-gateway`), and `container` without `sandbox.container`.
pub(super) fn step_sandbox(
    provider: &str,
    cfg: &Config,
    agent: Option<&AgentSpec>,
    flags: &RunFlags,
) -> Result<Option<StepSandbox>, PlanError> {
    let (level, from) = level(provider, cfg, agent, flags);
    if let Some(required) = cfg.sandbox.require
        && !level.satisfies(required)
    {
        let met: Vec<&str> = SandboxLevel::ALL
            .into_iter()
            .filter(|l| l.satisfies(required))
            .map(SandboxLevel::as_str)
            .collect();
        return Err(PlanError::SandboxBelowRequired {
            provider: match agent {
                Some(a) => format!("{provider} (agent `{}`)", a.name),
                None => provider.to_owned(),
            },
            level,
            from,
            required,
            met: or_list(&met),
        });
    }
    let s = &cfg.sandbox;
    let container = match level {
        SandboxLevel::Off => return Ok(None),
        SandboxLevel::Container => Some(s.container.clone().ok_or(PlanError::SandboxNoContainer)?),
        SandboxLevel::Workspace | SandboxLevel::Strict => None,
    };
    let strict = level == SandboxLevel::Strict;
    if strict {
        if let Some(why) = agentgate_providers::no_route(provider) {
            return Err(PlanError::SandboxNeedsRoute {
                provider: provider.to_owned(),
                why,
            });
        }
        if flags.gateway == Some(false) {
            return Err(PlanError::SandboxGatewayOff);
        }
    }
    let mut env_allow = s.env_allow.clone();
    for name in s
        .provider(provider)
        .map(|p| &p.env_allow[..])
        .unwrap_or_default()
    {
        if !env_allow.contains(name) {
            env_allow.push(name.clone());
        }
    }
    Ok(Some(StepSandbox {
        level,
        env_allow,
        hide: s.hide.clone(),
        read_allow: s.read_allow.clone(),
        write_allow: s.write_allow.clone(),
        egress_allow: if strict {
            s.egress_allow.clone()
        } else {
            Vec::new()
        },
        container,
    }))
}

/// Whether every step of the run `flags` ask for meets the config's
/// sandbox rules (`sandbox.require`; `strict`'s gateway; `container`'s
/// `sandbox.container`), without planning it: nothing is read. What
/// planning would refuse for another reason (an unknown agent) is left
/// for it. `serve` checks a workflow's agent steps with it when the
/// workflow is queued (their prompts are templates until they run).
pub fn check_sandbox_policy(cfg: &Config, flags: &RunFlags) -> Result<(), PlanError> {
    let Ok((_, members)) = super::members::members(flags, cfg) else {
        return Ok(());
    };
    for m in &members {
        if let Ok(provider) = cfg.resolve_provider(&m.provider) {
            step_sandbox(provider.name(), cfg, m.agent, flags)?;
        }
    }
    Ok(())
}

/// `a`, `a or b`, `a, b or c`.
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests;
