//! A tool as the registry resolved it ([`ResolvedTool`]) and where it is
//! defined ([`ToolSource`]): a leaf that the registry (which makes them)
//! and the policy (which checks them) both import, so neither imports the
//! other's module for it. The registry module re-exports both, the path
//! its users name them by.

use std::fmt;
use std::path::PathBuf;

use crate::manifest::Manifest;

/// Where a tool is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSource {
    /// A registry's `tool.yaml`.
    Registry(PathBuf),
    /// An entry of `tools.define` in the config file.
    Config {
        /// The config file.
        path: PathBuf,
        /// The line of the tool's name.
        line: u64,
    },
}

impl fmt::Display for ToolSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToolSource::Registry(p) => write!(f, "{}", p.display()),
            ToolSource::Config { path, line } => {
                write!(f, "{}:{line} (tools.define)", path.display())
            }
        }
    }
}

/// A tool ready to run: its manifest, folder and entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedTool {
    /// The checked manifest.
    pub manifest: Manifest,
    /// The tool's folder (`tools/<name>/`, or `dir:` of a config tool).
    pub tool_dir: PathBuf,
    /// The program to run: the manifest's `entry` in `tool_dir`, absolute.
    pub entry: PathBuf,
    /// Where it is defined.
    pub source: ToolSource,
}
