//! Paths as the config file writes them: `~/` is the home folder, a
//! relative path is relative to the file's folder.

use std::path::{Path, PathBuf};

/// `~/x` is under the home folder; a relative path is relative to `base`
/// (the config file's folder).
pub(super) fn resolve_path(p: &str, base: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    // `.` parts say nothing: `working_dir: .` is the file's folder itself.
    base.join(p)
        .components()
        .filter(|c| *c != std::path::Component::CurDir)
        .collect()
}

/// `~/x` is under the home folder; a relative path with a `/` is relative
/// to the config file's folder; a bare name is looked up on `PATH`.
pub(super) fn resolve_binary(b: &str, base: &Path) -> String {
    if let Some(rest) = b.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest).display().to_string();
    }
    let p = Path::new(b);
    if p.is_relative() && b.contains('/') {
        return base.join(p).display().to_string();
    }
    b.to_owned()
}
