//! A claim within rules on PostgreSQL (see `crate::ClaimRules`): one
//! transaction that first takes a transaction-level advisory lock
//! ([`CLAIM_LOCK`]), so claims within rules from every host take turns and
//! each counts the running jobs the ones before it claimed. The job's own
//! row is locked too (`FOR UPDATE`), as every other claim of it does.

use jiff::Timestamp;
use tokio_postgres::Transaction;

use super::PgError;
use super::jobs::{COLUMNS, TAKE_LEASE, record_from_row};
use crate::claim_rules::{ClaimRules, RunningNow};
use crate::jobs::{JobRecord, LeaseToken};

/// The advisory lock key of claims within rules (`agclaim!` in ASCII).
const CLAIM_LOCK: i64 = 0x6167_636c_6169_6d21;

/// Claims `job_id` if it is queued, ready and `rules` allow it.
pub(super) async fn claim_within(
    tx: &Transaction<'_>,
    job_id: &str,
    owner: &str,
    token: &LeaseToken,
    (expires, now): (Timestamp, Timestamp),
    rules: &ClaimRules,
) -> Result<Option<JobRecord>, PgError> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&CLAIM_LOCK])
        .await?;
    let Some(job) = tx
        .query_opt(
            "SELECT session_name, created_at FROM jobs \
             WHERE job_id = $1 AND state = 'queued' AND not_before <= $2 FOR UPDATE",
            &[&job_id, &now],
        )
        .await?
    else {
        return Ok(None);
    };
    let session: Option<String> = job.try_get(0)?;
    let created_at: Timestamp = job.try_get(1)?;
    let row = tx
        .query_one(
            "SELECT count(*), \
               count(*) FILTER (WHERE charged_provider = $1), \
               count(*) FILTER (WHERE writes_in = $2), \
               count(*) FILTER (WHERE session_name = $3), \
               (SELECT count(*) FROM jobs WHERE state = 'queued' AND session_name = $3 \
                  AND (created_at, job_id) < ($4, $5)) \
             FROM jobs WHERE state = 'running'",
            &[
                &rules.provider,
                &rules.writes_in,
                &session,
                &created_at,
                &job_id,
            ],
        )
        .await?;
    let count = |i: usize| -> Result<u64, PgError> {
        let n: i64 = row.try_get(i)?;
        Ok(u64::try_from(n).unwrap_or(0))
    };
    let running = RunningNow {
        total: count(0)?,
        on_provider: count(1)?,
        in_folder: count(2)?,
        of_session: count(3)?,
        older_of_session: count(4)?,
    };
    if rules.check(&running).is_err() {
        return Ok(None);
    }
    let row = tx
        .query_opt(
            &format!(
                "UPDATE jobs SET {TAKE_LEASE}, charged_provider = $4, writes_in = $5 \
                 WHERE job_id = $6 AND state = 'queued' RETURNING {COLUMNS}"
            ),
            &[
                &owner,
                &token.0,
                &expires,
                &rules.provider,
                &rules.writes_in,
                &job_id,
            ],
        )
        .await?;
    row.as_ref().map(record_from_row).transpose()
}
