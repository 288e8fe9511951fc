//! The config file: versioned, strict YAML.
//!
//! ```yaml
//! version: 1
//! providers:
//!   mycli:
//!     command: [mycli, --print, [--model, "{model}"], "{prompt}"]
//!     output: jsonl
//!     final: {type: result}
//!     text: /result
//!     session_id: /session_id
//! ```
//!
//! An unknown key is an error that names the key and its line, so that a
//! typo never silently changes what runs. [`Discovery`] says which file is
//! read; `providers:` describes CLIs agentgate has no adapter for
//! ([`CustomProviderSpec`], run by [`crate::provider::CustomProvider`]) and
//! gives providers their defaults ([`ProviderDefaults`]); `agents:`
//! ([`AgentSpec`]) and `chains:` ([`ChainSpec`]) name what runs. Two
//! formats users migrate from are read too, told apart by their content
//! ([`ConfigFormat`]). `docs/config.md` is the reference,
//! `docs/custom-providers.md` the guide to described CLIs.

mod agent;
mod chain;
mod cli_agents;
mod custom;
mod defaults;
mod discover;
mod file;
pub mod json;
mod model;
mod origin;
mod provider;
mod providers_yaml;
mod retry;
pub mod template;
mod yaml;

use std::path::{Path, PathBuf};

pub use agent::{AgentMode, AgentSpec};
pub use chain::{ChainSpec, Handoff, OnDirty};
pub use cli_agents::DEFAULT_CHAIN;
pub use defaults::ProviderDefaults;
pub use discover::{CONFIG_ENV, Discovery, PROJECT_FILES};
pub use model::{ModelChoice, ModelSource};
pub use origin::Origins;
pub use provider::{
    CustomProviderSpec, ErrorSpec, MessageSpec, OutputFormat, OutputSpec, PermissionArgs,
    PromptInput, ResumeSpec, SpecError, ToolResultSpec, ToolUseSpec, UsageSpec,
};
pub use retry::{LEGACY_NAMES, RetryOn, RetryPattern, kind_named, retry_admits};

use crate::provider::{CustomProvider, ProviderKind};

/// The config file version this agentgate reads.
pub const CONFIG_VERSION: u32 = 1;

/// Where the config came from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum ConfigSource {
    /// `--config FILE`.
    Flag(PathBuf),
    /// The `AGENTGATE_CONFIG` variable.
    Env(PathBuf),
    /// `agentgate.yaml` or `.agentgate/config.yaml` in the working directory
    /// or an ancestor.
    Project(PathBuf),
    /// The user's config folder.
    User(PathBuf),
    /// No file: built-in defaults.
    #[default]
    Default,
}

impl ConfigSource {
    /// The file, if there is one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            ConfigSource::Flag(p)
            | ConfigSource::Env(p)
            | ConfigSource::Project(p)
            | ConfigSource::User(p) => Some(p),
            ConfigSource::Default => None,
        }
    }

    /// How it was found: `flag`, `env`, `project`, `user` or `default`.
    pub fn kind(&self) -> &'static str {
        match self {
            ConfigSource::Flag(_) => "flag",
            ConfigSource::Env(_) => "env",
            ConfigSource::Project(_) => "project",
            ConfigSource::User(_) => "user",
            ConfigSource::Default => "default",
        }
    }
}

/// A config file that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// `--config` or `AGENTGATE_CONFIG` names no file.
    #[error("the config file {} given by {given_by} {detail} (fix the path, or unset {given_by})", path.display())]
    Missing {
        /// The path given.
        path: PathBuf,
        /// `--config` or `AGENTGATE_CONFIG`.
        given_by: String,
        /// `does not exist`, `is not a file`.
        detail: String,
    },
    /// The file could not be read.
    #[error("failed to read the config file {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a valid config.
    #[error("invalid config file {}{}: {message}", path.display(), location(*line, *column))]
    Invalid {
        /// The file.
        path: PathBuf,
        /// The line at fault (1-based), when known.
        line: Option<u64>,
        /// The column at fault (1-based), when known.
        column: Option<u64>,
        /// What is wrong.
        message: String,
    },
    /// The working directory, where the search starts, is unreadable.
    #[error("failed to read the working directory to look for agentgate.yaml: {0}")]
    Cwd(std::io::Error),
}

fn location(line: Option<u64>, column: Option<u64>) -> String {
    match (line, column) {
        (Some(l), Some(c)) => format!(", line {l} column {c}"),
        (Some(l), None) => format!(", line {l}"),
        _ => String::new(),
    }
}

/// The format of a config file, told from its content (whatever its name).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ConfigFormat {
    /// agentgate's own (`version: 1`, maps of providers, agents, chains).
    #[default]
    Native,
    /// A migrated `providers.yaml`: no `version:`, model aliases and
    /// default models per provider.
    ProvidersYaml,
    /// A migrated `cli_agents.yaml`: `version: 1` and a list of `agents:`.
    CliAgents,
}

impl ConfigFormat {
    /// `native`, `providers.yaml` or `cli_agents.yaml`.
    pub fn as_str(self) -> &'static str {
        match self {
            ConfigFormat::Native => "native",
            ConfigFormat::ProvidersYaml => "providers.yaml",
            ConfigFormat::CliAgents => "cli_agents.yaml",
        }
    }
}

/// A loaded config.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where it came from.
    pub source: ConfigSource,
    /// The custom providers, in file order.
    pub providers: Vec<CustomProviderSpec>,
    /// The file's format.
    pub format: ConfigFormat,
    /// Per-provider defaults, in file order (one per `providers:` entry).
    pub defaults: Vec<ProviderDefaults>,
    /// The agents, in file order.
    pub agents: Vec<AgentSpec>,
    /// The chains, in file order.
    pub chains: Vec<ChainSpec>,
    /// What the file asks that agentgate does not do (e.g. cli_agents
    /// command arguments that a built-in adapter replaces).
    pub warnings: Vec<String>,
}

impl Config {
    /// The config of this process: `flag` (`--config`), else discovery
    /// from the environment and the working directory.
    pub fn load(flag: Option<&Path>) -> Result<Config, ConfigError> {
        Config::discover(&Discovery::from_process(flag)?)
    }

    /// The config that `discovery` finds.
    pub fn discover(discovery: &Discovery) -> Result<Config, ConfigError> {
        Config::read(discovery.find()?)
    }

    /// Read the file of `source` (nothing for [`ConfigSource::Default`]).
    pub fn read(source: ConfigSource) -> Result<Config, ConfigError> {
        let Some(path) = source.path() else {
            return Ok(Config::default());
        };
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError::Read {
            path: path.to_path_buf(),
            source: e,
        })?;
        Config::parse(&text, source)
    }

    /// Parse a config's text (any of the [`ConfigFormat`]s); `source`
    /// names the file in errors, and relative paths are relative to its
    /// folder.
    pub fn parse(text: &str, source: ConfigSource) -> Result<Config, ConfigError> {
        let path = source
            .path()
            .map_or_else(|| PathBuf::from("<config>"), Path::to_path_buf);
        let p = file::parse(text, &path)?;
        Ok(Config {
            source,
            providers: p.providers,
            format: p.format,
            defaults: p.defaults,
            agents: p.agents,
            chains: p.chains,
            warnings: p.warnings,
        })
    }

    /// The agent `name`.
    pub fn agent(&self, name: &str) -> Option<&AgentSpec> {
        self.agents.iter().find(|a| a.name == name.trim())
    }

    /// The chain `name`.
    pub fn chain(&self, name: &str) -> Option<&ChainSpec> {
        self.chains.iter().find(|c| c.name == name.trim())
    }

    /// The defaults of `provider` (a built-in name in any case, or a
    /// described CLI's name).
    pub fn provider_defaults(&self, provider: &str) -> Option<&ProviderDefaults> {
        let provider = provider.trim();
        let canonical = provider
            .parse::<ProviderKind>()
            .map(|k| k.as_str())
            .unwrap_or(provider);
        self.defaults
            .iter()
            .find(|d| d.provider == canonical)
            .or_else(|| {
                self.defaults
                    .iter()
                    .find(|d| d.provider.eq_ignore_ascii_case(canonical))
            })
    }

    /// The description of the custom provider `name` (exact, else ignoring
    /// case).
    pub fn provider_spec(&self, name: &str) -> Option<&CustomProviderSpec> {
        let name = name.trim();
        self.providers.iter().find(|p| p.name == name).or_else(|| {
            self.providers
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
        })
    }

    /// The custom provider `name`, ready to run.
    pub fn provider(&self, name: &str) -> Option<CustomProvider> {
        self.provider_spec(name)
            .map(|s| CustomProvider::from_checked(s.clone()))
    }

    /// Every custom provider, in file order.
    pub fn custom_providers(&self) -> Vec<CustomProvider> {
        self.providers
            .iter()
            .map(|s| CustomProvider::from_checked(s.clone()))
            .collect()
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_migrate;
#[cfg(test)]
mod tests_native;
