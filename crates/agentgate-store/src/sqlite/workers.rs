//! [`WorkerRegistry`] on [`SqliteStore`]: the `workers` table, each call one
//! statement in its own transaction.

use std::time::Duration;

use jiff::Timestamp;
use rusqlite::{Row, params};

use super::values::{timestamp_from_sql, timestamp_to_sql};
use super::{DbError, SqliteStore};
use crate::error::StoreError;
use crate::workers::{WorkerKind, WorkerRecord, WorkerRegistry, WorkerState};

const COLUMNS: &str = "worker_id, kind, host, pid, owner, providers, concurrency, started_at, \
                       last_heartbeat, heartbeat_ms, state, running_jobs";

impl WorkerRegistry for SqliteStore {
    fn register_worker(&self, w: &WorkerRecord) -> Result<(), StoreError> {
        let providers = to_json("encode the worker's providers", &w.providers);
        let running = to_json("encode the worker's jobs", &w.running_jobs);
        self.write("register worker", |tx| {
            tx.execute(
                &format!(
                    "INSERT OR REPLACE INTO workers ({COLUMNS}) \
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
                ),
                params![
                    w.worker_id,
                    w.kind.as_str(),
                    w.host,
                    w.pid,
                    w.owner,
                    providers?,
                    w.concurrency,
                    timestamp_to_sql(w.started_at),
                    timestamp_to_sql(w.last_heartbeat),
                    millis(w.heartbeat_every),
                    w.state.as_str(),
                    running?,
                ],
            )?;
            Ok(())
        })
    }

    fn beat_worker(
        &self,
        worker_id: &str,
        state: WorkerState,
        running_jobs: &[String],
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let running = to_json("encode the worker's jobs", &running_jobs);
        self.write("renew worker heartbeat", |tx| {
            let changed = tx.execute(
                "UPDATE workers SET last_heartbeat = ?2, state = ?3, running_jobs = ?4 \
                 WHERE worker_id = ?1",
                params![worker_id, timestamp_to_sql(now), state.as_str(), running?],
            )?;
            Ok(changed == 1)
        })
    }

    fn remove_worker(&self, worker_id: &str) -> Result<bool, StoreError> {
        self.write("remove worker", |tx| {
            Ok(tx.execute("DELETE FROM workers WHERE worker_id = ?1", [worker_id])? == 1)
        })
    }

    fn list_workers(&self) -> Result<Vec<WorkerRecord>, StoreError> {
        self.read("list workers", |tx| {
            let mut stmt = tx.prepare(&format!(
                "SELECT {COLUMNS} FROM workers ORDER BY started_at, worker_id"
            ))?;
            let rows = stmt.query_map([], |row| Ok(from_row(row)))?;
            let mut workers = Vec::new();
            for row in rows {
                workers.push(row??);
            }
            Ok(workers)
        })
    }

    fn prune_workers(&self, before: Timestamp) -> Result<usize, StoreError> {
        self.write("prune workers", |tx| {
            Ok(tx.execute(
                "DELETE FROM workers WHERE last_heartbeat < ?1",
                [timestamp_to_sql(before)],
            )?)
        })
    }
}

fn to_json<T: serde::Serialize + ?Sized>(op: &'static str, value: &T) -> Result<String, DbError> {
    serde_json::to_string(value).map_err(|source| DbError::Json { op, source })
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn from_row(row: &Row<'_>) -> Result<WorkerRecord, DbError> {
    let list = |column: &'static str, text: String| -> Result<Vec<String>, DbError> {
        serde_json::from_str(&text).map_err(|_| DbError::Invalid {
            column,
            value: text,
        })
    };
    let kind: String = row.get("kind")?;
    let state: String = row.get("state")?;
    let heartbeat_ms: i64 = row.get("heartbeat_ms")?;
    Ok(WorkerRecord {
        worker_id: row.get("worker_id")?,
        kind: WorkerKind::parse(&kind).ok_or(DbError::Invalid {
            column: "workers.kind",
            value: kind.clone(),
        })?,
        host: row.get("host")?,
        pid: row.get("pid")?,
        owner: row.get("owner")?,
        providers: list("workers.providers", row.get("providers")?)?,
        concurrency: row.get("concurrency")?,
        started_at: timestamp_from_sql("workers.started_at", row.get("started_at")?)?,
        last_heartbeat: timestamp_from_sql("workers.last_heartbeat", row.get("last_heartbeat")?)?,
        heartbeat_every: Duration::from_millis(u64::try_from(heartbeat_ms).unwrap_or(0)),
        state: WorkerState::parse(&state).ok_or(DbError::Invalid {
            column: "workers.state",
            value: state.clone(),
        })?,
        running_jobs: list("workers.running_jobs", row.get("running_jobs")?)?,
    })
}
