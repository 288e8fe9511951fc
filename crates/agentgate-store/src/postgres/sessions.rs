//! The `sessions` table, and `session_rotations`: the native sessions a
//! name moved through when `max_context_tokens` rotated it.

use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use super::values::{from_bigint, opt_from_bigint, opt_to_bigint, to_bigint};
use crate::records::{SessionRecord, SessionRotation};

const COLUMNS: &str =
    "name, provider, native_session_id, cwd, created_at, updated_at, turns, labels, context_tokens";

const ROTATION_COLUMNS: &str = "name, provider, rotated_at, run_id, old_native_id, new_native_id, \
     reason, context_tokens, max_context_tokens, handoff";

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
    let context = opt_to_bigint("sessions.context_tokens", session.context_tokens)?;
    client
        .execute(
            &format!(
                "INSERT INTO sessions ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                 ON CONFLICT (name, provider) DO UPDATE SET \
                 native_session_id = excluded.native_session_id, cwd = excluded.cwd, \
                 updated_at = excluded.updated_at, turns = excluded.turns, \
                 context_tokens = excluded.context_tokens"
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
                &context,
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
        context_tokens: opt_from_bigint("sessions.context_tokens", row.try_get("context_tokens")?)?,
    })
}

pub(super) async fn add_rotation(
    client: &impl GenericClient,
    r: &SessionRotation,
) -> Result<(), PgError> {
    let context = opt_to_bigint("session_rotations.context_tokens", r.context_tokens)?;
    let limit = opt_to_bigint("session_rotations.max_context_tokens", r.max_context_tokens)?;
    client
        .execute(
            &format!(
                "INSERT INTO session_rotations ({ROTATION_COLUMNS}) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)"
            ),
            &[
                &r.name,
                &r.provider,
                &r.rotated_at,
                &r.run_id,
                &r.old_native_id,
                &r.new_native_id,
                &r.reason,
                &context,
                &limit,
                &r.handoff,
            ],
        )
        .await?;
    Ok(())
}

/// The rotations of session `name` (every session's without one), oldest
/// first within a name.
pub(super) async fn list_rotations(
    client: &impl GenericClient,
    name: Option<&str>,
) -> Result<Vec<SessionRotation>, PgError> {
    let rows = client
        .query(
            &format!(
                "SELECT {ROTATION_COLUMNS} FROM session_rotations \
                 WHERE $1::text IS NULL OR name = $1 ORDER BY name, provider, rotated_at"
            ),
            &[&name],
        )
        .await?;
    rows.iter()
        .map(|row| {
            Ok(SessionRotation {
                name: row.try_get("name")?,
                provider: row.try_get("provider")?,
                rotated_at: row.try_get("rotated_at")?,
                run_id: row.try_get("run_id")?,
                old_native_id: row.try_get("old_native_id")?,
                new_native_id: row.try_get("new_native_id")?,
                reason: row.try_get("reason")?,
                context_tokens: opt_from_bigint(
                    "session_rotations.context_tokens",
                    row.try_get("context_tokens")?,
                )?,
                max_context_tokens: opt_from_bigint(
                    "session_rotations.max_context_tokens",
                    row.try_get("max_context_tokens")?,
                )?,
                handoff: row.try_get("handoff")?,
            })
        })
        .collect()
}
