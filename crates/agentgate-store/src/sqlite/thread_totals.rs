//! The `thread_totals` table: cumulative usage of provider threads.

use agentgate_protocol::Usage;
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, params};

use super::DbError;
use super::values::timestamp_to_sql;

pub(super) fn get(
    conn: &Connection,
    provider: &str,
    thread_id: &str,
) -> Result<Option<Usage>, DbError> {
    let json: Option<String> = conn
        .query_row(
            "SELECT usage FROM thread_totals WHERE provider = ?1 AND thread_id = ?2",
            [provider, thread_id],
            |row| row.get(0),
        )
        .optional()?;
    json.map(|json| serde_json::from_str(&json))
        .transpose()
        .map_err(|source| DbError::Json {
            op: "decode the stored thread totals",
            source,
        })
}

pub(super) fn put(
    conn: &Connection,
    provider: &str,
    thread_id: &str,
    totals: &Usage,
    now: Timestamp,
) -> Result<(), DbError> {
    let json = serde_json::to_string(totals).map_err(|source| DbError::Json {
        op: "encode the thread totals",
        source,
    })?;
    conn.execute(
        "INSERT INTO thread_totals (provider, thread_id, usage, updated_at) \
         VALUES (?1, ?2, ?3, ?4) \
         ON CONFLICT (provider, thread_id) DO UPDATE SET \
         usage = excluded.usage, updated_at = excluded.updated_at",
        params![provider, thread_id, json, timestamp_to_sql(now)],
    )?;
    Ok(())
}
