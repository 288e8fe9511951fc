//! [`crate::JobQueue::claim_next`] on SQLite (the rules and their cost are
//! in `crate::claim_next`): one `BEGIN IMMEDIATE` transaction, so claims
//! take turns on the write lock and count the running jobs exactly. The
//! lists the walk compares with (busy sessions and folders, full and
//! exhausted providers, the claimer's providers, the jobs it passes over)
//! are JSON arrays bound as parameters and read with `json_each`.

use jiff::Timestamp;
use rusqlite::{Connection, OptionalExtension, named_params};

use super::DbError;
use super::jobs::{COLUMNS, TAKE_LEASE, from_json, record_from_row, to_json};
use super::values::timestamp_to_sql;
use crate::claim_next::{Candidate, ClaimLimits, RunningJobs};
use crate::jobs::{JobRecord, LeaseToken, PlannedFacts};

/// What one claim did, before the caller adds the lease token.
pub(super) enum Claimed {
    Job(Box<JobRecord>),
    WaitingForQuota { job_id: String, until: Timestamp },
    Nothing,
}

/// The provider a queued row counts against: its first provider not
/// exhausted, or its first with `ignore_quota` (the lowest array index
/// kept, by an aggregate: no sort).
const CHOSEN: &str = "(SELECT json_extract(jobs.providers, '$[' || min(p.key) || ']') \
    FROM json_each(jobs.providers) AS p \
    WHERE jobs.ignore_quota = 1 OR p.value NOT IN (SELECT value FROM json_each(:exhausted)))";

/// The walk to the next job (see `crate::claim_next`, step 3): the index
/// `jobs_claim` in claim order, each row filtered, the first kept.
pub(super) fn next_queued_sql() -> String {
    format!(
        "SELECT seq, job_id, providers, {CHOSEN} AS chosen, ignore_quota, session_name, writes_in \
         FROM jobs \
         WHERE state = 'queued' AND planned = 1 AND not_before <= :now \
           AND job_id NOT IN (SELECT value FROM json_each(:skip)) \
           AND (session_name IS NULL OR ( \
                 session_name NOT IN (SELECT value FROM json_each(:busy_sessions)) \
                 AND NOT EXISTS (SELECT 1 FROM jobs AS older \
                     WHERE older.state = 'queued' AND older.session_name = jobs.session_name \
                       AND (older.created_at < jobs.created_at \
                            OR (older.created_at = jobs.created_at AND older.seq < jobs.seq))))) \
           AND ((ignore_quota = 0 AND json_array_length(providers) > 0 AND {CHOSEN} IS NULL) \
                OR ((writes_in IS NULL \
                     OR writes_in NOT IN (SELECT value FROM json_each(:busy_folders))) \
                    AND ({CHOSEN} IS NULL \
                         OR {CHOSEN} NOT IN (SELECT value FROM json_each(:full))) \
                    AND (:filtered = 0 \
                         OR {CHOSEN} IN (SELECT value FROM json_each(:only))))) \
         ORDER BY priority DESC, created_at, seq LIMIT 1"
    )
}

/// Claims the next job within `limits`; call in a write transaction.
pub(super) fn claim_next(
    conn: &Connection,
    owner: &str,
    token: &LeaseToken,
    (expires, now): (Timestamp, Timestamp),
    limits: &ClaimLimits,
) -> Result<Claimed, DbError> {
    let running = running_jobs(conn)?;
    if running.total >= u64::from(limits.max_running) {
        return Ok(Claimed::Nothing);
    }
    let json = |v: &Vec<String>, what| to_json(v, what);
    let only = limits.only_providers.clone().unwrap_or_default();
    let candidate = conn
        .query_row(
            &next_queued_sql(),
            named_params! {
                ":now": timestamp_to_sql(now),
                ":exhausted": json(&limits.exhausted_names(), "encode the exhausted providers")?,
                ":skip": json(&limits.skip, "encode the jobs passed over")?,
                ":busy_sessions": json(&running.sessions, "encode the busy sessions")?,
                ":busy_folders": json(&running.folders, "encode the busy folders")?,
                ":full": json(&limits.full_providers(&running), "encode the full providers")?,
                ":filtered": limits.only_providers.is_some(),
                ":only": json(&only, "encode the claimer's providers")?,
            },
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, Option<String>>(3)?,
                    row.get::<_, bool>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, Option<String>>(6)?,
                ))
            },
        )
        .optional()?;
    let Some((seq, job_id, providers, provider, ignore_quota, session, writes_in)) = candidate
    else {
        return Ok(Claimed::Nothing);
    };
    let candidate = Candidate {
        seq,
        job_id,
        providers: from_json(&providers, "decode a job's providers")?,
        provider,
        ignore_quota,
        session,
        writes_in,
    };
    if candidate.waits_for_quota() {
        let until = limits.earliest_reset(&candidate.providers).unwrap_or(now);
        conn.execute(
            "UPDATE jobs SET not_before = :until, waiting_for = 'quota' WHERE seq = :seq",
            named_params! {":until": timestamp_to_sql(until), ":seq": candidate.seq},
        )?;
        return Ok(Claimed::WaitingForQuota {
            job_id: candidate.job_id,
            until,
        });
    }
    let mut stmt = conn.prepare(&format!(
        "UPDATE jobs SET {TAKE_LEASE}, charged_provider = :provider \
         WHERE seq = :seq AND state = 'queued' RETURNING {COLUMNS}"
    ))?;
    let mut rows = stmt.query(named_params! {
        ":owner": owner,
        ":token": token.0,
        ":expires": timestamp_to_sql(expires),
        ":provider": candidate.provider,
        ":seq": candidate.seq,
    })?;
    match rows.next()? {
        Some(row) => Ok(Claimed::Job(Box::new(record_from_row(row)?))),
        None => Ok(Claimed::Nothing),
    }
}

/// The running jobs (`jobs_leases`, `state = 'running'`).
fn running_jobs(conn: &Connection) -> Result<RunningJobs, DbError> {
    let mut stmt = conn.prepare_cached(
        "SELECT charged_provider, session_name, writes_in FROM jobs WHERE state = 'running'",
    )?;
    let mut rows = stmt.query([])?;
    let mut running = RunningJobs::default();
    while let Some(row) = rows.next()? {
        running.add(row.get(0)?, row.get(1)?, row.get(2)?);
    }
    Ok(running)
}

/// The executor's look for queued jobs never planned (each pass). The
/// partial index is named: without statistics (a store never runs
/// `ANALYZE`) SQLite's planner otherwise takes `jobs_leases (state=?)`
/// and reads every queued row to find none unplanned, which made each
/// pass cost the whole backlog.
pub(super) fn unplanned_sql() -> String {
    format!(
        "SELECT {COLUMNS} FROM jobs INDEXED BY jobs_unplanned \
         WHERE state = 'queued' AND planned = 0 ORDER BY seq LIMIT ?1"
    )
}

/// Up to `limit` queued jobs never planned, oldest first.
pub(super) fn unplanned(conn: &Connection, limit: usize) -> Result<Vec<JobRecord>, DbError> {
    let mut stmt = conn.prepare(&unplanned_sql())?;
    let mut rows = stmt.query([i64::try_from(limit).unwrap_or(i64::MAX)])?;
    let mut jobs = Vec::new();
    while let Some(row) = rows.next()? {
        jobs.push(record_from_row(row)?);
    }
    Ok(jobs)
}

/// Stores a queued job's planned facts; whether it was queued and
/// unplanned.
pub(super) fn set_facts(
    conn: &Connection,
    job_id: &str,
    facts: &PlannedFacts,
) -> Result<bool, DbError> {
    let changed = conn.execute(
        "UPDATE jobs SET providers = :providers, writes_in = :folder, \
         ignore_quota = :ignore_quota, planned = 1 \
         WHERE job_id = :job_id AND state = 'queued' AND planned = 0",
        named_params! {
            ":providers": to_json(&facts.providers, "encode the providers")?,
            ":folder": facts.writes_in,
            ":ignore_quota": facts.ignore_quota,
            ":job_id": job_id,
        },
    )?;
    Ok(changed == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10,000 queued, planned jobs, some in sessions, three priorities.
    fn ten_thousand_queued() -> Connection {
        let conn = Connection::open_in_memory().unwrap();
        for migration in super::super::migrations::MIGRATIONS {
            conn.execute_batch(migration).unwrap();
        }
        let mut insert = conn
            .prepare(
                "INSERT INTO jobs (job_id, request, state, priority, created_at, not_before, \
                 providers, session_name, planned) \
                 VALUES (?1, '{}', 'queued', ?2, ?3, ?3, '[\"claude\"]', ?4, 1)",
            )
            .unwrap();
        for i in 0..10_000 {
            let at = format!(
                "2026-05-01T12:{:02}:{:02}.000000000Z",
                i / 600,
                (i / 10) % 60
            );
            let session = (i % 7 == 0).then(|| format!("s{}", i % 50));
            insert
                .execute(rusqlite::params![format!("job{i}"), i % 3, at, session])
                .unwrap();
        }
        drop(insert);
        conn
    }

    fn plan_of(conn: &Connection, sql: &str, params: impl rusqlite::Params) -> String {
        let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
        let plan: Vec<String> = stmt
            .query_map(params, |row| row.get::<_, String>(3))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        plan.join("\n")
    }

    /// The two queries of each claim pass, as a store sees them (no
    /// statistics: a store never runs `ANALYZE`) and after `ANALYZE`:
    /// with 10,000 queued jobs, the walk reads the index in claim order,
    /// the look for unplanned jobs reads only the partial index; no sort
    /// of the queue, no scan of the table.
    #[test]
    fn each_pass_reads_indexes_only_with_ten_thousand_queued() {
        let conn = ten_thousand_queued();
        for stats in ["none", "ANALYZE"] {
            if stats == "ANALYZE" {
                conn.execute_batch("ANALYZE").unwrap();
            }
            let walk = plan_of(
                &conn,
                &next_queued_sql(),
                named_params! {
                    ":now": "2027-01-01T00:00:00.000000000Z", ":exhausted": "[]", ":skip": "[]",
                    ":busy_sessions": "[]", ":busy_folders": "[]", ":full": "[]",
                    ":filtered": false, ":only": "[]",
                },
            );
            assert!(walk.contains("USING INDEX jobs_claim"), "{stats}: {walk}");
            assert!(walk.contains("INDEX jobs_session_queue"), "{stats}: {walk}");
            assert!(!walk.contains("TEMP B-TREE"), "{stats}: {walk}");
            assert!(!walk.contains("SCAN jobs"), "{stats}: {walk}");
            assert!(!walk.contains("SCAN older"), "{stats}: {walk}");
            let unplanned = plan_of(&conn, &unplanned_sql(), [8]);
            // A scan of the partial index is bounded by the unplanned
            // jobs it holds (none here), not by the queue.
            assert_eq!(unplanned, "SCAN jobs USING INDEX jobs_unplanned", "{stats}");
        }
    }
}
