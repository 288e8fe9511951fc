//! A claim within rules on SQLite (see `crate::ClaimRules`): the reads and
//! the claim run in one write transaction, so claims take turns on the
//! database's write lock.

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, named_params};

use super::DbError;
use super::jobs::{COLUMNS, TAKE_LEASE, record_from_row};
use super::values::timestamp_to_sql;
use crate::claim_rules::{ClaimRules, RunningNow};
use crate::jobs::{JobRecord, LeaseToken};

/// Claims `job_id` if it is queued, ready and `rules` allow it; call in a
/// write transaction.
pub(super) fn claim_within(
    conn: &Connection,
    job_id: &str,
    owner: &str,
    token: &LeaseToken,
    (expires, now): (Timestamp, Timestamp),
    rules: &ClaimRules,
) -> Result<Option<JobRecord>, DbError> {
    let job: Option<(Option<String>, String)> = conn
        .query_row(
            "SELECT session_name, created_at FROM jobs \
             WHERE job_id = ?1 AND state = 'queued' AND not_before <= ?2",
            (job_id, timestamp_to_sql(now)),
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    let Some((session, created_at)) = job else {
        return Ok(None);
    };
    let running = conn.query_row(
        "SELECT count(*), \
           count(*) FILTER (WHERE charged_provider = :provider), \
           count(*) FILTER (WHERE writes_in = :folder), \
           count(*) FILTER (WHERE session_name = :session), \
           (SELECT count(*) FROM jobs WHERE state = 'queued' AND session_name = :session \
              AND (created_at < :created OR (created_at = :created AND job_id < :job_id))) \
         FROM jobs WHERE state = 'running'",
        named_params! {
            ":provider": rules.provider,
            ":folder": rules.writes_in,
            ":session": session,
            ":created": created_at,
            ":job_id": job_id,
        },
        |row| {
            Ok(RunningNow {
                total: row.get(0)?,
                on_provider: row.get(1)?,
                in_folder: row.get(2)?,
                of_session: row.get(3)?,
                older_of_session: row.get(4)?,
            })
        },
    )?;
    if rules.check(&running).is_err() {
        return Ok(None);
    }
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET {TAKE_LEASE}, charged_provider = :provider, writes_in = :folder \
         WHERE job_id = :job_id AND state = 'queued' RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":owner": owner,
        ":token": token.0,
        ":expires": timestamp_to_sql(expires),
        ":provider": rules.provider,
        ":folder": rules.writes_in,
        ":job_id": job_id,
    })?;
    rows.next()?.map(record_from_row).transpose()
}
