//! What runs spent since a time, on SQLite (see `crate::spend`).

use jiff::Timestamp;
use rusqlite::{Connection, ToSql};

use super::DbError;
use super::values::timestamp_to_sql;
use crate::spend::{SpendScope, Spent, spend_sql};

/// The sums of `scope`'s agent runs that started at or after `since`.
pub(super) fn spent(
    conn: &Connection,
    scope: &SpendScope,
    since: Timestamp,
) -> Result<Spent, DbError> {
    let since = timestamp_to_sql(since);
    let mut values: Vec<&dyn ToSql> = vec![&since];
    let value = scope.value();
    if let Some(v) = &value {
        values.push(v);
    }
    // TOTAL() is a float that never overflows; token sums stay far below
    // 2^53, where a float holds every integer exactly.
    let sql = spend_sql(
        scope,
        "TOTAL(runs.cost_usd)",
        "TOTAL(runs.total_tokens)",
        "?1",
        "?2",
    );
    let (runs, usd, tokens): (i64, f64, f64) = conn.query_row(&sql, values.as_slice(), |row| {
        Ok((row.get(0)?, row.get(1)?, row.get(2)?))
    })?;
    Ok(Spent {
        usd,
        tokens: if tokens > 0.0 {
            tokens.round() as u64
        } else {
            0
        },
        runs: u64::try_from(runs).unwrap_or(0),
    })
}
