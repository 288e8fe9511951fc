//! `workspace: worktree`: the run's own git worktree, made before the
//! first step and settled after the last.
//!
//! [`isolate`] finds the repository holding the working directory of every
//! step in worktree mode (they must share one), checks the repository's
//! `HEAD` out into a new worktree on the branch `agentgate/<run_id>` (in
//! the run's folder of the store, `<runs>/<run_id>/worktree`, else in the
//! temp folder as `agentgate-worktree-<run_id>`), and returns a copy of the
//! plan whose worktree steps work in the same subfolder of the worktree as
//! they asked for in the repository. Failover steps share the worktree, so
//! `on_dirty` and the handoff see what an earlier step left.
//!
//! [`settle`] runs however the run ended (success, failure, timeout,
//! cancel): a worktree where nothing changed and nothing was committed is
//! removed with its branch; any other is kept, and so is one whose changes
//! cannot be told. Either way the envelope's `workspace` reports it.

use std::path::{Path, PathBuf};

use agentgate_protocol::{
    ChangedFile, ErrorInfo, ErrorKind, ErrorSource, LogLevel, WorkspaceReport,
};

use super::emitter::Emitter;
use crate::plan::Plan;
use crate::settings::WorkspaceMode;
use crate::workspace::{
    Snapshot, WorkspaceError, Worktree, add_worktree, head_commit, locate_repository,
    remove_worktree,
};

/// The worktree of a run under way.
pub(super) struct RunWorktree {
    worktree: Worktree,
    /// Where the first worktree step's CLI works.
    cwd: PathBuf,
    /// The worktree as checked out; `Err` when it could not be taken (the
    /// worktree is then kept whatever happens).
    snapshot: Result<Snapshot, String>,
}

/// What [`isolate`] made: the worktree and the cwd of each worktree step.
struct Made {
    worktree: Worktree,
    /// `(step index, the CLI's cwd in the worktree)`.
    cwds: Vec<(usize, PathBuf)>,
    snapshot: Result<Snapshot, String>,
}

/// The worktree for the steps of `plan` in worktree mode, and the plan as
/// those steps now run it; `Ok(None)` when no step asks for one. An error
/// is the run's: no step runs.
pub(super) async fn isolate(
    plan: &Plan,
    run_id: &str,
    run_dir: Option<&Path>,
) -> Result<Option<(Plan, RunWorktree)>, ErrorInfo> {
    let wanted: Vec<(usize, PathBuf)> = plan
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| s.workspace == WorkspaceMode::Worktree)
        .map(|(i, s)| (i, s.request.cwd.clone()))
        .collect();
    if wanted.is_empty() {
        return Ok(None);
    }
    let labels: Vec<String> = plan.steps.iter().map(|s| s.label()).collect();
    let branch = format!("agentgate/{run_id}");
    let path = match run_dir {
        Some(dir) => dir.join("worktree"),
        None => std::env::temp_dir().join(format!("agentgate-worktree-{run_id}")),
    };
    let made = tokio::task::spawn_blocking(move || make(&wanted, &labels, &path, &branch))
        .await
        .map_err(|e| {
            ErrorInfo::new(
                ErrorKind::Unknown,
                ErrorSource::Internal,
                format!("failed to set up a git worktree: {e}"),
            )
        })??;
    let mut isolated = plan.clone();
    for (i, cwd) in &made.cwds {
        if let Some(step) = isolated.steps.get_mut(*i) {
            step.request.cwd = cwd.clone();
        }
    }
    let cwd = made
        .cwds
        .first()
        .map_or_else(|| made.worktree.path.clone(), |(_, c)| c.clone());
    Ok(Some((
        isolated,
        RunWorktree {
            worktree: made.worktree,
            cwd,
            snapshot: made.snapshot,
        },
    )))
}

/// The blocking part of [`isolate`]: locate, check out, snapshot.
fn make(
    wanted: &[(usize, PathBuf)],
    labels: &[String],
    path: &Path,
    branch: &str,
) -> Result<Made, ErrorInfo> {
    let mut located = Vec::new();
    for (i, cwd) in wanted {
        located.push((*i, cwd, locate_repository(cwd).map_err(refusal)?));
    }
    let Some((first_step, _, first)) = located.first() else {
        return Err(ErrorInfo::new(
            ErrorKind::Unknown,
            ErrorSource::Internal,
            "failed to set up a git worktree: no step asks for one",
        ));
    };
    if let Some((other_step, _, other)) = located
        .iter()
        .find(|(_, _, l)| l.toplevel != first.toplevel)
    {
        let label = |i: &usize| labels.get(*i).cloned().unwrap_or_default();
        return Err(ErrorInfo::new(
            ErrorKind::InvalidInput,
            ErrorSource::Internal,
            format!(
                "failed to set up a git worktree: {} works in the repository {} and {} in {}; \
                 the steps of a run share one worktree, so they must work in one repository",
                label(first_step),
                first.toplevel.display(),
                label(other_step),
                other.toplevel.display()
            ),
        ));
    }
    let repository = first.toplevel.clone();
    let base = head_commit(&repository).map_err(refusal)?;
    let worktree = add_worktree(&repository, path, branch, &base).map_err(refusal)?;
    let mut cwds = Vec::new();
    for (i, requested, location) in &located {
        // (`join` of an empty prefix would add a trailing `/`.)
        let cwd = if location.prefix.as_os_str().is_empty() {
            worktree.path.clone()
        } else {
            worktree.path.join(&location.prefix)
        };
        if !cwd.is_dir() {
            let kept = remove_worktree(&worktree);
            let mut error = refusal(WorkspaceError::NotInCheckout {
                dir: (*requested).clone(),
                prefix: location.prefix.clone(),
            });
            if let Err(e) = kept {
                error.message.push_str(&format!(
                    " (the new worktree {} could not be removed: {e})",
                    worktree.path.display()
                ));
            }
            return Err(error);
        }
        cwds.push((*i, cwd));
    }
    let snapshot = Snapshot::take(&worktree.path).map_err(|e| e.to_string());
    Ok(Made {
        worktree,
        cwds,
        snapshot,
    })
}

/// A workspace error as the run's error: the caller's setup
/// (`invalid_input`, exit 2) when the folder, git or the repository is
/// not fit; anything else git refused is `unknown`.
fn refusal(e: WorkspaceError) -> ErrorInfo {
    let kind = match e {
        WorkspaceError::NotARepository { .. }
        | WorkspaceError::GitMissing { .. }
        | WorkspaceError::NoCommit { .. }
        | WorkspaceError::NotInCheckout { .. } => ErrorKind::InvalidInput,
        _ => ErrorKind::Unknown,
    };
    ErrorInfo::new(kind, ErrorSource::Internal, e.to_string())
}

/// A log line saying where the run works.
pub(super) fn announce(rw: &RunWorktree, em: &mut Emitter<'_>) {
    let wt = &rw.worktree;
    em.log(
        LogLevel::Info,
        format!(
            "working in the git worktree {} on branch {} (from {} at {})",
            rw.cwd.display(),
            wt.branch,
            wt.repository.display(),
            wt.base_commit
        ),
    );
}

/// After the last step: remove the worktree if the run left nothing in
/// it, else keep it; the envelope's report either way.
pub(super) async fn settle(rw: RunWorktree, em: &mut Emitter<'_>) -> WorkspaceReport {
    let RunWorktree {
        worktree,
        cwd,
        snapshot,
    } = rw;
    let told = match snapshot {
        Ok(s) => tokio::task::spawn_blocking(move || s.changes().map_err(|e| e.to_string()))
            .await
            .unwrap_or_else(|e| Err(e.to_string())),
        Err(e) => Err(e),
    };
    let mut report = WorkspaceReport {
        mode: WorkspaceMode::Worktree.as_str().to_string(),
        repository: worktree.repository.display().to_string(),
        path: worktree.path.display().to_string(),
        cwd: cwd.display().to_string(),
        branch: worktree.branch.clone(),
        base_commit: worktree.base_commit.clone(),
        kept: true,
        changed_files: Vec::new(),
    };
    match told {
        Ok(changes) if changes.is_empty() => {
            let removing = worktree.clone();
            let removed = tokio::task::spawn_blocking(move || remove_worktree(&removing))
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(|e| e.to_string()));
            match removed {
                Ok(()) => report.kept = false,
                Err(e) => em.log(
                    LogLevel::Warn,
                    format!(
                        "the run changed nothing in the worktree {}, but it could not be removed: {e}",
                        worktree.path.display()
                    ),
                ),
            }
        }
        Ok(changes) => {
            report.changed_files = changes
                .iter()
                .map(|c| ChangedFile {
                    path: c.path.display().to_string(),
                    change: c.kind.as_str().to_string(),
                })
                .collect();
            em.log(
                LogLevel::Info,
                format!(
                    "kept the git worktree {} (branch {}): {} changed file(s)",
                    worktree.path.display(),
                    worktree.branch,
                    changes.len()
                ),
            );
        }
        Err(e) => em.log(
            LogLevel::Warn,
            format!(
                "kept the git worktree {} (branch {}): what the run changed there could not be told: {e}",
                worktree.path.display(),
                worktree.branch
            ),
        ),
    }
    report
}

#[cfg(test)]
mod tests;
