//! Reopening a run (see `crate::reopen` for the rule): read the status and
//! owner columns, then swap them with a compare-and-swap UPDATE.
//!
//! The call runs in one `BEGIN IMMEDIATE` transaction, so on SQLite no other
//! writer can come between the read and the write; the swap's WHERE still
//! names what was read, as on PostgreSQL, so the rule holds whatever the
//! transaction.

use rusqlite::{Connection, OptionalExtension, named_params};

use super::DbError;
use crate::owner::RunOwner;
use crate::records::RunStatus;
use crate::reopen::{self, Invalid, Outcome, Seen};

/// Makes `run_id` running again, owned by `me`, if it ended or was
/// abandoned.
pub(super) fn reopen_run(
    conn: &Connection,
    run_id: &str,
    me: &RunOwner,
) -> Result<Outcome, DbError> {
    let Some(seen) = read(conn, run_id)? else {
        return Ok(Outcome::NotFound);
    };
    if let Some(refused) = reopen::decide(&seen).map_err(invalid)? {
        return Ok(refused);
    }
    if swap(conn, run_id, &seen, me)? {
        return Ok(Outcome::Reopened);
    }
    let now = read(conn, run_id)?;
    reopen::after_a_lost_swap(now.as_ref()).map_err(invalid)
}

/// The status and owner columns of `run_id`, as stored.
fn read(conn: &Connection, run_id: &str) -> Result<Option<Seen>, DbError> {
    Ok(conn
        .query_row(
            "SELECT status, owner_pid, owner_start_ticks, owner_boot_id, owner_host \
             FROM runs WHERE run_id = ?1",
            [run_id],
            |row| {
                Ok(Seen {
                    status: row.get(0)?,
                    owner_pid: row.get(1)?,
                    owner_start_ticks: row.get(2)?,
                    owner_boot_id: row.get(3)?,
                    owner_host: row.get(4)?,
                })
            },
        )
        .optional()?)
}

/// The compare-and-swap: `run_id` becomes running, owned by `me`, its end
/// cleared, only if its status and owner columns still hold what `seen`
/// read. Whether it did.
pub(super) fn swap(
    conn: &Connection,
    run_id: &str,
    seen: &Seen,
    me: &RunOwner,
) -> Result<bool, DbError> {
    let changed = conn.execute(
        "UPDATE runs SET status = :running, owner_pid = :pid, \
         owner_start_ticks = :ticks, owner_boot_id = :boot, owner_host = :host, \
         ended_at = NULL, duration_ms = NULL, exit_code = NULL, error_type = NULL, \
         error = NULL, envelope = NULL \
         WHERE run_id = :run_id AND status = :seen_status AND owner_pid IS :seen_pid \
         AND owner_start_ticks IS :seen_ticks AND owner_boot_id IS :seen_boot \
         AND owner_host IS :seen_host",
        named_params! {
            ":running": RunStatus::Running.as_str(),
            ":pid": me.pid,
            ":ticks": me.start_ticks,
            ":boot": me.boot_id,
            ":host": me.host,
            ":run_id": run_id,
            ":seen_status": seen.status,
            ":seen_pid": seen.owner_pid,
            ":seen_ticks": seen.owner_start_ticks,
            ":seen_boot": seen.owner_boot_id,
            ":seen_host": seen.owner_host,
        },
    )?;
    Ok(changed == 1)
}

fn invalid(Invalid { column, value }: Invalid) -> DbError {
    DbError::Invalid { column, value }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::RunRecord;

    /// A database at the current schema with one failed run of a process
    /// that has exited: what a reopen reads.
    fn store_with_a_failed_run() -> Result<Connection, Box<dyn std::error::Error>> {
        let mut conn = Connection::open_in_memory()?;
        super::super::migrations::migrate(&mut conn, std::path::Path::new(":memory:"))?;
        let record = RunRecord {
            run_id: "run_x".to_owned(),
            started_at: "2026-05-01T00:00:00Z".parse()?,
            providers: vec!["claude".to_owned()],
            model: None,
            session: None,
            cwd: None,
            prompt_bytes: 1,
            kind: crate::RunKind::Workflow,
            parent_run_id: None,
            labels: Default::default(),
        };
        let gone = RunOwner {
            pid: u32::MAX,
            ..RunOwner::current()
        };
        super::super::runs::insert_run(&conn, &record, &gone).map_err(|e| format!("{e:?}"))?;
        conn.execute(
            "UPDATE runs SET status = 'failed', ended_at = '2026-05-01T00:00:01.000000000Z', \
             exit_code = 1, error = 'boom' WHERE run_id = 'run_x'",
            [],
        )?;
        Ok(conn)
    }

    #[test]
    fn the_swap_changes_nothing_when_the_status_or_an_owner_column_moved() {
        let conn = store_with_a_failed_run().unwrap();
        let seen = read(&conn, "run_x").unwrap().unwrap();
        let me = RunOwner::current();
        let stale = [
            Seen {
                status: "running".to_owned(),
                ..seen.clone()
            },
            Seen {
                owner_pid: seen.owner_pid.map(|p| p - 1),
                ..seen.clone()
            },
            Seen {
                owner_start_ticks: Some(seen.owner_start_ticks.unwrap_or(0) + 1),
                ..seen.clone()
            },
            Seen {
                owner_boot_id: Some("another-boot".to_owned()),
                ..seen.clone()
            },
            Seen {
                owner_host: Some("another-host".to_owned()),
                ..seen.clone()
            },
        ];
        for stale in &stale {
            assert!(!swap(&conn, "run_x", stale, &me).unwrap(), "{stale:?}");
            assert_eq!(read(&conn, "run_x").unwrap().as_ref(), Some(&seen));
        }
        assert!(swap(&conn, "run_x", &seen, &me).unwrap());
        let now = read(&conn, "run_x").unwrap().unwrap();
        assert_eq!(now.status, "running");
        assert_eq!(now.owner_pid, Some(i64::from(me.pid)));
        // What was read no longer holds: a second swap from it loses.
        assert!(!swap(&conn, "run_x", &seen, &me).unwrap());
        assert_eq!(
            reopen::after_a_lost_swap(Some(&now)).unwrap(),
            Outcome::StillRunning(format!("pid {} on host {}", me.pid, me.host))
        );
    }
}
