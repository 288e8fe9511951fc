//! `git worktree` for `workspace: worktree`: find the repository that
//! holds a folder, check its `HEAD` out into a new worktree on a branch of
//! its own, and remove the worktree and the branch again.
//!
//! Every git command runs through [`git_command`](super::git), isolated
//! from the caller's `GIT_DIR`/`GIT_WORK_TREE`. What a run changed in its
//! worktree is told by a [`Snapshot`](super::Snapshot) of the worktree's
//! folder taken right after [`add_worktree`] (git's view: `git status` and
//! the commits `HEAD` moved by).

use std::ffi::OsStr;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::error::WorkspaceError;
use super::git::{clean, command_line, git_command, run_git};

/// Where a folder sits in its repository.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RepoLocation {
    /// The top of the work tree that holds the folder.
    pub toplevel: PathBuf,
    /// The folder's path below `toplevel` (empty at the top).
    pub prefix: PathBuf,
}

/// The work tree holding `dir`: a [`WorkspaceError::GitMissing`] when git
/// cannot be started, a [`WorkspaceError::NotARepository`] when `dir` is
/// in no work tree (or in a bare repository, or inside `.git`).
pub fn locate_repository(dir: &Path) -> Result<RepoLocation, WorkspaceError> {
    let args = ["rev-parse", "--show-toplevel", "--show-prefix"];
    let output = match git_command(dir, &args).output() {
        Ok(output) => output,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(WorkspaceError::GitMissing {
                dir: dir.to_path_buf(),
            });
        }
        Err(source) => {
            return Err(WorkspaceError::GitSpawn {
                command: command_line(&args),
                dir: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut lines = output.stdout.split(|&b| b == b'\n');
    let toplevel = lines.next().unwrap_or_default();
    let prefix = lines.next().unwrap_or_default();
    if !output.status.success() || toplevel.is_empty() {
        let stderr = String::from_utf8_lossy(&output.stderr).trim().to_string();
        return Err(WorkspaceError::NotARepository {
            dir: dir.to_path_buf(),
            reason: if stderr.is_empty() {
                "it has no work tree".to_string()
            } else {
                stderr
            },
        });
    }
    Ok(RepoLocation {
        toplevel: PathBuf::from(OsStr::from_bytes(toplevel)),
        prefix: clean(Path::new(OsStr::from_bytes(prefix))),
    })
}

/// The commit `HEAD` of the work tree at `toplevel` points at.
pub fn head_commit(toplevel: &Path) -> Result<String, WorkspaceError> {
    let output = git_command(toplevel, &["rev-parse", "-q", "--verify", "HEAD^{commit}"])
        .output()
        .map_err(|source| WorkspaceError::GitSpawn {
            command: "git rev-parse -q --verify HEAD^{commit}".to_string(),
            dir: toplevel.to_path_buf(),
            source,
        })?;
    let commit = String::from_utf8_lossy(&output.stdout).trim().to_string();
    if !output.status.success() || commit.is_empty() {
        return Err(WorkspaceError::NoCommit {
            repository: toplevel.to_path_buf(),
        });
    }
    Ok(commit)
}

/// A worktree made by [`add_worktree`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    /// The main work tree it was made from.
    pub repository: PathBuf,
    /// Its folder.
    pub path: PathBuf,
    /// Its branch (`agentgate/<run_id>`).
    pub branch: String,
    /// The commit it started from.
    pub base_commit: String,
}

/// Check `base_commit` of the repository at `repository` out into a new
/// worktree at `path` (which must not exist) on a new branch `branch`.
pub fn add_worktree(
    repository: &Path,
    path: &Path,
    branch: &str,
    base_commit: &str,
) -> Result<Worktree, WorkspaceError> {
    run_git(
        repository,
        &[
            OsStr::new("worktree"),
            OsStr::new("add"),
            OsStr::new("--quiet"),
            OsStr::new("-b"),
            OsStr::new(branch),
            path.as_os_str(),
            OsStr::new(base_commit),
        ],
    )?;
    Ok(Worktree {
        repository: repository.to_path_buf(),
        path: path.to_path_buf(),
        branch: branch.to_string(),
        base_commit: base_commit.to_string(),
    })
}

/// Remove the worktree's folder, its administrative files and its branch.
/// Only for a worktree that holds nothing to keep: files git ignores
/// (build output) go with it.
pub fn remove_worktree(worktree: &Worktree) -> Result<(), WorkspaceError> {
    run_git(
        &worktree.repository,
        &[
            OsStr::new("worktree"),
            OsStr::new("remove"),
            OsStr::new("--force"),
            worktree.path.as_os_str(),
        ],
    )?;
    run_git(
        &worktree.repository,
        &["branch", "--quiet", "-D", worktree.branch.as_str()],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::super::Snapshot;
    use super::super::test_repo::{git, repo};
    use super::*;

    #[test]
    fn a_subfolder_is_located_in_its_repository() {
        let tmp = repo();
        let top = tmp.path().canonicalize().unwrap();
        let found = locate_repository(&top.join("sub")).unwrap();
        assert_eq!(found.toplevel, top);
        assert_eq!(found.prefix, PathBuf::from("sub"));
        assert_eq!(locate_repository(&top).unwrap().prefix, PathBuf::new());
    }

    #[test]
    fn a_folder_outside_git_is_no_repository() {
        let tmp = tempfile::tempdir().unwrap();
        let err = locate_repository(tmp.path()).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NotARepository { .. }),
            "{err:?}"
        );
        assert!(
            err.to_string().contains("is not inside a git repository"),
            "{err}"
        );
    }

    #[test]
    fn a_repository_without_a_commit_has_no_head() {
        let tmp = tempfile::tempdir().unwrap();
        git(tmp.path(), &["init", "-q"]);
        let err = head_commit(tmp.path()).unwrap_err();
        assert!(matches!(err, WorkspaceError::NoCommit { .. }), "{err:?}");
    }

    #[test]
    fn a_worktree_is_added_on_its_branch_and_removed_with_it() {
        let tmp = repo();
        let top = tmp.path();
        let head = head_commit(top).unwrap();
        let place = tempfile::tempdir().unwrap();
        let path = place.path().join("wt");
        let wt = add_worktree(top, &path, "agentgate/r1", &head).unwrap();
        assert_eq!(
            fs::read_to_string(path.join("sub/inner.txt")).unwrap(),
            "inner\n"
        );
        assert_eq!(
            git(&path, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
            "agentgate/r1"
        );
        assert!(git(top, &["worktree", "list"]).contains("[agentgate/r1]"));
        // The main tree does not see the worktree.
        assert_eq!(git(top, &["status", "--porcelain"]), "");

        let snapshot = Snapshot::take(&path).unwrap();
        assert!(snapshot.changes().unwrap().is_empty());
        fs::write(path.join("tracked.txt"), "changed\n").unwrap();
        let changes = snapshot.changes().unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");

        git(&path, &["checkout", "--", "tracked.txt"]);
        remove_worktree(&wt).unwrap();
        assert!(!path.exists());
        assert!(!git(top, &["worktree", "list"]).contains("agentgate/r1"));
        assert_eq!(git(top, &["branch", "--list", "agentgate/*"]), "");
    }

    #[test]
    fn an_existing_branch_fails_the_add_with_git_s_message() {
        let tmp = repo();
        let top = tmp.path();
        git(top, &["branch", "agentgate/r2"]);
        let head = head_commit(top).unwrap();
        let place = tempfile::tempdir().unwrap();
        let err = add_worktree(top, &place.path().join("wt"), "agentgate/r2", &head).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::Git { ref stderr, .. } if stderr.contains("already exists")),
            "{err:?}"
        );
    }
}
