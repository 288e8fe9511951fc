//! Skills for a run and for `agentgate skills` / `GET /v1/skills`: each
//! provider's folders (its [`SkillFacts`](agentgate_providers::skills::SkillFacts))
//! scanned with the environment its CLI would have (agentgate's own, under
//! the config's `env:` for the provider), so `CLAUDE_CONFIG_DIR` or
//! `CODEX_HOME` set either way moves the user folder as it moves the CLI's.
//! Offline: reads folders, starts no CLI. A leaf: it imports the config
//! and the providers only (the skill a run asks for, `SkillCall`, is in
//! `run_flags.rs`).

use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::config::{Config, UnknownProvider};
use agentgate_providers::Provider;
use agentgate_providers::skills::{Skill, SkillScan, scan};

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct SkillQuery {
    /// These providers only; empty = every provider of the config.
    pub providers: Vec<String>,
    /// The working directory the project folders are found from.
    pub cwd: PathBuf,
    /// Also the shadowed skills and the CLIs' own (`system`) ones.
    pub all: bool,
    /// Ask the CLIs that have a cheap lister of their own (Codex) instead
    /// of scanning their folders.
    pub native: bool,
}

/// Why the skills could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum SkillListError {
    /// A provider neither built in nor described in the config.
    #[error(transparent)]
    UnknownProvider(#[from] UnknownProvider),
    /// A CLI's own lister failed (`--native`).
    #[error("{provider}: its own skill listing failed: {reason}")]
    Native {
        /// The provider.
        provider: String,
        /// Why.
        reason: String,
    },
}

/// One skill a provider can see.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SkillRow {
    /// The provider whose CLI sees it.
    pub provider: String,
    /// How a run invokes it with this provider: `native` (the CLI's own
    /// way) or `prompt` (a prompt naming it).
    pub invocation: &'static str,
    /// `scan` (agentgate read the folders) or `cli` (the CLI listed it,
    /// `--native`).
    pub source: &'static str,
    /// The skill.
    #[serde(flatten)]
    pub skill: Skill,
}

/// The skills of the providers `query` names (every one of the config's
/// when none), in each provider's order of precedence.
pub fn list_skills(cfg: &Config, query: &SkillQuery) -> Result<Vec<SkillRow>, SkillListError> {
    let providers = if query.providers.is_empty() {
        cfg.all_providers()
    } else {
        query
            .providers
            .iter()
            .map(|n| cfg.resolve_provider(n))
            .collect::<Result<_, _>>()?
    };
    let mut rows = Vec::new();
    for p in providers {
        let env = cfg
            .provider_defaults(p.name())
            .map(|d| d.settings.env.clone())
            .unwrap_or_default();
        let binary = cfg
            .provider_defaults(p.name())
            .and_then(|d| d.settings.binary.clone());
        let native = match query.native {
            true => {
                crate::skills_native::native_skills(p.as_ref(), binary.as_deref(), &env, &query.cwd)
                    .map_err(|reason| SkillListError::Native {
                        provider: p.name().to_owned(),
                        reason,
                    })?
            }
            false => None,
        };
        let source = if native.is_some() { "cli" } else { "scan" };
        let found = native.unwrap_or_else(|| scan_for(p.as_ref(), &env, &query.cwd).skills);
        rows.extend(
            found
                .into_iter()
                .filter(|s| {
                    query.all
                        || (!s.shadowed
                            && s.scope != agentgate_providers::skills::SkillScope::System)
                })
                .map(|skill| SkillRow {
                    source,
                    provider: p.name().to_owned(),
                    invocation: p.skills().invoke.as_str(),
                    skill,
                }),
        );
    }
    Ok(rows)
}

/// The skills `provider`'s CLI would see working in `cwd` with `env`
/// added to agentgate's own environment.
pub(crate) fn scan_for(provider: &dyn Provider, env: &[(String, String)], cwd: &Path) -> SkillScan {
    let var = |k: &str| {
        env.iter()
            .rev()
            .find(|(name, _)| name == k)
            .map(|(_, v)| v.clone())
            .or_else(|| std::env::var(k).ok())
    };
    scan(provider.skills(), cwd, &var)
}
