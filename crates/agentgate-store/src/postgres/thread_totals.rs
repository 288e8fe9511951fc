//! The `thread_totals` table: cumulative usage of provider threads, as
//! `jsonb`.

use agentgate_protocol::Usage;
use jiff::Timestamp;
use tokio_postgres::GenericClient;
use tokio_postgres::types::Json;

use super::PgError;

pub(super) async fn get(
    client: &impl GenericClient,
    provider: &str,
    thread_id: &str,
) -> Result<Option<Usage>, PgError> {
    let row = client
        .query_opt(
            "SELECT usage FROM thread_totals WHERE provider = $1 AND thread_id = $2",
            &[&provider, &thread_id],
        )
        .await?;
    match row {
        None => Ok(None),
        Some(row) => {
            let Json(usage) = row.try_get::<_, Json<Usage>>(0)?;
            Ok(Some(usage))
        }
    }
}

pub(super) async fn put(
    client: &impl GenericClient,
    provider: &str,
    thread_id: &str,
    totals: &Usage,
    now: Timestamp,
) -> Result<(), PgError> {
    client
        .execute(
            "INSERT INTO thread_totals (provider, thread_id, usage, updated_at) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (provider, thread_id) DO UPDATE SET \
             usage = excluded.usage, updated_at = excluded.updated_at",
            &[&provider, &thread_id, &Json(totals), &now],
        )
        .await?;
    Ok(())
}
