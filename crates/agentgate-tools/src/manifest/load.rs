//! Reading a manifest: strict YAML (an unknown key is an error with its
//! line), then the checks of `check.rs`, whose faults are located in the
//! same text.

use std::path::{Path, PathBuf};

use agentgate_core::{MIB, read_text_file};

use super::check::check;
use super::fault::Fault;
use super::types::Manifest;
use crate::yaml::{Step, YamlFault, from_str, locate, path_text};

/// The most a manifest file may hold.
pub const MANIFEST_MAX_BYTES: u64 = MIB;

/// A manifest that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ManifestError {
    /// The file cannot be read.
    #[error("cannot read the manifest {}: {reason}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The file is not a valid manifest.
    #[error("invalid manifest {}{}: {message}", path.display(), fault_location(*line, *column))]
    Invalid {
        /// The file (the config file for a tool it defines).
        path: PathBuf,
        /// The line at fault (1-based), when known.
        line: Option<u64>,
        /// The column at fault (1-based), when known.
        column: Option<u64>,
        /// What is wrong.
        message: String,
    },
}

fn fault_location(line: Option<u64>, column: Option<u64>) -> String {
    YamlFault {
        line,
        column,
        message: String::new(),
    }
    .location()
}

impl ManifestError {
    /// The line at fault, when known.
    pub fn line(&self) -> Option<u64> {
        match self {
            ManifestError::Invalid { line, .. } => *line,
            ManifestError::Read { .. } => None,
        }
    }
}

impl Manifest {
    /// Read and check the manifest file `path`; `folder_name` is the name
    /// of the registry folder it is in, which its `name` must equal.
    pub fn load(path: &Path, folder_name: Option<&str>) -> Result<Manifest, ManifestError> {
        let text = read_text_file(path, MANIFEST_MAX_BYTES, "a tool manifest").map_err(|e| {
            ManifestError::Read {
                path: path.to_path_buf(),
                reason: e.to_string(),
            }
        })?;
        Manifest::parse(&text, path, folder_name)
    }

    /// Parse and check a manifest's text; `path` names it in errors.
    pub fn parse(
        text: &str,
        path: &Path,
        folder_name: Option<&str>,
    ) -> Result<Manifest, ManifestError> {
        let manifest: Manifest = from_str(text).map_err(|f| ManifestError::Invalid {
            path: path.to_path_buf(),
            line: f.line,
            column: f.column,
            message: f.message,
        })?;
        let checked = match folder_name {
            Some(folder) if manifest.name != folder => Err(Fault::new(
                vec![Step::Key("name".into())],
                format!(
                    "name `{}` is not the name of its folder `{folder}` (a registry tool lives in tools/registry/<name>/)",
                    manifest.name
                ),
            )),
            _ => check(&manifest),
        };
        checked.map_err(|f| located(text, path, &[], f))?;
        Ok(manifest)
    }
}

/// `fault` as an error located in `text`, its path under `prefix` (the
/// place of the manifest in the file).
pub(crate) fn located(text: &str, path: &Path, prefix: &[Step], fault: Fault) -> ManifestError {
    let full: Vec<Step> = prefix.iter().cloned().chain(fault.path).collect();
    let (line, column) = locate(text, &full);
    let field = path_text(&full[prefix.len()..]);
    ManifestError::Invalid {
        path: path.to_path_buf(),
        line,
        column,
        message: if field.is_empty() {
            fault.message
        } else {
            format!("{field}: {}", fault.message)
        },
    }
}
