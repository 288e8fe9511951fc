//! `RunStore::spent`: what the agent runs of a scope that started at or
//! after a time spent, on both backends: sums of the recorded cost and
//! tokens, filtered by agent, chain or session name, or by the API token
//! or team that submitted them (their reserved labels); tool runs, runs
//! started before the time and other scopes' runs left out; a run without
//! a cost counts its tokens only.

use agentgate_protocol::{Envelope, TokensUsed};
use agentgate_store::{RunKind, SpendScope};

use super::support::{Backend, TestStore, run_record, ts};

fn finished(
    store: &TestStore,
    id: &str,
    started: &str,
    (agent, chain, session): (&str, &str, Option<&str>),
    (tokens, usd): (u64, Option<f64>),
) {
    let mut record = run_record(id, started);
    record.session = session.map(str::to_owned);
    // The submitter's labels, as a job's runs carry them: r1 and r2 the
    // token `bot` of team `pay`, r3 the token `ops` of the same team.
    let submitter = match id {
        "r1" | "r2" => Some(("bot", "pay")),
        "r3" => Some(("ops", "pay")),
        _ => None,
    };
    if let Some((token, team)) = submitter {
        record
            .labels
            .insert(agentgate_store::SUBMITTER_TOKEN_LABEL.into(), token.into());
        record
            .labels
            .insert(agentgate_store::SUBMITTER_TEAM_LABEL.into(), team.into());
    }
    store.insert_run(&record).unwrap();
    let envelope = Envelope {
        agent: Some(agent.to_owned()),
        chain: Some(chain.to_owned()),
        tokens_used: TokensUsed {
            input_tokens: tokens - 10,
            output_tokens: 10,
            total_tokens: tokens,
            cost_usd: usd,
            ..TokensUsed::default()
        },
        ..Envelope::default()
    };
    store.finish_run(id, &envelope).unwrap();
}

fn sums_by_scope_since_a_time(backend: Backend) {
    let store = TestStore::new(backend);
    let day = "2026-11-29T00:00:00Z";
    finished(
        &store,
        "r1",
        "2026-11-28T23:59:59Z",
        ("rev", "main", Some("s1")),
        (1000, Some(1.0)),
    );
    finished(
        &store,
        "r2",
        "2026-11-29T00:00:00Z",
        ("rev", "main", Some("s1")),
        (200, Some(0.25)),
    );
    finished(
        &store,
        "r3",
        "2026-11-29T08:00:00Z",
        ("fix", "main", Some("s2")),
        (300, Some(0.5)),
    );
    finished(
        &store,
        "r4",
        "2026-11-29T09:00:00Z",
        ("rev", "alt", None),
        (400, None),
    );
    let mut tool = run_record("t1", "2026-11-29T10:00:00Z");
    tool.kind = RunKind::Tool;
    store.insert_run(&tool).unwrap();
    // A run still running counts nothing yet.
    store
        .insert_run(&run_record("r5", "2026-11-29T11:00:00Z"))
        .unwrap();

    let spent = |scope: SpendScope, since: &str| store.spent(&scope, ts(since)).unwrap();
    let all = spent(SpendScope::All, day);
    assert_eq!((all.runs, all.tokens), (3, 900), "{all:?}");
    assert!((all.usd - 0.75).abs() < 1e-9, "{all:?}");
    let rev = spent(SpendScope::Agent("rev".into()), day);
    assert_eq!((rev.runs, rev.tokens), (2, 600), "{rev:?}");
    assert!((rev.usd - 0.25).abs() < 1e-9, "{rev:?}");
    let main = spent(SpendScope::Chain("main".into()), day);
    assert_eq!((main.runs, main.tokens), (2, 500), "{main:?}");
    let s1 = spent(SpendScope::Session("s1".into()), "1970-01-01T00:00:00Z");
    assert_eq!((s1.runs, s1.tokens), (2, 1200), "{s1:?}");
    assert!((s1.usd - 1.25).abs() < 1e-9, "{s1:?}");
    let none = spent(SpendScope::Agent("nobody".into()), day);
    assert_eq!((none.runs, none.tokens, none.usd), (0, 0, 0.0));
    // By the labels: r1 started before the day.
    let bot = spent(SpendScope::Token("bot".into()), day);
    assert_eq!((bot.runs, bot.tokens), (1, 200), "{bot:?}");
    assert!((bot.usd - 0.25).abs() < 1e-9, "{bot:?}");
    let pay = spent(SpendScope::Team("pay".into()), day);
    assert_eq!((pay.runs, pay.tokens), (2, 500), "{pay:?}");
    assert!((pay.usd - 0.75).abs() < 1e-9, "{pay:?}");
    let ever = spent(SpendScope::Token("bot".into()), "1970-01-01T00:00:00Z");
    assert_eq!((ever.runs, ever.tokens), (2, 1200), "{ever:?}");
    // A team's name is not a token's: the label keys differ.
    let crossed = spent(SpendScope::Token("pay".into()), day);
    assert_eq!(crossed.runs, 0, "{crossed:?}");

    // A team's usage report (a team reader's `GET /v1/usage`), by token:
    // the team's runs alone, r4 (no token) left out.
    let mut query = agentgate_store::UsageQuery::from_params(
        Some("month"),
        Some("token"),
        Some("2026-11-01"),
        Some("2026-11-30"),
        ts("2026-11-29T12:00:00Z"),
    )
    .unwrap();
    query.team = Some("pay".into());
    let report = store.usage_report(&query).unwrap();
    let rows: Vec<(Option<&str>, u64)> = report
        .rows
        .iter()
        .map(|r| (r.group.as_deref(), r.figures.runs))
        .collect();
    assert_eq!(rows, [(Some("bot"), 2), (Some("ops"), 1)], "{report:?}");
    assert_eq!(report.totals.runs, 3);
    query.team = None;
    // Every agent run, r5 (still running) too.
    assert_eq!(store.usage_report(&query).unwrap().totals.runs, 5);
}

#[test]
fn sqlite_sums_by_scope_since_a_time() {
    sums_by_scope_since_a_time(Backend::Sqlite);
}

#[test]
fn postgres_sums_by_scope_since_a_time() {
    sums_by_scope_since_a_time(Backend::Postgres);
}

#[test]
fn each_sqlite_scope_seeks_its_index_and_reports_read_theirs() {
    let store = TestStore::new(Backend::Sqlite);
    let conn = rusqlite::Connection::open(&store.location).unwrap();
    // The session's index holds all the query reads; `agent` and `chain`
    // are virtual generated columns, which SQLite reads from the row.
    for (column, index, covering) in [
        ("agent", "runs_spend_agent", false),
        ("chain", "runs_spend_chain", false),
        ("session_name", "runs_spend_session", true),
    ] {
        let plan: String = conn
            .query_row(
                &format!(
                    "EXPLAIN QUERY PLAN SELECT COUNT(*), TOTAL(runs.cost_usd), TOTAL(runs.total_tokens) \
                     FROM runs WHERE runs.kind = 'agent' AND runs.started_at >= ?1 AND runs.{column} = ?2"
                ),
                ["2026-11-29", "x"],
                |row| row.get(3),
            )
            .unwrap();
        let how = if covering { "COVERING INDEX" } else { "INDEX" };
        assert!(
            plan.contains(&format!(
                "USING {how} {index} ({column}=? AND started_at>?)"
            )),
            "{column}: {plan}"
        );
    }
}
