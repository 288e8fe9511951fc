//! Workspace snapshots: did an attempt change the files?
//!
//! Failover takes a [`Snapshot`] of the agent's folder before an attempt and
//! asks for its [`Snapshot::changes`] afterwards, to apply `on_dirty` before
//! handing the task to the next agent; agent modes use the same changes
//! (`classify` must change nothing, `edit` only paths [`outside_allowlist`]
//! lets through).
//!
//! Inside a git work tree the snapshot is git's view: `git status` (ignored
//! files are not watched) plus a fingerprint of every path it lists, and
//! `HEAD`, so that a file already dirty before the attempt and edited again
//! is caught, and so is a change the agent committed. Elsewhere it is a walk
//! of the folder.
//!
//! # How it is built
//!
//! - A snapshot (`snapshot.rs`) is the folder and one view of it, chosen once
//!   by [`Snapshot::take`]: git's view when `git rev-parse --show-prefix`
//!   finds a work tree (`git.rs`), otherwise the fingerprint of every file a
//!   walk finds, bounded by [`DEFAULT_WALK_LIMIT`] entries (`walk.rs`).
//! - A fingerprint (`walk.rs`) is what one path holds, symlinks not followed:
//!   nothing, a folder, a link's target, or a file's size, executable bit and
//!   content hash (modification time past 8 MiB).
//! - [`Snapshot::changes`] takes the same view again and compares path by
//!   path. The walk: old against new fingerprints. Git: each path listed
//!   before by its fingerprint, each path listed only now by its status
//!   letters, and, when `HEAD` moved, `git diff` of the two commits for the
//!   paths neither listing holds.
//! - The edit scope (`scope.rs`): [`outside_allowlist`] keeps the changes under
//!   no allowed path, both sides normalised lexically against the folder.
//! - [`stash`] (`git.rs`) moves the changes away for `on_dirty: stash`.
//! - `workspace: worktree` (`worktree.rs`): [`locate_repository`] finds the
//!   work tree holding a folder, [`add_worktree`] checks its `HEAD` out on
//!   a new branch elsewhere, [`remove_worktree`] takes both away again.
//!
//! `change.rs`, `error.rs` and `walk.rs` are leaves, `git.rs` uses `walk.rs`,
//! `snapshot.rs` and `worktree.rs` use `git.rs`, and nothing uses `snapshot.rs` or `scope.rs`.

mod change;
mod error;
mod git;
mod scope;
mod snapshot;
mod walk;
mod worktree;

pub use change::{Change, ChangeKind};
pub use error::WorkspaceError;
pub use git::stash;
pub use scope::outside_allowlist;
pub use snapshot::{Snapshot, SnapshotKind};
pub use walk::DEFAULT_WALK_LIMIT;
pub use worktree::{
    RepoLocation, Worktree, add_worktree, head_commit, locate_repository, remove_worktree,
};

#[cfg(test)]
pub(crate) mod test_repo;
