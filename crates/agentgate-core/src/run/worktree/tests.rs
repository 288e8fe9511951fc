//! `isolate` and `settle` against real repositories in temp folders.

use std::fs;
use std::path::Path;

use agentgate_protocol::ErrorKind;

use super::*;
use crate::plan::Step;
use crate::run::NullSink;
use crate::workspace::test_repo::{empty_repo, git};
use agentgate_providers::{CliRequest, builtin};

/// A repository with `a.txt` and `sub/b.txt` committed, `build/` ignored
/// (and present).
fn repo() -> tempfile::TempDir {
    let tmp = empty_repo();
    let dir = tmp.path();
    fs::write(dir.join("a.txt"), "a\n").unwrap();
    fs::create_dir(dir.join("sub")).unwrap();
    fs::write(dir.join("sub/b.txt"), "b\n").unwrap();
    fs::write(dir.join(".gitignore"), "build/\n").unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "initial"]);
    fs::create_dir(dir.join("build")).unwrap();
    tmp
}

fn step(cwd: &Path, workspace: WorkspaceMode) -> Step {
    let request = CliRequest {
        prompt: "p".into(),
        cwd: cwd.canonicalize().unwrap(),
        ..CliRequest::default()
    };
    let mut step = Step::new(builtin("claude").unwrap(), request);
    step.workspace = workspace;
    step
}

fn plan(steps: Vec<Step>) -> Plan {
    let mut plan = Plan::single(steps[0].clone());
    plan.steps = steps;
    plan
}

async fn settled(rw: RunWorktree) -> WorkspaceReport {
    let mut sink = NullSink;
    let mut em = Emitter::new(
        "r".into(),
        None,
        &mut sink,
        crate::redact::RedactorBuilder::new().build(),
    );
    settle(rw, &mut em).await
}

#[tokio::test]
async fn shared_steps_need_no_worktree() {
    let tmp = repo();
    let p = plan(vec![step(tmp.path(), WorkspaceMode::Shared)]);
    assert!(isolate(&p, "r0", None).await.unwrap().is_none());
}

#[tokio::test]
async fn worktree_steps_share_one_checkout_in_their_subfolders() {
    let tmp = repo();
    let top = tmp.path().canonicalize().unwrap();
    let runs = tempfile::tempdir().unwrap();
    let p = plan(vec![
        step(&top.join("sub"), WorkspaceMode::Worktree),
        step(&top, WorkspaceMode::Shared),
        step(&top, WorkspaceMode::Worktree),
    ]);
    let (isolated, rw) = isolate(&p, "r1", Some(runs.path())).await.unwrap().unwrap();
    let root = runs.path().join("worktree");
    assert_eq!(isolated.steps[0].request.cwd, root.join("sub"));
    // A shared step keeps the folder it asked for.
    assert_eq!(isolated.steps[1].request.cwd, top);
    assert_eq!(isolated.steps[2].request.cwd.as_os_str(), root.as_os_str());
    assert_eq!(fs::read_to_string(root.join("sub/b.txt")).unwrap(), "b\n");

    let report = settled(rw).await;
    assert!(!report.kept);
    assert_eq!(report.branch, "agentgate/r1");
    assert_eq!(report.cwd, root.join("sub").display().to_string());
    assert!(!root.exists());
    assert_eq!(git(&top, &["branch", "--list", "agentgate/*"]), "");
}

#[tokio::test]
async fn a_commit_on_the_branch_keeps_the_worktree() {
    let tmp = repo();
    let top = tmp.path().canonicalize().unwrap();
    let runs = tempfile::tempdir().unwrap();
    let p = plan(vec![step(&top, WorkspaceMode::Worktree)]);
    let (_, rw) = isolate(&p, "r2", Some(runs.path())).await.unwrap().unwrap();
    let root = runs.path().join("worktree");
    fs::write(root.join("c.txt"), "c\n").unwrap();
    git(&root, &["add", "c.txt"]);
    git(&root, &["commit", "-q", "-m", "agent"]);
    let report = settled(rw).await;
    assert!(report.kept);
    assert_eq!(
        report.changed_files,
        [ChangedFile {
            path: "c.txt".into(),
            change: "added".into()
        }]
    );
    assert!(root.join("c.txt").exists());
    assert_eq!(
        git(
            &top,
            &[
                "branch",
                "--list",
                "--format=%(refname:short)",
                "agentgate/*"
            ]
        )
        .trim(),
        "agentgate/r2"
    );
    // The main tree has neither the file nor the commit.
    assert!(!top.join("c.txt").exists());
    assert_eq!(git(&top, &["status", "--porcelain"]), "");
}

#[tokio::test]
async fn steps_in_two_repositories_are_refused() {
    let one = repo();
    let two = repo();
    let p = plan(vec![
        step(one.path(), WorkspaceMode::Worktree),
        step(two.path(), WorkspaceMode::Worktree),
    ]);
    let err = isolate(&p, "r3", None).await.err().unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidInput);
    assert!(
        err.message.contains("must work in one repository"),
        "{}",
        err.message
    );
    assert_eq!(git(one.path(), &["worktree", "list"]).lines().count(), 1);
}

#[tokio::test]
async fn an_ignored_folder_has_no_counterpart_and_leaves_nothing() {
    let tmp = repo();
    let top = tmp.path().canonicalize().unwrap();
    let runs = tempfile::tempdir().unwrap();
    let p = plan(vec![step(&top.join("build"), WorkspaceMode::Worktree)]);
    let err = isolate(&p, "r4", Some(runs.path())).await.err().unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidInput);
    assert!(
        err.message.contains("untracked or ignored"),
        "{}",
        err.message
    );
    assert!(!runs.path().join("worktree").exists());
    assert_eq!(git(&top, &["worktree", "list"]).lines().count(), 1);
    assert_eq!(git(&top, &["branch", "--list", "agentgate/*"]), "");
}

#[tokio::test]
async fn a_folder_outside_git_is_invalid_input() {
    let tmp = tempfile::tempdir().unwrap();
    let p = plan(vec![step(tmp.path(), WorkspaceMode::Worktree)]);
    let err = isolate(&p, "r5", None).await.err().unwrap();
    assert_eq!(err.kind, ErrorKind::InvalidInput);
    assert!(
        err.message.contains("is not inside a git repository"),
        "{}",
        err.message
    );
}
