//! Where a config comes from, what format it has, and what can be wrong
//! with it: the types every reader of the file shares.

use std::path::{Path, PathBuf};

/// The config file version this agentgate reads.
pub const CONFIG_VERSION: u32 = 1;

/// Where the config came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "found_by", content = "path", rename_all = "snake_case")]
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
    /// The file could not be read, is larger than
    /// [`CONFIG_MAX_BYTES`](crate::read_limit::CONFIG_MAX_BYTES) or is not
    /// UTF-8.
    #[error("failed to read the config file {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why (in the message, so not a `source` that would repeat it).
        reason: crate::read_limit::ReadLimitError,
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
    /// A variable of the environment that the config reads is invalid.
    #[error("{variable} is invalid: {message}")]
    Environment {
        /// The variable.
        variable: String,
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
