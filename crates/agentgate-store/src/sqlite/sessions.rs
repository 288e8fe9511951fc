//! The `sessions` table, and `session_rotations`: the native sessions a
//! name moved through when `max_context_tokens` rotated it.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::DbError;
use super::values::{timestamp_from_sql, timestamp_to_sql};
use crate::records::{SessionRecord, SessionRotation};

const COLUMNS: &str =
    "name, provider, native_session_id, cwd, created_at, updated_at, turns, labels, context_tokens";

const ROTATION_COLUMNS: &str = "name, provider, rotated_at, run_id, old_native_id, new_native_id, \
     reason, context_tokens, max_context_tokens, handoff";

pub(super) fn get(
    conn: &Connection,
    name: &str,
    provider: &str,
) -> Result<Option<SessionRecord>, DbError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM sessions WHERE name = ?1 AND provider = ?2"),
        [name, provider],
        |row| Ok(from_row(row)),
    )
    .optional()?
    .transpose()
}

pub(super) fn put(conn: &Connection, session: &SessionRecord) -> Result<(), DbError> {
    // The labels of the run that created the session: an update keeps them.
    let labels_json = if session.labels.is_empty() {
        None
    } else {
        Some(
            serde_json::to_string(&session.labels).map_err(|source| DbError::Json {
                op: "encode the session's labels",
                source,
            })?,
        )
    };
    conn.execute(
        &format!(
            "INSERT INTO sessions ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
             ON CONFLICT (name, provider) DO UPDATE SET \
             native_session_id = excluded.native_session_id, cwd = excluded.cwd, \
             updated_at = excluded.updated_at, turns = excluded.turns, \
             context_tokens = excluded.context_tokens"
        ),
        params![
            session.name,
            session.provider,
            session.native_session_id,
            session.cwd,
            timestamp_to_sql(session.created_at),
            timestamp_to_sql(session.updated_at),
            session.turns,
            labels_json,
            session.context_tokens,
        ],
    )?;
    Ok(())
}

pub(super) fn delete(conn: &Connection, name: &str, provider: &str) -> Result<bool, DbError> {
    let deleted = conn.execute(
        "DELETE FROM sessions WHERE name = ?1 AND provider = ?2",
        [name, provider],
    )?;
    Ok(deleted > 0)
}

pub(super) fn list(conn: &Connection) -> Result<Vec<SessionRecord>, DbError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM sessions ORDER BY name, provider"
    ))?;
    let mut rows = stmt.query([])?;
    let mut sessions = Vec::new();
    while let Some(row) = rows.next()? {
        sessions.push(from_row(row)?);
    }
    Ok(sessions)
}

fn from_row(row: &Row<'_>) -> Result<SessionRecord, DbError> {
    Ok(SessionRecord {
        name: row.get("name")?,
        provider: row.get("provider")?,
        native_session_id: row.get("native_session_id")?,
        cwd: row.get("cwd")?,
        created_at: timestamp_from_sql("sessions.created_at", row.get("created_at")?)?,
        updated_at: timestamp_from_sql("sessions.updated_at", row.get("updated_at")?)?,
        turns: row.get("turns")?,
        labels: super::runs::labels_from_sql(row.get("labels")?)?,
        context_tokens: row.get("context_tokens")?,
    })
}

pub(super) fn add_rotation(conn: &Connection, r: &SessionRotation) -> Result<(), DbError> {
    conn.execute(
        &format!(
            "INSERT INTO session_rotations ({ROTATION_COLUMNS}) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)"
        ),
        params![
            r.name,
            r.provider,
            timestamp_to_sql(r.rotated_at),
            r.run_id,
            r.old_native_id,
            r.new_native_id,
            r.reason,
            r.context_tokens,
            r.max_context_tokens,
            r.handoff,
        ],
    )?;
    Ok(())
}

/// The rotations of session `name` (every session's without one), oldest
/// first within a name.
pub(super) fn list_rotations(
    conn: &Connection,
    name: Option<&str>,
) -> Result<Vec<SessionRotation>, DbError> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {ROTATION_COLUMNS} FROM session_rotations \
         WHERE ?1 IS NULL OR name = ?1 ORDER BY name, provider, rotated_at, rowid"
    ))?;
    let mut rows = stmt.query([name])?;
    let mut out = Vec::new();
    while let Some(row) = rows.next()? {
        out.push(SessionRotation {
            name: row.get("name")?,
            provider: row.get("provider")?,
            rotated_at: timestamp_from_sql("session_rotations.rotated_at", row.get("rotated_at")?)?,
            run_id: row.get("run_id")?,
            old_native_id: row.get("old_native_id")?,
            new_native_id: row.get("new_native_id")?,
            reason: row.get("reason")?,
            context_tokens: row.get("context_tokens")?,
            max_context_tokens: row.get("max_context_tokens")?,
            handoff: row.get("handoff")?,
        });
    }
    Ok(out)
}
