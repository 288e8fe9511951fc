//! The folders a tool needs to start, and a manifest glob reduced to the
//! folder Landlock can enforce.

use std::path::{Component, Path, PathBuf};

/// [`agentgate_core::system_read_paths`]: the tools' sandbox and the
/// agent CLIs' read the system the same way.
pub use agentgate_core::system_read_paths;

/// The folder a manifest's filesystem glob names: `${WORKSPACE}` replaced by
/// `workspace`, then the longest leading run of components without a glob
/// character (`*`, `?`, `[`, `{`). Landlock enforces whole files and
/// folders, not patterns: `${WORKSPACE}/out/*.json` allows all of
/// `${WORKSPACE}/out`, and `${WORKSPACE}/**` the whole workspace. A glob
/// with no literal component left (`*.json`) names the workspace; a relative
/// one is taken relative to the workspace.
pub fn glob_to_path(glob: &str, workspace: &Path) -> PathBuf {
    let expanded = glob.replace("${WORKSPACE}", &workspace.to_string_lossy());
    let mut literal = PathBuf::new();
    for component in Path::new(&expanded).components() {
        let is_glob = matches!(component, Component::Normal(part)
            if part.to_string_lossy().contains(['*', '?', '[', '{']));
        if is_glob {
            break;
        }
        literal.push(component);
    }
    if literal.as_os_str().is_empty() {
        return workspace.to_path_buf();
    }
    if literal.is_relative() {
        return workspace.join(literal);
    }
    literal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_glob_is_reduced_to_its_literal_folder() {
        let ws = Path::new("/runs/r1/ws");
        assert_eq!(
            glob_to_path("${WORKSPACE}/out/*.json", ws),
            PathBuf::from("/runs/r1/ws/out")
        );
        assert_eq!(glob_to_path("${WORKSPACE}/**", ws), ws);
        assert_eq!(glob_to_path("${WORKSPACE}", ws), ws);
        assert_eq!(
            glob_to_path("/data/in/file.csv", ws),
            PathBuf::from("/data/in/file.csv")
        );
        assert_eq!(glob_to_path("/data/{a,b}/x", ws), PathBuf::from("/data"));
        assert_eq!(glob_to_path("*.json", ws), ws);
        assert_eq!(glob_to_path("cache/[ab]*", ws), ws.join("cache"));
    }
}
