//! Reopening a run (see `crate::reopen` for the rule): read the status and
//! owner columns, then swap them with a compare-and-swap UPDATE.
//!
//! The transaction is read committed and the read takes no lock: another
//! process can reopen the run between this read and this write. The
//! UPDATE's WHERE names the columns with the values read, so the later of
//! two writers waits for the first to commit, finds the row no longer
//! matching (PostgreSQL re-checks the WHERE against the committed row) and
//! changes nothing; this call then reads the run again and reports it.

use tokio_postgres::GenericClient;

use super::PgError;
use super::values::opt_to_bigint;
use crate::owner::RunOwner;
use crate::records::RunStatus;
use crate::reopen::{self, Invalid, Outcome, Seen};

/// Makes `run_id` running again, owned by `me`, if it ended or was
/// abandoned.
pub(super) async fn reopen_run(
    client: &impl GenericClient,
    run_id: &str,
    me: &RunOwner,
) -> Result<Outcome, PgError> {
    let Some(seen) = read(client, run_id).await? else {
        return Ok(Outcome::NotFound);
    };
    if let Some(refused) = reopen::decide(&seen).map_err(invalid)? {
        return Ok(refused);
    }
    if swap(client, run_id, &seen, me).await? {
        return Ok(Outcome::Reopened);
    }
    let now = read(client, run_id).await?;
    reopen::after_a_lost_swap(now.as_ref()).map_err(invalid)
}

/// The status and owner columns of `run_id`, as stored.
async fn read(client: &impl GenericClient, run_id: &str) -> Result<Option<Seen>, PgError> {
    let Some(row) = client
        .query_opt(
            "SELECT status, owner_pid, owner_start_ticks, owner_boot_id, owner_host \
             FROM runs WHERE run_id = $1",
            &[&run_id],
        )
        .await?
    else {
        return Ok(None);
    };
    Ok(Some(Seen {
        status: row.try_get(0)?,
        owner_pid: row.try_get(1)?,
        owner_start_ticks: row.try_get(2)?,
        owner_boot_id: row.try_get(3)?,
        owner_host: row.try_get(4)?,
    }))
}

/// The compare-and-swap: `run_id` becomes running, owned by `me`, its end
/// cleared, only if its status and owner columns still hold what `seen`
/// read. Whether it did.
async fn swap(
    client: &impl GenericClient,
    run_id: &str,
    seen: &Seen,
    me: &RunOwner,
) -> Result<bool, PgError> {
    let pid = i64::from(me.pid);
    let ticks = opt_to_bigint("runs.owner_start_ticks", me.start_ticks)?;
    let changed = client
        .execute(
            "UPDATE runs SET status = $1, owner_pid = $2, owner_start_ticks = $3, \
             owner_boot_id = $4, owner_host = $5, ended_at = NULL, duration_ms = NULL, \
             exit_code = NULL, error_type = NULL, error = NULL, envelope = NULL \
             WHERE run_id = $6 AND status = $7 AND owner_pid IS NOT DISTINCT FROM $8 \
             AND owner_start_ticks IS NOT DISTINCT FROM $9 \
             AND owner_boot_id IS NOT DISTINCT FROM $10 \
             AND owner_host IS NOT DISTINCT FROM $11",
            &[
                &RunStatus::Running.as_str(),
                &pid,
                &ticks,
                &me.boot_id,
                &me.host,
                &run_id,
                &seen.status,
                &seen.owner_pid,
                &seen.owner_start_ticks,
                &seen.owner_boot_id,
                &seen.owner_host,
            ],
        )
        .await?;
    Ok(changed == 1)
}

fn invalid(Invalid { column, value }: Invalid) -> PgError {
    PgError::Invalid { column, value }
}
