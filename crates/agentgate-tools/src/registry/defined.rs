//! Tools the agentgate config defines under `tools.define`: each entry is
//! a manifest without `name:` (the key is the name) and with `dir:`, the
//! tool's folder (relative to the config file's folder; default: that
//! folder), which its `entry` is relative to.
//!
//! agentgate-core checked the section's shape and names; the entries are
//! read here, strictly, from the same file, so that their errors carry the
//! config file's lines. A strict-parse error stops serde at the first bad
//! entry, so it marks every defined tool broken with that error; the checks
//! after parsing are per tool.

use std::path::{Path, PathBuf};

use agentgate_core::{CONFIG_MAX_BYTES, read_text_file};
use serde::Deserialize;

use super::{BrokenTool, ListedTool, RegistryError, ResolvedTool, ToolSource};
use crate::manifest::{
    EnvSpec, ExitCodes, Fault, Health, InputSpec, Manifest, ManifestError, Permissions, Resources,
    Timeouts, check, located,
};
use crate::yaml::{Entries, Step, from_str};

#[derive(Debug, Deserialize)]
struct ConfigFile {
    #[serde(default)]
    tools: Option<ToolsSection>,
}

#[derive(Debug, Deserialize)]
struct ToolsSection {
    #[serde(default)]
    define: Entries<DefinedTool>,
}

/// A manifest as `tools.define` writes it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct DefinedTool {
    name: Option<String>,
    dir: Option<String>,
    version: String,
    entry: String,
    #[serde(default = "protocol_v1")]
    protocol_version: u32,
    description: Option<String>,
    #[serde(default)]
    inputs: Vec<InputSpec>,
    #[serde(default)]
    permissions: Permissions,
    #[serde(default)]
    resources: Resources,
    #[serde(default)]
    env: EnvSpec,
    #[serde(default)]
    exit_codes: ExitCodes,
    #[serde(default = "crate::manifest::result_required")]
    result_required: bool,
    #[serde(default)]
    health: Health,
    #[serde(default)]
    timeouts: Timeouts,
}

fn protocol_v1() -> u32 {
    1
}

/// The tools `names` (with their lines) that the config file `path`
/// defines.
pub(super) fn read(path: &Path, names: &[(String, u64)]) -> Result<Vec<ListedTool>, RegistryError> {
    let text = read_text_file(path, CONFIG_MAX_BYTES, "a config file").map_err(|e| {
        RegistryError::Read {
            path: path.to_path_buf(),
            reason: e.to_string(),
        }
    })?;
    let source = |line: u64| ToolSource::Config {
        path: path.to_path_buf(),
        line,
    };
    let parsed: ConfigFile = match from_str(&text) {
        Ok(p) => p,
        Err(f) => {
            let error = ManifestError::Invalid {
                path: path.to_path_buf(),
                line: f.line,
                column: f.column,
                message: format!("tools.define: {}", f.message),
            };
            return Ok(names
                .iter()
                .map(|(name, line)| ListedTool {
                    name: name.clone(),
                    source: source(*line),
                    state: Err(BrokenTool::Manifest(error.clone())),
                })
                .collect());
        }
    };
    let base = path.parent().unwrap_or(Path::new("/"));
    let entries = parsed.tools.map(|t| t.define.0).unwrap_or_default();
    Ok(entries
        .into_iter()
        .map(|(key, d)| {
            let line = key.referenced.line();
            let prefix = [
                Step::Key("tools".into()),
                Step::Key("define".into()),
                Step::Key(key.value.clone()),
            ];
            let state = resolve(&key.value, d, base, source(line))
                .map_err(|f| BrokenTool::Manifest(located(&text, path, &prefix, f)));
            ListedTool {
                name: key.value,
                source: source(line),
                state,
            }
        })
        .collect())
}

fn resolve(
    name: &str,
    d: DefinedTool,
    base: &Path,
    source: ToolSource,
) -> Result<ResolvedTool, Fault> {
    if let Some(given) = &d.name
        && given != name
    {
        return Err(Fault::new(
            vec![Step::Key("name".into())],
            format!(
                "`{given}` is not the tool's key `{name}` (leave `name:` out: the key names the tool)"
            ),
        ));
    }
    let tool_dir = match &d.dir {
        Some(dir) if dir.trim().is_empty() => {
            return Err(Fault::new(
                vec![Step::Key("dir".into())],
                "the folder is empty",
            ));
        }
        Some(dir) => {
            let p = PathBuf::from(dir);
            if p.is_absolute() { p } else { base.join(p) }
        }
        None => base.to_path_buf(),
    };
    let manifest = Manifest {
        name: name.to_owned(),
        version: d.version,
        entry: d.entry,
        protocol_version: d.protocol_version,
        description: d.description,
        inputs: d.inputs,
        permissions: d.permissions,
        resources: d.resources,
        env: d.env,
        exit_codes: d.exit_codes,
        result_required: d.result_required,
        health: d.health,
        timeouts: d.timeouts,
    };
    check(&manifest)?;
    Ok(ResolvedTool {
        entry: tool_dir.join(&manifest.entry),
        manifest,
        tool_dir,
        source,
    })
}
