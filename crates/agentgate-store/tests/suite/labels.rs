//! Labels: stored with runs, jobs and sessions, and the label filters of
//! the run and job listings, on each backend.

use agentgate_protocol::Labels;
use agentgate_store::{JobFilter, JobState, NewJob, SessionRecord};

use super::jobs::new_job;
use super::support::{TestStore, run_record, success_envelope, ts};

crate::on_both_backends!(
    a_run_keeps_its_labels_in_every_read,
    runs_are_filtered_by_every_label_given,
    jobs_are_filtered_by_label_and_state,
    a_job_and_its_run_share_one_set_of_labels,
    a_session_keeps_the_labels_of_the_run_that_created_it,
    a_job_cancelled_while_queued_has_its_labels_in_its_envelope,
);

fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn ids(list: &agentgate_store::RunList) -> Vec<&str> {
    list.runs.iter().map(|r| r.record.run_id.as_str()).collect()
}

fn a_run_keeps_its_labels_in_every_read(store: &TestStore) {
    let mut run = run_record("r1", "2026-05-01T12:00:00Z");
    run.labels = labels(&[("chat", "42"), ("ticket", "T-7")]);
    store.insert_run(&run).unwrap();
    store
        .insert_run(&run_record("r2", "2026-05-01T12:00:01Z"))
        .unwrap();

    let detail = store.get_run("r1").unwrap().unwrap();
    assert_eq!(detail.summary.record.labels, run.labels);
    store.finish_run("r1", &success_envelope("r1")).unwrap();
    assert_eq!(store.find_run("r1").unwrap().unwrap().summary.record, run);
    let listed = store.list_runs(10, 0).unwrap();
    assert_eq!(ids(&listed), ["r2", "r1"]);
    assert_eq!(listed.runs[1].record.labels, run.labels);
    assert!(listed.runs[0].record.labels.is_empty());
}

fn runs_are_filtered_by_every_label_given(store: &TestStore) {
    let runs = [
        ("a", &[("chat", "42"), ("topic", "x")][..]),
        ("b", &[("chat", "42")][..]),
        ("c", &[("chat", "43"), ("topic", "x")][..]),
        ("d", &[][..]),
    ];
    for (i, (id, pairs)) in runs.iter().enumerate() {
        let mut run = run_record(id, &format!("2026-05-01T12:00:0{i}Z"));
        run.labels = labels(pairs);
        store.insert_run(&run).unwrap();
    }
    let filter = |pairs: &[(&str, &str)]| {
        ids(&store.list_runs_labelled(&labels(pairs), 10, 0).unwrap())
            .into_iter()
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    assert_eq!(filter(&[]), ["d", "c", "b", "a"]);
    assert_eq!(filter(&[("chat", "42")]), ["b", "a"]);
    assert_eq!(filter(&[("topic", "x")]), ["c", "a"]);
    // Every label must match: an AND, not an OR.
    assert_eq!(filter(&[("chat", "42"), ("topic", "x")]), ["a"]);
    assert!(filter(&[("chat", "4")]).is_empty(), "values match whole");
    assert!(
        filter(&[("Chat", "42")]).is_empty(),
        "keys are case-sensitive"
    );
    // Paging counts the matching runs only.
    let page = store
        .list_runs_labelled(&labels(&[("chat", "42")]), 1, 1)
        .unwrap();
    assert_eq!(ids(&page), ["a"]);
}

fn jobs_are_filtered_by_label_and_state(store: &TestStore) {
    let at = |s: u32| ts(&format!("2026-05-01T12:00:{s:02}Z"));
    let job = |id: &str, pairs: &[(&str, &str)]| NewJob {
        labels: labels(pairs),
        ..new_job(id)
    };
    store.enqueue(&job("j1", &[("chat", "42")]), at(0)).unwrap();
    store
        .enqueue(&job("j2", &[("chat", "42"), ("topic", "t")]), at(1))
        .unwrap();
    store.enqueue(&job("j3", &[("chat", "7")]), at(2)).unwrap();
    store.enqueue(&new_job("j4"), at(3)).unwrap();
    store.cancel("j1", None, at(4)).unwrap();

    let list = |filter: JobFilter| -> Vec<String> {
        store
            .list_jobs(&filter, 10, None)
            .unwrap()
            .jobs
            .into_iter()
            .map(|j| j.job_id)
            .collect()
    };
    let chat42 = labels(&[("chat", "42")]);
    assert_eq!(
        list(JobFilter {
            labels: chat42.clone(),
            ..JobFilter::default()
        }),
        ["j2", "j1"]
    );
    assert_eq!(
        list(JobFilter {
            labels: chat42.clone(),
            state: Some(JobState::Queued),
            ..JobFilter::default()
        }),
        ["j2"]
    );
    assert_eq!(
        list(JobFilter {
            labels: labels(&[("chat", "42"), ("topic", "t")]),
            ..JobFilter::default()
        }),
        ["j2"]
    );
    assert_eq!(list(JobFilter::default()).len(), 4);
}

fn a_job_and_its_run_share_one_set_of_labels(store: &TestStore) {
    let pairs = labels(&[("ticket", "T-1")]);
    store
        .enqueue(
            &NewJob {
                labels: pairs.clone(),
                ..new_job("rjob")
            },
            ts("2026-05-01T12:00:00Z"),
        )
        .unwrap();
    // The job's run is stored under the job's id with the same labels: the
    // second write of them is no conflict.
    let mut run = run_record("rjob", "2026-05-01T12:00:01Z");
    run.labels = pairs.clone();
    store.insert_run(&run).unwrap();
    let found = store.list_runs_labelled(&pairs, 10, 0).unwrap();
    assert_eq!(ids(&found), ["rjob"]);
    assert_eq!(found.runs[0].record.labels, pairs);
}

fn a_job_cancelled_while_queued_has_its_labels_in_its_envelope(store: &TestStore) {
    let pairs = labels(&[("chat", "42"), ("topic", "release notes")]);
    let at = |s: u32| ts(&format!("2026-05-01T12:00:{s:02}Z"));
    store
        .enqueue(
            &NewJob {
                labels: pairs.clone(),
                ..new_job("q1")
            },
            at(0),
        )
        .unwrap();
    store.enqueue(&new_job("q2"), at(1)).unwrap();
    // The caller's envelope names no labels (it did not read the job).
    let given = agentgate_protocol::Envelope::new("q1");
    store.cancel("q1", Some(&given), at(2)).unwrap();
    let ended = store.get_job("q1").unwrap().unwrap();
    assert_eq!(ended.state, JobState::Cancelled);
    assert_eq!(ended.envelope.unwrap().labels, pairs);
    // A job without labels: an envelope without them.
    store
        .cancel("q2", Some(&agentgate_protocol::Envelope::new("q2")), at(3))
        .unwrap();
    let ended = store.get_job("q2").unwrap().unwrap();
    assert!(ended.envelope.unwrap().labels.is_empty());
}

fn a_session_keeps_the_labels_of_the_run_that_created_it(store: &TestStore) {
    let at = ts("2026-05-01T12:00:00Z");
    let first = SessionRecord {
        name: "chat-42".to_owned(),
        provider: "claude".to_owned(),
        native_session_id: "n1".to_owned(),
        cwd: None,
        created_at: at,
        updated_at: at,
        turns: 1,
        labels: labels(&[("chat", "42")]),
        context_tokens: None,
    };
    store.put_session(&first).unwrap();
    // A later turn with other labels updates the session, not its labels.
    store
        .put_session(&SessionRecord {
            native_session_id: "n2".to_owned(),
            turns: 2,
            labels: labels(&[("chat", "99")]),
            ..first.clone()
        })
        .unwrap();
    let stored = store.get_session("chat-42", "claude").unwrap().unwrap();
    assert_eq!((stored.turns, stored.labels), (2, first.labels.clone()));
    assert_eq!(store.list_sessions().unwrap()[0].labels, first.labels);
}

/// A store of the version before labels (its table and column dropped,
/// its version set back) migrates: the old run reads with no labels, and
/// a new labelled run is found by its label.
#[test]
fn a_version_9_sqlite_store_gets_labels_and_keeps_its_runs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("agentgate.db");
    let store = agentgate_store::Store::open(&path).unwrap();
    use agentgate_store::RunStore;
    store
        .insert_run(&run_record("old", "2026-05-01T12:00:00Z"))
        .unwrap();
    drop(store);
    let conn = rusqlite::Connection::open(&path).unwrap();
    conn.execute_batch(
        "DROP TABLE labels; ALTER TABLE sessions DROP COLUMN labels; \
         ALTER TABLE quota DROP COLUMN windows; DROP INDEX runs_usage; DROP INDEX runs_spend_agent; DROP INDEX runs_spend_chain; DROP INDEX runs_spend_session; \
         ALTER TABLE runs DROP COLUMN agent; ALTER TABLE runs DROP COLUMN chain; \
         DROP TABLE session_rotations; ALTER TABLE sessions DROP COLUMN context_tokens; \
         DROP TABLE api_tokens; \
         DROP TABLE webhook_attempts; DROP TABLE webhook_deliveries; \
         PRAGMA user_version = 9;",
    )
    .unwrap();
    drop(conn);

    let store = agentgate_store::Store::open(&path).unwrap();
    let old = store.get_run("old").unwrap().unwrap();
    assert!(old.summary.record.labels.is_empty());
    let mut run = run_record("new", "2026-05-01T12:00:01Z");
    run.labels = labels(&[("chat", "42")]);
    store.insert_run(&run).unwrap();
    let found = store.list_runs_labelled(&run.labels, 10, 0).unwrap();
    assert_eq!(ids(&found), ["new"]);
    assert_eq!(store.list_runs(10, 0).unwrap().runs.len(), 2);
}
