//! `GET /v1/models`: what `agentgate models --json` prints
//! ([`agentgate_core::list_models`]: each provider's catalog, from the
//! cache while it is fresh, else asked of the CLI with a bounded timeout;
//! `refresh=true` asks again).

use std::path::PathBuf;
use std::sync::Arc;

use agentgate_core::{ModelQuery, ProviderModels, list_models, split_names};
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
pub struct ModelParams {
    /// Only these providers (comma-separated); default every provider
    /// agentgate knows a catalog of.
    pub provider: Option<String>,
    /// `true`: ask the CLIs again whatever the cache holds.
    pub refresh: Option<bool>,
    /// `true`: also the models a CLI hides.
    pub all: Option<bool>,
}

/// `GET /v1/models`: the models each provider's CLI offers.
#[utoipa::path(
    get,
    path = "/v1/models",
    operation_id = "list_models",
    tag = "providers",
    params(ModelParams),
    responses(
        (status = 200, description = "One object per provider with its models; `source` says where they came from (`cli`, `static`, `none`), `stale` that the last refresh failed, `error` why none could be had", body = Vec<ProviderModels>),
        (status = 400, description = "A bad parameter or an unknown provider", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn list(
    State(state): State<Arc<AppState>>,
    params: Result<Query<ModelParams>, axum::extract::rejection::QueryRejection>,
) -> Result<Json<Vec<ProviderModels>>, ApiError> {
    // A parameter the route does not know is a JSON 400, as every error.
    let Query(params) = params.map_err(|e| ApiError::invalid_parameter("query", e.body_text()))?;
    let cwd: PathBuf = std::env::current_dir()
        .map_err(|e| ApiError::internal(format!("no working directory: {e}")))?;
    let query = ModelQuery {
        providers: params
            .provider
            .as_deref()
            .map(split_names)
            .unwrap_or_default(),
        refresh: params.refresh.unwrap_or(false),
        all: params.all.unwrap_or(false),
        cwd,
    };
    list_models(&state.config, &query)
        .await
        .map(Json)
        .map_err(|e| ApiError::invalid_parameter("provider", e))
}
