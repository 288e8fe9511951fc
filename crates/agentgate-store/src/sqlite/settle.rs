//! [`JobQueue::settle`](crate::JobQueue::settle) on SQLite: the job's
//! statement, then the run's record, inside the caller's `BEGIN IMMEDIATE`
//! transaction (the rules are in `crate::settle`).

use jiff::Timestamp;
use rusqlite::{Connection, named_params};

use super::DbError;
use super::jobs::{COLUMNS, record_from_row};
use super::values::timestamp_to_sql;
use crate::jobs::{JobRecord, LeaseToken};
use crate::settle::Settlement;

/// The job's write: it ends as its run did unless it is requeued (`:requeue`)
/// and no cancel was asked.
const SETTLE_JOB: &str = "UPDATE jobs SET \
       state = CASE WHEN :requeue AND NOT cancel_requested THEN 'queued' ELSE :final END, \
       ended_at = CASE WHEN :requeue AND NOT cancel_requested THEN NULL ELSE :now END, \
       envelope = CASE WHEN :requeue AND NOT cancel_requested THEN envelope ELSE :envelope END, \
       error = CASE WHEN :requeue AND NOT cancel_requested \
               THEN COALESCE(:queued_error, error) ELSE :error END, \
       waiting_for = CASE WHEN :requeue AND NOT cancel_requested THEN :waiting_for ELSE NULL END, \
       not_before = CASE WHEN :requeue AND NOT cancel_requested \
                    THEN :not_before ELSE not_before END, \
       attempts = MAX(attempts - :refund, 0), \
       lease_token = NULL, lease_expires_at = NULL \
     WHERE job_id = :job_id AND state = 'running' AND lease_token = :token";

pub(super) fn settle(
    conn: &Connection,
    job_id: &str,
    token: &LeaseToken,
    settlement: &Settlement,
    now: Timestamp,
) -> Result<JobRecord, DbError> {
    let envelope = serde_json::to_string(&settlement.envelope).map_err(|source| DbError::Json {
        op: "encode the envelope",
        source,
    })?;
    let requeue = settlement.requeue();
    let (not_before, waiting_for, queued_error) = match requeue {
        Some((at, waiting, error)) => (Some(timestamp_to_sql(at)), waiting, error),
        None => (None, None, None),
    };
    let mut stmt = conn.prepare(&format!("{SETTLE_JOB} RETURNING {COLUMNS}"))?;
    let mut rows = stmt.query(named_params! {
        ":requeue": requeue.is_some(),
        ":final": settlement.final_state().as_str(),
        ":now": timestamp_to_sql(now),
        ":envelope": envelope,
        ":queued_error": queued_error,
        ":error": settlement.envelope.error,
        ":waiting_for": waiting_for,
        ":not_before": not_before,
        ":refund": settlement.refund(),
        ":job_id": job_id,
        ":token": token.expose(),
    })?;
    let job = match rows.next()? {
        Some(row) => record_from_row(row)?,
        None => return Err(DbError::LeaseLost(job_id.to_owned())),
    };
    drop(rows);
    if let Some(run_id) = &settlement.run_id {
        match super::runs::finish_run(conn, run_id, &settlement.envelope, Timestamp::now()) {
            Ok(()) | Err(DbError::RunNotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(job)
}
