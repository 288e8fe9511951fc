//! The `quota` table: the last known state of each provider's usage limit,
//! with the rate-limit windows last read off the wire (`jsonb`; NULL when
//! there are none, as on rows stored before schema version 10).

use agentgate_protocol::RateLimitWindow;
use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use super::values::name_from_sql;
use crate::records::QuotaState;

const COLUMNS: &str = "provider, status, reset_at, source, updated_at, message, windows";

pub(super) async fn put(
    client: &impl GenericClient,
    provider: &str,
    state: &QuotaState,
) -> Result<(), PgError> {
    let windows = (!state.windows.is_empty()).then_some(Json(&state.windows));
    client
        .execute(
            &format!(
                "INSERT INTO quota ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                 ON CONFLICT (provider) DO UPDATE SET status = excluded.status, \
                 reset_at = excluded.reset_at, source = excluded.source, \
                 updated_at = excluded.updated_at, message = excluded.message, \
                 windows = excluded.windows"
            ),
            &[
                &provider,
                &state.status.as_str(),
                &state.reset_at,
                &state.source,
                &state.updated_at,
                &state.message,
                &windows,
            ],
        )
        .await?;
    Ok(())
}

pub(super) async fn get(
    client: &impl GenericClient,
    provider: &str,
) -> Result<Option<QuotaState>, PgError> {
    client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM quota WHERE provider = $1"),
            &[&provider],
        )
        .await?
        .map(|row| from_row(&row).map(|(_, state)| state))
        .transpose()
}

/// Every provider's state, by provider (`COLLATE "C"`).
pub(super) async fn list(
    client: &impl GenericClient,
) -> Result<Vec<(String, QuotaState)>, PgError> {
    client
        .query(
            &format!("SELECT {COLUMNS} FROM quota ORDER BY provider"),
            &[],
        )
        .await?
        .iter()
        .map(from_row)
        .collect()
}

fn from_row(row: &Row) -> Result<(String, QuotaState), PgError> {
    let windows: Option<Json<Vec<RateLimitWindow>>> = row.try_get("windows")?;
    Ok((
        row.try_get("provider")?,
        QuotaState {
            status: name_from_sql("quota.status", row.try_get("status")?)?,
            reset_at: row.try_get("reset_at")?,
            source: row.try_get("source")?,
            updated_at: row.try_get("updated_at")?,
            message: row.try_get("message")?,
            windows: windows.map(|Json(w)| w).unwrap_or_default(),
        },
    ))
}
