//! The paths a tool may use.

use std::path::{Path, PathBuf};

/// The folders a program needs to start and run: the system's, and every
/// folder on `path_var` with its parent (an install such as pyenv keeps
/// its interpreters beside its `shims` or `bin` folder).
pub fn system_read_paths(path_var: &str) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc",
        "/dev", "/sys",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    for dir in std::env::split_paths(path_var) {
        if !dir.is_absolute() {
            continue;
        }
        if let Some(parent) = dir.parent()
            && parent != Path::new("/")
        {
            paths.push(parent.to_path_buf());
        }
        paths.push(dir);
    }
    paths.sort();
    paths.dedup();
    paths
}

/// The folder a filesystem glob of a manifest covers: `${WORKSPACE}`
/// replaced, then cut before the first component holding a wildcard
/// (`*`, `?`, `[`). Landlock restricts folders, so `${WORKSPACE}/out/*.json`
/// allows all of `${WORKSPACE}/out`. A relative glob is relative to the
/// workspace.
pub fn glob_to_path(glob: &str, workspace: &Path) -> PathBuf {
    let replaced = glob.replace("${WORKSPACE}", &workspace.display().to_string());
    let mut out = PathBuf::new();
    for component in Path::new(&replaced).components() {
        let text = component.as_os_str().to_string_lossy();
        if text.contains(['*', '?', '[']) {
            break;
        }
        out.push(component);
    }
    if out.is_absolute() {
        out
    } else {
        workspace.join(out)
    }
}
