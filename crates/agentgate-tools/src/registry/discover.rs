//! Finding the registry folder and reading its tools.

use std::path::{Path, PathBuf};

use super::{ListedTool, RegistryError, ResolvedTool, ToolSource};
use crate::manifest::Manifest;

/// The registry folder looked for from the working directory upwards.
pub const REGISTRY_DIR: &str = "tools/registry";

/// A tool's manifest file in its registry folder.
pub const TOOL_FILE: &str = "tool.yaml";

/// `tools/registry` in `cwd` or its nearest ancestor that has one.
pub fn find_registry(cwd: &Path) -> Option<PathBuf> {
    cwd.ancestors()
        .map(|d| d.join(REGISTRY_DIR))
        .find(|p| p.is_dir())
}

/// Every `<name>/tool.yaml` of the registry folder `root` (folders without
/// one, and hidden folders, are not tools).
pub(super) fn read_folder(root: &Path) -> Result<Vec<ListedTool>, RegistryError> {
    let read_error = |e: std::io::Error| RegistryError::Read {
        path: root.to_path_buf(),
        reason: e.to_string(),
    };
    // The tools' folders are next to the registry folder (tools/<name>/).
    let tools_dir = root.parent().unwrap_or(root);
    let mut out = Vec::new();
    for dirent in std::fs::read_dir(root).map_err(read_error)? {
        let dirent = dirent.map_err(read_error)?;
        let name = dirent.file_name().to_string_lossy().into_owned();
        let file = dirent.path().join(TOOL_FILE);
        if name.starts_with('.') || !dirent.path().is_dir() || !file.is_file() {
            continue;
        }
        let source = ToolSource::Registry(file.clone());
        let state = Manifest::load(&file, Some(&name))
            .map(|manifest| {
                let tool_dir = tools_dir.join(&name);
                ResolvedTool {
                    entry: tool_dir.join(&manifest.entry),
                    manifest,
                    tool_dir,
                    source: source.clone(),
                }
            })
            .map_err(Into::into);
        out.push(ListedTool {
            name,
            source,
            state,
        });
    }
    Ok(out)
}
