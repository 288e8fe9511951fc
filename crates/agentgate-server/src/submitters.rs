//! Runs and the tokens that submitted them: the reserved labels a submit
//! adds ([`with_submitter`]), a token's `max_running` ([`check_limit`]),
//! and what a team's caller may see ([`ensure_visible`], [`submitters_of`]):
//! its team's runs, and the runs their workflows' steps made.
//!
//! A run of another team is answered 404 with the same message as a run
//! that does not exist, so a team's token cannot learn that it exists.

use std::collections::HashMap;
use std::sync::Arc;

use agentgate_core::RequestError;
use agentgate_protocol::{LABELS_MAX, Labels};
use agentgate_store::{
    JobFilter, JobState, RESERVED_LABEL_PREFIX, SUBMITTER_TOKEN_LABEL, StoreBackend, Submitter,
};
use axum::http::StatusCode;

use crate::access::Caller;
use crate::error::ApiError;
use crate::state::AppState;

/// `labels` (the caller's) with the reserved labels naming `caller`: a
/// caller's own label under `agentgate.` is refused, as are more labels
/// than a run carries once these are added.
pub(crate) fn with_submitter(caller: &Caller, labels: &Labels) -> Result<Labels, RequestError> {
    if let Some(key) = labels.keys().find(|k| k.starts_with(RESERVED_LABEL_PREFIX)) {
        return Err(RequestError::new(
            "labels",
            format!(
                "label `{key}`: keys starting with `{RESERVED_LABEL_PREFIX}` are agentgate's own \
                 (the token that submitted the run)"
            ),
        ));
    }
    let mut all = labels.clone();
    all.extend(caller.submitter().labels());
    if all.len() > LABELS_MAX {
        return Err(RequestError::new(
            "labels",
            format!(
                "{} labels given; a run carries at most {LABELS_MAX}, {} of them naming the \
                 token that submitted it",
                labels.len(),
                all.len() - labels.len()
            ),
        ));
    }
    Ok(all)
}

/// 429 when `caller` has a `max_running` and that many of its jobs are
/// queued or running already (blocking: call it on the blocking pool).
pub(crate) fn check_limit(store: &dyn StoreBackend, caller: &Caller) -> Result<(), ApiError> {
    let Some(max) = caller.max_running else {
        return Ok(());
    };
    let limit = usize::try_from(max).unwrap_or(usize::MAX);
    let mut active = 0usize;
    for state in [JobState::Queued, JobState::Running] {
        let mut labels = Labels::new();
        labels.insert(SUBMITTER_TOKEN_LABEL.to_owned(), caller.name.clone());
        let filter = JobFilter {
            state: Some(state),
            labels,
            ..JobFilter::default()
        };
        let page = store
            .list_jobs(&filter, limit.max(1), None)
            .map_err(|e| ApiError::store(&e))?;
        active += page.jobs.len();
    }
    if active >= limit {
        return Err(ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "token_limit",
            format!(
                "token `{}` has {active} runs queued or running, its max_running is {max}; \
                 submit again when one ends",
                caller.name
            ),
        ));
    }
    Ok(())
}

/// Who submitted each of `ids` (empty when the store keeps no tokens).
pub(crate) async fn submitters_of(
    state: &Arc<AppState>,
    ids: Vec<String>,
) -> Result<HashMap<String, Submitter>, ApiError> {
    let store = Arc::clone(&state.store);
    tokio::task::spawn_blocking(move || match store.token_store() {
        Some(tokens) => tokens.submitters(&ids),
        None => Ok(HashMap::new()),
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading who submitted the runs failed: {e}")))?
    .map_err(|e| ApiError::store(&e))
}

/// Ok when `caller` may see the run `id`; else `unknown`, the route's
/// answer for a run that does not exist (another team's run is not told).
pub(crate) async fn ensure_visible(
    state: &Arc<AppState>,
    caller: &Caller,
    id: &str,
    unknown: impl FnOnce() -> ApiError,
) -> Result<(), ApiError> {
    if caller.team_only().is_none() {
        return Ok(());
    }
    let submitters = submitters_of(state, vec![id.to_owned()]).await?;
    if caller.sees(submitters.get(id)) {
        return Ok(());
    }
    // A run a workflow's step made is seen by whoever sees the workflow
    // (a tool step's run records no token of its own).
    if let Some(workflow) = parent_of(state, id).await? {
        let submitters = submitters_of(state, vec![workflow.clone()]).await?;
        if caller.sees(submitters.get(&workflow)) {
            return Ok(());
        }
    }
    Err(unknown())
}

/// The workflow run that made run `id`, if it is a step's run.
async fn parent_of(state: &Arc<AppState>, id: &str) -> Result<Option<String>, ApiError> {
    if agentgate_store::validate_run_id(id).is_err() {
        return Ok(None);
    }
    let store = Arc::clone(&state.store);
    let id = id.to_owned();
    tokio::task::spawn_blocking(move || store.get_run(&id))
        .await
        .map_err(|e| ApiError::internal(format!("reading the run failed: {e}")))?
        .map(|run| run.and_then(|r| r.summary.record.parent_run_id))
        .map_err(|e| ApiError::store(&e))
}

/// The filter narrowed to `caller`'s team when it sees its team's runs
/// only; false when nothing can match (the filter names another team).
pub(crate) fn narrow(caller: &Caller, filter: &mut JobFilter) -> bool {
    let Some(team) = caller.team_only() else {
        return true;
    };
    let key = agentgate_store::SUBMITTER_TEAM_LABEL;
    if filter.labels.get(key).is_some_and(|asked| asked != team) {
        return false;
    }
    filter.labels.insert(key.to_owned(), team.to_owned());
    true
}
