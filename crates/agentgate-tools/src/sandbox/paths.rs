//! The folders a tool needs to start, and a manifest glob reduced to the
//! folder Landlock can enforce.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

/// The system folders any program needs to start and run: its loader and
/// libraries, `/etc` (name resolution, locale, certificates), `/proc` (many
/// runtimes read `/proc/self`), the device files every program opens, and
/// the folders on `path_var` (the `PATH` the tool gets).
///
/// Interpreters installed by a version manager (pyenv's shims in
/// `~/.pyenv/shims`, nvm's `~/.nvm/versions/node/v22/bin`, `~/.local/bin`,
/// `/usr/local/bin`) start from a folder on the `PATH` but run code from the
/// install around it: a `PATH` folder named `bin` or `shims` therefore also
/// gives its parent folder (`~/.pyenv`, `.../node/v22`, `~/.local`,
/// `/usr/local`), read-only, except when that parent is `/` or `home` (a
/// `~/bin` on the `PATH` does not open the whole home folder). Missing
/// folders are kept: the sandbox skips what does not exist.
///
/// `/dev/null` is readable here; the sandbox always makes it writable too.
pub fn system_read_paths(path_var: Option<&OsStr>, home: Option<&Path>) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = [
        "/usr",
        "/bin",
        "/sbin",
        "/lib",
        "/lib32",
        "/lib64",
        "/libx32",
        "/etc",
        "/opt",
        "/proc",
        "/dev/null",
        "/dev/zero",
        "/dev/random",
        "/dev/urandom",
        "/dev/tty",
    ]
    .iter()
    .map(PathBuf::from)
    .collect();
    for folder in path_var.map(std::env::split_paths).into_iter().flatten() {
        if !folder.is_absolute() {
            // A relative PATH entry would resolve against the tool's working
            // folder, which the write paths already cover.
            continue;
        }
        let install = folder
            .file_name()
            .is_some_and(|name| name == "bin" || name == "shims")
            .then(|| folder.parent().map(Path::to_path_buf))
            .flatten()
            .filter(|parent| parent != Path::new("/") && Some(parent.as_path()) != home);
        push_new(&mut paths, folder);
        if let Some(install) = install {
            push_new(&mut paths, install);
        }
    }
    paths
}

fn push_new(paths: &mut Vec<PathBuf>, path: PathBuf) {
    if !paths.contains(&path) {
        paths.push(path);
    }
}

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

    #[test]
    fn path_folders_give_their_install_but_never_root_or_home() {
        let path = std::env::join_paths([
            "/root/.pyenv/shims",
            "/root/bin",
            "/usr/local/bin",
            "/bin",
            "relative/bin",
        ])
        .unwrap_or_default();
        let paths = system_read_paths(Some(&path), Some(Path::new("/root")));
        for expected in [
            "/root/.pyenv/shims",
            "/root/.pyenv",
            "/root/bin",
            "/usr/local",
            "/usr",
        ] {
            assert!(
                paths.contains(&PathBuf::from(expected)),
                "{expected}: {paths:?}"
            );
        }
        assert!(!paths.contains(&PathBuf::from("/root")), "{paths:?}");
        assert!(!paths.contains(&PathBuf::from("/")), "{paths:?}");
        assert!(!paths.iter().any(|p| p.is_relative()), "{paths:?}");
        assert_eq!(
            paths.iter().filter(|p| *p == Path::new("/bin")).count(),
            1,
            "no duplicates: {paths:?}"
        );
    }
}
