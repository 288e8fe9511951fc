//! `chains:`: ordered agents tried in turn, moving on after failures that
//! `retry_on` admits.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::agent::{AgentSpec, check_name};
use super::origin::Origins;
use super::retry::{self, RawItem};
use super::yaml::{Fault, line};
use crate::retry_on::RetryOn;

pub use crate::settings::{Handoff, OnDirty};

/// A named chain.
#[derive(Debug, Clone, Default)]
pub struct ChainSpec {
    /// Its name, as given to `--chain`.
    pub name: String,
    /// The agents, in the order they are tried.
    pub agents: Vec<String>,
    /// The failures that let it move on (an agent's own `retry_on` wins
    /// for that agent's failures); none = every recoverable error.
    pub retry_on: Option<RetryOn>,
    /// What to do when a failed attempt changed the workspace.
    pub on_dirty: OnDirty,
    /// What the next agent learns of a failed attempt.
    pub handoff: Handoff,
    /// Where each value was written.
    pub origins: Origins,
}

impl ChainSpec {
    /// The `retry_on` that applies to a failure of `agent`: the agent's
    /// own, else the chain's (`None`: every recoverable error).
    pub fn retry_on_for<'a>(&'a self, agent: &'a AgentSpec) -> Option<&'a RetryOn> {
        agent.settings.retry_on.as_ref().or(self.retry_on.as_ref())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChain {
    agents: Spanned<Vec<Spanned<String>>>,
    #[serde(default)]
    retry_on: Option<Spanned<Vec<Spanned<RawItem>>>>,
    #[serde(default)]
    on_dirty: Option<Spanned<OnDirty>>,
    #[serde(default)]
    handoff: Option<Spanned<Handoff>>,
}

/// Check the chain `name` against the agents of the file.
pub(super) fn convert(
    name: &Spanned<String>,
    raw: &RawChain,
    agents: &[AgentSpec],
) -> Result<ChainSpec, Fault> {
    check_name("chain", name)?;
    let label = |m: String| format!("chain `{}`: {m}", name.value);
    let mut c = ChainSpec {
        name: name.value.clone(),
        origins: Origins::at(line(name)),
        ..ChainSpec::default()
    };
    if raw.agents.value.is_empty() {
        return Err(Fault::at(
            &raw.agents,
            label("`agents` is empty: list the agents to try, in order".into()),
        ));
    }
    for a in &raw.agents.value {
        let Some(found) = agents.iter().find(|x| x.name == a.value.trim()) else {
            let known: Vec<&str> = agents.iter().map(|x| x.name.as_str()).collect();
            return Err(Fault::at(
                a,
                label(format!(
                    "unknown agent `{}` (agents of this file: {})",
                    a.value,
                    if known.is_empty() {
                        "none".to_owned()
                    } else {
                        known.join(", ")
                    }
                )),
            ));
        };
        c.agents.push(found.name.clone());
    }
    c.origins.set("agents", line(&raw.agents));
    if let Some(r) = &raw.retry_on {
        c.retry_on =
            Some(retry::convert(r, false).map_err(|f| Fault::new(f.at, label(f.message)))?);
        c.origins.set("retry_on", line(r));
    }
    if let Some(d) = &raw.on_dirty {
        c.on_dirty = d.value;
        c.origins.set("on_dirty", line(d));
    }
    if let Some(h) = &raw.handoff {
        c.handoff = h.value;
        c.origins.set("handoff", line(h));
    }
    Ok(c)
}
