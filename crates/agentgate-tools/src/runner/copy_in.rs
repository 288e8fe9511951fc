//! `copy_in`: files and folders copied into the workspace before the tool
//! starts, each under its own name, and where they may come from.
//!
//! A tool is given only what it could be asked to read anyway: a path,
//! once resolved (symbolic links followed, `..` gone), must lie in the
//! request's base folder (a workflow's folder, where its relative paths
//! point; the working folder of `agentgate tool`) or in one of the tool's
//! own read paths outside its workspace, and never in agentgate's own
//! files (`private.rs`). Inside a copied folder, a symbolic link is
//! followed only to a place that passes the same test. Everything is
//! checked before the run is recorded: a refused path starts nothing.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::request::{ToolRunError, ToolRunRequest};
use crate::manifest::WORKSPACE_VAR;
use crate::sandbox::glob_to_path;

/// One path to copy: where it is (resolved) and its name in the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct CopyIn {
    from: PathBuf,
    name: OsString,
}

/// The places a request's `copy_in` may come from, resolved.
struct Scope {
    roots: Vec<PathBuf>,
    private: Vec<PathBuf>,
}

impl Scope {
    fn of(req: &ToolRunRequest, private: &[PathBuf]) -> Scope {
        let mut roots: Vec<PathBuf> = req.copy_in_base.iter().cloned().collect();
        // The tool's read paths that are not its workspace's: it could read
        // those itself.
        roots.extend(
            req.target
                .manifest
                .permissions
                .filesystem
                .read
                .iter()
                .filter(|glob| !glob.starts_with(WORKSPACE_VAR))
                .map(|glob| glob_to_path(glob, Path::new("/"))),
        );
        Scope {
            roots: roots.iter().filter_map(|r| resolved(r)).collect(),
            private: private.iter().filter_map(|p| resolved(p)).collect(),
        }
    }

    /// Why `resolved` (the resolution of `given`) may not be copied, if it
    /// may not.
    fn refusal(&self, given: &Path, resolved: &Path) -> Option<String> {
        let shown = if given == resolved {
            format!("{}", given.display())
        } else {
            format!("{} (which is {})", given.display(), resolved.display())
        };
        if let Some(private) = self.private.iter().find(|p| resolved.starts_with(p)) {
            return Some(format!(
                "{shown} is inside agentgate's own {}, which no tool is given",
                private.display()
            ));
        }
        if self.roots.iter().any(|r| resolved.starts_with(r)) {
            return None;
        }
        let roots: Vec<String> = self.roots.iter().map(|r| r.display().to_string()).collect();
        Some(format!(
            "{shown} is outside what the tool may be given: {} (a path must stay in the \
             request's folder or in the tool's own read paths)",
            if roots.is_empty() {
                "nothing".to_owned()
            } else {
                roots.join(", ")
            }
        ))
    }
}

/// Resolves and checks every `copy_in` path of `req`; `private` are
/// agentgate's own files.
pub(super) fn plan(req: &ToolRunRequest, private: &[PathBuf]) -> Result<Vec<CopyIn>, ToolRunError> {
    if req.copy_in.is_empty() {
        return Ok(Vec::new());
    }
    let scope = Scope::of(req, private);
    let mut planned = Vec::new();
    for given in &req.copy_in {
        let refused = |reason: String| ToolRunError::CopyInRefused {
            path: given.clone(),
            reason,
        };
        let joined = match &req.copy_in_base {
            Some(base) if given.is_relative() => base.join(given),
            _ => given.clone(),
        };
        let from = std::fs::canonicalize(&joined).map_err(|source| ToolRunError::CopyIn {
            path: given.clone(),
            source,
        })?;
        if let Some(reason) = scope.refusal(given, &from) {
            return Err(refused(reason));
        }
        check_links(&from, &scope).map_err(refused)?;
        let name = joined
            .file_name()
            .or_else(|| from.file_name())
            .map(OsString::from)
            .ok_or_else(|| refused("it has no file name".to_owned()))?;
        planned.push(CopyIn { from, name });
    }
    Ok(planned)
}

/// Every symbolic link inside the folder `dir` leads where `scope` allows.
fn check_links(dir: &Path, scope: &Scope) -> Result<(), String> {
    if !dir.is_dir() {
        return Ok(());
    }
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_symlink() {
            // A dangling link fails the copy later, with its own error.
            if let Some(target) = resolved(&path)
                && let Some(reason) = scope.refusal(&path, &target)
            {
                return Err(format!("the link {reason}"));
            }
        } else if kind.is_dir() {
            check_links(&path, scope)?;
        }
    }
    Ok(())
}

/// Copies the planned paths into `workspace` (folders recursively;
/// symbolic links copied as the files they point to).
pub(super) fn copy(planned: &[CopyIn], workspace: &Path) -> Result<(), ToolRunError> {
    for item in planned {
        copy_tree(&item.from, &workspace.join(&item.name)).map_err(|source| {
            ToolRunError::CopyIn {
                path: item.from.clone(),
                source,
            }
        })?;
    }
    Ok(())
}

fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    if std::fs::metadata(from)?.is_dir() {
        std::fs::create_dir_all(to)?;
        for entry in std::fs::read_dir(from)? {
            let entry = entry?;
            copy_tree(&entry.path(), &to.join(entry.file_name()))?;
        }
        Ok(())
    } else {
        std::fs::copy(from, to).map(|_| ())
    }
}

fn resolved(path: &Path) -> Option<PathBuf> {
    std::fs::canonicalize(path).ok()
}
