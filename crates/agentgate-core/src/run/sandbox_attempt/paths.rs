//! What a sandboxed CLI may read and write (Landlock, through the tools'
//! sandbox): read the system, the CLI's install (its package up to the top
//! `node_modules`, and the interpreter of a `#!` script), the workspace and
//! the user's home but its secrets (`~/.ssh`, `~/.aws`, ... and
//! agentgate's own files, kept out as the spec's `private_paths`); write
//! only the workspace (none of it in classify mode, only the allowed paths
//! in edit mode), the CLI's state folders, its private temp folder and the
//! configured `write_allow`.

use std::path::{Component, Path, PathBuf};

use crate::plan::{EditScope, StepSandbox};

/// The user's secrets under `HOME`, hidden from every sandboxed CLI.
pub(super) const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".config/gcloud",
    ".azure",
    ".netrc",
    ".git-credentials",
    ".docker",
    ".kube",
    ".gnupg",
    ".npmrc",
    ".pypirc",
];

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
/// The DNS resolver's folders under `/run` are readable too (a CLI's
/// `/etc/resolv.conf` may link there).
pub fn system_read_paths(path_var: Option<&std::ffi::OsStr>, home: Option<&Path>) -> Vec<PathBuf> {
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
        "/sys",
        "/run/systemd/resolve",
        "/run/resolvconf",
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
            continue;
        }
        let install = folder
            .file_name()
            .is_some_and(|n| n == "bin" || n == "shims")
            .then(|| folder.parent().map(Path::to_path_buf))
            .flatten()
            .filter(|p| p != Path::new("/") && Some(p.as_path()) != home);
        push_new(&mut paths, folder);
        if let Some(install) = install {
            push_new(&mut paths, install);
        }
    }
    paths
}

/// The device files a CLI writes besides `/dev/null` (a pseudo-terminal
/// for the shells some run their commands in; the shared memory of
/// Python's multiprocessing and browsers its commands may start).
pub(super) const DEVICE_WRITE: &[&str] = &["/dev/ptmx", "/dev/pts", "/dev/tty", "/dev/shm"];

/// The CLI's install: the outermost `node_modules` folder of the program's
/// real path (an npm package reaches its siblings), else the folder it is
/// in (its parent when that is a `bin` folder); and the same of the
/// interpreter its `#!` line names (`#!/usr/bin/env node`: `node` on
/// `path_var`).
pub(super) fn install_paths(program: &Path, path_var: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    let Ok(real) = std::fs::canonicalize(program) else {
        return paths;
    };
    paths.push(install_of(&real));
    if let Some(interpreter) = shebang_interpreter(&real, path_var)
        && let Ok(real) = std::fs::canonicalize(&interpreter)
    {
        push_new(&mut paths, install_of(&real));
    }
    paths
}

/// The install folder of the real path of a program.
fn install_of(real: &Path) -> PathBuf {
    let mut outermost: Option<PathBuf> = None;
    let mut prefix = PathBuf::new();
    for c in real.components() {
        prefix.push(c);
        if c == Component::Normal("node_modules".as_ref()) && outermost.is_none() {
            outermost = Some(prefix.clone());
        }
    }
    if let Some(top) = outermost {
        return top;
    }
    let folder = real.parent().unwrap_or(Path::new("/"));
    match folder.file_name() {
        Some(n) if n == "bin" => folder
            .parent()
            .filter(|p| *p != Path::new("/") && *p != Path::new("/usr"))
            .unwrap_or(folder)
            .to_path_buf(),
        _ => folder.to_path_buf(),
    }
}

/// The interpreter a script's `#!` line names, found on `path_var` when it
/// is `env NAME`.
fn shebang_interpreter(script: &Path, path_var: Option<&std::ffi::OsStr>) -> Option<PathBuf> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(script).ok()?.read(&mut head).ok()?;
    let line = head[..n].strip_prefix(b"#!")?;
    let line = String::from_utf8_lossy(line);
    let line = line.lines().next()?;
    let mut words = line.split_whitespace();
    let first = PathBuf::from(words.next()?);
    if first.file_name().is_some_and(|n| n == "env") {
        let name = words.find(|w| !w.starts_with('-'))?;
        agentgate_supervise::find_program(std::ffi::OsStr::new(name), path_var?)
    } else {
        Some(first)
    }
}

/// The workspace's write rules under `scope`: the whole of it, none of it,
/// or only the allowed paths (relative to it, or absolute); a path that
/// does not exist yet gives its nearest existing folder inside the
/// workspace (Landlock rules name files and folders that exist).
pub(super) fn workspace_writes(cwd: &Path, scope: &EditScope) -> Vec<PathBuf> {
    match scope {
        EditScope::Any => vec![cwd.to_path_buf()],
        EditScope::Nothing => Vec::new(),
        EditScope::Only(paths) => paths
            .iter()
            .map(|p| {
                let p = if p.is_absolute() {
                    p.clone()
                } else {
                    cwd.join(p)
                };
                nearest_existing(&p, cwd)
            })
            .collect(),
    }
}

fn nearest_existing(path: &Path, within: &Path) -> PathBuf {
    let mut p = path.to_path_buf();
    while !p.exists() && p.starts_with(within) && p != within {
        match p.parent() {
            Some(parent) => p = parent.to_path_buf(),
            None => break,
        }
    }
    p
}

/// The hidden paths: the user's secrets under `home`, the configured
/// `hide`, and agentgate's own (`own`).
pub(super) fn hidden_paths(
    home: Option<&Path>,
    sandbox: &StepSandbox,
    own: &[PathBuf],
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = home
        .map(|h| HIDDEN_IN_HOME.iter().map(|rel| h.join(rel)).collect())
        .unwrap_or_default();
    for p in sandbox.hide.iter().chain(own) {
        push_new(&mut paths, p.clone());
    }
    paths
}

/// agentgate's own files: its data folder (`AGENTGATE_HOME`, else the XDG
/// default), the store's runs folder, the config file `AGENTGATE_CONFIG`
/// names, the user's config folder, and `more` (a server's token file,
/// the queue's key file).
pub(super) fn own_paths(runs_dir: Option<&Path>, more: &[PathBuf]) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    if let Some(dir) = agentgate_store::default_db_path()
        .ok()
        .as_deref()
        .and_then(Path::parent)
    {
        paths.push(dir.to_path_buf());
    }
    if let Some(runs) = runs_dir {
        push_new(&mut paths, runs.to_path_buf());
    }
    if let Some(config) = std::env::var_os(crate::config::CONFIG_ENV).filter(|v| !v.is_empty()) {
        push_new(&mut paths, PathBuf::from(config));
    }
    let user_config = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")));
    if let Some(dir) = user_config {
        push_new(&mut paths, dir.join("agentgate"));
    }
    for p in more {
        push_new(&mut paths, p.clone());
    }
    paths
        .into_iter()
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect()
}

/// Whether `path` lies inside one of `folders` (compared resolved, as
/// Landlock sees them).
pub(super) fn inside_any(path: &Path, folders: &[PathBuf]) -> bool {
    let resolved = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    let path = resolved(path);
    folders.iter().any(|f| path.starts_with(resolved(f)))
}

pub(super) fn push_new(paths: &mut Vec<PathBuf>, path: PathBuf) {
    if !paths.contains(&path) {
        paths.push(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sandbox() -> StepSandbox {
        StepSandbox {
            hide: vec![PathBuf::from("/srv/secrets")],
            ..StepSandbox::at(agentgate_protocol::SandboxLevel::Workspace)
        }
    }

    #[test]
    fn the_users_secrets_the_configured_and_agentgates_own_are_hidden() {
        let hidden = hidden_paths(
            Some(Path::new("/home/u")),
            &sandbox(),
            &[PathBuf::from("/home/u/.local/share/agentgate")],
        );
        for p in [
            "/home/u/.ssh",
            "/home/u/.aws",
            "/home/u/.config/gcloud",
            "/home/u/.netrc",
            "/home/u/.git-credentials",
            "/home/u/.kube",
            "/home/u/.docker",
            "/home/u/.gnupg",
            "/srv/secrets",
            "/home/u/.local/share/agentgate",
        ] {
            assert!(hidden.contains(&PathBuf::from(p)), "{p}: {hidden:?}");
        }
    }

    #[test]
    fn classify_mode_writes_nothing_and_edit_mode_only_its_paths() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        assert_eq!(workspace_writes(ws, &EditScope::Any), [ws]);
        assert!(workspace_writes(ws, &EditScope::Nothing).is_empty());
        let only = EditScope::Only(vec![PathBuf::from("src"), PathBuf::from("docs/new.md")]);
        assert_eq!(
            workspace_writes(ws, &only),
            [ws.join("src"), ws.to_path_buf()],
            "a path not there yet gives its nearest folder inside the workspace"
        );
    }

    #[test]
    fn an_npm_cli_gets_its_top_node_modules_and_its_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let pkg = root.join("clis/node_modules/@scope/cli/bin");
        let node_bin = root.join("node/bin");
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::create_dir_all(&node_bin).unwrap();
        std::fs::write(pkg.join("cli.js"), "#!/usr/bin/env node\nconsole.log(1)\n").unwrap();
        std::fs::write(node_bin.join("node"), "").unwrap();
        // `env` runs the first executable `node` on PATH, as the lookup does.
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(
            node_bin.join("node"),
            std::fs::Permissions::from_mode(0o755),
        )
        .unwrap();
        let dot_bin = root.join("clis/node_modules/.bin");
        std::fs::create_dir_all(&dot_bin).unwrap();
        std::os::unix::fs::symlink(pkg.join("cli.js"), dot_bin.join("cli")).unwrap();
        let path = std::env::join_paths([&node_bin]).unwrap();
        let found = install_paths(&dot_bin.join("cli"), Some(&path));
        assert_eq!(
            found,
            [root.join("clis/node_modules"), root.join("node")],
            "the package's top node_modules and the interpreter's install"
        );
        // A program outside any package: its folder (its bin's parent).
        let tool = root.join("opt/tool/bin");
        std::fs::create_dir_all(&tool).unwrap();
        std::fs::write(tool.join("t"), "\x7fELF").unwrap();
        assert_eq!(
            install_paths(&tool.join("t"), None),
            [root.join("opt/tool")]
        );
    }

    #[test]
    fn path_folders_give_their_install_but_never_home() {
        let path = std::env::join_paths(["/home/u/bin", "/home/u/.nvm/v22/bin"]).unwrap();
        let paths = system_read_paths(Some(&path), Some(Path::new("/home/u")));
        assert!(paths.contains(&PathBuf::from("/home/u/.nvm/v22")));
        assert!(!paths.contains(&PathBuf::from("/home/u")));
        assert!(paths.contains(&PathBuf::from("/etc")));
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
