use super::*;

fn t(s: i64) -> Timestamp {
    Timestamp::from_second(2_000_000_000 + s).unwrap()
}

fn job(id: &str, at: i64) -> JobFacts {
    JobFacts {
        job_id: id.to_owned(),
        priority: 0,
        created_at: t(at),
        not_before: t(at),
        providers: vec!["claude".to_owned()],
        session: None,
        writes_in: None,
        ignore_quota: false,
    }
}

fn limits(max_running: usize, providers: &[(&str, usize)]) -> QueueSpec {
    QueueSpec {
        max_running,
        providers: providers
            .iter()
            .map(|(p, n)| ((*p).to_owned(), *n))
            .collect(),
        ..QueueSpec::default()
    }
}

fn started(decisions: &[Decision]) -> Vec<&str> {
    decisions
        .iter()
        .filter_map(|d| match d {
            Decision::Start { job_id, .. } => Some(job_id.as_str()),
            Decision::WaitForQuota { .. } => None,
        })
        .collect()
}

fn running(provider: &str) -> RunningJob {
    RunningJob {
        provider: Some(provider.to_owned()),
        session: None,
        writes_in: None,
    }
}

const NONE_EXHAUSTED: &dyn Fn(&str) -> Option<Timestamp> = &|_| None;

#[test]
fn priority_then_submission_order_up_to_max_running() {
    let mut high = job("c", 3);
    high.priority = 5;
    let queued = [job("a", 1), job("b", 2), high];
    let d = choose(&queued, &[], &limits(2, &[]), t(10), NONE_EXHAUSTED);
    assert_eq!(started(&d), ["c", "a"]);
    let d = choose(
        &queued,
        &[running("codex")],
        &limits(2, &[]),
        t(10),
        NONE_EXHAUSTED,
    );
    assert_eq!(started(&d), ["c"]);
}

#[test]
fn a_providers_limit_holds_and_other_providers_go_past() {
    let mut other = job("x", 5);
    other.providers = vec!["codex".to_owned()];
    let queued = [job("a", 1), job("b", 2), job("c", 3), other];
    let l = limits(10, &[("claude", 2)]);
    let d = choose(&queued, &[], &l, t(10), NONE_EXHAUSTED);
    assert_eq!(started(&d), ["a", "b", "x"]);
    let d = choose(&queued, &[running("claude")], &l, t(10), NONE_EXHAUSTED);
    assert_eq!(started(&d), ["a", "x"]);
}

#[test]
fn a_session_runs_one_job_at_a_time_in_submission_order() {
    let mut first = job("s1", 1);
    first.session = Some("s".into());
    let mut second = job("s2", 2);
    second.session = Some("s".into());
    second.priority = 9; // priority never overtakes the session's order
    let queued = [second.clone(), first.clone()];
    let d = choose(&queued, &[], &limits(10, &[]), t(10), NONE_EXHAUSTED);
    assert_eq!(started(&d), ["s1"]);
    // While one of the session runs, none of it starts.
    let busy = RunningJob {
        session: Some("s".into()),
        ..running("claude")
    };
    let d = choose(
        &[second.clone()],
        &[busy],
        &limits(10, &[]),
        t(10),
        NONE_EXHAUSTED,
    );
    assert!(started(&d).is_empty());
    // The session's first job not ready yet holds the later one back.
    first.not_before = t(50);
    let d = choose(
        &[first, second],
        &[],
        &limits(10, &[]),
        t(10),
        NONE_EXHAUSTED,
    );
    assert!(started(&d).is_empty());
}

#[test]
fn writers_in_one_folder_run_one_at_a_time() {
    let mut a = job("a", 1);
    a.writes_in = Some("/repo".into());
    let mut b = job("b", 2);
    b.writes_in = Some("/repo".into());
    let mut c = job("c", 3);
    c.writes_in = Some("/other".into());
    let reader = job("r", 4);
    let d = choose(
        &[a, b, c, reader],
        &[],
        &limits(10, &[]),
        t(10),
        NONE_EXHAUSTED,
    );
    assert_eq!(started(&d), ["a", "c", "r"]);
}

#[test]
fn a_job_not_before_a_time_waits_for_it() {
    let mut later = job("later", 1);
    later.not_before = t(20);
    let d = choose(
        &[later.clone()],
        &[],
        &limits(10, &[]),
        t(19),
        NONE_EXHAUSTED,
    );
    assert!(d.is_empty());
    let d = choose(&[later], &[], &limits(10, &[]), t(20), NONE_EXHAUSTED);
    assert_eq!(started(&d), ["later"]);
}

#[test]
fn exhausted_providers_are_skipped_and_all_exhausted_waits_for_the_earliest_reset() {
    let mut chain = job("chain", 1);
    chain.providers = vec!["claude".into(), "codex".into()];
    let claude_out = |p: &str| (p == "claude").then(|| t(100));
    let d = choose(
        &[chain.clone()],
        &[],
        &limits(10, &[("codex", 1)]),
        t(10),
        &claude_out,
    );
    assert_eq!(
        d,
        [Decision::Start {
            job_id: "chain".into(),
            provider: Some("codex".into())
        }]
    );
    let all_out = |p: &str| Some(if p == "claude" { t(100) } else { t(60) });
    let d = choose(&[chain.clone()], &[], &limits(10, &[]), t(10), &all_out);
    assert_eq!(
        d,
        [Decision::WaitForQuota {
            job_id: "chain".into(),
            until: t(60)
        }]
    );
    // Waiting takes no slot: a full server still tells it to wait.
    let d = choose(
        &[chain.clone()],
        &[running("x")],
        &limits(1, &[]),
        t(10),
        &all_out,
    );
    assert!(matches!(d[..], [Decision::WaitForQuota { .. }]));
    chain.ignore_quota = true;
    let d = choose(&[chain], &[], &limits(10, &[]), t(10), &all_out);
    assert_eq!(started(&d), ["chain"]);
}

#[test]
fn backoff_doubles_up_to_its_maximum_with_at_most_a_quarter_of_jitter() {
    let l = QueueSpec {
        backoff: Duration::from_secs(10),
        backoff_max: Duration::from_secs(60),
        ..QueueSpec::default()
    };
    assert_eq!(backoff(&l, 1, 0.0), Duration::from_secs(10));
    assert_eq!(backoff(&l, 2, 0.0), Duration::from_secs(20));
    assert_eq!(backoff(&l, 3, 0.0), Duration::from_secs(40));
    assert_eq!(backoff(&l, 4, 0.0), Duration::from_secs(60));
    assert_eq!(backoff(&l, 99, 0.0), Duration::from_secs(60));
    assert_eq!(backoff(&l, 1, 1.0), Duration::from_millis(12_500));
    for _ in 0..100 {
        let j = jitter();
        assert!((0.0..=1.0).contains(&j), "{j}");
    }
}

/// A worker with `--providers codex`: jobs whose chosen provider is
/// another are passed over without taking a slot, a session's later job
/// still waits behind its first, and a chain whose first provider is
/// exhausted is chosen by the next one.
#[test]
fn an_executor_of_some_providers_passes_over_the_others_jobs() {
    let mut b = job("b", 2);
    b.providers = vec!["codex".to_owned()];
    let mut c = job("c", 3);
    c.session = Some("s".to_owned());
    let mut d = job("d", 4);
    d.providers = vec!["codex".to_owned()];
    d.session = Some("s".to_owned());
    let mut chain = job("e", 5);
    chain.providers = vec!["claude".to_owned(), "codex".to_owned()];
    let queued = [job("a", 1), b, c, d, chain];
    let only_codex: &dyn Fn(Option<&str>) -> bool = &|p| p == Some("codex");

    // One slot: `a` (claude) does not take it from `b`.
    let d1 = choose_claimable(
        &queued,
        &[],
        &limits(1, &[]),
        t(10),
        NONE_EXHAUSTED,
        only_codex,
    );
    assert_eq!(started(&d1), ["b"]);

    // Room for all: `d` waits behind its session's `c` (claude, not ours);
    // `e` is chosen for claude, so it is not ours either.
    let all = choose_claimable(
        &queued,
        &[],
        &limits(10, &[]),
        t(10),
        NONE_EXHAUSTED,
        only_codex,
    );
    assert_eq!(started(&all), ["b"]);

    // Claude exhausted: `e` is chosen for codex and started here.
    let claude_out: &dyn Fn(&str) -> Option<Timestamp> = &|p| (p == "claude").then(|| t(3600));
    let out = choose_claimable(
        &queued,
        &[],
        &limits(10, &[]),
        t(10),
        claude_out,
        only_codex,
    );
    assert_eq!(started(&out), ["b", "e"]);
    let e = out
        .iter()
        .find_map(|x| match x {
            Decision::Start { job_id, provider } if job_id == "e" => provider.clone(),
            _ => None,
        })
        .unwrap();
    assert_eq!(e, "codex");
}

/// A workflow job names no provider: it takes a slot of `max_running`
/// and no provider's, an executor of every provider starts it, and one
/// limited to some providers (`agentgate worker --providers`) leaves it to
/// the others, as `ProviderFilter::claims` decides.
#[test]
fn a_job_of_no_provider_takes_a_slot_and_is_left_by_an_executor_of_some() {
    let mut flow = job("flow", 1);
    flow.providers = Vec::new();
    let queued = [flow, job("a", 2), job("b", 3)];
    // One claude slot, two in all: the workflow and one claude run start.
    let d = choose(
        &queued,
        &[],
        &limits(2, &[("claude", 1)]),
        t(10),
        NONE_EXHAUSTED,
    );
    assert_eq!(started(&d), ["flow", "a"]);
    assert!(
        d.iter()
            .any(|x| matches!(x, Decision::Start { job_id, provider: None } if job_id == "flow"))
    );
    let only_claude = crate::executor::ProviderFilter(vec!["claude".to_owned()]);
    let claims: &dyn Fn(Option<&str>) -> bool = &|p| only_claude.claims(p);
    let d = choose_claimable(
        &queued,
        &[],
        &limits(10, &[]),
        t(10),
        NONE_EXHAUSTED,
        claims,
    );
    assert_eq!(started(&d), ["a", "b"]);
}
