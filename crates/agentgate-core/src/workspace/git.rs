//! Everything that runs git: the command, the work tree's prefix and
//! `HEAD`, `git status` and what it lists, the paths two commits differ in,
//! and the stash.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use super::change::ChangeKind;
use super::error::WorkspaceError;
use super::walk::{Fingerprint, check_dir, fingerprint};

/// Git's view of the folder at one moment.
#[derive(Debug, Clone)]
pub(super) struct GitState {
    /// `None` on an unborn branch.
    pub(super) head: Option<String>,
    /// Every path `git status` lists, relative to the folder.
    pub(super) dirty: BTreeMap<PathBuf, GitEntry>,
}

/// One path `git status` lists, and what it held then.
#[derive(Debug, Clone)]
pub(super) struct GitEntry {
    /// The two status letters (`??`, ` M`, `A `, ...).
    pub(super) status: [u8; 2],
    pub(super) fingerprint: Fingerprint,
}

/// Moves the uncommitted changes under `dir` (untracked files included)
/// into a new git stash named `message`, and returns how `git stash list`
/// describes it, e.g. `stash@{0}: On main: agentgate: claude failed`.
pub fn stash(dir: &Path, message: &str) -> Result<String, WorkspaceError> {
    check_dir(dir)?;
    if git_prefix(dir)?.is_none() {
        return Err(WorkspaceError::NotGit {
            dir: dir.to_path_buf(),
        });
    }
    let before = stash_top(dir)?;
    // A stash is a commit: without an identity some git versions refuse.
    run_git(
        dir,
        &[
            "-c",
            "user.name=agentgate",
            "-c",
            "user.email=agentgate@localhost",
            "stash",
            "push",
            "--include-untracked",
            "-m",
            message,
            "--",
            ".",
        ],
    )?;
    if stash_top(dir)? == before {
        return Err(WorkspaceError::NothingToStash {
            dir: dir.to_path_buf(),
        });
    }
    let listed = run_git(dir, &["stash", "list", "-n", "1"])?;
    Ok(String::from_utf8_lossy(&listed).trim().to_string())
}

pub(super) fn git_command<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Command {
    let mut command = Command::new("git");
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        // Never take index.lock for a status refresh: an agent may be
        // running git in the same tree.
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        // The repository is the one holding `dir`, whatever the caller's
        // environment points at (as inside a git hook).
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env_remove("GIT_PREFIX")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its hooks are the repository's, which an agent may have written.
    agentgate_supervise::own_env::scrub_command(&mut command);
    command
}

pub(super) fn command_line<S: AsRef<OsStr>>(args: &[S]) -> String {
    let mut line = String::from("git");
    for arg in args {
        line.push(' ');
        line.push_str(&arg.as_ref().to_string_lossy());
    }
    line
}

fn git_output<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<Output, WorkspaceError> {
    git_command(dir, args)
        .output()
        .map_err(|source| WorkspaceError::GitSpawn {
            command: command_line(args),
            dir: dir.to_path_buf(),
            source,
        })
}

/// Runs git and returns its stdout, or an error holding its stderr.
pub(super) fn run_git<S: AsRef<OsStr>>(dir: &Path, args: &[S]) -> Result<Vec<u8>, WorkspaceError> {
    let output = git_output(dir, args)?;
    if output.status.success() {
        return Ok(output.stdout);
    }
    let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
    Err(WorkspaceError::Git {
        command: command_line(args),
        dir: dir.to_path_buf(),
        stderr: if stderr.is_empty() {
            output.status.to_string()
        } else {
            stderr
        },
    })
}

/// `Some(prefix of dir in its work tree)` when `dir` is inside a git work
/// tree; `None` when it is not, or when git is not installed.
pub(super) fn git_prefix(dir: &Path) -> Result<Option<PathBuf>, WorkspaceError> {
    let output = match git_command(dir, &["rev-parse", "--show-toplevel", "--show-prefix"]).output()
    {
        Ok(output) => output,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(WorkspaceError::GitSpawn {
                command: "git rev-parse --show-toplevel --show-prefix".to_string(),
                dir: dir.to_path_buf(),
                source,
            });
        }
    };
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        // A repository git refuses to use: the walk would quietly watch
        // the wrong thing, and git's message says how to allow it.
        if stderr.contains("safe.directory") {
            return Err(WorkspaceError::Git {
                command: "git rev-parse --show-toplevel --show-prefix".to_string(),
                dir: dir.to_path_buf(),
                stderr,
            });
        }
        // Not a repository, inside `.git`, or a bare repository.
        return Ok(None);
    }
    let mut lines = output.stdout.split(|&b| b == b'\n');
    let _toplevel = lines.next();
    let prefix = lines.next().unwrap_or_default();
    Ok(Some(clean(Path::new(OsStr::from_bytes(prefix)))))
}

/// The path rebuilt from its components (drops a trailing `/`).
pub(super) fn clean(path: &Path) -> PathBuf {
    path.components().collect()
}

fn git_head(dir: &Path) -> Result<Option<String>, WorkspaceError> {
    let output = git_output(dir, &["rev-parse", "-q", "--verify", "HEAD"])?;
    if !output.status.success() {
        return Ok(None);
    }
    Ok(Some(
        String::from_utf8_lossy(&output.stdout).trim().to_string(),
    ))
}

pub(super) fn git_state(dir: &Path, prefix: &Path) -> Result<GitState, WorkspaceError> {
    let head = git_head(dir)?;
    let raw = run_git(
        dir,
        &[
            "status",
            "--porcelain=v1",
            "-z",
            "--untracked-files=all",
            "--",
            ".",
        ],
    )?;
    let mut dirty = BTreeMap::new();
    for (status, path) in parse_status(&raw) {
        // Porcelain paths are relative to the top of the work tree.
        let Ok(relative) = path.strip_prefix(prefix) else {
            continue;
        };
        let relative = clean(relative);
        let fingerprint = fingerprint(&dir.join(&relative))?;
        dirty.insert(
            relative,
            GitEntry {
                status,
                fingerprint,
            },
        );
    }
    Ok(GitState { head, dirty })
}

/// Parses `git status --porcelain=v1 -z`: `XY path\0`, and for a rename
/// or copy `XY new\0old\0`. The old side of a rename is reported as a
/// deletion.
fn parse_status(raw: &[u8]) -> Vec<([u8; 2], PathBuf)> {
    let mut found = Vec::new();
    let mut fields = raw.split(|&b| b == 0).filter(|field| !field.is_empty());
    while let Some(field) = fields.next() {
        let (Some(&x), Some(&y), Some(path)) = (field.first(), field.get(1), field.get(3..)) else {
            continue;
        };
        found.push(([x, y], PathBuf::from(OsStr::from_bytes(path))));
        // Both sides are fields; only a rename's old side is gone.
        if (matches!(x, b'R' | b'C') || matches!(y, b'R' | b'C'))
            && let Some(from) = fields.next()
            && (x == b'R' || y == b'R')
        {
            found.push(([b' ', b'D'], PathBuf::from(OsStr::from_bytes(from))));
        }
    }
    found
}

/// The paths under `dir` that differ between two commits (`None` = the
/// empty tree of an unborn branch).
pub(super) fn commit_changes(
    dir: &Path,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<Vec<(PathBuf, ChangeKind)>, WorkspaceError> {
    let empty_tree = || -> Result<String, WorkspaceError> {
        let out = run_git(dir, &["hash-object", "-t", "tree", "--stdin"])?;
        Ok(String::from_utf8_lossy(&out).trim().to_string())
    };
    let from = match from {
        Some(commit) => commit.to_string(),
        None => empty_tree()?,
    };
    let to = match to {
        Some(commit) => commit.to_string(),
        None => empty_tree()?,
    };
    let raw = run_git(
        dir,
        &[
            "diff",
            "--name-status",
            "--no-renames",
            "--no-color",
            "--relative",
            "-z",
            &from,
            &to,
            "--",
            ".",
        ],
    )?;
    let mut found = Vec::new();
    let mut fields = raw.split(|&b| b == 0).filter(|field| !field.is_empty());
    while let (Some(status), Some(path)) = (fields.next(), fields.next()) {
        let kind = match status.first() {
            Some(b'A') => ChangeKind::Added,
            Some(b'D') => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        };
        found.push((clean(Path::new(OsStr::from_bytes(path))), kind));
    }
    Ok(found)
}

/// The commit `refs/stash` points at, if any.
fn stash_top(dir: &Path) -> Result<Option<OsString>, WorkspaceError> {
    let output = git_output(dir, &["rev-parse", "-q", "--verify", "refs/stash"])?;
    Ok(output
        .status
        .success()
        .then(|| OsStr::from_bytes(output.stdout.trim_ascii()).to_os_string()))
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::test_repo::{git, repo};
    use super::*;

    #[test]
    fn stash_moves_the_changes_away() {
        let tmp = repo();
        let dir = tmp.path();
        // No identity in the repository: stash supplies its own.
        git(dir, &["config", "--unset", "user.name"]);
        git(dir, &["config", "--unset", "user.email"]);
        fs::write(dir.join("tracked.txt"), "agent\n").unwrap();
        fs::write(dir.join("agent-new.txt"), "x").unwrap();
        let described = stash(dir, "agentgate: claude failed").unwrap();
        assert!(described.starts_with("stash@{0}: "), "{described}");
        assert!(
            described.ends_with(": agentgate: claude failed"),
            "{described}"
        );
        assert_eq!(git(dir, &["status", "--porcelain"]), "");
        assert!(!dir.join("agent-new.txt").exists());
        assert!(git(dir, &["stash", "list"]).contains("agentgate: claude failed"));

        let err = stash(dir, "again").unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NothingToStash { .. }),
            "{err:?}"
        );
    }

    #[test]
    fn stash_in_a_subfolder_leaves_the_rest() {
        let tmp = repo();
        let dir = tmp.path();
        fs::write(dir.join("tracked.txt"), "outside\n").unwrap();
        fs::write(dir.join("sub/inner.txt"), "agent\n").unwrap();
        stash(&dir.join("sub"), "agentgate: sub").unwrap();
        assert_eq!(git(dir, &["status", "--porcelain"]), " M tracked.txt\n");
    }

    #[test]
    fn stash_outside_git_fails_clearly() {
        let tmp = tempfile::tempdir().unwrap();
        let err = stash(tmp.path(), "agentgate").unwrap_err();
        assert!(matches!(err, WorkspaceError::NotGit { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("on_dirty: stash needs a git work tree"),
            "{err}"
        );
    }

    #[test]
    fn git_failure_carries_stderr_and_command() {
        let tmp = repo();
        let err = run_git(tmp.path(), &["stash", "drop", "stash@{7}"]).unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with("failed to run `git stash drop stash@{7}` in "),
            "{message}"
        );
        assert!(matches!(err, WorkspaceError::Git { ref stderr, .. } if !stderr.is_empty()));
    }

    #[test]
    fn status_parsing_handles_renames_and_copies() {
        let raw = b"R  new.txt\0old.txt\0C  copy.txt\0orig.txt\0?? odd name\0 M a\0";
        let parsed: Vec<(String, String)> = parse_status(raw)
            .into_iter()
            .map(|(status, path)| {
                (
                    String::from_utf8(status.to_vec()).unwrap(),
                    path.display().to_string(),
                )
            })
            .collect();
        let expect = [
            ("R ", "new.txt"),
            (" D", "old.txt"),
            ("C ", "copy.txt"),
            ("??", "odd name"),
            (" M", "a"),
        ];
        let expect: Vec<(String, String)> = expect
            .iter()
            .map(|(s, p)| (s.to_string(), p.to_string()))
            .collect();
        assert_eq!(parsed, expect);
    }
}
