//! Paths as the config file writes them: `~/` is the home folder, a
//! relative path is relative to the file's folder, however the file was
//! named (`--config cli_agents.yaml`, `AGENTGATE_CONFIG`, discovery). The
//! folder is made absolute once, when the file is read, so a value never
//! depends on where it is used (a session host or a server runs in another
//! working directory).

use std::path::{Component, Path, PathBuf};

/// The folder that anchors the relative paths of the config file `file`:
/// its parent, made absolute against the working directory (a bare
/// `cli_agents.yaml` has the empty parent, which is the working directory).
pub(super) fn config_folder(file: &Path) -> PathBuf {
    let parent = file.parent().unwrap_or(Path::new(""));
    if parent.is_absolute() {
        return parent.to_path_buf();
    }
    // `absolute` fails only without a working directory; the folder then
    // stays relative, and `resolve_path` still never gives an empty path.
    std::path::absolute(file)
        .ok()
        .and_then(|f| f.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| parent.to_path_buf())
}

/// `~/x` is under the home folder; a relative path is relative to `base`
/// (the config file's folder).
pub(super) fn resolve_path(p: &str, base: &Path) -> PathBuf {
    if let Some(rest) = p.strip_prefix("~/")
        && let Some(home) = std::env::var_os("HOME")
    {
        return PathBuf::from(home).join(rest);
    }
    // `.` parts say nothing: `working_dir: .` is the file's folder itself.
    let joined: PathBuf = base
        .join(p)
        .components()
        .filter(|c| *c != Component::CurDir)
        .collect();
    if joined.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        joined
    }
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
        return resolve_path(b, base).display().to_string();
    }
    b.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_named_without_a_folder_anchors_its_paths_in_the_working_directory() {
        let cwd = std::env::current_dir().unwrap();
        assert_eq!(config_folder(Path::new("cli_agents.yaml")), cwd);
        assert_eq!(config_folder(Path::new("sub/a.yaml")), cwd.join("sub"));
        assert_eq!(
            config_folder(Path::new("/etc/ag/a.yaml")),
            Path::new("/etc/ag")
        );
        let base = config_folder(Path::new("cli_agents.yaml"));
        assert_eq!(resolve_path(".", &base), cwd);
        assert_eq!(resolve_path("./x/./y", &base), cwd.join("x/y"));
        assert_eq!(
            resolve_binary("./bin/tool", &base),
            cwd.join("bin/tool").display().to_string()
        );
        assert_eq!(resolve_binary("tool", &base), "tool");
    }

    #[test]
    fn a_path_is_never_empty() {
        // A folder that could not be made absolute (no working directory).
        assert_eq!(resolve_path(".", Path::new("")), Path::new("."));
        assert_eq!(resolve_path("a", Path::new("")), Path::new("a"));
    }
}
