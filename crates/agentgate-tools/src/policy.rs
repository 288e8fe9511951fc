//! The org policy: which tools may run and what they may ask for, checked
//! before a tool starts (a refusal is a `policy_error`, `E_POLICY`).
//!
//! The file (`tools.policy` in the config, else `policy.yaml` in the
//! registry folder) is strict YAML; without one the default policy applies,
//! which refuses wildcard egress as the seed's runner does and allows the
//! rest. `file.rs` reads the file, `rules.rs` applies it; docs/tools.md is
//! the reference.

mod file;
mod rules;

pub use file::{POLICY_FILE, POLICY_VERSION, PolicyError};
pub use rules::{DEFAULT_HEARTBEAT_S, DEFAULT_RUN_S, EffectiveLimits, PolicyRefusal};

use std::path::PathBuf;

/// Caps on what a manifest may ask (`None`: no cap).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Caps {
    /// `resources.cpu_seconds`.
    pub cpu_seconds: Option<u64>,
    /// `resources.memory_mb`.
    pub memory_mb: Option<u64>,
    /// `resources.max_output_mb`.
    pub max_output_mb: Option<u64>,
    /// `timeouts.run_s`.
    pub run_s: Option<u64>,
}

/// An org policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The file it came from; `None` for the default policy.
    pub source: Option<PathBuf>,
    /// Tool names (globs) that may run; empty: every tool.
    pub allow_tools: Vec<String>,
    /// Tool names (globs) that may not run (wins over `allow_tools`).
    pub deny_tools: Vec<String>,
    /// Refuse a manifest whose `egress_allow` holds `*` (default true).
    pub refuse_wildcard_egress: bool,
    /// `host:port` patterns every egress entry must match; `None`: any
    /// `host:port`.
    pub egress_allow: Option<Vec<String>>,
    /// The most a manifest may ask; a manifest asking nothing gets the cap.
    pub caps: Caps,
    /// A manifest must set `resources.cpu_seconds` and
    /// `resources.memory_mb`.
    pub require_limits: bool,
    /// A write glob may lie outside `${WORKSPACE}` (default false).
    pub allow_write_outside_workspace: bool,
    /// Variable names (globs) a manifest may never require.
    pub forbid_env: Vec<String>,
}

impl Default for Policy {
    /// The policy without a file: wildcard egress refused, nothing else.
    fn default() -> Self {
        Policy {
            source: None,
            allow_tools: Vec::new(),
            deny_tools: Vec::new(),
            refuse_wildcard_egress: true,
            egress_allow: None,
            caps: Caps::default(),
            require_limits: false,
            allow_write_outside_workspace: false,
            forbid_env: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
