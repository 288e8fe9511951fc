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
//! ([`CustomProviderSpec`], run by [`crate::provider::CustomProvider`]).
//! `docs/custom-providers.md` is the user's guide.

mod discover;
mod file;
pub mod json;
mod provider;
pub mod template;

use std::path::{Path, PathBuf};

pub use discover::{CONFIG_ENV, Discovery, PROJECT_FILES};
pub use provider::{
    CustomProviderSpec, ErrorSpec, MessageSpec, OutputFormat, OutputSpec, PermissionArgs,
    PromptInput, ResumeSpec, SpecError, ToolResultSpec, ToolUseSpec, UsageSpec,
};

use crate::provider::CustomProvider;

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

/// A loaded config.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// Where it came from.
    pub source: ConfigSource,
    /// The custom providers, in file order.
    pub providers: Vec<CustomProviderSpec>,
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

    /// Parse a config's text; `source` names the file in errors, and
    /// relative `binary` paths are relative to its folder.
    pub fn parse(text: &str, source: ConfigSource) -> Result<Config, ConfigError> {
        let path = source
            .path()
            .map_or_else(|| PathBuf::from("<config>"), Path::to_path_buf);
        let providers = file::parse(text, &path)?;
        Ok(Config { source, providers })
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
