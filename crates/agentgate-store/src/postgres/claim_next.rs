//! [`crate::JobQueue::claim_next`] on PostgreSQL (the rules and their cost
//! are in `crate::claim_next`): one read-committed transaction per try,
//! with no lock that serialises claimers.
//!
//! - The walk takes its candidate `FOR UPDATE SKIP LOCKED`: a row another
//!   claimer holds is passed over, one it claimed meanwhile is re-checked
//!   and dropped (no longer queued).
//! - The limits are a semaphore of slot rows, `claim_slots (scope, n)`:
//!   `all` has slots 1..`max_running`, `provider:NAME` 1..its limit,
//!   `folder:PATH` and `session:NAME` one each. The claim takes one free
//!   slot of each scope its job needs, each `FOR UPDATE SKIP LOCKED`, and
//!   writes its job id and lease token in it. A slot is free when empty or
//!   when its job no longer runs under that token: released lazily, so an
//!   end, a release, a retry or a lease taken back needs no slot write and
//!   nothing can drift. Two claimers never hold one slot, so together they
//!   never pass a limit, on one host or many; neither waits for the other.
//!   Because that release is read from the jobs, the write that takes a
//!   slot asks again whether it is free, under the slot's lock
//!   (`take_slot`): the look's snapshot can predate the claim that just
//!   took the slot.
//! - A slot scope with no free slot: for `all`, nothing may start
//!   ([`NextClaim::Nothing`](crate::NextClaim::Nothing)); for a provider,
//!   folder or session (a claimer racing this one took it), the try is
//!   given up and the next passes over that job, at most [`TRIES`] tries.
//!   Slot rows missing (a new scope, a limit raised) are inserted by a
//!   statement of their own, outside the claim, and the claim is tried
//!   again: inserts inside it could deadlock two claimers.
//!
//! The running jobs' counts still filter the walk (a full provider, a busy
//! folder or session are excluded in the query), so a slot is rarely
//! missed; the slots are what makes the limit exact under concurrency.
//! Folder and session slot rows stay once made: one small row per folder
//! and session name ever claimed.

use jiff::Timestamp;
use tokio_postgres::Transaction;
use tokio_postgres::types::Json;

use super::PgError;
use super::jobs::{COLUMNS, TAKE_LEASE, record_from_row};
use crate::claim_next::{Candidate, ClaimLimits, RunningJobs};
use crate::jobs::{JobRecord, LeaseToken, PlannedFacts};

/// How many tries one claim makes when racing claimers take the slots of
/// its candidates.
pub(super) const TRIES: usize = 4;

/// What one try did.
pub(super) enum Try {
    Claimed(Box<JobRecord>),
    WaitingForQuota {
        job_id: String,
        until: Timestamp,
    },
    Nothing,
    /// Another claimer holds a slot the job needs: try again passing over
    /// it.
    PassOver(String),
    /// The scope has fewer slot rows than its limit: make them, try again.
    MakeSlots {
        scope: String,
        count: i32,
    },
}

/// The provider a queued row counts against (`$2`: the exhausted ones).
const CHOSEN: &str = "(SELECT e.p FROM jsonb_array_elements_text(jobs.providers) \
    WITH ORDINALITY AS e(p, i) WHERE jobs.ignore_quota OR e.p <> ALL($2) ORDER BY e.i LIMIT 1)";

/// The walk (see `crate::claim_next`, step 3): `$1` now, `$2` exhausted,
/// `$3` passed over, `$4` busy sessions, `$5` busy folders, `$6` full
/// providers, `$7` whether the claimer takes only `$8`.
pub(super) fn next_queued_sql() -> String {
    format!(
        "SELECT seq, job_id, providers, {CHOSEN} AS chosen, ignore_quota, session_name, writes_in \
         FROM jobs \
         WHERE state = 'queued' AND planned AND not_before <= $1 AND job_id <> ALL($3) \
           AND (session_name IS NULL OR (session_name <> ALL($4) \
                AND NOT EXISTS (SELECT 1 FROM jobs AS older \
                    WHERE older.state = 'queued' AND older.session_name = jobs.session_name \
                      AND (older.created_at, older.seq) < (jobs.created_at, jobs.seq)))) \
           AND ((NOT ignore_quota AND jsonb_array_length(providers) > 0 AND {CHOSEN} IS NULL) \
                OR ((writes_in IS NULL OR writes_in <> ALL($5)) \
                    AND ({CHOSEN} IS NULL OR {CHOSEN} <> ALL($6)) \
                    AND (NOT $7 OR {CHOSEN} = ANY($8)))) \
         ORDER BY priority DESC, created_at, seq LIMIT 1 FOR UPDATE OF jobs SKIP LOCKED"
    )
}

/// Whether slot row `s` is free: empty, or its job no longer runs under
/// the lease token it names (released lazily, see the module notes).
const SLOT_FREE: &str = "(s.job_id IS NULL OR NOT EXISTS (SELECT 1 FROM jobs AS j \
    WHERE j.job_id = s.job_id AND j.state = 'running' AND j.lease_token = s.lease_token))";

/// One slot of `$1` among 1..`$2`, not among `$3`, free by this
/// statement's snapshot, locked. The snapshot may predate the claim that
/// took it (see [`take_slot`]).
fn lock_slot_sql() -> String {
    format!(
        "SELECT s.n FROM claim_slots AS s \
         WHERE s.scope = $1 AND s.n <= $2 AND s.n <> ALL($3) AND {SLOT_FREE} \
         ORDER BY s.n LIMIT 1 FOR UPDATE OF s SKIP LOCKED"
    )
}

/// Slot `$2` of `$1`, locked by this transaction, becomes job `$3`'s under
/// token `$4` if it is free by this statement's snapshot.
fn write_slot_sql() -> String {
    format!(
        "UPDATE claim_slots AS s SET job_id = $3, lease_token = $4 \
         WHERE s.scope = $1 AND s.n = $2 AND {SLOT_FREE}"
    )
}

/// Takes one free slot of `scope` among 1..`count` for `job_id` under
/// `token`; whether one was free.
///
/// The look reads the jobs by its statement's snapshot. When the slot it
/// locks was taken by a claim that committed after that snapshot,
/// PostgreSQL re-checks the slot row as that claim left it, but its job
/// still by the old snapshot, where it was not yet running: the slot looks
/// free. So the write asks again whether the slot is free, as a statement
/// of its own: its snapshot, taken with the lock held, sees every claim
/// that wrote the slot. A slot found held is excluded from the next look,
/// so at most `count` looks.
async fn take_slot(
    tx: &Transaction<'_>,
    scope: &str,
    count: i32,
    job_id: &str,
    token: &LeaseToken,
) -> Result<bool, PgError> {
    let mut held: Vec<i32> = Vec::new();
    while held.len() <= usize::try_from(count).unwrap_or(usize::MAX) {
        let Some(slot) = tx
            .query_opt(&lock_slot_sql(), &[&scope, &count, &held])
            .await?
        else {
            return Ok(false);
        };
        let n: i32 = slot.try_get(0)?;
        if tx
            .execute(&write_slot_sql(), &[&scope, &n, &job_id, &token.0])
            .await?
            == 1
        {
            return Ok(true);
        }
        held.push(n);
    }
    Ok(false)
}

/// One try of a claim (see the module notes); `passed_over` adds to the
/// limits' `skip`.
pub(super) async fn try_claim(
    tx: &Transaction<'_>,
    owner: &str,
    token: &LeaseToken,
    (expires, now): (Timestamp, Timestamp),
    limits: &ClaimLimits,
    passed_over: &[String],
) -> Result<Try, PgError> {
    let running = running_jobs(tx).await?;
    if running.total >= u64::from(limits.max_running) {
        return Ok(Try::Nothing);
    }
    let skip: Vec<String> = limits.skip.iter().chain(passed_over).cloned().collect();
    let only = limits.only_providers.clone().unwrap_or_default();
    let Some(row) = tx
        .query_opt(
            &next_queued_sql(),
            &[
                &now,
                &limits.exhausted_names(),
                &skip,
                &running.sessions,
                &running.folders,
                &limits.full_providers(&running),
                &limits.only_providers.is_some(),
                &only,
            ],
        )
        .await?
    else {
        return Ok(Try::Nothing);
    };
    let Json(providers) = row.try_get::<_, Json<Vec<String>>>(2)?;
    let candidate = Candidate {
        seq: row.try_get(0)?,
        job_id: row.try_get(1)?,
        providers,
        provider: row.try_get(3)?,
        ignore_quota: row.try_get(4)?,
        session: row.try_get(5)?,
        writes_in: row.try_get(6)?,
    };
    if candidate.waits_for_quota() {
        let until = limits.earliest_reset(&candidate.providers).unwrap_or(now);
        tx.execute(
            "UPDATE jobs SET not_before = $1, waiting_for = 'quota' WHERE seq = $2",
            &[&until, &candidate.seq],
        )
        .await?;
        return Ok(Try::WaitingForQuota {
            job_id: candidate.job_id,
            until,
        });
    }
    let mut scopes = vec![("all".to_owned(), limits.max_running)];
    if let Some(p) = &candidate.provider
        && let Some(limit) = limits.provider_limit(p)
    {
        scopes.push((format!("provider:{p}"), limit));
    }
    if let Some(folder) = &candidate.writes_in {
        scopes.push((format!("folder:{folder}"), 1));
    }
    if let Some(session) = &candidate.session {
        scopes.push((format!("session:{session}"), 1));
    }
    for (scope, limit) in scopes {
        let count = i32::try_from(limit).unwrap_or(i32::MAX);
        if take_slot(tx, &scope, count, &candidate.job_id, token).await? {
            continue;
        }
        let made: i64 = tx
            .query_one(
                "SELECT count(*) FROM claim_slots WHERE scope = $1 AND n <= $2",
                &[&scope, &count],
            )
            .await?
            .try_get(0)?;
        if made < i64::from(count) {
            return Ok(Try::MakeSlots { scope, count });
        }
        if scope == "all" {
            return Ok(Try::Nothing);
        }
        return Ok(Try::PassOver(candidate.job_id));
    }
    let row = tx
        .query_opt(
            &format!(
                "UPDATE jobs SET {TAKE_LEASE}, charged_provider = $4 \
                 WHERE seq = $5 AND state = 'queued' RETURNING {COLUMNS}"
            ),
            &[
                &owner,
                &token.0,
                &expires,
                &candidate.provider,
                &candidate.seq,
            ],
        )
        .await?;
    match row {
        Some(row) => Ok(Try::Claimed(Box::new(record_from_row(&row)?))),
        None => Ok(Try::Nothing),
    }
}

/// Makes the slot rows 1..`count` of `scope` (none taken).
pub(super) async fn make_slots<C: tokio_postgres::GenericClient + Sync>(
    client: &C,
    scope: &str,
    count: i32,
) -> Result<(), PgError> {
    client
        .execute(
            "INSERT INTO claim_slots (scope, n) SELECT $1, g FROM generate_series(1, $2) AS g \
             ON CONFLICT DO NOTHING",
            &[&scope, &count],
        )
        .await?;
    Ok(())
}

/// The running jobs (the partial index `jobs_leases`).
async fn running_jobs(tx: &Transaction<'_>) -> Result<RunningJobs, PgError> {
    let rows = tx
        .query(
            "SELECT charged_provider, session_name, writes_in FROM jobs WHERE state = 'running'",
            &[],
        )
        .await?;
    let mut running = RunningJobs::default();
    for row in rows {
        running.add(row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    }
    Ok(running)
}

/// The executor's look for queued jobs never planned (each pass): the
/// partial index `jobs_unplanned` holds only those.
fn unplanned_sql() -> String {
    format!(
        "SELECT {COLUMNS} FROM jobs WHERE state = 'queued' AND NOT planned ORDER BY seq LIMIT $1"
    )
}

/// Up to `limit` queued jobs never planned, oldest first.
pub(super) async fn unplanned<C: tokio_postgres::GenericClient + Sync>(
    client: &C,
    limit: i64,
) -> Result<Vec<JobRecord>, PgError> {
    let rows = client.query(&unplanned_sql(), &[&limit]).await?;
    rows.iter().map(record_from_row).collect()
}

/// Stores a queued job's planned facts; whether it was queued and
/// unplanned.
pub(super) async fn set_facts<C: tokio_postgres::GenericClient + Sync>(
    client: &C,
    job_id: &str,
    facts: &PlannedFacts,
) -> Result<bool, PgError> {
    let changed = client
        .execute(
            "UPDATE jobs SET providers = $2, writes_in = $3, ignore_quota = $4, planned = true \
             WHERE job_id = $1 AND state = 'queued' AND NOT planned",
            &[
                &job_id,
                &Json(&facts.providers),
                &facts.writes_in,
                &facts.ignore_quota,
            ],
        )
        .await?;
    Ok(changed == 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With 10,000 queued jobs and their statistics, in a schema of its own
    /// inside a transaction that is rolled back: the walk reads the partial
    /// index `jobs_claim` in claim order and probes `jobs_session_queue`,
    /// with no sort and no sequential scan of the jobs; the look for
    /// unplanned jobs reads only the partial index `jobs_unplanned`.
    #[test]
    fn the_walk_uses_the_claim_index_with_ten_thousand_queued() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let plan = rt.block_on(async {
            let url = std::env::var("AGENTGATE_TEST_POSTGRES")
                .expect("AGENTGATE_TEST_POSTGRES names the test cluster");
            let (mut client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(connection);
            let tx = client.transaction().await.unwrap();
            tx.batch_execute(
                "CREATE SCHEMA agentgate_claim_plan; \
                 SET LOCAL search_path = agentgate_claim_plan;",
            )
            .await
            .unwrap();
            for statements in super::super::migrations::MIGRATIONS {
                for sql in statements.iter() {
                    tx.batch_execute(sql).await.unwrap();
                }
            }
            tx.batch_execute(
                "INSERT INTO jobs (job_id, request, state, priority, created_at, not_before, \
                 providers, session_name, planned) \
                 SELECT 'job' || g, '{}', 'queued', g % 3, \
                   '2026-05-01T12:00:00Z'::timestamptz + g * interval '1 second', \
                   '2026-05-01T12:00:00Z'::timestamptz + g * interval '1 second', \
                   '[\"claude\"]', CASE WHEN g % 7 = 0 THEN 's' || (g % 50) END, true \
                 FROM generate_series(1, 10000) AS g; \
                 ANALYZE jobs;",
            )
            .await
            .unwrap();
            let none: Vec<String> = Vec::new();
            let now: Timestamp = "2027-01-01T00:00:00Z".parse().unwrap();
            let rows = tx
                .query(
                    &format!("EXPLAIN {}", next_queued_sql()),
                    &[&now, &none, &none, &none, &none, &none, &false, &none],
                )
                .await
                .unwrap();
            let plan: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
            let rows = tx
                .query(&format!("EXPLAIN {}", unplanned_sql()), &[&8_i64])
                .await
                .unwrap();
            let unplanned: Vec<String> = rows.iter().map(|row| row.get(0)).collect();
            tx.rollback().await.unwrap();
            (plan.join("\n"), unplanned.join("\n"))
        });
        let (plan, unplanned) = plan;
        assert!(unplanned.contains("jobs_unplanned"), "{unplanned}");
        assert!(!unplanned.contains("Sort"), "{unplanned}");
        assert!(!unplanned.contains("Seq Scan"), "{unplanned}");
        assert!(plan.contains("Index Scan using jobs_claim"), "{plan}");
        assert!(plan.contains("jobs_session_queue"), "{plan}");
        assert!(plan.contains("LockRows"), "{plan}");
        assert!(!plan.contains("Sort"), "{plan}");
        assert!(!plan.contains("Seq Scan on jobs"), "{plan}");
    }

    /// Two claimers race for the last slot of a provider (limit 1): `X`
    /// takes it for its job and commits while `Y`'s look for a free slot
    /// of that provider has begun (its snapshot taken, held before it
    /// reads the slot by a gate the test puts in front of the slot rows).
    /// `Y` then meets the slot as `X` left it, but reads the jobs as they
    /// were before `X`'s commit: `X`'s job not yet running, the slot
    /// seemingly free. `Y` must not take it (the fault drill once saw
    /// three CLIs of a provider limited to two).
    #[test]
    fn a_slot_taken_by_a_claim_that_committed_while_another_looked_is_not_taken_twice() {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        let url = std::env::var("AGENTGATE_TEST_POSTGRES")
            .expect("AGENTGATE_TEST_POSTGRES names the test cluster");
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let schema = format!("agentgate_slot_race_{}_{nanos}", std::process::id());
        let gate = format!("{schema}_gate");
        let key = i64::try_from(nanos % 1_000_000_007).unwrap();
        let connect = |search_path: String| {
            let url = url.clone();
            async move {
                let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                    .await
                    .unwrap();
                tokio::spawn(connection);
                client
                    .batch_execute(&format!("SET search_path = {search_path}"))
                    .await
                    .unwrap();
                client
            }
        };
        let (running, tried) = rt.block_on(async {
            let admin = connect("public".into()).await;
            admin
                .batch_execute(&format!(
                    "CREATE SCHEMA {schema}; SET search_path = {schema};"
                ))
                .await
                .unwrap();
            for statements in super::super::migrations::MIGRATIONS {
                for sql in statements.iter() {
                    admin.batch_execute(sql).await.unwrap();
                }
            }
            // J0 ended and left slot 1 naming it; J1 (X's) and J2 (Y's)
            // are queued on provider a.
            admin
                .batch_execute(&format!(
                    "INSERT INTO jobs (job_id, request, state, created_at, not_before, ended_at, \
                       providers, planned) VALUES \
                     ('J0', '{{}}', 'succeeded', '2026-05-01T12:00:00Z', '2026-05-01T12:00:00Z', \
                       '2026-05-01T12:00:01Z', '[\"a\"]', true), \
                     ('J1', '{{}}', 'queued', '2026-05-01T12:00:02Z', '2026-05-01T12:00:02Z', \
                       NULL, '[\"a\"]', true), \
                     ('J2', '{{}}', 'queued', '2026-05-01T12:00:03Z', '2026-05-01T12:00:03Z', \
                       NULL, '[\"a\"]', true); \
                     INSERT INTO claim_slots (scope, n, job_id, lease_token) VALUES \
                       ('provider:a', 1, 'J0', 'T0'), ('all', 1, NULL, NULL), \
                       ('all', 2, NULL, NULL), ('all', 3, NULL, NULL); \
                     CREATE SCHEMA {gate}; \
                     CREATE FUNCTION {gate}.pass() RETURNS boolean VOLATILE LANGUAGE plpgsql AS \
                       $$ BEGIN PERFORM pg_advisory_lock_shared({key}); \
                       PERFORM pg_advisory_unlock_shared({key}); RETURN true; END $$; \
                     CREATE VIEW {gate}.claim_slots AS SELECT * FROM {schema}.claim_slots \
                       WHERE CASE WHEN scope LIKE 'provider:%' THEN {gate}.pass() ELSE true END;"
                ))
                .await
                .unwrap();
            // X takes slot 1 for J1, as its claim would, and holds its
            // transaction open; the gate is closed.
            let x = connect(schema.clone()).await;
            x.batch_execute(
                "BEGIN; \
                 UPDATE claim_slots SET job_id = 'J1', lease_token = 'T1' \
                   WHERE scope = 'provider:a' AND n = 1; \
                 UPDATE jobs SET state = 'running', lease_token = 'T1', charged_provider = 'a', \
                   lease_expires_at = '2026-05-01T12:10:00Z' WHERE job_id = 'J1';",
            )
            .await
            .unwrap();
            admin
                .batch_execute(&format!("SELECT pg_advisory_lock({key})"))
                .await
                .unwrap();
            // Y claims through the gate's view of the slots.
            let mut y = connect(format!("{gate}, {schema}")).await;
            let claim = tokio::spawn(async move {
                let tx = y.transaction().await.unwrap();
                let limits = ClaimLimits {
                    max_running: 3,
                    provider_limits: vec![("a".into(), 1)],
                    exhausted: Vec::new(),
                    only_providers: None,
                    skip: Vec::new(),
                };
                let now: Timestamp = "2026-05-01T12:01:00Z".parse().unwrap();
                let expires: Timestamp = "2026-05-01T12:11:00Z".parse().unwrap();
                let token = LeaseToken("T2".into());
                let tried = try_claim(&tx, "y", &token, (expires, now), &limits, &[])
                    .await
                    .unwrap();
                tx.commit().await.unwrap();
                match tried {
                    Try::Claimed(job) => format!("claimed {}", job.job_id),
                    Try::PassOver(job_id) => format!("passed over {job_id}"),
                    Try::Nothing => "nothing".to_owned(),
                    Try::WaitingForQuota { job_id, .. } => format!("quota wait {job_id}"),
                    Try::MakeSlots { scope, .. } => format!("make slots {scope}"),
                }
            });
            // Bounded: at most 600 rounds of 50 ms for Y to reach the gate.
            let mut at_gate = false;
            for _ in 0..600 {
                let row = admin
                    .query_one(
                        "SELECT count(*) FROM pg_stat_activity \
                         WHERE datname = current_database() AND wait_event = 'advisory'",
                        &[],
                    )
                    .await
                    .unwrap();
                if row.get::<_, i64>(0) > 0 {
                    at_gate = true;
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            x.batch_execute("COMMIT").await.unwrap();
            admin
                .batch_execute(&format!("SELECT pg_advisory_unlock({key})"))
                .await
                .unwrap();
            let tried = claim.await.unwrap();
            let running: Vec<String> = admin
                .query(
                    "SELECT job_id FROM jobs WHERE state = 'running' ORDER BY job_id",
                    &[],
                )
                .await
                .unwrap()
                .iter()
                .map(|row| row.get(0))
                .collect();
            admin
                .batch_execute(&format!(
                    "DROP SCHEMA {gate} CASCADE; DROP SCHEMA {schema} CASCADE;"
                ))
                .await
                .unwrap();
            assert!(at_gate, "Y never reached the gate");
            (running, tried)
        });
        assert_eq!(running, vec!["J1".to_owned()], "Y: {tried}");
        assert_eq!(tried, "passed over J2");
    }
}
