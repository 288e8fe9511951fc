//! Listing jobs: filters and keyset pages, on each backend.

use agentgate_store::{
    ActiveJobCount, ClaimLimits, FinalState, JobCounts, JobCursor, JobFilter, JobOutcome, JobState,
    NewJob, TimeWindow,
};

use super::jobs::{LEASE, new_job};
use super::support::{TestStore, run_record, ts};

crate::on_both_backends!(
    pages_are_newest_first_and_stable_when_jobs_arrive_between_them,
    filters_by_state_provider_and_session,
    records_never_carry_the_lease_token,
    counts_are_per_state_and_per_provider_and_state,
    active_counts_put_each_job_under_one_provider,
    a_window_of_enqueue_times_narrows_the_list,
    a_window_pages_exactly_and_combines_with_state_and_label,
    a_window_holding_no_job_lists_none,
    runs_are_listed_within_a_window_of_start_times,
);

/// Every page of `filter`, `limit` at a time: the ids, page by page.
fn pages(store: &TestStore, filter: &JobFilter, limit: usize) -> Vec<Vec<String>> {
    let mut pages = Vec::new();
    let mut cursor: Option<JobCursor> = None;
    for _ in 0..100 {
        let page = store.list_jobs(filter, limit, cursor.as_ref()).unwrap();
        assert!(page.jobs.len() <= limit);
        pages.push(page.jobs.into_iter().map(|job| job.job_id).collect());
        // Through its text, as an API client would give it back.
        cursor = page.next.map(|next| next.to_string().parse().unwrap());
        if cursor.is_none() {
            return pages;
        }
    }
    unreachable!("more than 100 pages");
}

fn pages_are_newest_first_and_stable_when_jobs_arrive_between_them(store: &TestStore) {
    // j0..j4 at distinct times, j5 and j6 at one time (the id breaks the tie).
    for (i, at) in ["00", "01", "02", "03", "04", "05", "05"]
        .iter()
        .enumerate()
    {
        let at = ts(&format!("2026-05-01T12:00:{at}Z"));
        store.enqueue(&new_job(&format!("j{i}")), at).unwrap();
    }
    let all = pages(store, &JobFilter::default(), 3);
    assert_eq!(
        all,
        [vec!["j6", "j5", "j4"], vec!["j3", "j2", "j1"], vec!["j0"]]
    );
    // Exactly a page: no empty page after it.
    assert_eq!(pages(store, &JobFilter::default(), 7).len(), 1);

    let first = store.list_jobs(&JobFilter::default(), 3, None).unwrap();
    store
        .enqueue(&new_job("j_new"), ts("2026-05-01T13:00:00Z"))
        .unwrap();
    let second = store
        .list_jobs(&JobFilter::default(), 3, first.next.as_ref())
        .unwrap();
    let ids: Vec<&str> = second.jobs.iter().map(|j| j.job_id.as_str()).collect();
    assert_eq!(ids, ["j3", "j2", "j1"]);
}

fn filters_by_state_provider_and_session(store: &TestStore) {
    let at = |s: u32| ts(&format!("2026-05-01T12:00:{s:02}Z"));
    let job = |id: &str, providers: &[&str], session: Option<&str>| NewJob {
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        session: session.map(str::to_owned),
        ..new_job(id)
    };
    store
        .enqueue(&job("a", &["claude"], Some("s1")), at(0))
        .unwrap();
    store
        .enqueue(&job("b", &["codex", "claude"], None), at(1))
        .unwrap();
    store
        .enqueue(&job("c", &["codex"], Some("s1")), at(2))
        .unwrap();
    store
        .enqueue(&job("d", &["gemini"], Some("s2")), at(3))
        .unwrap();
    // "a" runs.
    assert_eq!(
        store.claim("w", LEASE, at(4)).unwrap().unwrap().job.job_id,
        "a"
    );

    let ids = |filter: JobFilter| -> Vec<String> {
        let page = store.list_jobs(&filter, 100, None).unwrap();
        page.jobs.into_iter().map(|j| j.job_id).collect()
    };
    let provider = |p: &str| Some(p.to_owned());
    assert_eq!(ids(JobFilter::default()), ["d", "c", "b", "a"]);
    assert_eq!(
        ids(JobFilter {
            provider: provider("claude"),
            ..JobFilter::default()
        }),
        ["b", "a"]
    );
    assert_eq!(
        ids(JobFilter {
            session: provider("s1"),
            ..JobFilter::default()
        }),
        ["c", "a"]
    );
    assert_eq!(
        ids(JobFilter {
            state: Some(JobState::Running),
            ..JobFilter::default()
        }),
        ["a"]
    );
    assert_eq!(
        ids(JobFilter {
            state: Some(JobState::Queued),
            provider: provider("codex"),
            session: provider("s1"),
            labels: Default::default(),
            since: None,
            until: None,
        }),
        ["c"]
    );
    // A provider name that is a substring of another matches nothing.
    assert!(
        ids(JobFilter {
            provider: provider("code"),
            ..JobFilter::default()
        })
        .is_empty()
    );
    // Filters and pages together.
    let filter = JobFilter {
        provider: provider("codex"),
        ..JobFilter::default()
    };
    assert_eq!(pages(store, &filter, 1), [vec!["c"], vec!["b"]]);
}

fn records_never_carry_the_lease_token(store: &TestStore) {
    store
        .enqueue(&new_job("j1"), ts("2026-05-01T12:00:00Z"))
        .unwrap();
    let claimed = store
        .claim("w", LEASE, ts("2026-05-01T12:00:01Z"))
        .unwrap()
        .unwrap();
    let token = claimed.token.expose().to_owned();
    let listed = store.list_jobs(&JobFilter::default(), 10, None).unwrap();
    let got = store.get_job("j1").unwrap().unwrap();
    for text in [
        serde_json::to_string(&listed.jobs).unwrap(),
        serde_json::to_string(&got).unwrap(),
        format!("{listed:?} {got:?} {claimed:?}"),
    ] {
        assert!(!text.contains(&token), "{text}");
    }
}

#[test]
fn a_bad_cursor_is_refused() {
    for text in ["", "nope", "2026-05-01T12:00:00Z~../x", "yesterday~j1"] {
        assert!(text.parse::<JobCursor>().is_err(), "{text}");
    }
    let cursor: JobCursor = "2026-05-01T12:00:00.000000000Z~j1".parse().unwrap();
    assert_eq!(cursor.to_string(), "2026-05-01T12:00:00.000000000Z~j1");
}

fn counts_are_per_state_and_per_provider_and_state(store: &TestStore) {
    assert_eq!(store.count_jobs().unwrap(), JobCounts::default());
    let job = |id: &str, providers: &[&str]| NewJob {
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        ..new_job(id)
    };
    let at = ts("2026-05-01T12:00:00Z");
    store.enqueue(&job("a", &["claude"]), at).unwrap();
    store.enqueue(&job("b", &["codex", "claude"]), at).unwrap();
    store.enqueue(&job("c", &["gemini"]), at).unwrap();
    store.enqueue(&job("d", &[]), at).unwrap();
    // The claim takes the oldest: "a" (ties by submission order).
    let claimed = store.claim("w", LEASE, at).unwrap().unwrap();
    assert_eq!(claimed.job.job_id, "a");
    store.cancel("c", None, at).unwrap();

    let counts = store.count_jobs().unwrap();
    assert_eq!(
        counts.by_state,
        [
            (JobState::Queued, 2),
            (JobState::Running, 1),
            (JobState::Cancelled, 1)
        ]
    );
    let by_provider: Vec<(&str, JobState, u64)> = counts
        .by_provider
        .iter()
        .map(|(p, s, n)| (p.as_str(), *s, *n))
        .collect();
    assert_eq!(
        by_provider,
        [
            ("claude", JobState::Queued, 1),
            ("claude", JobState::Running, 1),
            ("codex", JobState::Queued, 1),
            ("gemini", JobState::Cancelled, 1),
        ]
    );
}

fn active_counts_put_each_job_under_one_provider(store: &TestStore) {
    assert_eq!(store.count_active_jobs().unwrap(), []);
    let job = |id: &str, providers: &[&str]| NewJob {
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        ..new_job(id)
    };
    let at = ts("2026-05-01T12:00:00Z");
    store.enqueue(&job("a", &["claude", "codex"]), at).unwrap();
    store.enqueue(&job("b", &["claude", "codex"]), at).unwrap();
    store.enqueue(&job("c", &["codex"]), at).unwrap();
    store.enqueue(&job("d", &[]), at).unwrap();
    store.enqueue(&job("e", &["gemini"]), at).unwrap();
    store.enqueue(&job("f", &["claude"]), at).unwrap();
    // "a" runs charged to its second provider; "b" runs claimed without
    // rules (its first provider); "e" ends (no longer counted).
    // claude exhausted: "a", the first in claim order, counts against codex.
    let limits = ClaimLimits {
        max_running: 10,
        exhausted: vec![("claude".to_owned(), ts("2026-05-02T00:00:00Z"))],
        ..ClaimLimits::default()
    };
    let agentgate_store::NextClaim::Claimed(a) = store.claim_next("w", LEASE, at, &limits).unwrap()
    else {
        panic!("a job is claimed")
    };
    assert_eq!(a.job.job_id, "a");
    store.claim_job("b", "w", LEASE, at).unwrap().unwrap();
    let e = store.claim_job("e", "w", LEASE, at).unwrap().unwrap();
    let done = JobOutcome {
        state: FinalState::Succeeded,
        envelope: None,
        error: None,
    };
    store.finish("e", &e.token, &done, at).unwrap();

    let count = |state: JobState, provider: Option<&str>, jobs: u64| ActiveJobCount {
        state,
        provider: provider.map(str::to_owned),
        jobs,
    };
    assert_eq!(
        store.count_active_jobs().unwrap(),
        [
            count(JobState::Queued, None, 1),
            count(JobState::Queued, Some("claude"), 1),
            count(JobState::Queued, Some("codex"), 1),
            count(JobState::Running, Some("claude"), 1),
            count(JobState::Running, Some("codex"), 1),
        ]
    );
}

/// j0..j9 enqueued at 12:00:00, :01, :02, :03, :04, :05, :05 (j5 and j6
/// at one time: the id breaks the tie), :06, :07 and :08; the even ones
/// labelled `team=a`.
fn enqueue_ten(store: &TestStore) {
    for (i, second) in [0, 1, 2, 3, 4, 5, 5, 6, 7, 8].into_iter().enumerate() {
        let mut job = new_job(&format!("j{i}"));
        if i % 2 == 0 {
            job.labels = [("team".to_owned(), "a".to_owned())].into_iter().collect();
        }
        store.enqueue(&job, at(second)).unwrap();
    }
}

fn at(second: u32) -> jiff::Timestamp {
    ts(&format!("2026-05-01T12:00:{second:02}Z"))
}

fn window(since: Option<u32>, until: Option<u32>) -> JobFilter {
    JobFilter {
        since: since.map(at),
        until: until.map(at),
        ..JobFilter::default()
    }
}

/// Every page of `filter`, flattened.
fn listed(store: &TestStore, filter: &JobFilter, limit: usize) -> Vec<String> {
    pages(store, filter, limit).concat()
}

fn a_window_of_enqueue_times_narrows_the_list(store: &TestStore) {
    enqueue_ten(store);
    // `since` is in the window, `until` is not.
    assert_eq!(
        listed(store, &window(Some(6), None), 100),
        ["j9", "j8", "j7"]
    );
    assert_eq!(listed(store, &window(None, Some(2)), 100), ["j1", "j0"]);
    assert_eq!(
        listed(store, &window(Some(3), Some(6)), 100),
        ["j6", "j5", "j4", "j3"]
    );
    // Both jobs of one time are on the same side of a bound.
    assert_eq!(listed(store, &window(Some(5), Some(6)), 100), ["j6", "j5"]);
    assert_eq!(listed(store, &window(Some(4), Some(5)), 100), ["j4"]);
    // A bound between two stored times, to the nanosecond.
    let between = JobFilter {
        since: Some(ts("2026-05-01T12:00:04.000000001Z")),
        until: Some(ts("2026-05-01T12:00:05.000000001Z")),
        ..JobFilter::default()
    };
    assert_eq!(listed(store, &between, 100), ["j6", "j5"]);
    // The window parsed from text, as the API and the CLI give it.
    let parsed =
        TimeWindow::from_params(Some("2026-05-01T14:00:07+02:00"), Some("2026-05-01")).unwrap();
    let filter = JobFilter {
        since: parsed.since,
        until: parsed.until,
        ..JobFilter::default()
    };
    assert_eq!(listed(store, &filter, 100), ["j9", "j8"]);
}

fn a_window_pages_exactly_and_combines_with_state_and_label(store: &TestStore) {
    enqueue_ten(store);
    let filter = window(Some(2), Some(7));
    let whole = ["j7", "j6", "j5", "j4", "j3", "j2"];
    assert_eq!(listed(store, &filter, 100), whole);
    // Every page size: no job repeated or skipped, pages split at the tie.
    for limit in 1..=7 {
        let pages = pages(store, &filter, limit);
        assert_eq!(pages.concat(), whole, "limit {limit}");
        assert_eq!(pages.len(), whole.len().div_ceil(limit), "limit {limit}");
    }
    assert_eq!(
        pages(store, &filter, 4),
        [vec!["j7", "j6", "j5", "j4"], vec!["j3", "j2"]]
    );

    // With a state: j5 runs.
    store.claim_job("j5", "w", LEASE, at(9)).unwrap().unwrap();
    let running = JobFilter {
        state: Some(JobState::Running),
        ..filter.clone()
    };
    assert_eq!(listed(store, &running, 1), ["j5"]);
    let queued = JobFilter {
        state: Some(JobState::Queued),
        ..filter.clone()
    };
    assert_eq!(
        pages(store, &queued, 2),
        [vec!["j7", "j6"], vec!["j4", "j3"], vec!["j2"]]
    );
    // With a label: the even ones.
    let labelled = JobFilter {
        labels: [("team".to_owned(), "a".to_owned())].into_iter().collect(),
        ..filter.clone()
    };
    assert_eq!(pages(store, &labelled, 2), [vec!["j6", "j4"], vec!["j2"]]);
    // All of them: queued, labelled, in the window.
    let all = JobFilter {
        state: Some(JobState::Queued),
        ..labelled
    };
    assert_eq!(listed(store, &all, 1), ["j6", "j4", "j2"]);
}

fn a_window_holding_no_job_lists_none(store: &TestStore) {
    enqueue_ten(store);
    for filter in [
        // After every job, before every job, between two times.
        window(Some(9), None),
        window(None, Some(0)),
        JobFilter {
            since: Some(ts("2026-05-01T12:00:05.5Z")),
            until: Some(ts("2026-05-01T12:00:05.9Z")),
            ..JobFilter::default()
        },
        // Jobs in the window, none in the state.
        JobFilter {
            state: Some(JobState::Failed),
            ..window(Some(0), Some(9))
        },
    ] {
        let page = store.list_jobs(&filter, 3, None).unwrap();
        assert!(page.jobs.is_empty(), "{filter:?}");
        assert!(page.next.is_none(), "{filter:?}");
    }
}

fn runs_are_listed_within_a_window_of_start_times(store: &TestStore) {
    for (id, second) in [("r0", 0), ("r1", 1), ("r2", 2), ("r3", 3)] {
        let mut run = run_record(id, &format!("2026-05-01T12:00:0{second}Z"));
        if id != "r2" {
            run.labels = [("chat".to_owned(), "42".to_owned())].into_iter().collect();
        }
        store.insert_run(&run).unwrap();
    }
    let ids = |labels: &[(&str, &str)], since: Option<u32>, until: Option<u32>| -> Vec<String> {
        let labels = labels
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        let window = TimeWindow {
            since: since.map(at),
            until: until.map(at),
        };
        let list = store.list_runs_within(&labels, window, 10, 0).unwrap();
        list.runs.into_iter().map(|r| r.record.run_id).collect()
    };
    assert_eq!(ids(&[], None, None), ["r3", "r2", "r1", "r0"]);
    assert_eq!(ids(&[], Some(1), None), ["r3", "r2", "r1"]);
    assert_eq!(ids(&[], None, Some(1)), ["r0"]);
    assert_eq!(ids(&[], Some(1), Some(3)), ["r2", "r1"]);
    assert_eq!(ids(&[("chat", "42")], Some(1), Some(3)), ["r1"]);
    assert!(ids(&[], Some(4), None).is_empty());
    // With a limit and an offset, inside the window.
    let window = TimeWindow {
        since: Some(at(1)),
        until: None,
    };
    let second = store
        .list_runs_within(&Default::default(), window, 1, 1)
        .unwrap();
    assert_eq!(second.runs[0].record.run_id, "r2");
}
