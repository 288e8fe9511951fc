//! `GET /v1/skills`: what `agentgate skills --json` prints
//! ([`agentgate_core::list_skills`]: each provider's skill folders,
//! scanned; no CLI starts: `--native` is the command line's only).

use std::path::PathBuf;
use std::sync::Arc;

use agentgate_core::{SkillQuery, SkillRow, list_skills, split_names};
use axum::Json;
use axum::extract::{Query, State};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::error::ApiError;
use crate::state::AppState;

/// What to list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct SkillParams {
    /// Only these providers (comma-separated); default every provider of
    /// the config.
    pub provider: Option<String>,
    /// The project folder (absolute) whose skills are found from it up to
    /// its repository root; default the server's working directory.
    pub cwd: Option<String>,
    /// `true`: also shadowed skills and the CLIs' own (`system`) ones.
    pub all: Option<bool>,
}

/// `GET /v1/skills`: the skills each provider's CLI can see.
#[utoipa::path(
    get,
    path = "/v1/skills",
    operation_id = "list_skills",
    tag = "providers",
    params(SkillParams),
    responses(
        (status = 200, description = "One row per skill and provider; a bad SKILL.md has its `error`", body = Vec<SkillRow>),
        (status = 400, description = "A bad parameter or an unknown provider", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<Arc<AppState>>,
    params: Result<Query<SkillParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<SkillRow>>, ApiError> {
    // A parameter the route does not know is a JSON 400, as every error.
    let Query(params) = params.map_err(|e| ApiError::invalid_parameter("query", e.body_text()))?;
    let cwd = match params.cwd.as_deref() {
        Some(d) if !std::path::Path::new(d).is_absolute() => {
            return Err(ApiError::invalid_parameter("cwd", "not an absolute path"));
        }
        Some(d) => PathBuf::from(d),
        None => std::env::current_dir()
            .map_err(|e| ApiError::internal(format!("no working directory: {e}")))?,
    };
    let query = SkillQuery {
        providers: params
            .provider
            .as_deref()
            .map(split_names)
            .unwrap_or_default(),
        cwd,
        all: params.all.unwrap_or(false),
        // The server scans only: it starts no CLI to list skills.
        native: false,
    };
    // The scan reads the file system.
    tokio::task::spawn_blocking(move || list_skills(&state.config, &query))
        .await
        .map_err(|e| ApiError::internal(format!("listing the skills failed: {e}")))?
        .map(Json)
        .map_err(|e| ApiError::invalid_parameter("provider", e))
}
