//! `GET /v1/runs` and `GET /v1/runs/{id}`: the store's jobs, as
//! [`RunView`]s. Every store call runs on the blocking pool.

use std::sync::Arc;

use agentgate_store::{JobCursor, JobFilter, JobState, TimeWindow, validate_run_id};
use axum::extract::rejection::QueryRejection;
use axum::extract::{Path, Query, RawQuery, State};
use axum::{Extension, Json};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::access::Caller;
use crate::error::ApiError;
use crate::state::AppState;
use crate::views::{RunPage, RunView, UnreadableRun};

/// The page size without `limit`.
pub const DEFAULT_PAGE: usize = 50;
/// The largest `limit`.
pub const MAX_PAGE: usize = 500;

/// The filters and page of `GET /v1/runs`; every filter given narrows the
/// list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// Only runs in this state: queued, running, succeeded, failed,
    /// cancelled or abandoned.
    pub status: Option<String>,
    /// Only runs whose provider list names this provider.
    pub provider: Option<String>,
    /// Only runs of this logical session.
    pub session: Option<String>,
    /// Only runs carrying this label, `KEY=VALUE` (URL-encoded: `label=chat%3D42`
    /// or `label=chat=42`). Repeat it for more labels: every one must match.
    /// Read through the store's label index.
    pub label: Option<String>,
    /// Only runs submitted (enqueued) at or after this time: an RFC 3339
    /// time (`2026-11-30T10:00:00Z`, or with an offset,
    /// `2026-11-30T11:00:00%2B01:00`: a `+` URL-encoded) or a date
    /// (`2026-11-30`: that day's start, UTC). The list's order and pages
    /// are by this same time.
    pub since: Option<String>,
    /// Only runs submitted before this time (not at it): an RFC 3339 time,
    /// or a date (`2026-11-30`: that day's end, UTC, so the day is in the
    /// window). Must be after `since`.
    pub until: Option<String>,
    /// At most this many runs (1 to 500, default 50).
    pub limit: Option<String>,
    /// The `next_cursor` of the previous page, unchanged.
    pub cursor: Option<String>,
}

impl ListParams {
    /// The store's filter, page size and cursor; a bad value is a 400
    /// naming its parameter.
    fn parse(self, labels: Vec<String>) -> Result<(JobFilter, usize, Option<JobCursor>), ApiError> {
        let labels = agentgate_protocol::parse_labels(labels.iter().map(String::as_str))
            .map_err(|e| ApiError::invalid_parameter("label", e.to_string()))?;
        let status = self
            .status
            .map(|s| {
                s.parse::<JobState>().map_err(|_| {
                    let names: Vec<&str> = JobState::ALL.iter().map(|s| s.as_str()).collect();
                    ApiError::invalid_parameter(
                        "status",
                        format!("`{s}` is not a state; use one of {}", names.join(", ")),
                    )
                })
            })
            .transpose()?;
        let non_empty = |name: &str, value: Option<String>| match value {
            Some(v) if v.is_empty() => Err(ApiError::invalid_parameter(name, "it is empty")),
            other => Ok(other),
        };
        let provider = non_empty("provider", self.provider)?;
        let session = non_empty("session", self.session)?;
        let limit = match self.limit {
            None => DEFAULT_PAGE,
            Some(l) => l
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_PAGE).contains(n))
                .ok_or_else(|| {
                    ApiError::invalid_parameter(
                        "limit",
                        format!("`{l}` is not a whole number from 1 to {MAX_PAGE}"),
                    )
                })?,
        };
        let cursor = self
            .cursor
            .map(|c| {
                c.parse::<JobCursor>()
                    .map_err(|e| ApiError::invalid_parameter("cursor", e))
            })
            .transpose()?;
        let window = TimeWindow::from_params(self.since.as_deref(), self.until.as_deref())
            .map_err(|e| ApiError::invalid_parameter(e.parameter(), e))?;
        let filter = JobFilter {
            state: status,
            provider,
            session,
            labels,
            since: window.since,
            until: window.until,
        };
        Ok((filter, limit, cursor))
    }
}

/// The query's `label` values (repeatable, so not for serde's struct
/// reading, which refuses a repeated key), and the other parameters read
/// as [`ListParams`].
fn split_query(raw: &str) -> Result<(ListParams, Vec<String>), ApiError> {
    let query_error = |e: QueryRejection| {
        ApiError::invalid_parameter(
            "query",
            e.body_text()
                .trim_start_matches("Failed to deserialize query string: ")
                .to_owned(),
        )
    };
    let uri = |query: &str| {
        format!("/v1/runs?{query}")
            .parse::<axum::http::Uri>()
            .map_err(|e| ApiError::invalid_parameter("query", e.to_string()))
    };
    let (label_parts, rest): (Vec<&str>, Vec<&str>) = raw
        .split('&')
        .filter(|part| !part.is_empty())
        .partition(|part| part.split('=').next() == Some("label"));
    let labels = Query::<Vec<(String, String)>>::try_from_uri(&uri(&label_parts.join("&"))?)
        .map_err(query_error)?
        .0
        .into_iter()
        .map(|(_, value)| value)
        .collect();
    let Query(params) =
        Query::<ListParams>::try_from_uri(&uri(&rest.join("&"))?).map_err(query_error)?;
    Ok((params, labels))
}

/// `GET /v1/runs`: the runs, newest first, one page at a time.
#[utoipa::path(
    get,
    path = "/v1/runs",
    tag = "runs",
    params(ListParams),
    responses(
        (status = 200, description = "One page of runs, newest first; a run whose row the store cannot read is listed in `unreadable` with why, the others as usual", body = RunPage),
        (status = 400, description = "A parameter is not valid (the message names it)", body = crate::error::ErrorBody),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
    ),
)]
pub async fn list_runs(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    RawQuery(raw): RawQuery,
) -> Result<Json<RunPage>, ApiError> {
    let (params, labels) = split_query(raw.as_deref().unwrap_or(""))?;
    let (mut filter, limit, cursor) = params.parse(labels)?;
    if !crate::submitters::narrow(&caller, &mut filter) {
        return Ok(Json(RunPage {
            runs: Vec::new(),
            next_cursor: None,
            unreadable: Vec::new(),
        }));
    }
    let store = Arc::clone(&state.store);
    let page =
        tokio::task::spawn_blocking(move || store.list_jobs(&filter, limit, cursor.as_ref()))
            .await
            .map_err(|e| ApiError::internal(format!("listing the runs failed: {e}")))?
            .map_err(|e| ApiError::store(&e))?;
    for bad in &page.unreadable {
        tracing::warn!(run = %bad.id, error = %bad.error, "a run of the store cannot be read");
    }
    let ids = page.jobs.iter().map(|j| j.job_id.clone()).collect();
    let mut submitters = crate::submitters::submitters_of(&state, ids).await?;
    Ok(Json(RunPage {
        runs: page
            .jobs
            .into_iter()
            .map(|job| {
                let submitted_by = submitters.remove(&job.job_id).map(Into::into);
                RunView {
                    submitted_by,
                    ..RunView::from(job)
                }
            })
            .collect(),
        next_cursor: page.next.map(|c| c.to_string()),
        unreadable: page
            .unreadable
            .into_iter()
            .map(|bad| UnreadableRun {
                run_id: bad.id,
                error: bad.error,
            })
            .collect(),
    }))
}

/// `GET /v1/runs/{id}`: one run, with its envelope once it ended.
#[utoipa::path(
    get,
    path = "/v1/runs/{id}",
    tag = "runs",
    params(("id" = String, Path, description = "The run's id")),
    responses(
        (status = 200, description = "The run", body = RunView),
        (status = 401, description = "No valid bearer token", body = crate::error::ErrorBody),
        (status = 404, description = "No run has this id", body = crate::error::ErrorBody),
    ),
)]
pub async fn get_run(
    State(state): State<Arc<AppState>>,
    Extension(caller): Extension<Caller>,
    Path(id): Path<String>,
) -> Result<Json<RunView>, ApiError> {
    let unknown = || ApiError::no_such(format!("no run has the id `{id}`"));
    crate::submitters::ensure_visible(&state, &caller, &id, unknown).await?;
    let job = find_job(&state, id.clone()).await?;
    let submitted_by = crate::submitters::submitters_of(&state, vec![id.clone()])
        .await?
        .remove(&id)
        .map(Into::into);
    Ok(Json(RunView {
        submitted_by,
        ..RunView::from(job)
    }))
}

/// The job `id`, or a 404 naming it.
pub async fn find_job(
    state: &Arc<AppState>,
    id: String,
) -> Result<agentgate_store::JobRecord, ApiError> {
    let store = Arc::clone(&state.store);
    let lookup = id.clone();
    let job = tokio::task::spawn_blocking(move || {
        if validate_run_id(&lookup).is_err() {
            return Ok(None);
        }
        store.get_job(&lookup)
    })
    .await
    .map_err(|e| ApiError::internal(format!("reading the run failed: {e}")))?
    .map_err(|e| ApiError::store(&e))?;
    job.ok_or_else(|| ApiError::no_such(format!("no run has the id `{id}`")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> ListParams {
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let uri: axum::http::Uri = format!("/v1/runs?{}", query.join("&")).parse().unwrap();
        Query::<ListParams>::try_from_uri(&uri).unwrap().0
    }

    #[test]
    fn bad_values_name_their_parameter() {
        for (pairs, named) in [
            (vec![("status", "done")], "status"),
            (vec![("limit", "0")], "limit"),
            (vec![("limit", "501")], "limit"),
            (vec![("limit", "ten")], "limit"),
            (vec![("cursor", "nope")], "cursor"),
            (vec![("provider", "")], "provider"),
            (vec![("since", "yesterday")], "since"),
            (vec![("until", "2026-11-31")], "until"),
            (
                vec![
                    ("since", "2026-11-30T10:00:00Z"),
                    ("until", "2026-11-30T10:00:00Z"),
                ],
                "until",
            ),
            (
                vec![("since", "2026-11-30T10:00:00Z"), ("until", "2026-11-29")],
                "until",
            ),
        ] {
            let err = params(&pairs).parse(Vec::new()).unwrap_err();
            assert_eq!(err.status(), axum::http::StatusCode::BAD_REQUEST);
            assert!(
                err.message().starts_with(&format!("invalid {named}:")),
                "{}",
                err.message()
            );
        }
        let (filter, limit, cursor) = params(&[("status", "queued"), ("limit", "7")])
            .parse(Vec::new())
            .unwrap();
        assert_eq!(filter.state, Some(JobState::Queued));
        assert_eq!(limit, 7);
        assert!(cursor.is_none());
        assert_eq!((filter.since, filter.until), (None, None));
    }

    #[test]
    fn a_window_is_read_from_times_with_an_offset_and_dates() {
        let ts = |text: &str| text.parse::<jiff::Timestamp>().unwrap();
        // `%2B`: a `+` in a query is a space.
        let (filter, _, _) =
            split_query("since=2026-11-30T11:00:00%2B01:00&until=2026-11-30&status=failed")
                .unwrap()
                .0
                .parse(Vec::new())
                .unwrap();
        assert_eq!(filter.since, Some(ts("2026-11-30T10:00:00Z")));
        assert_eq!(filter.until, Some(ts("2026-12-01T00:00:00Z")));
        assert_eq!(filter.state, Some(JobState::Failed));
        let (filter, _, _) = params(&[("since", "2026-11-30")])
            .parse(Vec::new())
            .unwrap();
        assert_eq!(filter.since, Some(ts("2026-11-30T00:00:00Z")));
        assert_eq!(filter.until, None);
        // A `+` not encoded reads as a space: refused, naming the parameter.
        let err = split_query("until=2026-11-30T11:00:00+01:00")
            .unwrap()
            .0
            .parse(Vec::new())
            .unwrap_err();
        assert!(
            err.message().starts_with("invalid until:"),
            "{}",
            err.message()
        );
    }

    #[test]
    fn labels_are_read_from_every_label_parameter() {
        let (params, labels) =
            split_query("label=chat%3D42&status=queued&label=topic=a%20b&limit=3").unwrap();
        assert_eq!(labels, ["chat=42", "topic=a b"]);
        let (filter, limit, _) = params.parse(labels).unwrap();
        assert_eq!(filter.state, Some(JobState::Queued));
        assert_eq!(limit, 3);
        assert_eq!(
            filter.labels.into_iter().collect::<Vec<_>>(),
            [
                ("chat".to_owned(), "42".to_owned()),
                ("topic".to_owned(), "a b".to_owned())
            ]
        );
        for bad in ["label=chat", "label=%3D1", "label=a=1&label=a=2"] {
            let (params, labels) = split_query(bad).unwrap();
            let err = params.parse(labels).unwrap_err();
            assert!(
                err.message().starts_with("invalid label:"),
                "{}",
                err.message()
            );
        }
        // Another parameter given twice is still refused as before.
        assert!(split_query("status=queued&status=failed").is_err());
    }
}
