//! The registry: every tool agentgate can run, with its manifest, its
//! folder and its entry resolved, the error codes and the org policy.
//!
//! Tools come from two places: `tools/registry/<name>/tool.yaml` (the
//! seed's layout: the tool's files are in `tools/<name>/`, next to the
//! registry folder) and `tools.define` in the agentgate config. The
//! registry folder is `tools.registry` in the config, else `tools/registry`
//! in the working directory or its nearest ancestor that has one.
//! `discover.rs` finds and reads the folder; `defined.rs` reads the
//! config's tools; this file puts them together. A tool whose manifest is
//! broken is listed as broken with its error and does not hide the others;
//! a broken error codes or policy file fails the whole load (what runs
//! must not depend on a file being skipped).

mod defined;
mod discover;
mod listing;

use std::path::{Path, PathBuf};

use agentgate_core::Config;

pub use discover::{REGISTRY_DIR, TOOL_FILE, find_registry};
pub use listing::{RegistryListing, ToolRow};

use crate::error_codes::{ERROR_CODES_FILE, ErrorCodes, ErrorCodesError};
use crate::manifest::ManifestError;
use crate::policy::{POLICY_FILE, Policy, PolicyError};
pub use crate::resolved::{ResolvedTool, ToolSource};

/// Why a listed tool cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BrokenTool {
    /// Its manifest is invalid or unreadable.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// Two places define the name.
    #[error("the tool `{name}` is defined twice: in {first} and in {second}")]
    Duplicate {
        /// The name.
        name: String,
        /// The first place.
        first: ToolSource,
        /// The second place.
        second: ToolSource,
    },
}

/// One tool of the registry, usable or not.
#[derive(Debug, Clone, PartialEq)]
pub struct ListedTool {
    /// Its name (its folder's, or its key in `tools.define`).
    pub name: String,
    /// Where it is defined.
    pub source: ToolSource,
    /// The tool, or why it is broken.
    pub state: Result<ResolvedTool, BrokenTool>,
}

/// The registry cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    /// `tools.registry` names a folder that is not there.
    #[error("the tool registry {} (tools.registry in {}) is not a folder", path.display(), config.display())]
    MissingRegistry {
        /// The folder.
        path: PathBuf,
        /// The config file.
        config: PathBuf,
    },
    /// `tools.policy` names a file that is not there.
    #[error("the policy file {} (tools.policy in {}) is not a file", path.display(), config.display())]
    MissingPolicy {
        /// The file.
        path: PathBuf,
        /// The config file.
        config: PathBuf,
    },
    /// A folder of the registry cannot be read.
    #[error("cannot read the tool registry {}: {reason}", path.display())]
    Read {
        /// The folder or file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The error codes file is invalid.
    #[error(transparent)]
    ErrorCodes(#[from] ErrorCodesError),
    /// The policy file is invalid.
    #[error(transparent)]
    Policy(#[from] PolicyError),
}

/// No usable tool of that name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// No tool has the name.
    #[error("unknown tool `{name}` ({known})")]
    Unknown {
        /// The name asked for.
        name: String,
        /// The tools there are, or where none were found.
        known: String,
    },
    /// The tool is broken.
    #[error("the tool `{name}` cannot be used: {error}")]
    Broken {
        /// The name.
        name: String,
        /// Why.
        error: BrokenTool,
    },
}

/// Every tool, the error codes and the policy.
#[derive(Debug, Clone)]
pub struct Registry {
    /// The registry folder, when there is one.
    pub root: Option<PathBuf>,
    tools: Vec<ListedTool>,
    error_codes: ErrorCodes,
    policy: Policy,
}

impl Registry {
    /// The registry of `config`, looked for from `cwd` when the config
    /// names none.
    pub fn discover(config: &Config, cwd: &Path) -> Result<Registry, RegistryError> {
        let config_file = config.source.path().map(|p| absolute(cwd, p));
        let root = match (&config.tools.registry, &config_file) {
            (Some(named), config_path) => {
                let path = absolute(cwd, named);
                if !path.is_dir() {
                    return Err(RegistryError::MissingRegistry {
                        path,
                        config: config_path.clone().unwrap_or_default(),
                    });
                }
                Some(path)
            }
            (None, _) => find_registry(cwd),
        };
        let policy_file = match (&config.tools.policy, &config_file) {
            (Some(named), config_path) => {
                let path = absolute(cwd, named);
                if !path.is_file() {
                    return Err(RegistryError::MissingPolicy {
                        path,
                        config: config_path.clone().unwrap_or_default(),
                    });
                }
                Some(path)
            }
            (None, _) => root
                .as_ref()
                .map(|r| r.join(POLICY_FILE))
                .filter(|p| p.is_file()),
        };
        let defined = match (&config_file, config.tools.define.is_empty()) {
            (Some(path), false) => defined::read(path, &config.tools.define)?,
            _ => Vec::new(),
        };
        Registry::load(root.as_deref(), policy_file.as_deref(), defined)
    }

    /// The registry of the folder `root` (if any), with the policy file
    /// `policy` (else the default policy) and `defined` tools from a config.
    pub fn load(
        root: Option<&Path>,
        policy: Option<&Path>,
        defined: Vec<ListedTool>,
    ) -> Result<Registry, RegistryError> {
        let mut tools = match root {
            Some(r) => discover::read_folder(r)?,
            None => Vec::new(),
        };
        for tool in defined {
            match tools.iter_mut().find(|t| t.name == tool.name) {
                Some(first) => {
                    first.state = Err(BrokenTool::Duplicate {
                        name: tool.name.clone(),
                        first: first.source.clone(),
                        second: tool.source.clone(),
                    });
                }
                None => tools.push(tool),
            }
        }
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        let error_codes = match root.map(|r| r.join(ERROR_CODES_FILE)) {
            Some(p) if p.is_file() => ErrorCodes::load(&p)?,
            _ => ErrorCodes::default(),
        };
        let policy = match policy {
            Some(p) => Policy::load(p)?,
            None => Policy::default(),
        };
        Ok(Registry {
            root: root.map(Path::to_path_buf),
            tools,
            error_codes,
            policy,
        })
    }

    /// Every tool, by name.
    pub fn list(&self) -> &[ListedTool] {
        &self.tools
    }

    /// The usable tool `name`.
    pub fn get(&self, name: &str) -> Result<&ResolvedTool, LookupError> {
        match self.tools.iter().find(|t| t.name == name) {
            Some(ListedTool { state: Ok(t), .. }) => Ok(t),
            Some(ListedTool { state: Err(e), .. }) => Err(LookupError::Broken {
                name: name.to_owned(),
                error: e.clone(),
            }),
            None => Err(LookupError::Unknown {
                name: name.to_owned(),
                known: if self.tools.is_empty() {
                    match &self.root {
                        Some(r) => format!("the registry {} has no tools", r.display()),
                        None => format!(
                            "no tool registry was found: create {REGISTRY_DIR}/<name>/{TOOL_FILE}, or name one with tools.registry in the config"
                        ),
                    }
                } else {
                    format!(
                        "the tools are: {}",
                        self.tools
                            .iter()
                            .map(|t| t.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                },
            }),
        }
    }

    /// The error codes (the registry's over the runner's).
    pub fn error_codes(&self) -> &ErrorCodes {
        &self.error_codes
    }

    /// The policy that applies.
    pub fn policy(&self) -> &Policy {
        &self.policy
    }
}

/// `p` made absolute against `cwd`.
fn absolute(cwd: &Path, p: &Path) -> PathBuf {
    if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    }
}

#[cfg(test)]
mod tests;
