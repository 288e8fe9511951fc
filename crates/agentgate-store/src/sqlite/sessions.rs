//! The `sessions` table.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::DbError;
use super::values::{timestamp_from_sql, timestamp_to_sql};
use crate::records::SessionRecord;

const COLUMNS: &str =
    "name, provider, native_session_id, cwd, created_at, updated_at, turns, labels";

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
            "INSERT INTO sessions ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
             ON CONFLICT (name, provider) DO UPDATE SET \
             native_session_id = excluded.native_session_id, cwd = excluded.cwd, \
             updated_at = excluded.updated_at, turns = excluded.turns"
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
    })
}
