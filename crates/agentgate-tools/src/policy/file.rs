//! The policy file, read strictly.
//!
//! ```yaml
//! version: 1
//! allow_tools: ["lint-*", fmt]
//! deny_tools: [lint-legacy]
//! refuse_wildcard_egress: true
//! egress_allow: ["*.example.com:443"]
//! caps: {cpu_seconds: 600, memory_mb: 2048, max_output_mb: 64, run_s: 3600}
//! require_limits: true
//! allow_write_outside_workspace: false
//! forbid_env: ["*_SECRET*", "*TOKEN*"]
//! ```

use std::path::{Path, PathBuf};

use agentgate_core::{MIB, read_text_file};
use serde::Deserialize;
use serde_saphyr::Spanned;

use super::{Caps, Policy};
use crate::yaml::from_str;

/// The policy file's name in the registry folder.
pub const POLICY_FILE: &str = "policy.yaml";

/// The version of the policy file this agentgate reads.
pub const POLICY_VERSION: u32 = 1;

/// A policy file that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid policy file {}{}: {message}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
pub struct PolicyError {
    /// The file.
    pub path: PathBuf,
    /// The line at fault, when known.
    pub line: Option<u64>,
    /// What is wrong.
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    version: Spanned<u32>,
    #[serde(default)]
    allow_tools: Vec<Spanned<String>>,
    #[serde(default)]
    deny_tools: Vec<Spanned<String>>,
    refuse_wildcard_egress: Option<bool>,
    egress_allow: Option<Vec<Spanned<String>>>,
    #[serde(default)]
    caps: RawCaps,
    #[serde(default)]
    require_limits: bool,
    #[serde(default)]
    allow_write_outside_workspace: bool,
    #[serde(default)]
    forbid_env: Vec<Spanned<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCaps {
    cpu_seconds: Option<Spanned<u64>>,
    memory_mb: Option<Spanned<u64>>,
    max_output_mb: Option<Spanned<u64>>,
    run_s: Option<Spanned<u64>>,
}

impl Policy {
    /// Read the policy file `path`.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let text = read_text_file(path, MIB, "a policy file").map_err(|e| PolicyError {
            path: path.to_path_buf(),
            line: None,
            message: e.to_string(),
        })?;
        Policy::parse(&text, path)
    }

    /// Parse a policy file's text; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Policy, PolicyError> {
        let fail = |line: Option<u64>, message: String| PolicyError {
            path: path.to_path_buf(),
            line,
            message,
        };
        let raw: RawPolicy = from_str(text).map_err(|f| fail(f.line, f.message))?;
        if raw.version.value != POLICY_VERSION {
            return Err(fail(
                Some(raw.version.referenced.line()),
                format!(
                    "version {} is not supported (this agentgate reads version {POLICY_VERSION})",
                    raw.version.value
                ),
            ));
        }
        let patterns = |list: &[Spanned<String>], key: &str| {
            list.iter()
                .map(|p| {
                    if p.value.trim().is_empty() {
                        Err(fail(
                            Some(p.referenced.line()),
                            format!("{key}: an empty pattern"),
                        ))
                    } else {
                        Ok(p.value.clone())
                    }
                })
                .collect::<Result<Vec<_>, _>>()
        };
        let cap = |v: &Option<Spanned<u64>>, key: &str| match v {
            Some(n) if n.value == 0 => Err(fail(
                Some(n.referenced.line()),
                format!("caps.{key}: 0 would refuse every tool; give 1 or more, or leave it out"),
            )),
            Some(n) => Ok(Some(n.value)),
            None => Ok(None),
        };
        Ok(Policy {
            source: Some(path.to_path_buf()),
            allow_tools: patterns(&raw.allow_tools, "allow_tools")?,
            deny_tools: patterns(&raw.deny_tools, "deny_tools")?,
            refuse_wildcard_egress: raw.refuse_wildcard_egress.unwrap_or(true),
            egress_allow: raw
                .egress_allow
                .as_deref()
                .map(|l| patterns(l, "egress_allow"))
                .transpose()?,
            caps: Caps {
                cpu_seconds: cap(&raw.caps.cpu_seconds, "cpu_seconds")?,
                memory_mb: cap(&raw.caps.memory_mb, "memory_mb")?,
                max_output_mb: cap(&raw.caps.max_output_mb, "max_output_mb")?,
                run_s: cap(&raw.caps.run_s, "run_s")?,
            },
            require_limits: raw.require_limits,
            allow_write_outside_workspace: raw.allow_write_outside_workspace,
            forbid_env: patterns(&raw.forbid_env, "forbid_env")?,
        })
    }
}
