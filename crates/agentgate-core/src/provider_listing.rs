//! What `agentgate providers --json` prints and `GET /v1/providers`
//! answers: every provider of the config, built in or described in the
//! file, with whether its CLI is found, how far it is verified and what it
//! supports; and the config's agents and failover chains (what a run may
//! name: the dashboard's submit form offers them). Reads no model and starts no CLI (see [`crate::health`] for
//! the `--version` probe).

use serde::Serialize;

use crate::config::Config;
use agentgate_providers::{Features, Provider, locate_binary};

/// The listing: the config it comes from and its providers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderListing {
    /// The config file the providers come from.
    pub config: ConfigInfo,
    /// The providers, built-in ones first, then the config's.
    pub providers: Vec<ProviderEntry>,
    /// The config's agents, in the file's order.
    pub agents: Vec<AgentEntry>,
    /// The config's failover chains, in the file's order.
    pub chains: Vec<ChainEntry>,
}

/// One agent of the config.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct AgentEntry {
    /// Its name (a run's `agents`).
    pub name: String,
    /// The provider it runs.
    pub provider: String,
    /// Its model, if it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// One failover chain of the config.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChainEntry {
    /// Its name (a run's `chain`).
    pub name: String,
    /// Its agents, in failover order.
    pub agents: Vec<String>,
}

/// Where the config comes from.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ConfigInfo {
    /// The file read, or null for built-in defaults.
    pub path: Option<String>,
    /// How it was found: `flag`, `env`, `project`, `user` or `default`.
    pub found_by: &'static str,
}

/// One provider.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProviderEntry {
    /// The provider's name.
    pub name: String,
    /// `builtin` or `config`.
    pub adapter_kind: &'static str,
    /// The executable looked up on PATH.
    pub binary_name: String,
    /// The variable that may name the executable.
    pub binary_env: String,
    /// Whether the executable was found.
    pub binary_found: bool,
    /// The executable's path, or null when not found.
    pub binary: Option<String>,
    /// Why it was not found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary_detail: Option<String>,
    /// How far agentgate's support of the CLI is verified.
    pub verification: &'static str,
    /// What the adapter supports.
    pub features: FeatureFlags,
}

/// What an adapter supports.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct FeatureFlags {
    /// Events arrive as the CLI works.
    pub streaming: bool,
    /// Sessions can be resumed.
    pub resume: bool,
    /// Reasoning is reported.
    pub reasoning: bool,
    /// Token usage is reported.
    pub usage: bool,
    /// Cost is reported.
    pub cost: bool,
    /// Permission modes are supported.
    pub permission_modes: bool,
}

impl From<Features> for FeatureFlags {
    fn from(f: Features) -> Self {
        FeatureFlags {
            streaming: f.streaming,
            resume: f.resume,
            reasoning: f.reasoning,
            usage: f.usage,
            cost: f.cost,
            permission_modes: f.permission_modes,
        }
    }
}

impl FeatureFlags {
    /// The names of the features supported, e.g. `streaming,resume`.
    pub fn names(&self) -> Vec<&'static str> {
        [
            (self.streaming, "streaming"),
            (self.resume, "resume"),
            (self.reasoning, "reasoning"),
            (self.usage, "usage"),
            (self.cost, "cost"),
            (self.permission_modes, "permission-modes"),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .map(|(_, name)| name)
        .collect()
    }
}

/// One provider's entry: its names, where its executable is, what it
/// supports.
pub fn entry(p: &dyn Provider) -> ProviderEntry {
    let (binary, binary_detail) = match locate_binary(p, None) {
        Ok(path) => (Some(path.display().to_string()), None),
        Err(e) => (None, Some(e.detail)),
    };
    ProviderEntry {
        name: p.name().to_owned(),
        adapter_kind: p.adapter_kind(),
        binary_name: p.binary_name().to_owned(),
        binary_env: p.binary_env(),
        binary_found: binary.is_some(),
        binary,
        binary_detail,
        verification: p.verification().as_str(),
        features: p.features().into(),
    }
}

/// Every provider of `config`, listed.
pub fn list(config: &Config) -> ProviderListing {
    ProviderListing {
        config: ConfigInfo {
            path: config.source.path().map(|p| p.display().to_string()),
            found_by: config.source.kind(),
        },
        providers: config
            .all_providers()
            .iter()
            .map(|p| entry(p.as_ref()))
            .collect(),
        agents: config
            .agents
            .iter()
            .map(|a| AgentEntry {
                name: a.name.clone(),
                provider: a.provider.clone(),
                model: a.model.clone(),
            })
            .collect(),
        chains: config
            .chains
            .iter()
            .map(|c| ChainEntry {
                name: c.name.clone(),
                agents: c.agents.clone(),
            })
            .collect(),
    }
}
