//! Why a workspace operation failed.

use std::io;
use std::path::PathBuf;

/// Why a snapshot, a comparison or a stash failed.
#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    /// The folder to watch is not a folder.
    #[error("failed to snapshot {}: not a directory", dir.display())]
    NotADirectory {
        /// The folder given.
        dir: PathBuf,
    },
    /// A file or folder could not be read.
    #[error("failed to read {}: {source}", path.display())]
    Read {
        /// What was being read.
        path: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// The folder holds more entries than a snapshot without git walks.
    #[error(
        "failed to snapshot {}: it holds more than {limit} files and folders; \
         make it a git work tree (`git init`) so that git's status is used, \
         or run the agent in a smaller folder",
        dir.display()
    )]
    TooLarge {
        /// The folder given.
        dir: PathBuf,
        /// The bound on entries.
        limit: usize,
    },
    /// `git` could not be started.
    #[error("failed to run `{command}` in {}: {source}", dir.display())]
    GitSpawn {
        /// The command line, e.g. `git status --porcelain=v1 ...`.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// The OS error.
        source: io::Error,
    },
    /// `git` exited unsuccessfully.
    #[error("failed to run `{command}` in {}: {stderr}", dir.display())]
    Git {
        /// The command line.
        command: String,
        /// Where it ran.
        dir: PathBuf,
        /// What git printed on stderr (trimmed), or its exit status.
        stderr: String,
    },
    /// `on_dirty: stash` outside a git work tree.
    #[error(
        "failed to stash the changes in {}: on_dirty: stash needs a git work tree, \
         and this folder is not in one; use on_dirty: stop or continue here",
        dir.display()
    )]
    NotGit {
        /// The folder given.
        dir: PathBuf,
    },
    /// `git stash` found nothing to save (for instance because the changes
    /// were committed: a stash cannot take those away).
    #[error(
        "failed to stash the changes in {}: git found no local changes to save \
         (committed changes cannot be stashed)",
        dir.display()
    )]
    NothingToStash {
        /// The folder given.
        dir: PathBuf,
    },
    /// `git` is not installed (or not on `PATH`).
    #[error(
        "failed to set up a git worktree for {}: `git` was not found on PATH; \
         install git, or run with workspace: shared",
        dir.display()
    )]
    GitMissing {
        /// The working directory asked for.
        dir: PathBuf,
    },
    /// `workspace: worktree` for a folder that is not in a git work tree.
    #[error(
        "failed to set up a git worktree: {} is not inside a git repository ({reason}); \
         run in a repository, or with workspace: shared",
        dir.display()
    )]
    NotARepository {
        /// The working directory asked for.
        dir: PathBuf,
        /// What git said.
        reason: String,
    },
    /// The repository has no commit to check out.
    #[error(
        "failed to set up a git worktree of {}: the repository has no commit yet; \
         commit once, or run with workspace: shared",
        repository.display()
    )]
    NoCommit {
        /// The repository's main working tree.
        repository: PathBuf,
    },
    /// The working directory is a folder that the checkout does not hold
    /// (untracked or ignored in the repository).
    #[error(
        "failed to set up a git worktree: the working directory {} is not a folder of \
         the repository's committed files (`{}` is untracked or ignored), so the \
         worktree has no such folder; commit it, or run with workspace: shared",
        dir.display(),
        prefix.display()
    )]
    NotInCheckout {
        /// The working directory asked for.
        dir: PathBuf,
        /// Its path inside the repository.
        prefix: PathBuf,
    },
}
