//! The `sessions` table.

use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use super::values::{from_bigint, to_bigint};
use crate::records::SessionRecord;

const COLUMNS: &str =
    "name, provider, native_session_id, cwd, created_at, updated_at, turns, labels";

pub(super) async fn get(
    client: &impl GenericClient,
    name: &str,
    provider: &str,
) -> Result<Option<SessionRecord>, PgError> {
    client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM sessions WHERE name = $1 AND provider = $2"),
            &[&name, &provider],
        )
        .await?
        .map(|row| from_row(&row))
        .transpose()
}

/// Inserts or replaces the session, keeping a stored `created_at`.
pub(super) async fn put(
    client: &impl GenericClient,
    session: &SessionRecord,
) -> Result<(), PgError> {
    let turns = to_bigint("sessions.turns", session.turns)?;
    client
        .execute(
            &format!(
                "INSERT INTO sessions ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                 ON CONFLICT (name, provider) DO UPDATE SET \
                 native_session_id = excluded.native_session_id, cwd = excluded.cwd, \
                 updated_at = excluded.updated_at, turns = excluded.turns"
            ),
            &[
                &session.name,
                &session.provider,
                &session.native_session_id,
                &session.cwd,
                &session.created_at,
                &session.updated_at,
                &turns,
                // The labels of the run that created the session: an
                // update keeps them.
                &(!session.labels.is_empty()).then_some(Json(&session.labels)),
            ],
        )
        .await?;
    Ok(())
}

pub(super) async fn delete(
    client: &impl GenericClient,
    name: &str,
    provider: &str,
) -> Result<bool, PgError> {
    let deleted = client
        .execute(
            "DELETE FROM sessions WHERE name = $1 AND provider = $2",
            &[&name, &provider],
        )
        .await?;
    Ok(deleted > 0)
}

/// Every session, by name then provider (both `COLLATE "C"`: byte order,
/// as in SQLite).
pub(super) async fn list(client: &impl GenericClient) -> Result<Vec<SessionRecord>, PgError> {
    client
        .query(
            &format!("SELECT {COLUMNS} FROM sessions ORDER BY name, provider"),
            &[],
        )
        .await?
        .iter()
        .map(from_row)
        .collect()
}

fn from_row(row: &Row) -> Result<SessionRecord, PgError> {
    Ok(SessionRecord {
        name: row.try_get("name")?,
        provider: row.try_get("provider")?,
        native_session_id: row.try_get("native_session_id")?,
        cwd: row.try_get("cwd")?,
        created_at: row.try_get("created_at")?,
        updated_at: row.try_get("updated_at")?,
        turns: from_bigint("sessions.turns", row.try_get("turns")?)?,
        labels: super::runs::labels_from_row(row, "labels")?,
    })
}
