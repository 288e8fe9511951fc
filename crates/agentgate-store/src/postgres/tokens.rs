//! The `api_tokens` table and the submitter labels (see
//! `crate::api_tokens`).

use std::collections::HashMap;

use jiff::Timestamp;
use tokio_postgres::Row;
use tokio_postgres::types::Json;

use super::{PgError, PgStore};
use crate::api_tokens::{
    ApiTokenRecord, SUBMITTER_TEAM_LABEL, SUBMITTER_TOKEN_LABEL, Submitter, TokenLimits,
    TokenStore, scopes_from_text, scopes_to_text, submitters_from_rows,
};
use crate::error::StoreError;

const COLUMNS: &str =
    "name, hash, team, scopes, limits, created_at, expires_at, last_used_at, revoked_at";

fn from_row(row: &Row) -> Result<ApiTokenRecord, PgError> {
    let Json(limits): Json<TokenLimits> = row.try_get("limits")?;
    let scopes: String = row.try_get("scopes")?;
    Ok(ApiTokenRecord {
        name: row.try_get("name")?,
        hash: row.try_get("hash")?,
        team: row.try_get("team")?,
        scopes: scopes_from_text(&scopes),
        limits,
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
        last_used_at: row.try_get("last_used_at")?,
        revoked_at: row.try_get("revoked_at")?,
    })
}

impl TokenStore for PgStore {
    fn create_token(&self, token: &ApiTokenRecord) -> Result<bool, StoreError> {
        let token = token.clone();
        self.transaction("create an API token", move |tx| {
            Box::pin(async move {
                let inserted = tx
                    .execute(
                        &format!(
                            "INSERT INTO api_tokens ({COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, \
                             $7, NULL, NULL) ON CONFLICT (name) DO NOTHING"
                        ),
                        &[
                            &token.name,
                            &token.hash,
                            &token.team,
                            &scopes_to_text(&token.scopes),
                            &Json(&token.limits),
                            &token.created_at,
                            &token.expires_at,
                        ],
                    )
                    .await?;
                Ok(inserted == 1)
            })
        })
    }

    fn list_tokens(&self) -> Result<Vec<ApiTokenRecord>, StoreError> {
        self.transaction("list API tokens", |tx| {
            Box::pin(async move {
                tx.query(
                    &format!("SELECT {COLUMNS} FROM api_tokens ORDER BY name"),
                    &[],
                )
                .await?
                .iter()
                .map(from_row)
                .collect()
            })
        })
    }

    fn find_token(&self, hash: &str) -> Result<Option<ApiTokenRecord>, StoreError> {
        let hash = hash.to_owned();
        self.call("find an API token", move |client| {
            Box::pin(async move {
                client
                    .query_opt(
                        &format!("SELECT {COLUMNS} FROM api_tokens WHERE hash = $1"),
                        &[&hash],
                    )
                    .await?
                    .map(|row| from_row(&row))
                    .transpose()
            })
        })
    }

    fn revoke_token(&self, name: &str, now: Timestamp) -> Result<bool, StoreError> {
        let name = name.to_owned();
        self.call("revoke an API token", move |client| {
            Box::pin(async move {
                let changed = client
                    .execute(
                        "UPDATE api_tokens SET revoked_at = $2 WHERE name = $1 \
                         AND revoked_at IS NULL",
                        &[&name, &now],
                    )
                    .await?;
                Ok(changed == 1)
            })
        })
    }

    fn touch_token(&self, name: &str, now: Timestamp) -> Result<(), StoreError> {
        let name = name.to_owned();
        self.call("note an API token's use", move |client| {
            Box::pin(async move {
                client
                    .execute(
                        "UPDATE api_tokens SET last_used_at = $2 WHERE name = $1",
                        &[&name, &now],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn submitters(&self, job_ids: &[String]) -> Result<HashMap<String, Submitter>, StoreError> {
        if job_ids.is_empty() {
            return Ok(HashMap::new());
        }
        let ids = job_ids.to_vec();
        self.call("read who submitted jobs", move |client| {
            Box::pin(async move {
                let rows = client
                    .query(
                        "SELECT id, key, value FROM labels WHERE key IN ($2, $3) \
                         AND id = ANY($1)",
                        &[&ids, &SUBMITTER_TOKEN_LABEL, &SUBMITTER_TEAM_LABEL],
                    )
                    .await?;
                let rows = rows
                    .iter()
                    .map(|row| Ok((row.try_get(0)?, row.try_get(1)?, row.try_get(2)?)))
                    .collect::<Result<Vec<(String, String, String)>, PgError>>()?;
                Ok(submitters_from_rows(rows))
            })
        })
    }
}
