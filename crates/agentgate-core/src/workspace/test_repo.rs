//! Throwaway git repositories for the tests of the workspace checks and of
//! worktree runs.

use std::fs;
use std::path::Path;

use super::git::git_command;

/// Runs git in `dir` for a test, isolated from the caller's git
/// environment, and returns its stdout.
pub(crate) fn git(dir: &Path, args: &[&str]) -> String {
    let output = git_command(dir, args).output().unwrap();
    assert!(
        output.status.success(),
        "git {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).unwrap()
}

/// A new empty repository in a temp folder, with a committer set.
pub(crate) fn empty_repo() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    git(dir, &["init", "-q"]);
    git(dir, &["config", "user.name", "Test"]);
    git(dir, &["config", "user.email", "test@example.com"]);
    git(dir, &["config", "commit.gpgsign", "false"]);
    tmp
}

/// A repository with `tracked.txt`, `sub/inner.txt` and a `.gitignore`
/// ignoring `target/`, all committed.
pub(super) fn repo() -> tempfile::TempDir {
    let tmp = empty_repo();
    let dir = tmp.path();
    fs::write(dir.join("tracked.txt"), "one\n").unwrap();
    fs::create_dir(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/inner.txt"), "inner\n").unwrap();
    fs::write(dir.join(".gitignore"), "target/\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "initial"]);
    tmp
}
