//! Listing the queue's jobs (`JobQueue::list_jobs`): newest first by
//! enqueue time then id, narrowed by a [`JobFilter`] (state, session,
//! provider, labels, a window of enqueue times), a keyset page at a time
//! (the cursor is the last row's time and id, so a page never repeats or
//! skips a job, whatever is enqueued meanwhile).

use rusqlite::Connection;
use rusqlite::types::ToSql;

use super::DbError;
use super::jobs::{COLUMNS, record_from_row};
use super::values::{describe, timestamp_from_sql, timestamp_to_sql};
use crate::UnreadableRow;
use crate::jobs::{CursorTime, JobCursor, JobFilter, JobPage, JobState};

/// The statement of [`list`] for `filter`, with a cursor or not: its
/// named parameters are `:limit`, `:label_key{i}`/`:label_value{i}` per
/// label, `:state`, `:session`, `:provider`, `:since`, `:until`,
/// `:cursor_at` and `:cursor_id`, each present only when its filter is.
/// The order (`created_at DESC, job_id DESC`) is the index
/// `jobs_by_created`'s (`jobs_by_state`'s and `jobs_by_session`'s after
/// their first column), and the window and the cursor bound its range.
fn list_sql(filter: &JobFilter, with_cursor: bool) -> String {
    let mut conditions: Vec<String> = Vec::new();
    for i in 0..filter.labels.len() {
        // One probe of the index `labels_by_value` per label.
        conditions.push(format!(
            "job_id IN (SELECT id FROM labels WHERE key = :label_key{i} AND value = :label_value{i})"
        ));
    }
    if filter.state.is_some() {
        conditions.push("state = :state".to_owned());
    }
    if filter.session.is_some() {
        conditions.push("session_name = :session".to_owned());
    }
    if filter.provider.is_some() {
        conditions.push(
            "EXISTS (SELECT 1 FROM json_each(jobs.providers) AS p WHERE p.value = :provider)"
                .to_owned(),
        );
    }
    // The stored text is fixed width: text order is time order.
    if filter.since.is_some() {
        conditions.push("created_at >= :since".to_owned());
    }
    if filter.until.is_some() {
        conditions.push("created_at < :until".to_owned());
    }
    if with_cursor {
        conditions.push("(created_at, job_id) < (:cursor_at, :cursor_id)".to_owned());
    }
    let condition = if conditions.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", conditions.join(" AND "))
    };
    format!(
        "SELECT {COLUMNS} FROM jobs {condition} \
         ORDER BY created_at DESC, job_id DESC LIMIT :limit"
    )
}

pub(super) fn list(
    conn: &Connection,
    filter: &JobFilter,
    limit: usize,
    cursor: Option<&JobCursor>,
) -> Result<JobPage, DbError> {
    if limit == 0 {
        return Ok(JobPage {
            jobs: Vec::new(),
            unreadable: Vec::new(),
            next: None,
        });
    }
    let state = filter.state.map(JobState::as_str);
    let cursor_at = cursor.map(|c| match &c.created_at {
        CursorTime::At(at) => timestamp_to_sql(*at),
        CursorTime::Stored(text) => text.clone(),
    });
    let cursor_id = cursor.map(|c| c.job_id.as_str());
    let since = filter.since.map(timestamp_to_sql);
    let until = filter.until.map(timestamp_to_sql);
    // One more than asked tells whether there is a next page.
    let fetch = i64::try_from(limit).unwrap_or(i64::MAX).saturating_add(1);
    let mut values: Vec<(&str, &dyn ToSql)> = vec![(":limit", &fetch)];
    let label_names: Vec<(String, String)> = (0..filter.labels.len())
        .map(|i| (format!(":label_key{i}"), format!(":label_value{i}")))
        .collect();
    for ((key, value), (key_name, value_name)) in filter.labels.iter().zip(&label_names) {
        values.push((key_name, key));
        values.push((value_name, value));
    }
    let named: [(&str, Option<&dyn ToSql>); 7] = [
        (":state", state.as_ref().map(|v| v as &dyn ToSql)),
        (":session", filter.session.as_ref().map(|v| v as &dyn ToSql)),
        (
            ":provider",
            filter.provider.as_ref().map(|v| v as &dyn ToSql),
        ),
        (":since", since.as_ref().map(|v| v as &dyn ToSql)),
        (":until", until.as_ref().map(|v| v as &dyn ToSql)),
        (":cursor_at", cursor_at.as_ref().map(|v| v as &dyn ToSql)),
        (":cursor_id", cursor_id.as_ref().map(|v| v as &dyn ToSql)),
    ];
    values.extend(
        named
            .into_iter()
            .filter_map(|(name, value)| value.map(|value| (name, value))),
    );
    let mut stmt = conn.prepare(&list_sql(filter, cursor.is_some()))?;
    let mut rows = stmt.query(values.as_slice())?;
    // Each row in order: read, or why not, with where it sorts.
    let mut listed = Vec::new();
    while let Some(row) = rows.next()? {
        let job_id: String = row.get("job_id")?;
        let created: String = row.get("created_at")?;
        let at = match timestamp_from_sql("jobs.created_at", created.clone()) {
            Ok(at) => CursorTime::At(at),
            Err(_) => CursorTime::Stored(created),
        };
        let record =
            record_from_row(row).map_err(|e| UnreadableRow::new(job_id.clone(), describe(e)));
        listed.push((at, job_id, record));
    }
    Ok(JobPage::from_listed(listed, limit))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::Timestamp;

    /// The plan of the list's statement for `filter` on a new store's
    /// schema, every parameter bound to a text.
    fn plan_of(filter: &JobFilter, with_cursor: bool) -> String {
        let conn = Connection::open_in_memory().unwrap();
        for migration in super::super::migrations::MIGRATIONS {
            conn.execute_batch(migration).unwrap();
        }
        let sql = format!("EXPLAIN QUERY PLAN {}", list_sql(filter, with_cursor));
        let mut stmt = conn.prepare(&sql).unwrap();
        for i in 1..=stmt.parameter_count() {
            stmt.raw_bind_parameter(i, "2026").unwrap();
        }
        let mut rows = stmt.raw_query();
        let mut plan = Vec::new();
        while let Some(row) = rows.next().unwrap() {
            plan.push(row.get::<_, String>(3).unwrap());
        }
        plan.join("; ")
    }

    #[test]
    fn a_window_is_a_range_of_the_index_in_its_order() {
        let at: Timestamp = "2026-11-30T10:00:00Z".parse().unwrap();
        let window = JobFilter {
            since: Some(at),
            until: Some(at),
            ..JobFilter::default()
        };
        for (filter, index) in [
            (window.clone(), "jobs_by_created"),
            (
                JobFilter {
                    state: Some(JobState::Queued),
                    ..window.clone()
                },
                "jobs_by_state",
            ),
            (
                JobFilter {
                    session: Some("s".to_owned()),
                    ..window.clone()
                },
                "jobs_by_session",
            ),
        ] {
            for with_cursor in [false, true] {
                let plan = plan_of(&filter, with_cursor);
                assert!(
                    plan.contains(&format!("SEARCH jobs USING INDEX {index} ("))
                        && plan.contains("created_at>? AND created_at<?"),
                    "{plan}"
                );
                assert!(!plan.contains("TEMP B-TREE"), "{plan}");
            }
        }
    }
}
