//! The `quota` table: the last known state of each provider's usage limit,
//! with the rate-limit windows last read off the wire (a JSON array; NULL
//! when there are none, as on rows stored before version 11).

use agentgate_protocol::RateLimitWindow;
use rusqlite::{Connection, OptionalExtension, Row, params};

use super::DbError;
use super::values::{name_from_sql, opt_timestamp_from_sql, timestamp_from_sql, timestamp_to_sql};
use crate::records::QuotaState;

const COLUMNS: &str = "provider, status, reset_at, source, updated_at, message, windows";

pub(super) fn put(conn: &Connection, provider: &str, state: &QuotaState) -> Result<(), DbError> {
    let windows = if state.windows.is_empty() {
        None
    } else {
        Some(
            serde_json::to_string(&state.windows).map_err(|source| DbError::Json {
                op: "encode the quota's rate-limit windows",
                source,
            })?,
        )
    };
    conn.execute(
        &format!(
            "INSERT INTO quota ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) \
             ON CONFLICT (provider) DO UPDATE SET status = excluded.status, \
             reset_at = excluded.reset_at, source = excluded.source, \
             updated_at = excluded.updated_at, message = excluded.message, \
             windows = excluded.windows"
        ),
        params![
            provider,
            state.status.as_str(),
            state.reset_at.map(timestamp_to_sql),
            state.source,
            timestamp_to_sql(state.updated_at),
            state.message,
            windows,
        ],
    )?;
    Ok(())
}

pub(super) fn get(conn: &Connection, provider: &str) -> Result<Option<QuotaState>, DbError> {
    conn.query_row(
        &format!("SELECT {COLUMNS} FROM quota WHERE provider = ?1"),
        [provider],
        |row| Ok(from_row(row)),
    )
    .optional()?
    .map(|state| state.map(|(_, state)| state))
    .transpose()
}

pub(super) fn list(conn: &Connection) -> Result<Vec<(String, QuotaState)>, DbError> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM quota ORDER BY provider"))?;
    let mut rows = stmt.query([])?;
    let mut states = Vec::new();
    while let Some(row) = rows.next()? {
        states.push(from_row(row)?);
    }
    Ok(states)
}

fn from_row(row: &Row<'_>) -> Result<(String, QuotaState), DbError> {
    let windows: Option<String> = row.get("windows")?;
    let windows: Vec<RateLimitWindow> = windows
        .map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|source| DbError::Json {
            op: "decode the quota's rate-limit windows",
            source,
        })?
        .unwrap_or_default();
    Ok((
        row.get("provider")?,
        QuotaState {
            status: name_from_sql("quota.status", row.get("status")?)?,
            reset_at: opt_timestamp_from_sql("quota.reset_at", row.get("reset_at")?)?,
            source: row.get("source")?,
            updated_at: timestamp_from_sql("quota.updated_at", row.get("updated_at")?)?,
            message: row.get("message")?,
            windows,
        },
    ))
}
