//! Which agents a run tries, in order: the providers asked for, the agents
//! asked for, a chain, or the config's chain `default`.

use super::error::PlanError;
use crate::config::{AgentSpec, ChainSpec, Config, DEFAULT_CHAIN};
use crate::run_flags::RunFlags;

/// One member of a run: a provider, perhaps through a named agent.
#[derive(Debug)]
pub(super) struct Member<'a> {
    pub provider: String,
    pub agent: Option<&'a AgentSpec>,
}

/// The agents to try, and the chain they come from.
pub(super) fn members<'a>(
    flags: &RunFlags,
    cfg: &'a Config,
) -> Result<(Option<&'a ChainSpec>, Vec<Member<'a>>), PlanError> {
    let agent = |name: &str| -> Result<Member<'a>, PlanError> {
        let a = cfg.agent(name).ok_or_else(|| PlanError::UnknownAgent {
            name: name.to_owned(),
            known: known(cfg.agents.iter().map(|a| a.name.as_str()), cfg, "agents"),
        })?;
        Ok(Member {
            provider: a.provider.clone(),
            agent: Some(a),
        })
    };
    if !flags.providers.is_empty() {
        let members = flags
            .providers
            .iter()
            .map(|provider| Member {
                provider: provider.clone(),
                agent: None,
            })
            .collect();
        return Ok((None, members));
    }
    if !flags.agents.is_empty() {
        let members = flags
            .agents
            .iter()
            .map(|n| agent(n))
            .collect::<Result<_, _>>()?;
        return Ok((None, members));
    }
    let chain = match &flags.chain {
        Some(name) => cfg.chain(name).ok_or_else(|| PlanError::UnknownChain {
            name: name.clone(),
            known: known(cfg.chains.iter().map(|c| c.name.as_str()), cfg, "chains"),
        })?,
        None => cfg.chain(DEFAULT_CHAIN).ok_or_else(|| {
            PlanError::NoProvider(match cfg.source.path() {
                Some(p) => format!(
                    "the config file {} has no chain named `{DEFAULT_CHAIN}`",
                    p.display()
                ),
                None => "no config file was found".to_owned(),
            })
        })?,
    };
    let members = chain
        .agents
        .iter()
        .map(|n| agent(n))
        .collect::<Result<_, _>>()?;
    Ok((Some(chain), members))
}

/// Which names of `what` the config defines, for an error message.
fn known<'n>(names: impl Iterator<Item = &'n str>, cfg: &Config, what: &str) -> String {
    let names: Vec<&str> = names.collect();
    match (cfg.source.path(), names.is_empty()) {
        (None, _) => "no config file was found; see docs/config.md".to_owned(),
        (Some(p), true) => format!("the config file {} defines no {what}", p.display()),
        (Some(p), false) => format!(
            "the config file {} defines {}",
            p.display(),
            names.join(", ")
        ),
    }
}
