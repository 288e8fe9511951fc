//! The PostgreSQL schema and its migrations.
//!
//! The version lives in a one-row table, `agentgate_schema`. Migrating runs
//! in one transaction that first takes a transaction-level advisory lock
//! ([`MIGRATION_LOCK`]): processes that connect at once take turns, the
//! first applies the missing versions, the others find them applied. A
//! database written by a newer agentgate is refused
//! ([`StoreError::TooNew`](crate::StoreError::TooNew)), never changed.

use deadpool_postgres::Object;

use super::PgError;

/// The advisory lock key of migrations (`agentgate` in ASCII, as a number).
const MIGRATION_LOCK: i64 = 0x6167_656e_7467_6174;

/// Each version's statements, in order; version N is `MIGRATIONS[N - 1]`.
pub(super) const MIGRATIONS: &[&[&str]] = &[
    &[
        include_str!("schema/v1_runs.sql"),
        include_str!("schema/v1_jobs.sql"),
    ],
    &[include_str!("schema/v2_claim_rules.sql")],
    &[include_str!("schema/v3_workers.sql")],
    &[include_str!("schema/v4_notify.sql")],
    &[include_str!("schema/v5_tool_runs.sql")],
    &[include_str!("schema/v6_workflow_runs.sql")],
    &[include_str!("schema/v7_claims.sql")],
    &[include_str!("schema/v8_idle_wake.sql")],
    &[include_str!("schema/v9_labels.sql")],
    &[include_str!("schema/v10_quota_windows.sql")],
    &[include_str!("schema/v11_usage.sql")],
    &[include_str!("schema/v12_session_rotations.sql")],
    &[include_str!("schema/v13_spend.sql")],
    &[include_str!("schema/v14_api_tokens.sql")],
    &[include_str!("schema/v15_webhooks.sql")],
];

/// The schema version this agentgate writes.
pub const PG_SCHEMA_VERSION: i32 = MIGRATIONS.len() as i32;

/// What the database held before [`migrate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Migrated {
    /// It was at this version already.
    Current,
    /// It was at `from` and is now at [`PG_SCHEMA_VERSION`].
    From(i32),
    /// It is at a newer version than this agentgate knows.
    TooNew(i32),
}

pub(crate) async fn migrate(mut client: Object) -> Result<Migrated, PgError> {
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS agentgate_schema (
             only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
             version  integer NOT NULL
         );
         INSERT INTO agentgate_schema (version) VALUES (0) ON CONFLICT DO NOTHING;",
    )
    .await?;
    let found: i32 = tx
        .query_one("SELECT version FROM agentgate_schema", &[])
        .await?
        .try_get(0)?;
    if found > PG_SCHEMA_VERSION {
        return Ok(Migrated::TooNew(found));
    }
    if found == PG_SCHEMA_VERSION {
        tx.commit().await?;
        return Ok(Migrated::Current);
    }
    let start = usize::try_from(found).unwrap_or(0);
    for statements in MIGRATIONS.iter().skip(start) {
        for sql in statements.iter() {
            tx.batch_execute(sql).await?;
        }
    }
    tx.execute(
        "UPDATE agentgate_schema SET version = $1",
        &[&PG_SCHEMA_VERSION],
    )
    .await?;
    tx.commit().await?;
    Ok(Migrated::From(found))
}
