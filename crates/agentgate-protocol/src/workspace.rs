//! The envelope's `workspace`: where a run with `workspace: worktree` ran,
//! and what it left there.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The git worktree a run ran in (`workspace: worktree`): a fresh checkout
/// of the repository's `HEAD` on a branch of the run's own.
///
/// A worktree the run left unchanged (no file changed, nothing committed
/// on its branch) is removed with its branch (`kept: false`); a changed
/// one is kept, whatever the run's outcome, for the caller to review,
/// merge or delete (`git worktree remove PATH`, `git branch -D BRANCH`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WorkspaceReport {
    /// Always `worktree` (a run in the shared working tree has no report).
    pub mode: String,
    /// The main working tree of the repository the run's `cwd` is in.
    pub repository: String,
    /// The worktree's folder.
    pub path: String,
    /// Where the CLI ran: the same subfolder of the worktree as the
    /// requested `cwd` is of the repository.
    pub cwd: String,
    /// The worktree's branch, `agentgate/<run_id>`.
    pub branch: String,
    /// The commit the worktree started from (the repository's `HEAD` when
    /// the run started; uncommitted changes of the main tree are not in it).
    pub base_commit: String,
    /// Whether the worktree and its branch are still there: `true` when the
    /// run changed something, or when what it changed could not be told.
    pub kept: bool,
    /// What differs from `base_commit`, uncommitted or committed, paths
    /// relative to `path`; empty when nothing changed.
    #[serde(default)]
    pub changed_files: Vec<ChangedFile>,
}

/// One path a run changed in its worktree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ChangedFile {
    /// Relative to the worktree's folder.
    pub path: String,
    /// `added`, `modified` or `deleted`.
    pub change: String,
}
