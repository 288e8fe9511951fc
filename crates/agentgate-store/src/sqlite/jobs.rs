//! The `jobs` table: the queue's statements (the rules are in
//! `crate::job_queue`). Each function runs inside the caller's transaction;
//! the writes in a `BEGIN IMMEDIATE` one, so each is atomic.

use agentgate_protocol::Envelope;
use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, Row, named_params, params};

use super::DbError;
use super::values::{name_from_sql, opt_timestamp_from_sql, timestamp_from_sql, timestamp_to_sql};
use crate::jobs::{
    ActiveJobCount, CancelOutcome, ExpiredJob, ExpiryPolicy, JobCounts, JobOutcome, JobRecord,
    JobState, LeaseToken, NewJob,
};

/// Every column of a [`JobRecord`]; never the lease token.
pub(super) const COLUMNS: &str = "job_id, request, state, priority, created_at, not_before, attempts, \
    idempotency_key, providers, session_name, lease_owner, lease_expires_at, waiting_for, \
    cancel_requested, envelope, error, ended_at, charged_provider, writes_in";

/// The error stored with a job abandoned by [`expire_leases`].
pub(super) const ABANDONED_ERROR: &str =
    "abandoned: its executor stopped renewing its lease (it died or hung)";

pub(super) fn enqueue(
    conn: &Connection,
    job: &NewJob,
    now: Timestamp,
) -> Result<(JobRecord, bool), DbError> {
    // The write lock is held from the start of the transaction, so the
    // lookup and the insert are one step for every other writer.
    if let Some(key) = &job.idempotency_key
        && let Some(first) = select_one(conn, "idempotency_key = ?1", key)?
    {
        return Ok((first, false));
    }
    if select_one(conn, "job_id = ?1", &job.job_id)?.is_some() {
        return Err(DbError::JobExists(job.job_id.clone()));
    }
    let request = to_json(&job.request, "encode the run request")?;
    let providers = to_json(&job.providers, "encode the providers")?;
    conn.execute(
        "INSERT INTO jobs (job_id, request, state, priority, created_at, not_before, \
         idempotency_key, providers, session_name, writes_in, ignore_quota, planned) \
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![
            job.job_id,
            request,
            job.priority,
            timestamp_to_sql(now),
            timestamp_to_sql(job.not_before.unwrap_or(now)),
            job.idempotency_key,
            providers,
            job.session,
            job.writes_in,
            job.ignore_quota,
            job.planned,
        ],
    )?;
    super::runs::insert_labels(conn, &job.job_id, &job.labels)?;
    let job = select_one(conn, "job_id = ?1", &job.job_id)?
        .ok_or_else(|| DbError::JobNotFound(job.job_id.clone()))?;
    Ok((job, true))
}

/// The job a claim takes: walks the index `jobs_claim` in claim order, no
/// sort. Limits will be more conditions here (see the module doc of
/// `crate::job_queue`).
const NEXT_QUEUED: &str = "SELECT seq FROM jobs WHERE state = 'queued' AND not_before <= :now \
    ORDER BY priority DESC, created_at, seq LIMIT 1";

/// What a claim writes: the job runs under a new lease, one more attempt.
/// What a claim without limits writes besides the lease: it counts against
/// no provider and names no folder (see `crate::claim_next`).
const NO_RULES: &str = "charged_provider = NULL, writes_in = NULL";

pub(super) const TAKE_LEASE: &str = "state = 'running', attempts = attempts + 1, lease_owner = :owner, \
    lease_token = :token, lease_expires_at = :expires, waiting_for = NULL";

pub(super) fn claim(
    conn: &Connection,
    owner: &str,
    token: &LeaseToken,
    expires: Timestamp,
    now: Timestamp,
) -> Result<Option<JobRecord>, DbError> {
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET {TAKE_LEASE}, {NO_RULES} WHERE seq = ({NEXT_QUEUED}) RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":owner": owner,
        ":token": token.0,
        ":expires": timestamp_to_sql(expires),
        ":now": timestamp_to_sql(now),
    })?;
    rows.next()?.map(record_from_row).transpose()
}

/// Claims `job_id` itself, if it is queued and ready (see [`claim`]).
pub(super) fn claim_one(
    conn: &Connection,
    job_id: &str,
    owner: &str,
    token: &LeaseToken,
    expires: Timestamp,
    now: Timestamp,
) -> Result<Option<JobRecord>, DbError> {
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET {TAKE_LEASE}, {NO_RULES} \
         WHERE job_id = :job_id AND state = 'queued' AND not_before <= :now RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":owner": owner,
        ":token": token.0,
        ":expires": timestamp_to_sql(expires),
        ":now": timestamp_to_sql(now),
        ":job_id": job_id,
    })?;
    rows.next()?.map(record_from_row).transpose()
}

/// Renews a lease; whether a cancel was asked.
pub(super) fn heartbeat(
    conn: &Connection,
    job_id: &str,
    token: &LeaseToken,
    expires: Timestamp,
) -> Result<bool, DbError> {
    conn.query_row(
        "UPDATE jobs SET lease_expires_at = ?1 \
         WHERE job_id = ?2 AND state = 'running' AND lease_token = ?3 \
         RETURNING cancel_requested",
        params![timestamp_to_sql(expires), job_id, token.0],
        |row| row.get::<_, bool>(0),
    )
    .optional()?
    .ok_or_else(|| DbError::LeaseLost(job_id.to_owned()))
}

pub(super) fn finish(
    conn: &Connection,
    job_id: &str,
    token: &LeaseToken,
    outcome: &JobOutcome,
    now: Timestamp,
) -> Result<JobRecord, DbError> {
    let envelope = outcome
        .envelope
        .as_ref()
        .map(|envelope| to_json(envelope, "encode the envelope"))
        .transpose()?;
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET state = :state, envelope = :envelope, error = :error, \
         ended_at = :now, lease_token = NULL, lease_expires_at = NULL, waiting_for = NULL \
         WHERE job_id = :job_id AND state = 'running' AND lease_token = :token \
         RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":state": JobState::from(outcome.state).as_str(),
        ":envelope": envelope,
        ":error": outcome.error,
        ":now": timestamp_to_sql(now),
        ":job_id": job_id,
        ":token": token.0,
    })?;
    leased_row(rows.next()?, job_id)
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

pub(super) fn requeue(
    conn: &Connection,
    job_id: &str,
    token: &LeaseToken,
    how: &Requeue<'_>,
    now: Timestamp,
) -> Result<JobRecord, DbError> {
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET \
           state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'queued' END, \
           ended_at = CASE WHEN cancel_requested THEN :now ELSE NULL END, \
           waiting_for = CASE WHEN cancel_requested THEN NULL ELSE :waiting_for END, \
           not_before = :not_before, attempts = attempts - :refund, \
           error = COALESCE(:error, error), lease_token = NULL, lease_expires_at = NULL \
         WHERE job_id = :job_id AND state = 'running' AND lease_token = :token \
         RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":now": timestamp_to_sql(now),
        ":waiting_for": how.waiting_for,
        ":not_before": timestamp_to_sql(how.not_before),
        ":refund": i64::from(how.refund),
        ":error": how.error,
        ":job_id": job_id,
        ":token": token.0,
    })?;
    leased_row(rows.next()?, job_id)
}

pub(super) fn cancel(
    conn: &Connection,
    job_id: &str,
    envelope_if_queued: Option<&Envelope>,
    now: Timestamp,
) -> Result<CancelOutcome, DbError> {
    let state: Option<String> = conn
        .query_row(
            "SELECT state FROM jobs WHERE job_id = ?1",
            [job_id],
            |row| row.get(0),
        )
        .optional()?;
    let Some(state) = state else {
        return Err(DbError::JobNotFound(job_id.to_owned()));
    };
    match name_from_sql::<JobState>("jobs.state", state)? {
        JobState::Queued => {
            let envelope = match envelope_if_queued {
                Some(envelope) => Some(to_json(
                    &crate::jobs::with_job_labels(envelope, job_labels(conn, job_id)?),
                    "encode the envelope",
                )?),
                None => None,
            };
            conn.execute(
                "UPDATE jobs SET state = 'cancelled', ended_at = ?1, waiting_for = NULL, \
                 envelope = ?3 WHERE job_id = ?2",
                params![timestamp_to_sql(now), job_id, envelope],
            )?;
            Ok(CancelOutcome::Cancelled)
        }
        JobState::Running => {
            conn.execute(
                "UPDATE jobs SET cancel_requested = 1 WHERE job_id = ?1",
                [job_id],
            )?;
            Ok(CancelOutcome::Requested)
        }
        ended => Ok(CancelOutcome::AlreadyEnded(ended)),
    }
}

/// The labels stored with the job `job_id` (its side table's rows).
fn job_labels(conn: &Connection, job_id: &str) -> Result<agentgate_protocol::Labels, DbError> {
    let json: Option<String> = conn.query_row(
        "SELECT json_group_object(key, value) FROM labels WHERE id = ?1",
        [job_id],
        |row| row.get(0),
    )?;
    super::runs::labels_from_sql(json)
}

pub(super) fn expire_leases(
    conn: &Connection,
    now: Timestamp,
    policy: ExpiryPolicy,
) -> Result<Vec<ExpiredJob>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT job_id FROM jobs WHERE state = 'running' AND lease_expires_at <= ?1 \
         ORDER BY lease_expires_at, seq",
    )?;
    let expired = stmt
        .query_map([timestamp_to_sql(now)], |row| row.get::<_, String>(0))?
        .collect::<Result<Vec<_>, _>>()?;
    take_back(conn, expired, now, policy)
}

/// Takes back the lease of `job_id` if `owner` holds it, expired or not.
pub(super) fn expire_owner(
    conn: &Connection,
    job_id: &str,
    owner: &str,
    now: Timestamp,
    policy: ExpiryPolicy,
) -> Result<Option<ExpiredJob>, DbError> {
    let held: Option<String> = conn
        .query_row(
            "SELECT job_id FROM jobs WHERE job_id = ?1 AND state = 'running' \
             AND lease_owner = ?2",
            params![job_id, owner],
            |row| row.get(0),
        )
        .optional()?;
    Ok(take_back(conn, held.into_iter().collect(), now, policy)?.pop())
}

/// Ends the leases of `job_ids` (running jobs): queued or abandoned per
/// `policy`, cancelled when a cancel was asked.
fn take_back(
    conn: &Connection,
    job_ids: Vec<String>,
    now: Timestamp,
    policy: ExpiryPolicy,
) -> Result<Vec<ExpiredJob>, DbError> {
    let now = timestamp_to_sql(now);
    let (otherwise, error) = match policy {
        ExpiryPolicy::Requeue => (JobState::Queued, None),
        ExpiryPolicy::Abandon => (JobState::Abandoned, Some(ABANDONED_ERROR)),
    };
    let mut update = conn.prepare(
        "UPDATE jobs SET \
           state = CASE WHEN cancel_requested THEN 'cancelled' ELSE :otherwise END, \
           ended_at = CASE WHEN cancel_requested OR :otherwise <> 'queued' \
                      THEN :now ELSE NULL END, \
           error = CASE WHEN cancel_requested THEN error ELSE :error END, \
           lease_token = NULL, lease_expires_at = NULL \
         WHERE job_id = :job_id RETURNING state",
    )?;
    let mut jobs = Vec::with_capacity(job_ids.len());
    for job_id in job_ids {
        let state: String = update.query_row(
            named_params! {
                ":otherwise": otherwise.as_str(),
                ":now": now,
                ":error": error,
                ":job_id": job_id,
            },
            |row| row.get(0),
        )?;
        let state = name_from_sql("jobs.state", state)?;
        jobs.push(ExpiredJob { job_id, state });
    }
    Ok(jobs)
}

pub(super) fn get(conn: &Connection, job_id: &str) -> Result<Option<JobRecord>, DbError> {
    select_one(conn, "job_id = ?1", job_id)
}

pub(super) fn count(conn: &Connection) -> Result<JobCounts, DbError> {
    let mut counts = JobCounts::default();
    let mut stmt = conn.prepare("SELECT state, COUNT(*) FROM jobs GROUP BY state")?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let state: JobState = name_from_sql("jobs.state", row.get(0)?)?;
        counts.add_state(state, row.get(1)?);
    }
    let mut stmt = conn.prepare(
        "SELECT p.value, jobs.state, COUNT(*) FROM jobs, json_each(jobs.providers) AS p \
         GROUP BY p.value, jobs.state ORDER BY p.value",
    )?;
    let mut rows = stmt.query([])?;
    while let Some(row) = rows.next()? {
        let state: JobState = name_from_sql("jobs.state", row.get(1)?)?;
        counts.add_provider(row.get(0)?, state, row.get(2)?);
    }
    counts.sort();
    Ok(counts)
}

/// Queued and running jobs per state and provider (see `ActiveJobCount`).
pub(super) fn count_active(conn: &Connection) -> Result<Vec<ActiveJobCount>, DbError> {
    let mut stmt = conn.prepare(
        "SELECT state, COALESCE(charged_provider, json_extract(providers, '$[0]')), COUNT(*) \
         FROM jobs WHERE state IN ('queued', 'running') GROUP BY 1, 2",
    )?;
    let mut rows = stmt.query([])?;
    let mut counts = Vec::new();
    while let Some(row) = rows.next()? {
        let state: JobState = name_from_sql("jobs.state", row.get(0)?)?;
        counts.push(ActiveJobCount::new(state, row.get(1)?, row.get(2)?));
    }
    ActiveJobCount::sort(&mut counts);
    Ok(counts)
}

fn select_one(
    conn: &Connection,
    condition: &str,
    value: &str,
) -> Result<Option<JobRecord>, DbError> {
    let mut stmt = conn.prepare(&format!("SELECT {COLUMNS} FROM jobs WHERE {condition}"))?;
    let mut rows = stmt.query([value])?;
    rows.next()?.map(record_from_row).transpose()
}

pub(super) fn to_json(value: &impl serde::Serialize, op: &'static str) -> Result<String, DbError> {
    serde_json::to_string(value).map_err(|source| DbError::Json { op, source })
}

pub(super) fn from_json<T: serde::de::DeserializeOwned>(
    text: &str,
    op: &'static str,
) -> Result<T, DbError> {
    serde_json::from_str(text).map_err(|source| DbError::Json { op, source })
}

/// The row a write under a lease returned; none means the job is not
/// running under that token any more.
fn leased_row(row: Option<&Row<'_>>, job_id: &str) -> Result<JobRecord, DbError> {
    match row {
        Some(row) => record_from_row(row),
        None => Err(DbError::LeaseLost(job_id.to_owned())),
    }
}

pub(super) fn record_from_row(row: &Row<'_>) -> Result<JobRecord, DbError> {
    let request: String = row.get("request")?;
    let providers: String = row.get("providers")?;
    let envelope = row
        .get::<_, Option<String>>("envelope")?
        .map(|text| from_json::<Envelope>(&text, "decode a job's envelope"))
        .transpose()?;
    Ok(JobRecord {
        job_id: row.get("job_id")?,
        request: from_json(&request, "decode a job's run request")?,
        state: name_from_sql("jobs.state", row.get("state")?)?,
        priority: row.get("priority")?,
        created_at: timestamp_from_sql("jobs.created_at", row.get("created_at")?)?,
        not_before: timestamp_from_sql("jobs.not_before", row.get("not_before")?)?,
        attempts: row.get("attempts")?,
        idempotency_key: row.get("idempotency_key")?,
        providers: from_json(&providers, "decode a job's providers")?,
        session: row.get("session_name")?,
        lease_owner: row.get("lease_owner")?,
        lease_expires_at: opt_timestamp_from_sql(
            "jobs.lease_expires_at",
            row.get("lease_expires_at")?,
        )?,
        waiting_for: row.get("waiting_for")?,
        cancel_requested: row.get("cancel_requested")?,
        envelope,
        error: row.get("error")?,
        ended_at: opt_timestamp_from_sql("jobs.ended_at", row.get("ended_at")?)?,
        charged_provider: row.get("charged_provider")?,
        writes_in: row.get("writes_in")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The claim's query plan on a new store's schema.
    fn plan_of(sql: &str) -> String {
        let conn = Connection::open_in_memory().unwrap();
        for migration in super::super::migrations::MIGRATIONS {
            conn.execute_batch(migration).unwrap();
        }
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let rows = stmt
            .query_map(named_params! {":now": "2026"}, |row| {
                row.get::<_, String>(3)
            })
            .unwrap();
        rows.collect::<Result<Vec<_>, _>>().unwrap().join("; ")
    }

    #[test]
    fn the_claim_walks_its_index_without_sorting_the_queue() {
        let plan = plan_of(NEXT_QUEUED);
        assert!(plan.contains("USING INDEX jobs_claim"), "{plan}");
        assert!(!plan.contains("TEMP B-TREE"), "{plan}");
    }
}
