//! Usage reports on SQLite (see `crate::usage`): one `GROUP BY` over the
//! index `runs_usage` (migration 12), named with `INDEXED BY` so
//! the plan cannot drift to a table scan.

use rusqlite::{Connection, Row, ToSql};

use super::DbError;
use super::values::timestamp_to_sql;
use crate::usage::{UsageBucket, UsageCell, UsageGroup, UsageQuery};

/// The sums of `query`'s runs per bucket, value of `group`, status and
/// error type.
pub(super) fn usage_cells(
    conn: &Connection,
    query: &UsageQuery,
    group: Option<&UsageGroup>,
) -> Result<Vec<UsageCell>, DbError> {
    let bucket = match query.by {
        UsageBucket::Day => "substr(runs.started_at, 1, 10)",
        UsageBucket::Week => "date(substr(runs.started_at, 1, 10), '-6 days', 'weekday 1')",
        UsageBucket::Month => "substr(runs.started_at, 1, 7) || '-01'",
    };
    let since = timestamp_to_sql(query.since);
    let until = timestamp_to_sql(query.until);
    let mut values: Vec<&dyn ToSql> = vec![&since, &until];
    let label_key = group.and_then(UsageGroup::label_key);
    if let Some(label_key) = &label_key {
        values.push(label_key);
    }
    let (key, join) = crate::usage::group_sql(group, "NULL", "?3");
    if let Some(team) = &query.team {
        values.push(team);
    }
    let team = crate::usage::team_condition(query, &format!("?{}", values.len()));
    let sql = format!(
        "SELECT {bucket}, {key}, runs.status, runs.error_type, COUNT(*), COUNT(runs.cost_usd), \
         TOTAL(runs.input_tokens), TOTAL(runs.output_tokens), \
         TOTAL(runs.cache_read_input_tokens), TOTAL(runs.cache_creation_input_tokens), \
         TOTAL(runs.reasoning_tokens), TOTAL(runs.total_tokens), TOTAL(runs.cost_usd) \
         FROM runs INDEXED BY runs_usage {join} \
         WHERE runs.kind = 'agent' AND runs.started_at >= ?1 AND runs.started_at < ?2{team} \
         GROUP BY 1, 2, 3, 4"
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = stmt.query(values.as_slice())?;
    let mut cells = Vec::new();
    while let Some(row) = rows.next()? {
        cells.push(cell_from_row(row)?);
    }
    Ok(cells)
}

fn cell_from_row(row: &Row<'_>) -> Result<UsageCell, DbError> {
    // TOTAL() is a float (it never overflows); token sums stay far below
    // 2^53, where a float holds every integer exactly.
    let count = |i: usize| -> Result<u64, DbError> {
        let n: i64 = row.get(i)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let tokens = |i: usize| -> Result<u64, DbError> {
        let n: f64 = row.get(i)?;
        Ok(if n > 0.0 { n.round() as u64 } else { 0 })
    };
    Ok(UsageCell {
        bucket: row.get(0)?,
        group: row.get(1)?,
        status: row.get(2)?,
        error_type: row.get(3)?,
        runs: count(4)?,
        runs_with_cost: count(5)?,
        input_tokens: tokens(6)?,
        output_tokens: tokens(7)?,
        cache_read_tokens: tokens(8)?,
        cache_write_tokens: tokens(9)?,
        reasoning_tokens: tokens(10)?,
        total_tokens: tokens(11)?,
        cost_usd: row.get(12)?,
    })
}
