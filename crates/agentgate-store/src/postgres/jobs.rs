//! The `jobs` table on PostgreSQL: the queue's statements (the rules are in
//! `crate::job_queue`, the same as SQLite's in `sqlite/jobs.rs`).
//!
//! Every write that has to be atomic is ONE statement, so it needs no
//! transaction of its own and no lock held between round trips:
//!
//! - the claim is `UPDATE ... WHERE seq = (SELECT seq ... ORDER BY <claim
//!   order> LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING ...`: the subquery
//!   locks the first ready row no one else has locked (read committed
//!   re-checks a row changed meanwhile and moves on), so concurrent
//!   claimers take different jobs without waiting for each other;
//! - the writes under a lease name the token in their `WHERE`, so a stale
//!   token updates no row and reads as [`PgError::LeaseLost`];
//! - taking back leases locks the expired rows (`SKIP LOCKED`: a row being
//!   written right now is someone else's business) and updates them in the
//!   same statement.
//!
//! The enqueue is `INSERT ... ON CONFLICT DO NOTHING`: a concurrent insert
//! of the same idempotency key makes this one wait for it and then do
//! nothing, and the first job is read back. The cancel locks its row
//! (`FOR UPDATE`) between reading the state and writing it.

use agentgate_protocol::Envelope;
use jiff::Timestamp;
use tokio_postgres::types::Json;
use tokio_postgres::{GenericClient, Row};

use super::PgError;
use crate::jobs::{
    ActiveJobCount, CancelOutcome, ExpiredJob, ExpiryPolicy, JobCounts, JobOutcome, JobRecord,
    JobState, LeaseToken, NewJob,
};

/// Every column of a [`JobRecord`]; never the lease token.
pub(super) const COLUMNS: &str = "job_id, request, state, priority, created_at, not_before, attempts, \
    idempotency_key, providers, session_name, lease_owner, lease_expires_at, waiting_for, \
    cancel_requested, envelope, error, ended_at, charged_provider, writes_in";

/// The error stored with a job abandoned by [`expire_leases`] (the same
/// words as SQLite's).
const ABANDONED_ERROR: &str =
    "abandoned: its executor stopped renewing its lease (it died or hung)";

/// The job a claim takes (`$4` is now): walks the partial index
/// `jobs_claim` in claim order, no sort, and skips rows other claimers have
/// locked. Limits will be more conditions here (see `crate::job_queue`).
pub(super) const NEXT_QUEUED: &str = "SELECT seq FROM jobs \
    WHERE state = 'queued' AND not_before <= $4 \
    ORDER BY priority DESC, created_at, seq LIMIT 1 FOR UPDATE SKIP LOCKED";

/// What a claim writes (`$1` owner, `$2` token, `$3` expiry): the job runs
/// under a new lease, one more attempt.
/// What a claim without limits writes besides the lease: it counts against
/// no provider and names no folder (see `crate::claim_next`).
const NO_RULES: &str = "charged_provider = NULL, writes_in = NULL";

pub(super) const TAKE_LEASE: &str = "state = 'running', attempts = attempts + 1, lease_owner = $1, \
    lease_token = $2, lease_expires_at = $3, waiting_for = NULL";

pub(super) async fn enqueue<C: GenericClient + Sync>(
    client: &C,
    job: &NewJob,
    now: Timestamp,
) -> Result<(JobRecord, bool), PgError> {
    let request = to_json(&job.request, "encode the run request")?;
    let not_before = job.not_before.unwrap_or(now);
    let inserted = client
        .query_opt(
            &format!(
                "INSERT INTO jobs (job_id, request, state, priority, created_at, not_before, \
                 idempotency_key, providers, session_name, writes_in, ignore_quota, planned) \
                 VALUES ($1, $2, 'queued', $3, $4, $5, $6, $7, $8, $9, $10, $11) \
                 ON CONFLICT DO NOTHING RETURNING {COLUMNS}"
            ),
            &[
                &job.job_id,
                &request,
                &job.priority,
                &now,
                &not_before,
                &job.idempotency_key,
                &Json(&job.providers),
                &job.session,
                &job.writes_in,
                &job.ignore_quota,
                &job.planned,
            ],
        )
        .await?;
    if let Some(row) = inserted {
        super::runs::insert_labels(client, &job.job_id, &job.labels).await?;
        return Ok((record_from_row(&row)?, true));
    }
    // A unique column conflicted: the key (the first job wins), else the id.
    if let Some(key) = &job.idempotency_key
        && let Some(first) = select_one(client, "idempotency_key = $1", key).await?
    {
        return Ok((first, false));
    }
    Err(PgError::JobExists(job.job_id.clone()))
}

pub(super) async fn claim<C: GenericClient + Sync>(
    client: &C,
    owner: &str,
    token: &LeaseToken,
    expires: Timestamp,
    now: Timestamp,
) -> Result<Option<JobRecord>, PgError> {
    let row = client
        .query_opt(
            &format!(
                "UPDATE jobs SET {TAKE_LEASE}, {NO_RULES} WHERE seq = ({NEXT_QUEUED}) RETURNING {COLUMNS}"
            ),
            &[&owner, &token.0, &expires, &now],
        )
        .await?;
    row.as_ref().map(record_from_row).transpose()
}

/// Claims `job_id` itself, if it is queued and ready (see [`claim`]): the
/// update's own row lock makes two claimers of one job take turns, and the
/// second finds it no longer queued.
pub(super) async fn claim_one<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    owner: &str,
    token: &LeaseToken,
    expires: Timestamp,
    now: Timestamp,
) -> Result<Option<JobRecord>, PgError> {
    let row = client
        .query_opt(
            &format!(
                "UPDATE jobs SET {TAKE_LEASE}, {NO_RULES} \
                 WHERE job_id = $5 AND state = 'queued' AND not_before <= $4 RETURNING {COLUMNS}"
            ),
            &[&owner, &token.0, &expires, &now, &job_id],
        )
        .await?;
    row.as_ref().map(record_from_row).transpose()
}

/// Renews a lease; whether a cancel was asked.
pub(super) async fn heartbeat<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    token: &LeaseToken,
    expires: Timestamp,
) -> Result<bool, PgError> {
    let row = client
        .query_opt(
            "UPDATE jobs SET lease_expires_at = $1 \
             WHERE job_id = $2 AND state = 'running' AND lease_token = $3 \
             RETURNING cancel_requested",
            &[&expires, &job_id, &token.0],
        )
        .await?;
    match row {
        Some(row) => Ok(row.try_get(0)?),
        None => Err(PgError::LeaseLost(job_id.to_owned())),
    }
}

pub(super) async fn finish<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    token: &LeaseToken,
    outcome: &JobOutcome,
    now: Timestamp,
) -> Result<JobRecord, PgError> {
    let envelope = outcome
        .envelope
        .as_ref()
        .map(|envelope| to_json(envelope, "encode the envelope"))
        .transpose()?;
    let row = client
        .query_opt(
            &format!(
                "UPDATE jobs SET state = $1, envelope = $2, error = $3, ended_at = $4, \
                 lease_token = NULL, lease_expires_at = NULL, waiting_for = NULL \
                 WHERE job_id = $5 AND state = 'running' AND lease_token = $6 \
                 RETURNING {COLUMNS}"
            ),
            &[
                &JobState::from(outcome.state).as_str(),
                &envelope,
                &outcome.error,
                &now,
                &job_id,
                &token.0,
            ],
        )
        .await?;
    leased_row(row, job_id)
}

/// How [`requeue`] puts a running job back.
pub(super) struct Requeue<'a> {
    pub not_before: Timestamp,
    pub waiting_for: Option<&'a str>,
    /// Give back the attempt the claim charged (a release), or keep it (a
    /// retry).
    pub refund: bool,
    /// The error of the attempt that failed (a retry); `None` keeps the
    /// job's last error.
    pub error: Option<&'a str>,
}

pub(super) async fn requeue<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    token: &LeaseToken,
    how: &Requeue<'_>,
    now: Timestamp,
) -> Result<JobRecord, PgError> {
    let row = client
        .query_opt(
            &format!(
                "UPDATE jobs SET \
                   state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END, \
                   ended_at = CASE WHEN cancel_requested THEN $1::timestamptz ELSE NULL END, \
                   waiting_for = CASE WHEN cancel_requested THEN NULL ELSE $2::text END, \
                   not_before = $3, attempts = attempts - $4::integer, \
                   error = COALESCE($5::text, error), lease_token = NULL, \
                   lease_expires_at = NULL \
                 WHERE job_id = $6 AND state = 'running' AND lease_token = $7 \
                 RETURNING {COLUMNS}"
            ),
            &[
                &now,
                &how.waiting_for,
                &how.not_before,
                &i32::from(how.refund),
                &how.error,
                &job_id,
                &token.0,
            ],
        )
        .await?;
    leased_row(row, job_id)
}

/// Runs inside a transaction: the row stays locked from the read of its
/// state to the write.
pub(super) async fn cancel<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    envelope_if_queued: Option<&Envelope>,
    now: Timestamp,
) -> Result<CancelOutcome, PgError> {
    let row = client
        .query_opt(
            "SELECT state FROM jobs WHERE job_id = $1 FOR UPDATE",
            &[&job_id],
        )
        .await?;
    let Some(row) = row else {
        return Err(PgError::JobNotFound(job_id.to_owned()));
    };
    match state_from_sql(row.try_get(0)?)? {
        JobState::Queued => {
            let envelope = match envelope_if_queued {
                Some(envelope) => {
                    let labels = client
                        .query_one(
                            "SELECT jsonb_object_agg(key, value) AS labels FROM labels \
                             WHERE id = $1",
                            &[&job_id],
                        )
                        .await?;
                    let labels = super::runs::labels_from_row(&labels, "labels")?;
                    Some(to_json(
                        &crate::jobs::with_job_labels(envelope, labels),
                        "encode the envelope",
                    )?)
                }
                None => None,
            };
            client
                .execute(
                    "UPDATE jobs SET state = 'cancelled', ended_at = $1, waiting_for = NULL, \
                     envelope = $3 WHERE job_id = $2",
                    &[&now, &job_id, &envelope],
                )
                .await?;
            Ok(CancelOutcome::Cancelled)
        }
        JobState::Running => {
            client
                .execute(
                    "UPDATE jobs SET cancel_requested = true WHERE job_id = $1",
                    &[&job_id],
                )
                .await?;
            Ok(CancelOutcome::Requested)
        }
        ended => Ok(CancelOutcome::AlreadyEnded(ended)),
    }
}

/// A take-back of the leases `which` selects (rows of `jobs` with their
/// `seq` and `lease_expires_at`, locked): they end per `$2` (the state when
/// no cancel was asked) at `$1`, with `$3` as their error; the result is
/// their ids and new states, oldest lease first.
fn take_back_sql(which: &str) -> String {
    format!(
        "WITH taken AS ({which}), \
         done AS (UPDATE jobs SET \
           state = CASE WHEN jobs.cancel_requested THEN 'cancelled' ELSE $2::text END, \
           ended_at = CASE WHEN jobs.cancel_requested OR $2::text <> 'queued' \
                      THEN $1::timestamptz ELSE NULL END, \
           error = CASE WHEN jobs.cancel_requested THEN jobs.error ELSE $3::text END, \
           lease_token = NULL, lease_expires_at = NULL \
         FROM taken WHERE jobs.seq = taken.seq \
         RETURNING jobs.job_id, jobs.state, taken.lease_expires_at, taken.seq) \
         SELECT job_id, state FROM done ORDER BY lease_expires_at, seq"
    )
}

/// What an expired lease becomes under `policy` (unless a cancel was
/// asked), and the error it ends with.
fn expiry_parts(policy: ExpiryPolicy) -> (&'static str, Option<&'static str>) {
    match policy {
        ExpiryPolicy::Requeue => (JobState::Queued.as_str(), None),
        ExpiryPolicy::Abandon => (JobState::Abandoned.as_str(), Some(ABANDONED_ERROR)),
    }
}

pub(super) async fn expire_leases<C: GenericClient + Sync>(
    client: &C,
    now: Timestamp,
    policy: ExpiryPolicy,
) -> Result<Vec<ExpiredJob>, PgError> {
    let (otherwise, error) = expiry_parts(policy);
    let sql = take_back_sql(
        "SELECT seq, lease_expires_at FROM jobs \
         WHERE state = 'running' AND lease_expires_at <= $1 FOR UPDATE SKIP LOCKED",
    );
    let rows = client.query(&sql, &[&now, &otherwise, &error]).await?;
    rows.iter().map(expired_from_row).collect()
}

/// Takes back the lease of `job_id` if `owner` holds it, expired or not.
pub(super) async fn expire_owner<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    owner: &str,
    now: Timestamp,
    policy: ExpiryPolicy,
) -> Result<Option<ExpiredJob>, PgError> {
    let (otherwise, error) = expiry_parts(policy);
    let sql = take_back_sql(
        "SELECT seq, lease_expires_at FROM jobs \
         WHERE job_id = $4 AND state = 'running' AND lease_owner = $5 FOR UPDATE",
    );
    let rows = client
        .query(&sql, &[&now, &otherwise, &error, &job_id, &owner])
        .await?;
    rows.first().map(expired_from_row).transpose()
}

pub(super) async fn get<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
) -> Result<Option<JobRecord>, PgError> {
    select_one(client, "job_id = $1", job_id).await
}

pub(super) async fn count<C: GenericClient + Sync>(client: &C) -> Result<JobCounts, PgError> {
    let mut counts = JobCounts::default();
    for row in client
        .query("SELECT state, count(*) FROM jobs GROUP BY state", &[])
        .await?
    {
        counts.add_state(state_from_sql(row.try_get(0)?)?, row.try_get(1)?);
    }
    for row in client
        .query(
            "SELECT p.provider, jobs.state, count(*) \
             FROM jobs, jsonb_array_elements_text(jobs.providers) AS p(provider) \
             GROUP BY p.provider, jobs.state",
            &[],
        )
        .await?
    {
        let state = state_from_sql(row.try_get(1)?)?;
        counts.add_provider(row.try_get(0)?, state, row.try_get(2)?);
    }
    counts.sort();
    Ok(counts)
}

/// Queued and running jobs per state and provider (see `ActiveJobCount`).
pub(super) async fn count_active<C: GenericClient + Sync>(
    client: &C,
) -> Result<Vec<ActiveJobCount>, PgError> {
    let rows = client
        .query(
            "SELECT state, COALESCE(charged_provider, providers->>0), count(*) FROM jobs \
             WHERE state IN ('queued', 'running') GROUP BY 1, 2",
            &[],
        )
        .await?;
    let mut counts = Vec::with_capacity(rows.len());
    for row in rows {
        let state = state_from_sql(row.try_get(0)?)?;
        counts.push(ActiveJobCount::new(state, row.try_get(1)?, row.try_get(2)?));
    }
    ActiveJobCount::sort(&mut counts);
    Ok(counts)
}

async fn select_one<C: GenericClient + Sync>(
    client: &C,
    condition: &str,
    value: &str,
) -> Result<Option<JobRecord>, PgError> {
    let row = client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM jobs WHERE {condition}"),
            &[&value],
        )
        .await?;
    row.as_ref().map(record_from_row).transpose()
}

pub(super) fn to_json(value: &impl serde::Serialize, op: &'static str) -> Result<String, PgError> {
    serde_json::to_string(value).map_err(|source| PgError::Json { op, source })
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    op: &'static str,
) -> Result<T, PgError> {
    serde_json::from_str(text).map_err(|source| PgError::Json { op, source })
}

fn state_from_sql(text: String) -> Result<JobState, PgError> {
    text.parse().map_err(|_| PgError::Invalid {
        column: "jobs.state",
        value: text,
    })
}

/// The row a write under a lease returned; none means the job is not
/// running under that token any more.
fn leased_row(row: Option<Row>, job_id: &str) -> Result<JobRecord, PgError> {
    match row {
        Some(row) => record_from_row(&row),
        None => Err(PgError::LeaseLost(job_id.to_owned())),
    }
}

fn expired_from_row(row: &Row) -> Result<ExpiredJob, PgError> {
    Ok(ExpiredJob {
        job_id: row.try_get(0)?,
        state: state_from_sql(row.try_get(1)?)?,
    })
}

pub(super) fn record_from_row(row: &Row) -> Result<JobRecord, PgError> {
    let request: String = row.try_get("request")?;
    let Json(providers) = row.try_get::<_, Json<Vec<String>>>("providers")?;
    let envelope = row
        .try_get::<_, Option<String>>("envelope")?
        .map(|text| from_json::<Envelope>(&text, "decode a job's envelope"))
        .transpose()?;
    let attempts: i32 = row.try_get("attempts")?;
    Ok(JobRecord {
        job_id: row.try_get("job_id")?,
        request: from_json(&request, "decode a job's run request")?,
        state: state_from_sql(row.try_get("state")?)?,
        priority: row.try_get("priority")?,
        created_at: row.try_get("created_at")?,
        not_before: row.try_get("not_before")?,
        attempts: u32::try_from(attempts).map_err(|_| PgError::Invalid {
            column: "jobs.attempts",
            value: attempts.to_string(),
        })?,
        idempotency_key: row.try_get("idempotency_key")?,
        providers,
        session: row.try_get("session_name")?,
        lease_owner: row.try_get("lease_owner")?,
        lease_expires_at: row.try_get("lease_expires_at")?,
        waiting_for: row.try_get("waiting_for")?,
        cancel_requested: row.try_get("cancel_requested")?,
        envelope,
        error: row.try_get("error")?,
        ended_at: row.try_get("ended_at")?,
        charged_provider: row.try_get("charged_provider")?,
        writes_in: row.try_get("writes_in")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The plan of `sql` on the v1 jobs table, created in a schema of its
    /// own inside a transaction that is rolled back.
    async fn plan_of(sql: &str) -> String {
        let url = std::env::var("AGENTGATE_TEST_POSTGRES")
            .expect("AGENTGATE_TEST_POSTGRES names the test cluster");
        let (mut client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(connection);
        let tx = client.transaction().await.unwrap();
        tx.batch_execute(
            "CREATE SCHEMA agentgate_plan; SET LOCAL search_path = agentgate_plan; \
             SET LOCAL enable_seqscan = off;",
        )
        .await
        .unwrap();
        tx.batch_execute(include_str!("schema/v1_jobs.sql"))
            .await
            .unwrap();
        let rows = tx.query(&format!("EXPLAIN {sql}"), &[]).await.unwrap();
        let plan: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
        tx.rollback().await.unwrap();
        plan.join("\n")
    }

    /// An empty table's plan is the planner's whim, so sequential scans are
    /// off: what is checked is that the partial index serves the claim's
    /// filter and order, with no sort.
    #[test]
    fn the_claim_walks_its_partial_index_without_sorting_the_queue() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let plan = rt.block_on(plan_of(&NEXT_QUEUED.replace("$4", "now()")));
        assert!(plan.contains("Index Scan using jobs_claim"), "{plan}");
        assert!(plan.contains("LockRows"), "{plan}");
        assert!(!plan.contains("Sort"), "{plan}");
    }
}
