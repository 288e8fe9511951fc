//! Where the CLIs keep their files (`HOME`, `CLAUDE_CONFIG_DIR`,
//! `CODEX_HOME`), from the environment a CLI runs with: what
//! the session-file readers read and a provider's thread history
//! is given. A leaf: it imports nothing of the crate.

use std::path::PathBuf;

/// Where a CLI keeps its files, from the environment it runs with.
#[derive(Debug, Clone, Default)]
pub struct CliHomes {
    /// `HOME`.
    pub home: Option<PathBuf>,
    /// `CLAUDE_CONFIG_DIR`.
    pub claude_config_dir: Option<PathBuf>,
    /// `CODEX_HOME`.
    pub codex_home: Option<PathBuf>,
}

impl CliHomes {
    /// From a variable lookup (`std::env::var_os`, or a run's environment).
    pub fn from_lookup(get: impl Fn(&str) -> Option<std::ffi::OsString>) -> CliHomes {
        let path = |k: &str| get(k).filter(|v| !v.is_empty()).map(PathBuf::from);
        CliHomes {
            home: path("HOME"),
            claude_config_dir: path("CLAUDE_CONFIG_DIR"),
            codex_home: path("CODEX_HOME"),
        }
    }

    /// Claude Code's folder.
    pub fn claude(&self) -> Option<PathBuf> {
        self.claude_config_dir
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".claude")))
    }

    /// Codex's folder.
    pub fn codex(&self) -> Option<PathBuf> {
        self.codex_home
            .clone()
            .or_else(|| self.home.as_ref().map(|h| h.join(".codex")))
    }

    /// Gemini CLI's folder.
    pub fn gemini(&self) -> Option<PathBuf> {
        self.home.as_ref().map(|h| h.join(".gemini"))
    }
}
