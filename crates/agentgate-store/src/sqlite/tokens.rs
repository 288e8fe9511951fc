//! The `api_tokens` table and the submitter labels (see
//! `crate::api_tokens`).

use std::collections::HashMap;

use jiff::Timestamp;
use rusqlite::{OptionalExtension, Row, params};

use super::values::{opt_timestamp_from_sql, timestamp_from_sql, timestamp_to_sql};
use super::{DbError, SqliteStore};
use crate::api_tokens::{
    ApiTokenRecord, SUBMITTER_TEAM_LABEL, SUBMITTER_TOKEN_LABEL, Submitter, TokenLimits,
    TokenStore, scopes_from_text, scopes_to_text, submitters_from_rows,
};
use crate::error::StoreError;

const COLUMNS: &str =
    "name, hash, team, scopes, limits, created_at, expires_at, last_used_at, revoked_at";

fn from_row(row: &Row<'_>) -> Result<ApiTokenRecord, DbError> {
    let limits: String = row.get("limits")?;
    Ok(ApiTokenRecord {
        name: row.get("name")?,
        hash: row.get("hash")?,
        team: row.get("team")?,
        scopes: scopes_from_text(&row.get::<_, String>("scopes")?),
        limits: serde_json::from_str::<TokenLimits>(&limits).map_err(|source| DbError::Json {
            op: "decode a token's limits",
            source,
        })?,
        created_at: timestamp_from_sql("api_tokens.created_at", row.get("created_at")?)?,
        expires_at: opt_timestamp_from_sql("api_tokens.expires_at", row.get("expires_at")?)?,
        last_used_at: opt_timestamp_from_sql("api_tokens.last_used_at", row.get("last_used_at")?)?,
        revoked_at: opt_timestamp_from_sql("api_tokens.revoked_at", row.get("revoked_at")?)?,
    })
}

impl TokenStore for SqliteStore {
    fn create_token(&self, token: &ApiTokenRecord) -> Result<bool, StoreError> {
        let limits = serde_json::to_string(&token.limits).map_err(|source| StoreError::Json {
            op: "encode a token's limits",
            path: self.path().to_path_buf(),
            source,
        })?;
        self.write("create an API token", |tx| {
            let inserted = tx.execute(
                &format!(
                    "INSERT INTO api_tokens ({COLUMNS}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, NULL, \
                     NULL) ON CONFLICT (name) DO NOTHING"
                ),
                params![
                    token.name,
                    token.hash,
                    token.team,
                    scopes_to_text(&token.scopes),
                    limits,
                    timestamp_to_sql(token.created_at),
                    token.expires_at.map(timestamp_to_sql),
                ],
            )?;
            Ok(inserted == 1)
        })
    }

    fn list_tokens(&self) -> Result<Vec<ApiTokenRecord>, StoreError> {
        self.read("list API tokens", |tx| {
            let mut stmt =
                tx.prepare(&format!("SELECT {COLUMNS} FROM api_tokens ORDER BY name"))?;
            let mut rows = stmt.query([])?;
            let mut out = Vec::new();
            while let Some(row) = rows.next()? {
                out.push(from_row(row)?);
            }
            Ok(out)
        })
    }

    fn find_token(&self, hash: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
        self.read("find an API token", |tx| {
            tx.query_row(
                &format!("SELECT {COLUMNS} FROM api_tokens WHERE hash = ?1"),
                [hash],
                |row| Ok(from_row(row)),
            )
            .optional()?
            .transpose()
        })
    }

    fn revoke_token(&self, name: &str, now: Timestamp) -> Result<bool, StoreError> {
        self.write("revoke an API token", |tx| {
            let changed = tx.execute(
                "UPDATE api_tokens SET revoked_at = ?2 WHERE name = ?1 AND revoked_at IS NULL",
                params![name, timestamp_to_sql(now)],
            )?;
            Ok(changed == 1)
        })
    }

    fn touch_token(&self, name: &str, now: Timestamp) -> Result<(), StoreError> {
        self.write("note an API token's use", |tx| {
            tx.execute(
                "UPDATE api_tokens SET last_used_at = ?2 WHERE name = ?1",
                params![name, timestamp_to_sql(now)],
            )?;
            Ok(())
        })
    }

    fn submitters(&self, job_ids: &[String]) -> Result<HashMap<String, Submitter>, StoreError> {
        if job_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let ids = serde_json::to_string(job_ids).map_err(|source| StoreError::Json {
            op: "encode job ids",
            path: self.path().to_path_buf(),
            source,
        })?;
        self.read("read who submitted jobs", |tx| {
            let mut stmt = tx.prepare(
                "SELECT id, key, value FROM labels WHERE key IN (?2, ?3) \
                 AND id IN (SELECT value FROM json_each(?1))",
            )?;
            let rows = stmt
                .query_map(
                    params![ids, SUBMITTER_TOKEN_LABEL, SUBMITTER_TEAM_LABEL],
                    |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
                )?
                .collect::<Result<Vec<(String, String, String)>, _>>()?;
            Ok(submitters_from_rows(rows))
        })
    }
}
