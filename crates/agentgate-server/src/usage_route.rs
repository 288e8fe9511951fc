//! `GET /v1/usage`: the store's usage report (`agentgate usage`'s, see
//! `agentgate_store::UsageReports`) as JSON, with the same parameters as
//! query parameters. The views here mirror the store's report for the
//! OpenAPI document (the store does not depend on utoipa).

use std::collections::BTreeMap;
use std::sync::Arc;

use agentgate_store::{UsageFigures, UsageParamError, UsageQuery, UsageReport, UsageRow};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::{Extension, Json};
use jiff::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use crate::error::ApiError;
use crate::state::AppState;

/// The parameters of `GET /v1/usage`, as `agentgate usage`'s flags.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct UsageParams {
    /// The time bucket of each row (UTC): day (default), week (ISO, named by
    /// its Monday) or month.
    pub by: Option<String>,
    /// The dimension rows are grouped by: provider, model, agent, chain,
    /// session, token (the API token that submitted the run), team (its
    /// team), label (every KEY=VALUE pair) or label:KEY (one key's
    /// values); without it, one row per bucket.
    pub group: Option<String>,
    /// The first day (YYYY-MM-DD, UTC) or instant (RFC 3339) covered;
    /// default: the first day of the current month.
    pub since: Option<String>,
    /// The last day covered (YYYY-MM-DD, included) or the first instant not
    /// covered (RFC 3339); default: the end of the current month.
    pub until: Option<String>,
}

/// A usage report: agent runs that started in `[since, until)`.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UsageReportView {
    /// The first instant covered (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub since: Timestamp,
    /// The first instant not covered (RFC 3339).
    #[schema(value_type = String, format = DateTime)]
    pub until: Timestamp,
    /// The bucket: day, week or month.
    pub by: String,
    /// The dimension; null without one.
    pub group: Option<String>,
    /// The rows, by bucket then group value (null last).
    pub rows: Vec<UsageRowView>,
    /// Every run of the range once (with labels, a run with two labels is
    /// in two rows but once here).
    pub totals: UsageFiguresView,
}

/// One row: a bucket and a group value's figures.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UsageRowView {
    /// The bucket's first day (YYYY-MM-DD, UTC).
    pub bucket: String,
    /// The group's value; null: runs without one (e.g. no agent).
    pub group: Option<String>,
    /// The figures.
    #[serde(flatten)]
    pub figures: UsageFiguresView,
}

/// The figures of a set of runs.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct UsageFiguresView {
    /// How many runs.
    pub runs: u64,
    /// Runs that succeeded.
    pub succeeded: u64,
    /// Runs that failed.
    pub failed: u64,
    /// Runs that were cancelled.
    pub cancelled: u64,
    /// Runs not ended (or whose process died before recording the end).
    pub running: u64,
    /// Runs by error type, whatever their status.
    pub error_types: BTreeMap<String, u64>,
    /// Input tokens (cache reads and writes apart).
    pub input_tokens: u64,
    /// Output tokens (reasoning included).
    pub output_tokens: u64,
    /// Input tokens read from the provider's cache.
    pub cache_read_tokens: u64,
    /// Input tokens written to the provider's cache.
    pub cache_write_tokens: u64,
    /// Output tokens spent on reasoning.
    pub reasoning_tokens: u64,
    /// Total tokens, as the runs recorded them.
    pub total_tokens: u64,
    /// The cost in USD of the runs that recorded one.
    pub cost_usd: f64,
    /// Runs with no cost recorded (not in `cost_usd`).
    pub runs_without_cost: u64,
}

impl From<UsageFigures> for UsageFiguresView {
    fn from(f: UsageFigures) -> Self {
        UsageFiguresView {
            runs: f.runs,
            succeeded: f.succeeded,
            failed: f.failed,
            cancelled: f.cancelled,
            running: f.running,
            error_types: f.error_types,
            input_tokens: f.input_tokens,
            output_tokens: f.output_tokens,
            cache_read_tokens: f.cache_read_tokens,
            cache_write_tokens: f.cache_write_tokens,
            reasoning_tokens: f.reasoning_tokens,
            total_tokens: f.total_tokens,
            cost_usd: f.cost_usd,
            runs_without_cost: f.runs_without_cost,
        }
    }
}

impl From<UsageRow> for UsageRowView {
    fn from(r: UsageRow) -> Self {
        UsageRowView {
            bucket: r.bucket,
            group: r.group,
            figures: r.figures.into(),
        }
    }
}

impl From<UsageReport> for UsageReportView {
    fn from(r: UsageReport) -> Self {
        UsageReportView {
            since: r.since,
            until: r.until,
            by: r.by.as_str().to_owned(),
            group: r.group,
            rows: r.rows.into_iter().map(Into::into).collect(),
            totals: r.totals.into(),
        }
    }
}

/// The parameter a [`UsageParamError`] is about.
fn parameter_of(error: &UsageParamError) -> &'static str {
    match error {
        UsageParamError::Bucket(_) => "by",
        UsageParamError::Group(_) => "group",
        UsageParamError::Time { name, .. } => name,
        UsageParamError::EmptyRange { .. } => "since",
    }
}

/// `GET /v1/usage`: what the stored runs spent.
#[utoipa::path(
    get,
    path = "/v1/usage",
    tag = "usage",
    params(UsageParams),
    responses(
        (status = 200, description = "The usage report: runs by outcome, tokens by class and cost, by bucket and group, and the totals. A token with a team and without `read:all` gets its team's runs only", body = UsageReportView),
        (status = 400, description = "A parameter is not valid (the message names it)", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn usage(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<crate::access::Caller>,
    params: Result<Query<UsageParams>, QueryRejection>,
) -> Result<Json<UsageReportView>, ApiError> {
    let Query(params) = params.map_err(|e| {
        ApiError::invalid_parameter(
            "query",
            e.body_text()
                .trim_start_matches("Failed to deserialize query string: ")
                .to_owned(),
        )
    })?;
    let mut query = UsageQuery::from_params(
        params.by.as_deref(),
        params.group.as_deref(),
        params.since.as_deref(),
        params.until.as_deref(),
        state.clock.now(),
    )
    .map_err(|e| ApiError::invalid_parameter(parameter_of(&e), e))?;
    // A team's reader sees its team's runs only, here as in the lists.
    query.team = caller.team_only().map(str::to_owned);
    let store = Arc::clone(&state.store);
    let report = tokio::task::spawn_blocking(move || store.usage_report(&query))
        .await
        .map_err(|e| ApiError::internal(format!("the usage report failed: {e}")))?
        .map_err(|e| ApiError::store(&e))?;
    Ok(Json(report.into()))
}
