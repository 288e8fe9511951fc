//! Usage reports on PostgreSQL (see `crate::usage`): one `GROUP BY` over
//! the partial covering index `runs_usage` (schema version 11), an
//! index-only range scan on the start time.

use tokio_postgres::types::ToSql;
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use crate::usage::{UsageBucket, UsageCell, UsageGroup, UsageQuery, UsageReport, assemble};

/// The report of `query`.
pub(super) async fn usage_report(
    client: &impl GenericClient,
    query: &UsageQuery,
) -> Result<UsageReport, PgError> {
    let grouped = usage_cells(client, query, query.group.as_ref()).await?;
    // Every label pair: the totals count each run once, so they need their
    // own sums (see `assemble`).
    let totals = match query.group {
        Some(UsageGroup::Label(None)) => Some(usage_cells(client, query, None).await?),
        _ => None,
    };
    let mut answers = std::iter::once(grouped).chain(totals);
    assemble(query, |_| Ok(answers.next().unwrap_or_default()))
}

async fn usage_cells(
    client: &impl GenericClient,
    query: &UsageQuery,
    group: Option<&UsageGroup>,
) -> Result<Vec<UsageCell>, PgError> {
    let unit = match query.by {
        UsageBucket::Day => "day",
        UsageBucket::Week => "week",
        UsageBucket::Month => "month",
    };
    let bucket =
        format!("to_char(date_trunc('{unit}', runs.started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')");
    let mut values: Vec<&(dyn ToSql + Sync)> = vec![&query.since, &query.until];
    let label_key = group.and_then(UsageGroup::label_key);
    if let Some(label_key) = &label_key {
        values.push(label_key);
    }
    let (key, join) = crate::usage::group_sql(group, "NULL::text", "$3");
    if let Some(team) = &query.team {
        values.push(team);
    }
    let team = crate::usage::team_condition(query, &format!("${}", values.len()));
    let sql = format!(
        "SELECT {bucket}, {key}, runs.status, runs.error_type, COUNT(*), COUNT(runs.cost_usd), \
         COALESCE(SUM(runs.input_tokens), 0)::bigint, COALESCE(SUM(runs.output_tokens), 0)::bigint, \
         COALESCE(SUM(runs.cache_read_input_tokens), 0)::bigint, \
         COALESCE(SUM(runs.cache_creation_input_tokens), 0)::bigint, \
         COALESCE(SUM(runs.reasoning_tokens), 0)::bigint, COALESCE(SUM(runs.total_tokens), 0)::bigint, \
         COALESCE(SUM(runs.cost_usd), 0)::double precision \
         FROM runs {join} \
         WHERE runs.kind = 'agent' AND runs.started_at >= $1 AND runs.started_at < $2{team} \
         GROUP BY 1, 2, 3, 4"
    );
    let rows = client.query(&sql, &values).await?;
    rows.iter().map(cell_from_row).collect()
}

fn cell_from_row(row: &Row) -> Result<UsageCell, PgError> {
    let count = |i: usize| -> Result<u64, PgError> {
        let n: i64 = row.try_get(i)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    Ok(UsageCell {
        bucket: row.try_get(0)?,
        group: row.try_get(1)?,
        status: row.try_get(2)?,
        error_type: row.try_get(3)?,
        runs: count(4)?,
        runs_with_cost: count(5)?,
        input_tokens: count(6)?,
        output_tokens: count(7)?,
        cache_read_tokens: count(8)?,
        cache_write_tokens: count(9)?,
        reasoning_tokens: count(10)?,
        total_tokens: count(11)?,
        cost_usd: row.try_get(12)?,
    })
}
