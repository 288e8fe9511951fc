//! What runs spent since a time, on PostgreSQL (see `crate::spend`).

use jiff::Timestamp;
use tokio_postgres::GenericClient;
use tokio_postgres::types::ToSql;

use super::PgError;
use crate::spend::{SpendScope, Spent, spend_sql};

/// The sums of `scope`'s agent runs that started at or after `since`.
pub(super) async fn spent(
    client: &impl GenericClient,
    scope: &SpendScope,
    since: Timestamp,
) -> Result<Spent, PgError> {
    let mut values: Vec<&(dyn ToSql + Sync)> = vec![&since];
    let value = scope.value().map(str::to_owned);
    if let Some(v) = &value {
        values.push(v);
    }
    let sql = spend_sql(
        scope,
        "COALESCE(SUM(runs.cost_usd), 0)::double precision",
        "COALESCE(SUM(runs.total_tokens), 0)::bigint",
        "$1",
        "$2",
    );
    let row = client.query_one(&sql, &values).await?;
    let runs: i64 = row.try_get(0)?;
    let usd: f64 = row.try_get(1)?;
    let tokens: i64 = row.try_get(2)?;
    Ok(Spent {
        usd,
        tokens: u64::try_from(tokens).unwrap_or(0),
        runs: u64::try_from(runs).unwrap_or(0),
    })
}
