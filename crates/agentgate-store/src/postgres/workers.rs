//! [`WorkerRegistry`] on [`PgStore`]: the `workers` table (schema v2), each
//! call one statement on a pooled connection.

use std::time::Duration;

use jiff::Timestamp;
use tokio_postgres::Row;
use tokio_postgres::types::Json;

use super::{PgError, PgStore};
use crate::error::StoreError;
use crate::workers::{WorkerKind, WorkerRecord, WorkerRegistry, WorkerState};

const COLUMNS: &str = "worker_id, kind, host, pid, owner, providers, concurrency, started_at, \
                       last_heartbeat, heartbeat_ms, state, running_jobs";

impl WorkerRegistry for PgStore {
    fn register_worker(&self, worker: &WorkerRecord) -> Result<(), StoreError> {
        let w = worker.clone();
        self.call("register worker", move |client| {
            Box::pin(async move {
                client
                    .execute(
                        &format!(
                            "INSERT INTO workers ({COLUMNS}) \
                             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) \
                             ON CONFLICT (worker_id) DO UPDATE SET kind = excluded.kind, \
                             host = excluded.host, pid = excluded.pid, owner = excluded.owner, \
                             providers = excluded.providers, \
                             concurrency = excluded.concurrency, \
                             started_at = excluded.started_at, \
                             last_heartbeat = excluded.last_heartbeat, \
                             heartbeat_ms = excluded.heartbeat_ms, state = excluded.state, \
                             running_jobs = excluded.running_jobs"
                        ),
                        &[
                            &w.worker_id,
                            &w.kind.as_str(),
                            &w.host,
                            &i64::from(w.pid),
                            &w.owner,
                            &Json(&w.providers),
                            &w.concurrency.map(i64::from),
                            &w.started_at,
                            &w.last_heartbeat,
                            &millis(w.heartbeat_every),
                            &w.state.as_str(),
                            &Json(&w.running_jobs),
                        ],
                    )
                    .await?;
                Ok(())
            })
        })
    }

    fn beat_worker(
        &self,
        worker_id: &str,
        state: WorkerState,
        running_jobs: &[String],
        now: Timestamp,
    ) -> Result<bool, StoreError> {
        let (worker_id, running) = (worker_id.to_owned(), running_jobs.to_vec());
        self.call("renew worker heartbeat", move |client| {
            Box::pin(async move {
                let changed = client
                    .execute(
                        "UPDATE workers SET last_heartbeat = $2, state = $3, running_jobs = $4 \
                         WHERE worker_id = $1",
                        &[&worker_id, &now, &state.as_str(), &Json(&running)],
                    )
                    .await?;
                Ok(changed == 1)
            })
        })
    }

    fn remove_worker(&self, worker_id: &str) -> Result<bool, StoreError> {
        let worker_id = worker_id.to_owned();
        self.call("remove worker", move |client| {
            Box::pin(async move {
                let removed = client
                    .execute("DELETE FROM workers WHERE worker_id = $1", &[&worker_id])
                    .await?;
                Ok(removed == 1)
            })
        })
    }

    fn list_workers(&self) -> Result<Vec<WorkerRecord>, StoreError> {
        self.call("list workers", move |client| {
            Box::pin(async move {
                client
                    .query(
                        &format!("SELECT {COLUMNS} FROM workers ORDER BY started_at, worker_id"),
                        &[],
                    )
                    .await?
                    .iter()
                    .map(from_row)
                    .collect()
            })
        })
    }

    fn prune_workers(&self, before: Timestamp) -> Result<usize, StoreError> {
        self.call("prune workers", move |client| {
            Box::pin(async move {
                let removed = client
                    .execute("DELETE FROM workers WHERE last_heartbeat < $1", &[&before])
                    .await?;
                Ok(usize::try_from(removed).unwrap_or(usize::MAX))
            })
        })
    }
}

fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn from_row(row: &Row) -> Result<WorkerRecord, PgError> {
    let kind: String = row.try_get("kind")?;
    let state: String = row.try_get("state")?;
    let pid: i64 = row.try_get("pid")?;
    let concurrency: Option<i64> = row.try_get("concurrency")?;
    let heartbeat_ms: i64 = row.try_get("heartbeat_ms")?;
    let Json(providers) = row.try_get::<_, Json<Vec<String>>>("providers")?;
    let Json(running_jobs) = row.try_get::<_, Json<Vec<String>>>("running_jobs")?;
    let invalid = |column: &'static str, value: String| PgError::Invalid { column, value };
    Ok(WorkerRecord {
        worker_id: row.try_get("worker_id")?,
        kind: WorkerKind::parse(&kind).ok_or_else(|| invalid("workers.kind", kind.clone()))?,
        host: row.try_get("host")?,
        pid: u32::try_from(pid).map_err(|_| invalid("workers.pid", pid.to_string()))?,
        owner: row.try_get("owner")?,
        providers,
        concurrency: concurrency
            .map(|c| u32::try_from(c).map_err(|_| invalid("workers.concurrency", c.to_string())))
            .transpose()?,
        started_at: row.try_get("started_at")?,
        last_heartbeat: row.try_get("last_heartbeat")?,
        heartbeat_every: Duration::from_millis(u64::try_from(heartbeat_ms).unwrap_or(0)),
        state: WorkerState::parse(&state).ok_or_else(|| invalid("workers.state", state.clone()))?,
        running_jobs,
    })
}
