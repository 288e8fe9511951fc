//! The store's and the config's state, read: `GET /v1/sessions`, `DELETE
//! /v1/sessions/{name}`, `GET /v1/quota`, `GET /v1/providers`, `GET
//! /v1/queue`. Each calls what its CLI command calls
//! (`agentgate quota --json` = [`quota_report::report`], `agentgate
//! providers --json` = [`provider_listing::list`]); store calls run on the
//! blocking pool.

use std::sync::Arc;

use agentgate_core::provider_listing::{self, ProviderListing};
use agentgate_core::quota_report;
use agentgate_store::StoreError;
use axum::Json;
use axum::extract::{Path, State};
use jiff::Timestamp;

use crate::error::ApiError;
use crate::state::AppState;
use crate::views::{
    LimitView, ProviderCounts, QueueView, QuotaList, SessionDeleted, SessionList, SessionView,
    StateCounts,
};
use agentgate_executor::RunningJob;

/// Runs `f` with the store on the blocking pool; its error is a 500.
async fn with_store<T, F>(state: &Arc<AppState>, f: F) -> Result<T, ApiError>
where
    T: Send + 'static,
    F: FnOnce(&dyn agentgate_store::StoreBackend) -> Result<T, ApiError> + Send + 'static,
{
    let store = Arc::clone(&state.store);
    tokio::task::spawn_blocking(move || f(store.as_ref()))
        .await
        .map_err(|e| ApiError::internal(format!("a store call failed: {e}")))?
}

fn store_err(e: StoreError) -> ApiError {
    ApiError::store(&e)
}

/// `GET /v1/sessions`.
#[utoipa::path(
    get,
    path = "/v1/sessions",
    tag = "sessions",
    responses(
        (status = 200, description = "Every stored session", body = SessionList),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn list_sessions(
    State(state): State<Arc<AppState>>,
) -> Result<Json<SessionList>, ApiError> {
    let (sessions, rotations) = with_store(&state, |store| {
        let sessions = store.list_sessions().map_err(store_err)?;
        let rotations = store.list_session_rotations(None).map_err(store_err)?;
        Ok((sessions, rotations))
    })
    .await?;
    let mut views: Vec<SessionView> = sessions.into_iter().map(SessionView::from).collect();
    for r in rotations {
        if let Some(v) = views
            .iter_mut()
            .find(|v| v.name == r.name && v.provider == r.provider)
        {
            v.rotations.push(r.into());
        }
    }
    Ok(Json(SessionList { sessions: views }))
}

/// `DELETE /v1/sessions/{name}`: forgets the logical session (every
/// provider's), so its next run starts a new conversation. Refused while a
/// run of that session runs.
#[utoipa::path(
    delete,
    path = "/v1/sessions/{name}",
    tag = "sessions",
    params(("name" = String, Path, description = "The logical session name")),
    responses(
        (status = 200, description = "The session was forgotten", body = SessionDeleted),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No session has this name", body = crate::error::ErrorBody),
        (status = 409, description = "A run of this session is running", body = crate::error::ErrorBody),
    ),
)]
pub async fn delete_session(
    State(state): State<Arc<AppState>>,
    Path(name): Path<String>,
) -> Result<Json<SessionDeleted>, ApiError> {
    let deleted = with_store(&state, move |store| {
        let providers: Vec<String> = store
            .list_sessions()
            .map_err(store_err)?
            .into_iter()
            .filter(|s| s.name == name)
            .map(|s| s.provider)
            .collect();
        if providers.is_empty() {
            return Err(ApiError::no_such(format!("no session is named `{name}`")));
        }
        // Held while deleting: a run of the session cannot start meanwhile.
        let Some(_lock) = store.try_lock_session(&name).map_err(store_err)? else {
            return Err(ApiError::conflict(format!(
                "session `{name}` is in use by a running run; delete it once the run ended"
            )));
        };
        for provider in &providers {
            store.delete_session(&name, provider).map_err(store_err)?;
        }
        Ok(SessionDeleted { name, providers })
    })
    .await?;
    Ok(Json(deleted))
}

/// `GET /v1/quota`: what `agentgate quota --json` prints.
#[utoipa::path(
    get,
    path = "/v1/quota",
    tag = "providers",
    responses(
        (status = 200, description = "Each provider's last usage-limit state", body = QuotaList),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn quota(State(state): State<Arc<AppState>>) -> Result<Json<QuotaList>, ApiError> {
    let config_state = Arc::clone(&state);
    let providers = with_store(&state, move |store| {
        quota_report::report(&config_state.config, Some(store), Timestamp::now()).map_err(store_err)
    })
    .await?;
    Ok(Json(QuotaList { providers }))
}

/// `GET /v1/providers`: what `agentgate providers --json` prints.
#[utoipa::path(
    get,
    path = "/v1/providers",
    tag = "providers",
    responses(
        (status = 200, description = "Every provider of the config", body = ProviderListing),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn providers(
    State(state): State<Arc<AppState>>,
) -> Result<Json<ProviderListing>, ApiError> {
    // Looking the executables up reads the file system.
    let listing = tokio::task::spawn_blocking(move || provider_listing::list(&state.config))
        .await
        .map_err(|e| ApiError::internal(format!("listing the providers failed: {e}")))?;
    Ok(Json(listing))
}

/// `GET /v1/queue`: runs per state and per provider.
#[utoipa::path(
    get,
    path = "/v1/queue",
    tag = "runs",
    responses(
        (status = 200, description = "The queue's counts", body = QueueView),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn queue(State(state): State<Arc<AppState>>) -> Result<Json<QueueView>, ApiError> {
    let counts = with_store(&state, |store| store.count_jobs().map_err(store_err)).await?;
    let mut all = StateCounts::default();
    for (job_state, n) in counts.by_state {
        all.add(job_state, n);
    }
    let mut providers: Vec<ProviderCounts> = Vec::new();
    for (provider, job_state, n) in counts.by_provider {
        match providers.last_mut() {
            Some(last) if last.provider == provider => last.counts.add(job_state, n),
            _ => {
                let mut counts = StateCounts::default();
                counts.add(job_state, n);
                providers.push(ProviderCounts { provider, counts });
            }
        }
    }
    Ok(Json(QueueView {
        counts: all,
        providers,
        limits: limits(
            &state.config.queue,
            &state
                .queue
                .as_ref()
                .map(|q| q.running())
                .unwrap_or_default(),
        ),
        executor: state.queue.is_some(),
        history: state.queue_history.samples(),
    }))
}

/// The config's limits with what runs under each (see [`QueueView`]).
fn limits(spec: &agentgate_core::QueueSpec, running: &[RunningJob]) -> Vec<LimitView> {
    let mut out = vec![LimitView {
        scope: "max_running".into(),
        name: None,
        max: spec.max_running,
        running: running.len(),
    }];
    for (provider, max) in &spec.providers {
        out.push(LimitView {
            scope: "provider".into(),
            name: Some(provider.clone()),
            max: *max,
            running: running
                .iter()
                .filter(|r| r.provider.as_deref() == Some(provider))
                .count(),
        });
    }
    let mut sessions: Vec<&str> = running
        .iter()
        .filter_map(|r| r.session.as_deref())
        .collect();
    sessions.sort_unstable();
    sessions.dedup();
    out.extend(sessions.into_iter().map(|name| {
        LimitView {
            scope: "session".into(),
            name: Some(name.to_owned()),
            max: 1,
            running: running
                .iter()
                .filter(|r| r.session.as_deref() == Some(name))
                .count(),
        }
    }));
    out
}

#[cfg(test)]
mod tests {
    use agentgate_core::QueueSpec;

    use super::*;

    fn job(provider: &str, session: Option<&str>) -> RunningJob {
        RunningJob {
            provider: Some(provider.to_owned()),
            session: session.map(str::to_owned),
            writes_in: None,
        }
    }

    #[test]
    fn each_limit_shows_what_runs_under_it() {
        let spec = QueueSpec {
            max_running: 4,
            providers: vec![("claude".into(), 2), ("gemini".into(), 1)],
            ..QueueSpec::default()
        };
        let running = [
            job("claude", Some("s1")),
            job("claude", None),
            job("codex", Some("s2")),
        ];
        let view = |scope: &str, name: Option<&str>, max, running| LimitView {
            scope: scope.into(),
            name: name.map(str::to_owned),
            max,
            running,
        };
        assert_eq!(
            limits(&spec, &running),
            [
                view("max_running", None, 4, 3),
                view("provider", Some("claude"), 2, 2),
                view("provider", Some("gemini"), 1, 0),
                view("session", Some("s1"), 1, 1),
                view("session", Some("s2"), 1, 1),
            ]
        );
        assert_eq!(
            limits(&spec, &[]).len(),
            3,
            "no session runs: no session rows"
        );
    }
}
