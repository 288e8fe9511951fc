//! Listing the queue's jobs (`JobQueue::list_jobs`): newest first by
//! enqueue time then id, narrowed by a [`JobFilter`] (state, session,
//! provider, labels, a window of enqueue times), a keyset page at a time
//! (the cursor is the last row's time and id, so a page never repeats or
//! skips a job, whatever is enqueued meanwhile). The order is the index
//! `jobs_by_created`'s (`jobs_by_state`'s and `jobs_by_session`'s after
//! their first column); the window and the cursor bound its range.

use jiff::Timestamp;
use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::PgError;
use super::jobs::{COLUMNS, record_from_row};
use super::values::{describe, window_bound};
use crate::UnreadableRow;
use crate::jobs::{CursorTime, JobCursor, JobFilter, JobPage, JobState};

pub(super) async fn list<C: GenericClient + Sync>(
    client: &C,
    filter: &JobFilter,
    limit: usize,
    cursor: Option<&JobCursor>,
) -> Result<JobPage, PgError> {
    if limit == 0 {
        return Ok(JobPage {
            jobs: Vec::new(),
            unreadable: Vec::new(),
            next: None,
        });
    }
    let state = filter.state.map(JobState::as_str);
    // One more than asked tells whether there is a next page.
    let fetch = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
    let mut conditions: Vec<String> = Vec::new();
    let mut values: Vec<&(dyn ToSql + Sync)> = vec![&fetch];
    if let Some(state) = &state {
        values.push(state);
        conditions.push(format!("state = ${}", values.len()));
    }
    if let Some(session) = &filter.session {
        values.push(session);
        conditions.push(format!("session_name = ${}", values.len()));
    }
    if let Some(provider) = &filter.provider {
        // `?`: the array holds this string as an element (not a substring).
        values.push(provider);
        conditions.push(format!("providers ? ${}", values.len()));
    }
    for (key, value) in &filter.labels {
        // One probe of the index `labels_by_value` per label.
        values.push(key);
        values.push(value);
        let n = values.len();
        conditions.push(format!(
            "job_id IN (SELECT id FROM labels WHERE key = ${} AND value = ${n})",
            n - 1
        ));
    }
    let since = filter.since.map(window_bound);
    let until = filter.until.map(window_bound);
    if let Some(since) = &since {
        values.push(since);
        conditions.push(format!("created_at >= ${}", values.len()));
    }
    if let Some(until) = &until {
        values.push(until);
        conditions.push(format!("created_at < ${}", values.len()));
    }
    if let Some(cursor) = cursor {
        // A stored text (of a time that did not read) is cast back by the
        // database, where it came from.
        let cast = match &cursor.created_at {
            CursorTime::At(at) => {
                values.push(at);
                ""
            }
            CursorTime::Stored(text) => {
                values.push(text);
                "::text::timestamptz"
            }
        };
        values.push(&cursor.job_id);
        let n = values.len();
        conditions.push(format!("(created_at, job_id) < (${}{cast}, ${n})", n - 1));
    }
    let condition = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    let rows = client
        .query(
            &format!(
                "SELECT {COLUMNS}, created_at::text AS created_at_text FROM jobs {condition} \
                 ORDER BY created_at DESC, job_id DESC LIMIT $1"
            ),
            &values,
        )
        .await?;
    // Each row in order: read, or why not, with where it sorts.
    let mut listed = Vec::new();
    for row in &rows {
        let job_id: String = row.try_get("job_id")?;
        let at = match row.try_get::<_, Timestamp>("created_at") {
            Ok(at) => CursorTime::At(at),
            Err(_) => CursorTime::Stored(row.try_get("created_at_text")?),
        };
        let record =
            record_from_row(row).map_err(|e| UnreadableRow::new(job_id.clone(), describe(row, e)));
        listed.push((at, job_id, record));
    }
    Ok(JobPage::from_listed(listed, limit))
}
