//! The checks around an attempt: its answer against the output schema, the
//! files it changed against its agent's edit scope, and, before failover
//! hands the task on, what it left in the workspace against `on_dirty`.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use agentgate_protocol::{ErrorInfo, ErrorKind, ErrorSource, LogLevel};

use super::attempt::AttemptOutcome;
use super::emitter::Emitter;
use crate::config::OnDirty;
use crate::plan::{EditScope, Step};
use crate::workspace::{self, Change, Snapshot, WorkspaceError};

/// Why what an attempt changed cannot be told.
#[derive(Debug, Clone, thiserror::Error)]
pub(super) enum Untold {
    /// The snapshot or the comparison failed.
    #[error(transparent)]
    Workspace(Arc<WorkspaceError>),
    /// The task that ran it failed.
    #[error("the workspace check failed: {0}")]
    Task(String),
}

/// What an attempt changed in the workspace: `None` when nothing asked.
pub(super) type Changes = Option<Result<Vec<Change>, Untold>>;

/// Run a workspace operation (git, a folder walk) off the async workers.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, WorkspaceError> + Send + 'static,
) -> Result<T, Untold> {
    match tokio::task::spawn_blocking(f).await {
        Ok(r) => r.map_err(|e| Untold::Workspace(Arc::new(e))),
        Err(e) => Err(Untold::Task(e.to_string())),
    }
}

/// What changed since `snapshot` was taken.
pub(super) async fn changes_since(snapshot: Option<&Result<Snapshot, Untold>>) -> Changes {
    match snapshot? {
        Ok(s) => {
            let s = s.clone();
            Some(blocking(move || s.changes()).await)
        }
        Err(e) => Some(Err(e.clone())),
    }
}

/// The checks of a finished attempt: its answer against the schema, and
/// the files it changed against its edit scope. A failed check turns the
/// attempt into an `invalid_output` failure.
pub(super) fn check(
    step: &Step,
    outcome: &mut AttemptOutcome,
    changes: Option<&Result<Vec<Change>, Untold>>,
) {
    if outcome.error.is_none()
        && let Some(schema) = &step.output_schema
    {
        match schema.check(&outcome.envelope.response) {
            Ok(v) => outcome.envelope.structured_output = Some(v),
            Err(why) => outcome.fail(ErrorInfo::new(
                ErrorKind::InvalidOutput,
                ErrorSource::Internal,
                format!("{}'s answer failed --output-schema: {why}", step.label()),
            )),
        }
    }
    let allowed: &[PathBuf] = match &step.edit_scope {
        EditScope::Any => return,
        EditScope::Nothing => &[],
        EditScope::Only(paths) => paths,
    };
    let Some(changes) = changes else { return };
    let message = match changes {
        Ok(changes) => {
            let outside = workspace::outside_allowlist(&step.request.cwd, changes, allowed);
            if outside.is_empty() {
                return;
            }
            let mode = if allowed.is_empty() {
                "mode classify: it must not change files".to_owned()
            } else {
                format!(
                    "mode edit: it may change only {}",
                    allowed
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            format!(
                "{} changed files outside its scope ({mode}): {}",
                step.label(),
                list_changes(&outside)
            )
        }
        Err(e) => format!(
            "{} has an edit scope, but what it changed cannot be checked: {e}",
            step.label()
        ),
    };
    if outcome.error.is_none() {
        outcome.fail(ErrorInfo::new(
            ErrorKind::InvalidOutput,
            ErrorSource::Internal,
            message,
        ));
    } else if let Some(e) = &mut outcome.error {
        e.message = format!("{}; and {message}", e.message);
    }
}

/// Before handing the task on after `error`: what did the failed step
/// leave in the workspace, and does `policy` let the next agent start?
/// `Err` is the error the run stops with.
pub(super) async fn workspace_gate(
    policy: OnDirty,
    step: &Step,
    next: &Step,
    error: &ErrorInfo,
    changes: Changes,
    em: &mut Emitter<'_>,
) -> Result<(), ErrorInfo> {
    let stopped = |why: String| {
        let mut e = error.clone();
        e.message = format!(
            "{} failed ({}: {}) and {why}",
            step.label(),
            error.kind,
            error.message
        );
        e.recoverable = false;
        e
    };
    let action = dirty_action(
        policy,
        changes.unwrap_or(Ok(Vec::new())),
        &step.label(),
        &next.label(),
    );
    let list = match action {
        DirtyAction::HandOn => return Ok(()),
        DirtyAction::Warn(why) => {
            em.log(LogLevel::Warn, why);
            return Ok(());
        }
        DirtyAction::Stop(why) => return Err(stopped(why)),
        DirtyAction::Stash(list) => list,
    };
    let message = format!(
        "agentgate {}: changes left by {} ({})",
        em.run_id,
        step.label(),
        error.kind
    );
    let cwd = step.request.cwd.clone();
    match blocking(move || workspace::stash(&cwd, &message)).await {
        Ok(stash) => {
            em.notice(format!(
                "stashed the changes {} left ({list}) as {stash}",
                step.label()
            ));
            Ok(())
        }
        Err(e) => Err(stopped(format!(
            "left changes in the workspace ({list}) that could not be stashed ({e}), so the chain stopped before {}",
            next.label()
        ))),
    }
}

/// What failover does about the workspace a failed step left.
#[derive(Debug, PartialEq, Eq)]
enum DirtyAction {
    /// Nothing changed: hand on.
    HandOn,
    /// Hand on, with this warning.
    Warn(String),
    /// Stash these changes, then hand on.
    Stash(String),
    /// Stop the chain, for this reason.
    Stop(String),
}

/// The `on_dirty` policy applied to what the failed step changed (an error
/// when that cannot be told: only `continue` hands on then).
fn dirty_action<E: fmt::Display>(
    policy: OnDirty,
    changes: Result<Vec<Change>, E>,
    step: &str,
    next: &str,
) -> DirtyAction {
    let changes = match changes {
        Ok(c) if c.is_empty() => return DirtyAction::HandOn,
        Ok(c) => c,
        Err(e) if policy == OnDirty::Continue => {
            return DirtyAction::Warn(format!(
                "cannot tell whether {step} changed the workspace: {e}"
            ));
        }
        Err(e) => {
            return DirtyAction::Stop(format!(
                "whether it changed the workspace cannot be told ({e}), so the chain stopped before {next} (on_dirty: {})",
                policy.as_str()
            ));
        }
    };
    let list = list_changes(&changes.iter().collect::<Vec<_>>());
    match policy {
        OnDirty::Stop => DirtyAction::Stop(format!(
            "left changes in the workspace ({list}), so the chain stopped before {next}: review them, then rerun (on_dirty: stop; `continue` hands them on, `stash` stashes them)"
        )),
        OnDirty::Continue => DirtyAction::Warn(format!(
            "{step} left changes in the workspace ({list}); handing them on to {next} (on_dirty: continue)"
        )),
        OnDirty::Stash => DirtyAction::Stash(list),
    }
}

/// At most ten changes, then how many more.
fn list_changes(changes: &[&Change]) -> String {
    let mut out: Vec<String> = changes.iter().take(10).map(|c| c.to_string()).collect();
    if changes.len() > 10 {
        out.push(format!("and {} more", changes.len() - 10));
    }
    out.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::ChangeKind;

    #[test]
    fn the_dirty_policy_decides_what_failover_does() {
        let one = || {
            Ok(vec![Change {
                path: PathBuf::from("half-done.txt"),
                kind: ChangeKind::Added,
            }])
        };
        let act = |p, c: Result<Vec<Change>, String>| dirty_action(p, c, "claude", "codex");
        for p in [OnDirty::Stop, OnDirty::Continue, OnDirty::Stash] {
            assert_eq!(act(p, Ok(Vec::new())), DirtyAction::HandOn);
        }
        match act(OnDirty::Stop, one()) {
            DirtyAction::Stop(why) => {
                assert!(why.contains("A half-done.txt"), "{why}");
                assert!(why.contains("before codex"), "{why}");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(act(OnDirty::Continue, one()), DirtyAction::Warn(w) if w.contains("half-done.txt"))
        );
        assert_eq!(
            act(OnDirty::Stash, one()),
            DirtyAction::Stash("A half-done.txt".into())
        );
        // Unknown (a folder too large to walk, git failing): only
        // `continue` hands on.
        let unknown = || Err("failed to walk /big: more than 100000 entries".to_owned());
        assert!(
            matches!(act(OnDirty::Stop, unknown()), DirtyAction::Stop(w) if w.contains("cannot be told"))
        );
        assert!(matches!(
            act(OnDirty::Stash, unknown()),
            DirtyAction::Stop(_)
        ));
        assert!(
            matches!(act(OnDirty::Continue, unknown()), DirtyAction::Warn(w) if w.contains("100000"))
        );
    }
}
