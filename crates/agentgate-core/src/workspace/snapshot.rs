//! [`Snapshot`]: taking the state of a folder (git's view or a walk) and
//! comparing it, path by path, with the state now.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::change::{Change, ChangeKind};
use super::error::WorkspaceError;
use super::git::{GitState, commit_changes, git_prefix, git_state};
use super::walk::{DEFAULT_WALK_LIMIT, Fingerprint, check_dir, fingerprint, walk};

/// What a snapshot rests on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SnapshotKind {
    /// `git status` and `HEAD` of the work tree holding the folder.
    Git,
    /// A walk of the folder (no git work tree, or no `git` installed).
    Files,
}

/// The state of a folder at one moment, to compare against later.
#[derive(Debug, Clone)]
pub struct Snapshot {
    dir: PathBuf,
    view: View,
}

#[derive(Debug, Clone)]
enum View {
    Git {
        /// The folder relative to the work tree's top, as `--show-prefix`
        /// prints it (`status` paths are relative to the top).
        prefix: PathBuf,
        state: GitState,
    },
    Files {
        limit: usize,
        entries: BTreeMap<PathBuf, Fingerprint>,
    },
}

impl Snapshot {
    /// Records the state of `dir`: git's view when `dir` is inside a git work
    /// tree, otherwise a walk of the folder (bounded by
    /// [`DEFAULT_WALK_LIMIT`] entries).
    pub fn take(dir: &Path) -> Result<Snapshot, WorkspaceError> {
        check_dir(dir)?;
        match git_prefix(dir)? {
            Some(prefix) => {
                let state = git_state(dir, &prefix)?;
                Ok(Snapshot {
                    dir: dir.to_path_buf(),
                    view: View::Git { prefix, state },
                })
            }
            None => Snapshot::take_files(dir, DEFAULT_WALK_LIMIT),
        }
    }

    /// A snapshot by walking `dir`, whether or not git is there, giving up
    /// past `limit` entries.
    pub(crate) fn take_files(dir: &Path, limit: usize) -> Result<Snapshot, WorkspaceError> {
        check_dir(dir)?;
        let entries = walk(dir, limit)?;
        Ok(Snapshot {
            dir: dir.to_path_buf(),
            view: View::Files { limit, entries },
        })
    }

    /// The folder this snapshot watches.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// What the snapshot rests on.
    pub fn kind(&self) -> SnapshotKind {
        match self.view {
            View::Git { .. } => SnapshotKind::Git,
            View::Files { .. } => SnapshotKind::Files,
        }
    }

    /// What differs now from the snapshot, sorted by path, paths relative
    /// to the folder. Empty folders are not tracked; with git, ignored
    /// files are not either.
    ///
    /// With git, a path counts as changed when:
    /// - it was listed by `git status` at the snapshot and its content,
    ///   type or executable bit differs now (whether or not it is still
    ///   listed: a dirty file the attempt reverted or committed is
    ///   Modified, one it left alone is unchanged);
    /// - it is listed now and was not then (Added when untracked, newly
    ///   staged or the new side of a rename, Deleted when gone, otherwise
    ///   Modified; this includes a change to the index alone, such as
    ///   `git rm --cached`);
    /// - `HEAD` moved (a commit, checkout or reset) and the path differs
    ///   between the old and the new commit.
    ///
    /// Files up to 8 MiB are compared by content (so rewriting a file
    /// with the same bytes is no change), larger ones by size and
    /// modification time; symlinks by their target, never followed.
    pub fn changes(&self) -> Result<Vec<Change>, WorkspaceError> {
        let found = match &self.view {
            View::Git { prefix, state } => git_changes(&self.dir, prefix, state)?,
            View::Files { limit, entries } => {
                let now = walk(&self.dir, *limit)?;
                files_changes(entries, &now)
            }
        };
        Ok(found
            .into_iter()
            .map(|(path, kind)| Change { path, kind })
            .collect())
    }
}

fn files_changes(
    old: &BTreeMap<PathBuf, Fingerprint>,
    now: &BTreeMap<PathBuf, Fingerprint>,
) -> BTreeMap<PathBuf, ChangeKind> {
    let mut found = BTreeMap::new();
    for (path, before) in old {
        let after = now.get(path).unwrap_or(&Fingerprint::Missing);
        if let Some(kind) = compare(before, after) {
            found.insert(path.clone(), kind);
        }
    }
    for path in now.keys() {
        if !old.contains_key(path) {
            found.insert(path.clone(), ChangeKind::Added);
        }
    }
    found
}

fn compare(before: &Fingerprint, after: &Fingerprint) -> Option<ChangeKind> {
    match (before, after) {
        _ if before == after => None,
        (_, Fingerprint::Missing) => Some(ChangeKind::Deleted),
        (Fingerprint::Missing, _) => Some(ChangeKind::Added),
        _ => Some(ChangeKind::Modified),
    }
}

fn git_changes(
    dir: &Path,
    prefix: &Path,
    old: &GitState,
) -> Result<BTreeMap<PathBuf, ChangeKind>, WorkspaceError> {
    let now = git_state(dir, prefix)?;
    let mut found = BTreeMap::new();
    for (path, before) in &old.dirty {
        let after = match now.dirty.get(path) {
            Some(entry) => entry.fingerprint.clone(),
            None => fingerprint(&dir.join(path))?,
        };
        if let Some(kind) = compare(&before.fingerprint, &after) {
            found.insert(path.clone(), kind);
        }
    }
    for (path, entry) in &now.dirty {
        if old.dirty.contains_key(path) {
            continue;
        }
        let kind = if entry.fingerprint == Fingerprint::Missing {
            ChangeKind::Deleted
        } else if entry.status == *b"??"
            || entry.status.iter().any(|s| matches!(s, b'A' | b'R' | b'C'))
        {
            ChangeKind::Added
        } else {
            ChangeKind::Modified
        };
        found.insert(path.clone(), kind);
    }
    if old.head != now.head {
        let skip: BTreeSet<&PathBuf> = old.dirty.keys().chain(now.dirty.keys()).collect();
        for (path, kind) in commit_changes(dir, old.head.as_deref(), now.head.as_deref())? {
            if !skip.contains(&path) {
                found.insert(path, kind);
            }
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::PermissionsExt;

    use super::super::git::git_command;
    use super::super::test_repo::{git, repo};
    use super::*;

    fn listed(snapshot: &Snapshot) -> Vec<String> {
        snapshot
            .changes()
            .unwrap()
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn clean_repo_has_no_changes() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn untracked_file_is_added() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        fs::create_dir_all(tmp.path().join("deep/er")).unwrap();
        fs::write(tmp.path().join("deep/er/file.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A deep/er/file.txt", "A new.txt"]);
    }

    #[test]
    fn modified_tracked_file_is_modified() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("tracked.txt"), "two\n").unwrap();
        assert_eq!(listed(&snapshot), ["M tracked.txt"]);
    }

    #[test]
    fn deleted_tracked_file_is_deleted() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::remove_file(tmp.path().join("tracked.txt")).unwrap();
        assert_eq!(listed(&snapshot), ["D tracked.txt"]);
    }

    #[test]
    fn renamed_file_is_added_and_deleted() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        git(tmp.path(), &["mv", "tracked.txt", "renamed.txt"]);
        assert_eq!(listed(&snapshot), ["A renamed.txt", "D tracked.txt"]);
    }

    #[test]
    fn file_dirty_before_and_edited_again_is_modified() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        // Same size as before: only the content tells.
        fs::write(tmp.path().join("tracked.txt"), "DIRTY\n").unwrap();
        assert_eq!(listed(&snapshot), ["M tracked.txt"]);
    }

    #[test]
    fn file_dirty_before_and_untouched_is_no_change() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        // Staging changes the index, not the file.
        git(tmp.path(), &["add", "tracked.txt"]);
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn dirty_file_reverted_or_removed_differs_from_the_snapshot() {
        let tmp = repo();
        fs::write(tmp.path().join("tracked.txt"), "dirty\n").unwrap();
        fs::write(tmp.path().join("scratch.txt"), "mine\n").unwrap();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        git(tmp.path(), &["checkout", "--", "tracked.txt"]);
        fs::remove_file(tmp.path().join("scratch.txt")).unwrap();
        assert_eq!(listed(&snapshot), ["D scratch.txt", "M tracked.txt"]);
    }

    #[test]
    fn committed_changes_are_reported() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::write(tmp.path().join("tracked.txt"), "two\n").unwrap();
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        git(tmp.path(), &["rm", "-q", "sub/inner.txt"]);
        git(tmp.path(), &["add", "."]);
        git(tmp.path(), &["commit", "-q", "-m", "agent"]);
        assert_eq!(git(tmp.path(), &["status", "--porcelain"]), "");
        assert_eq!(
            listed(&snapshot),
            ["A new.txt", "D sub/inner.txt", "M tracked.txt"]
        );
    }

    #[test]
    fn first_commit_on_an_unborn_branch_is_reported() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        git(dir, &["init", "-q"]);
        git(dir, &["config", "user.name", "Test"]);
        git(dir, &["config", "user.email", "test@example.com"]);
        git(dir, &["config", "commit.gpgsign", "false"]);
        let snapshot = Snapshot::take(dir).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        fs::write(dir.join("first.txt"), "x").unwrap();
        git(dir, &["add", "."]);
        git(dir, &["commit", "-q", "-m", "first"]);
        assert_eq!(listed(&snapshot), ["A first.txt"]);
    }

    #[test]
    fn ignored_files_are_not_watched() {
        let tmp = repo();
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        fs::create_dir(tmp.path().join("target")).unwrap();
        fs::write(tmp.path().join("target/build.o"), "x").unwrap();
        assert_eq!(listed(&snapshot), Vec::<String>::new());
    }

    #[test]
    fn subfolder_snapshot_sees_only_the_subfolder() {
        let tmp = repo();
        let sub = tmp.path().join("sub");
        fs::write(sub.join("inner.txt"), "dirty\n").unwrap();
        let snapshot = Snapshot::take(&sub).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Git);
        fs::write(tmp.path().join("tracked.txt"), "outside\n").unwrap();
        fs::write(tmp.path().join("outside.txt"), "x").unwrap();
        fs::write(sub.join("inner.txt"), "again\n").unwrap();
        fs::write(sub.join("added.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A added.txt", "M inner.txt"]);
    }

    #[test]
    fn folder_snapshot_sees_add_modify_delete() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        fs::write(dir.join("a.txt"), "aaaa").unwrap();
        fs::write(dir.join("b.txt"), "b").unwrap();
        fs::write(dir.join("same.txt"), "same").unwrap();
        fs::create_dir_all(dir.join("nested/deeper")).unwrap();
        fs::write(dir.join("nested/deeper/n.txt"), "n").unwrap();
        fs::create_dir(dir.join(".git")).unwrap();
        let snapshot = Snapshot::take_files(dir, DEFAULT_WALK_LIMIT).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Files);
        assert_eq!(listed(&snapshot), Vec::<String>::new());

        fs::write(dir.join("a.txt"), "AAAA").unwrap();
        fs::remove_file(dir.join("b.txt")).unwrap();
        fs::write(dir.join("c.txt"), "c").unwrap();
        fs::write(dir.join("same.txt"), "same").unwrap();
        fs::write(dir.join("nested/deeper/n.txt"), "N").unwrap();
        fs::write(dir.join(".git/HEAD"), "ignored").unwrap();
        fs::create_dir(dir.join("empty")).unwrap();
        std::os::unix::fs::symlink("a.txt", dir.join("link")).unwrap();
        assert_eq!(
            listed(&snapshot),
            [
                "M a.txt",
                "D b.txt",
                "A c.txt",
                "A link",
                "M nested/deeper/n.txt"
            ]
        );
    }

    #[test]
    fn folder_snapshot_sees_the_executable_bit() {
        let tmp = tempfile::tempdir().unwrap();
        let script = tmp.path().join("run.sh");
        fs::write(&script, "#!/bin/sh\n").unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o644)).unwrap();
        let snapshot = Snapshot::take_files(tmp.path(), DEFAULT_WALK_LIMIT).unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        assert_eq!(listed(&snapshot), ["M run.sh"]);
    }

    #[test]
    fn folder_outside_git_gets_a_file_snapshot() {
        let tmp = tempfile::tempdir().unwrap();
        let in_repo = git_command(tmp.path(), &["rev-parse", "--git-dir"])
            .output()
            .unwrap()
            .status
            .success();
        assert!(
            !in_repo,
            "the temp folder {} is inside a git repository; set TMPDIR elsewhere",
            tmp.path().display()
        );
        let snapshot = Snapshot::take(tmp.path()).unwrap();
        assert_eq!(snapshot.kind(), SnapshotKind::Files);
        fs::write(tmp.path().join("new.txt"), "x").unwrap();
        assert_eq!(listed(&snapshot), ["A new.txt"]);
    }

    #[test]
    fn walk_past_the_bound_is_too_large() {
        let tmp = tempfile::tempdir().unwrap();
        for i in 0..5 {
            fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let err = Snapshot::take_files(tmp.path(), 4).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::TooLarge { limit: 4, .. }),
            "{err:?}"
        );
        assert!(err.to_string().contains("git init"), "{err}");

        // Growing past the bound during the attempt fails the comparison.
        let snapshot = Snapshot::take_files(tmp.path(), 6).unwrap();
        for i in 5..8 {
            fs::write(tmp.path().join(format!("f{i}")), "x").unwrap();
        }
        let err = snapshot.changes().unwrap_err();
        assert!(matches!(err, WorkspaceError::TooLarge { .. }), "{err:?}");
    }

    #[test]
    fn snapshot_of_a_missing_folder_or_a_file_fails() {
        let tmp = tempfile::tempdir().unwrap();
        let missing = tmp.path().join("missing");
        let err = Snapshot::take(&missing).unwrap_err();
        assert!(err.to_string().starts_with("failed to read"), "{err}");
        fs::write(&missing, "x").unwrap();
        let err = Snapshot::take(&missing).unwrap_err();
        assert!(
            matches!(err, WorkspaceError::NotADirectory { .. }),
            "{err:?}"
        );
    }
}
