//! [`JobQueue::settle`](crate::JobQueue::settle) on PostgreSQL: the job's
//! statement, then the run's record, in one transaction (the rules are in
//! `crate::settle`, the same as SQLite's in `sqlite/settle.rs`).

use jiff::Timestamp;
use tokio_postgres::GenericClient;

use super::PgError;
use super::jobs::{COLUMNS, record_from_row};
use crate::jobs::{JobRecord, LeaseToken};
use crate::settle::Settlement;

/// The job's write: it ends as its run did unless it is requeued (`$1`)
/// and no cancel was asked. The row is locked until the transaction ends.
const SETTLE_JOB: &str = "UPDATE jobs SET \
       state = CASE WHEN $1 AND NOT cancel_requested THEN 'queued' ELSE $2::text END, \
       ended_at = CASE WHEN $1 AND NOT cancel_requested THEN NULL ELSE $3::timestamptz END, \
       envelope = CASE WHEN $1 AND NOT cancel_requested THEN envelope ELSE $4::text END, \
       error = CASE WHEN $1 AND NOT cancel_requested \
               THEN COALESCE($5::text, error) ELSE $6::text END, \
       waiting_for = CASE WHEN $1 AND NOT cancel_requested THEN $7::text ELSE NULL END, \
       not_before = CASE WHEN $1 AND NOT cancel_requested \
                    THEN $8::timestamptz ELSE not_before END, \
       attempts = GREATEST(attempts - $9::integer, 0), \
       lease_token = NULL, lease_expires_at = NULL \
     WHERE job_id = $10 AND state = 'running' AND lease_token = $11";

pub(super) async fn settle<C: GenericClient + Sync>(
    client: &C,
    job_id: &str,
    token: &LeaseToken,
    settlement: &Settlement,
    now: Timestamp,
) -> Result<JobRecord, PgError> {
    let envelope = serde_json::to_string(&settlement.envelope).map_err(|source| PgError::Json {
        op: "encode the envelope",
        source,
    })?;
    let requeue = settlement.requeue();
    let (not_before, waiting_for, queued_error) = match requeue {
        Some((at, waiting, error)) => (Some(at), waiting, error),
        None => (None, None, None),
    };
    let refund = i32::try_from(settlement.refund()).unwrap_or(0);
    let row = client
        .query_opt(
            &format!("{SETTLE_JOB} RETURNING {COLUMNS}"),
            &[
                &requeue.is_some(),
                &settlement.final_state().as_str(),
                &now,
                &envelope,
                &queued_error,
                &settlement.envelope.error,
                &waiting_for,
                &not_before,
                &refund,
                &job_id,
                &token.expose(),
            ],
        )
        .await?;
    let job = match row {
        Some(row) => record_from_row(&row)?,
        None => return Err(PgError::LeaseLost(job_id.to_owned())),
    };
    if let Some(run_id) = &settlement.run_id {
        match super::runs::finish_run(client, run_id, &settlement.envelope, Timestamp::now()).await
        {
            Ok(()) | Err(PgError::RunNotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(job)
}
