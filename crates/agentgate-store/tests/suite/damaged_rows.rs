//! A damaged row (a JSON column that does not parse or has the wrong
//! shape, a timestamp that does not read) is reported by the listings, the
//! others are listed as usual, and paging goes past it: on each backend,
//! the rows damaged in the database itself.

use agentgate_store::{JobCursor, JobFilter};

use super::jobs::new_job;
use super::support::{Backend, TestStore, run_record, ts, with_pg_client};

crate::on_both_backends!(
    a_damaged_job_is_reported_and_the_others_listed_and_paged,
    a_damaged_run_is_reported_and_the_others_listed,
);

/// Run `sql` on the store's database, as a damaged file or a hand edit
/// would leave it.
fn damage(store: &TestStore, sql: &str) {
    match store.backend {
        Backend::Sqlite => {
            // The file's own checks (`json_valid`) are what damage bypasses.
            let conn = rusqlite::Connection::open(&store.location).unwrap();
            conn.execute_batch("PRAGMA ignore_check_constraints = ON;")
                .unwrap();
            conn.execute_batch(sql).unwrap();
        }
        Backend::Postgres => with_pg_client(&store.location, async |client| {
            client.batch_execute(sql).await.unwrap();
        }),
    }
}

/// A time no reader takes: text that is not one in SQLite, a time past
/// what a timestamp holds in PostgreSQL.
fn bad_time(store: &TestStore) -> &'static str {
    match store.backend {
        Backend::Sqlite => "'garbage'",
        Backend::Postgres => "'infinity'",
    }
}

fn a_damaged_job_is_reported_and_the_others_listed_and_paged(store: &TestStore) {
    for i in 0..5 {
        let at = ts(&format!("2026-05-01T12:00:0{i}Z"));
        store.enqueue(&new_job(&format!("j{i}")), at).unwrap();
    }
    damage(
        store,
        &format!(
            "UPDATE jobs SET request = '{{\"prompt\": \"cut sh' WHERE job_id = 'j1';
             UPDATE jobs SET envelope = '{{broken' WHERE job_id = 'j2';
             UPDATE jobs SET created_at = {} WHERE job_id = 'j3';",
            bad_time(store)
        ),
    );
    let page = store.list_jobs(&JobFilter::default(), 100, None).unwrap();
    let ids: Vec<&str> = page.jobs.iter().map(|j| j.job_id.as_str()).collect();
    assert_eq!(ids, ["j4", "j0"]);
    let bad: Vec<(&str, &str)> = page
        .unreadable
        .iter()
        .map(|b| (b.id.as_str(), b.error.as_str()))
        .collect();
    // The bad time sorts first (newest), then by time.
    assert_eq!(
        bad.iter().map(|(id, _)| *id).collect::<Vec<_>>(),
        ["j3", "j2", "j1"],
        "{bad:?}"
    );
    assert!(bad[0].1.contains("created_at"), "{bad:?}");
    assert!(bad[1].1.contains("envelope"), "{bad:?}");
    assert!(bad[2].1.contains("run request"), "{bad:?}");
    assert!(page.next.is_none());

    // One row a page: every row once, the damaged ones in their place,
    // the cursor (through its text) going past the time that does not read.
    let mut seen = Vec::new();
    let mut cursor: Option<JobCursor> = None;
    for _ in 0..10 {
        let page = store
            .list_jobs(&JobFilter::default(), 1, cursor.as_ref())
            .unwrap();
        assert_eq!(page.jobs.len() + page.unreadable.len(), 1, "{page:?}");
        seen.extend(page.jobs.iter().map(|j| j.job_id.clone()));
        seen.extend(page.unreadable.iter().map(|b| b.id.clone()));
        cursor = page.next.map(|next| next.to_string().parse().unwrap());
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(seen, ["j3", "j4", "j2", "j1", "j0"]);
}

fn a_damaged_run_is_reported_and_the_others_listed(store: &TestStore) {
    for i in 0..4 {
        store
            .insert_run(&run_record(
                &format!("r{i}"),
                &format!("2026-05-01T12:00:0{i}Z"),
            ))
            .unwrap();
    }
    damage(
        store,
        &format!(
            "UPDATE runs SET providers = '\"not a list\"' WHERE run_id = 'r1';
             UPDATE runs SET started_at = {} WHERE run_id = 'r2';",
            bad_time(store)
        ),
    );
    let listed = store.list_runs(10, 0).unwrap();
    let ids: Vec<&str> = listed
        .runs
        .iter()
        .map(|r| r.record.run_id.as_str())
        .collect();
    assert_eq!(ids, ["r3", "r0"]);
    let bad: Vec<&str> = listed.unreadable.iter().map(|b| b.id.as_str()).collect();
    assert_eq!(bad, ["r2", "r1"], "{:?}", listed.unreadable);
    assert!(
        listed.unreadable[0].error.contains("started_at"),
        "{:?}",
        listed.unreadable
    );
    assert!(
        listed.unreadable[1].error.contains("providers"),
        "{:?}",
        listed.unreadable
    );
    // Damaged rows count in the window: the offset goes past them.
    let second = store.list_runs(2, 2).unwrap();
    assert_eq!(second.rows(), 2);
    assert_eq!(second.unreadable[0].id, "r1");
    assert_eq!(second.runs[0].record.run_id, "r0");
}
