//! Listing jobs: filters and keyset pages, on each backend.

use agentgate_store::{
    ActiveJobCount, ClaimLimits, FinalState, JobCounts, JobCursor, JobFilter, JobOutcome, JobState,
    NewJob,
};

use super::jobs::{LEASE, new_job};
use super::support::{TestStore, ts};

crate::on_both_backends!(
    pages_are_newest_first_and_stable_when_jobs_arrive_between_them,
    filters_by_state_provider_and_session,
    records_never_carry_the_lease_token,
    counts_are_per_state_and_per_provider_and_state,
    active_counts_put_each_job_under_one_provider,
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
