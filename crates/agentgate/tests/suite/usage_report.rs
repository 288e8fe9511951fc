//! `agentgate usage` and `GET /v1/usage`: totals against the stored
//! envelopes of a generated store (SQLite, and PostgreSQL through
//! `AGENTGATE_TEST_POSTGRES`), grouping and bucketing on hand-made runs
//! whose figures the test writes down itself, bad parameters (exit 2, HTTP
//! 400), and the route on a real `agentgate serve`.
//!
//! Runs are written through the store's own `insert_run` + `finish_run`
//! (the path every run takes), with chosen start times, so the reports see
//! exactly what a real store holds.

use std::path::Path;
use std::process::Command;
use std::sync::Arc;

use agentgate_protocol::{Envelope, ErrorKind, TokensUsed};
use agentgate_store::{RunKind, RunRecord, StoreBackend, StoreLocation, store_choice};
use serde_json::Value;

use super::serve_support::{Env, Serve, get};
use super::store_postgres::fresh_database;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");
const TOKEN: &str = "usage-test-token-0123456789abcdef";

/// One run to write: when, where, what it spent.
#[derive(Clone, Default)]
struct Spec {
    id: String,
    started: &'static str,
    provider: &'static str,
    model: &'static str,
    agent: Option<&'static str>,
    chain: Option<&'static str>,
    session: Option<&'static str>,
    labels: Vec<(&'static str, &'static str)>,
    error: Option<ErrorKind>,
    input: u64,
    output: u64,
    cache_read: u64,
    cache_write: u64,
    reasoning: u64,
    cost: Option<f64>,
}

fn envelope_of(spec: &Spec) -> Envelope {
    let mut e = Envelope {
        provider: Some(spec.provider.to_owned()),
        model: Some(spec.model.to_owned()),
        agent: spec.agent.map(str::to_owned),
        chain: spec.chain.map(str::to_owned),
        error_type: spec.error,
        reasoning_tokens: spec.reasoning,
        tokens_used: TokensUsed {
            input_tokens: spec.input,
            output_tokens: spec.output,
            cache_read_input_tokens: spec.cache_read,
            cache_creation_input_tokens: spec.cache_write,
            total_tokens: spec.input + spec.output,
            cost_usd: spec.cost,
            ..TokensUsed::default()
        },
        ..Envelope::default()
    };
    e.labels = spec
        .labels
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    e
}

fn write(store: &dyn StoreBackend, spec: &Spec) {
    let envelope = envelope_of(spec);
    store
        .insert_run(&RunRecord {
            run_id: spec.id.clone(),
            started_at: spec.started.parse().unwrap(),
            providers: vec![spec.provider.to_owned()],
            model: None,
            session: spec.session.map(str::to_owned),
            cwd: None,
            prompt_bytes: 5,
            kind: RunKind::Agent,
            parent_run_id: None,
            labels: envelope.labels.clone(),
        })
        .unwrap();
    store.finish_run(&spec.id, &envelope).unwrap();
}

fn open(store: &str) -> Arc<dyn StoreBackend> {
    store_choice::open(&StoreLocation::parse(store).unwrap()).unwrap()
}

/// `agentgate --store STORE usage ARGS`: (exit code, stdout, stderr).
fn usage(home: &Path, store: &str, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(AGENTGATE)
        .args(["--store", store, "usage"])
        .args(args)
        .env("AGENTGATE_HOME", home)
        .env("HOME", home)
        .env_remove("AGENTGATE_STORE")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn usage_json(home: &Path, store: &str, args: &[&str]) -> Value {
    let (code, stdout, stderr) = usage(home, store, &[&["--json"], args].concat());
    assert_eq!(code, 0, "{stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// `n` runs in March 2026 with figures from a small generator (and a few
/// in February and April, outside the range), written to `store`; returns
/// the March ones' envelopes as stored.
fn generate(store: &dyn StoreBackend, n: u64) -> Vec<Envelope> {
    let providers = ["claude", "codex", "gemini"];
    let starts = ["2026-02-27T12:00:00Z", "2026-04-01T00:00:00Z"];
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |m: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % m
    };
    let mut march = Vec::new();
    for i in 0..n + 2 {
        let day = 1 + next(31);
        let started: &'static str = if i >= n {
            starts[(i - n) as usize]
        } else {
            Box::leak(format!("2026-03-{day:02}T{:02}:17:00Z", next(24)).into_boxed_str())
        };
        let spec = Spec {
            id: format!("gen-{i:04}"),
            started,
            provider: providers[next(3) as usize],
            model: "m",
            error: match next(10) {
                0 => Some(ErrorKind::RateLimit),
                1 => Some(ErrorKind::Cancelled),
                _ => None,
            },
            input: next(10_000),
            output: next(2_000),
            cache_read: next(5_000),
            cache_write: next(900),
            reasoning: next(300),
            cost: (next(4) != 0).then(|| next(100_000) as f64 / 1000.0),
            ..Spec::default()
        };
        write(store, &spec);
        if i < n {
            march.push(store.get_run(&spec.id).unwrap().unwrap().envelope.unwrap());
        }
    }
    march
}

/// The report's totals are the sums of `envelopes`, computed here.
fn check_totals(report: &Value, envelopes: &[Envelope]) {
    let t = &report["totals"];
    let sum = |f: &dyn Fn(&Envelope) -> u64| envelopes.iter().map(f).sum::<u64>();
    assert_eq!(t["runs"], envelopes.len() as u64);
    assert_eq!(t["input_tokens"], sum(&|e| e.tokens_used.input_tokens));
    assert_eq!(t["output_tokens"], sum(&|e| e.tokens_used.output_tokens));
    assert_eq!(
        t["cache_read_tokens"],
        sum(&|e| e.tokens_used.cache_read_input_tokens)
    );
    assert_eq!(
        t["cache_write_tokens"],
        sum(&|e| e.tokens_used.cache_creation_input_tokens)
    );
    assert_eq!(t["reasoning_tokens"], sum(&|e| e.reasoning_tokens));
    assert_eq!(t["total_tokens"], sum(&|e| e.tokens_used.total_tokens));
    assert_eq!(
        t["runs_without_cost"],
        sum(&|e| u64::from(e.tokens_used.cost_usd.is_none()))
    );
    let cost: f64 = envelopes
        .iter()
        .filter_map(|e| e.tokens_used.cost_usd)
        .sum();
    assert!(
        (t["cost_usd"].as_f64().unwrap() - cost).abs() < 1e-6,
        "{t} vs {cost}"
    );
    let count = |k: Option<ErrorKind>| sum(&|e| u64::from(e.error_type == k));
    assert_eq!(t["cancelled"], count(Some(ErrorKind::Cancelled)));
    assert_eq!(t["failed"], count(Some(ErrorKind::RateLimit)));
    assert_eq!(t["succeeded"], count(None));
    assert_eq!(
        t["error_types"]["rate_limit"],
        count(Some(ErrorKind::RateLimit))
    );
    // Every dimension splits the same runs.
    let rows = report["rows"].as_array().unwrap();
    let in_rows: u64 = rows.iter().map(|r| r["runs"].as_u64().unwrap()).sum();
    assert_eq!(in_rows, envelopes.len() as u64);
}

fn totals_equal_the_stored_envelopes(store: &str) {
    let home = tempfile::tempdir().unwrap();
    let envelopes = generate(&*open(store), 120);
    let march = ["--since", "2026-03-01", "--until", "2026-03-31"];
    for group in ["provider", "model", "agent", "session"] {
        let report = usage_json(
            home.path(),
            store,
            &[&march[..], &["--group", group]].concat(),
        );
        check_totals(&report, &envelopes);
    }
    let by_month = usage_json(
        home.path(),
        store,
        &[&march[..], &["--by", "month"]].concat(),
    );
    check_totals(&by_month, &envelopes);
    assert_eq!(by_month["rows"].as_array().unwrap().len(), 1);
}

#[test]
fn usage_totals_equal_the_stored_envelopes_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    totals_equal_the_stored_envelopes(dir.path().join("agentgate.db").to_str().unwrap());
}

#[test]
fn usage_totals_equal_the_stored_envelopes_on_postgres() {
    totals_equal_the_stored_envelopes(&fresh_database());
}

/// Five runs whose figures the expectations below are written from.
fn hand_made(store: &dyn StoreBackend) {
    let runs = [
        // Monday of ISO week 2026-03-02.
        Spec {
            id: "h1".into(),
            started: "2026-03-02T10:00:00Z",
            provider: "claude",
            model: "sonnet",
            agent: Some("reviewer"),
            chain: Some("main"),
            session: Some("s1"),
            labels: vec![("team", "infra")],
            input: 100,
            output: 10,
            cost: Some(0.5),
            ..Spec::default()
        },
        // Sunday of the same week, its last second.
        Spec {
            id: "h2".into(),
            started: "2026-03-08T23:59:59Z",
            provider: "codex",
            model: "gpt-5",
            agent: Some("fixer"),
            session: Some("s1"),
            labels: vec![("team", "web"), ("env", "prod")],
            error: Some(ErrorKind::RateLimit),
            input: 200,
            output: 20,
            cache_read: 7,
            ..Spec::default()
        },
        // Monday of the next week, its first second.
        Spec {
            id: "h3".into(),
            started: "2026-03-09T00:00:00Z",
            provider: "claude",
            model: "sonnet",
            agent: Some("reviewer"),
            chain: Some("main"),
            labels: vec![("team", "infra")],
            error: Some(ErrorKind::Cancelled),
            input: 300,
            output: 30,
            cost: Some(1.25),
            ..Spec::default()
        },
        // No labels, no agent.
        Spec {
            id: "h4".into(),
            started: "2026-03-31T23:59:59Z",
            provider: "gemini",
            model: "pro",
            input: 400,
            output: 40,
            reasoning: 9,
            cost: Some(2.0),
            ..Spec::default()
        },
        // April: outside March.
        Spec {
            id: "h5".into(),
            started: "2026-04-01T00:00:00Z",
            provider: "claude",
            model: "sonnet",
            input: 500,
            output: 50,
            cost: Some(3.0),
            ..Spec::default()
        },
    ];
    for spec in &runs {
        write(store, spec);
    }
}

/// (bucket, group, runs, input tokens) of each row.
fn rows(report: &Value) -> Vec<(String, Option<String>, u64, u64)> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["bucket"].as_str().unwrap().to_owned(),
                r["group"].as_str().map(str::to_owned),
                r["runs"].as_u64().unwrap(),
                r["input_tokens"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn row(
    bucket: &str,
    group: Option<&str>,
    runs: u64,
    input: u64,
) -> (String, Option<String>, u64, u64) {
    (bucket.to_owned(), group.map(str::to_owned), runs, input)
}

fn grouping_and_bucketing(store: &str) {
    let home = tempfile::tempdir().unwrap();
    hand_made(&*open(store));
    let march = ["--since", "2026-03-01", "--until", "2026-03-31"];
    let report = |args: &[&str]| usage_json(home.path(), store, &[&march[..], args].concat());

    let weekly = report(&["--by", "week", "--group", "provider"]);
    assert_eq!(
        rows(&weekly),
        [
            row("2026-03-02", Some("claude"), 1, 100),
            row("2026-03-02", Some("codex"), 1, 200),
            row("2026-03-09", Some("claude"), 1, 300),
            row("2026-03-30", Some("gemini"), 1, 400),
        ]
    );
    let t = &weekly["totals"];
    assert_eq!(t["runs"], 4);
    assert_eq!(t["succeeded"], 2);
    assert_eq!(t["failed"], 1);
    assert_eq!(t["cancelled"], 1);
    assert_eq!(t["error_types"]["rate_limit"], 1);
    assert_eq!(t["error_types"]["cancelled"], 1);
    assert_eq!(t["input_tokens"], 1000);
    assert_eq!(t["output_tokens"], 100);
    assert_eq!(t["cache_read_tokens"], 7);
    assert_eq!(t["reasoning_tokens"], 9);
    assert_eq!(t["cost_usd"], 3.75);
    assert_eq!(t["runs_without_cost"], 1);

    let daily = report(&["--group", "agent"]);
    assert_eq!(
        rows(&daily),
        [
            row("2026-03-02", Some("reviewer"), 1, 100),
            row("2026-03-08", Some("fixer"), 1, 200),
            row("2026-03-09", Some("reviewer"), 1, 300),
            row("2026-03-31", None, 1, 400),
        ]
    );
    let chains = report(&["--by", "month", "--group", "chain"]);
    assert_eq!(
        rows(&chains),
        [
            row("2026-03-01", Some("main"), 2, 400),
            row("2026-03-01", None, 2, 600)
        ]
    );
    let sessions = report(&["--by", "month", "--group", "session"]);
    assert_eq!(
        rows(&sessions),
        [
            row("2026-03-01", Some("s1"), 2, 300),
            row("2026-03-01", None, 2, 700)
        ]
    );
    let models = report(&["--by", "month", "--group", "model"]);
    assert_eq!(
        rows(&models),
        [
            row("2026-03-01", Some("gpt-5"), 1, 200),
            row("2026-03-01", Some("pro"), 1, 400),
            row("2026-03-01", Some("sonnet"), 2, 400),
        ]
    );
    // Every pair: h2 counts twice in the rows, once in the totals.
    let labels = report(&["--by", "month", "--group", "label"]);
    assert_eq!(
        rows(&labels),
        [
            row("2026-03-01", Some("env=prod"), 1, 200),
            row("2026-03-01", Some("team=infra"), 2, 400),
            row("2026-03-01", Some("team=web"), 1, 200),
            row("2026-03-01", None, 1, 400),
        ]
    );
    assert_eq!(labels["totals"]["runs"], 4);
    assert_eq!(labels["totals"]["input_tokens"], 1000);
    let team = report(&["--by", "month", "--group", "label:team"]);
    assert_eq!(
        rows(&team),
        [
            row("2026-03-01", Some("infra"), 2, 400),
            row("2026-03-01", Some("web"), 1, 200),
            row("2026-03-01", None, 1, 400),
        ]
    );
    assert_eq!(team["totals"]["runs"], 4);
    assert_eq!(team["totals"]["input_tokens"], 1000);
    // April alone, by an RFC 3339 range.
    let april = usage_json(
        home.path(),
        store,
        &[
            "--since",
            "2026-04-01T00:00:00Z",
            "--until",
            "2026-04-01T00:00:01Z",
        ],
    );
    assert_eq!(rows(&april), [row("2026-04-01", None, 1, 500)]);

    // The table and CSV carry the same figures.
    let (code, table, _) = usage(
        home.path(),
        store,
        &[&march[..], &["--group", "provider"]].concat(),
    );
    assert_eq!(code, 0);
    let total = table.lines().find(|l| l.starts_with("total")).unwrap();
    let cells: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(&cells[..5], ["total", "4", "2", "1", "1"], "{table}");
    assert!(
        total.contains("1000") && total.contains("3.7500"),
        "{table}"
    );
    let (code, csv, _) = usage(
        home.path(),
        store,
        &[
            &march[..],
            &["--by", "month", "--group", "label:team", "--format", "csv"],
        ]
        .concat(),
    );
    assert_eq!(code, 0);
    let lines: Vec<&str> = csv.lines().collect();
    assert!(
        lines[0].starts_with("bucket,group,runs,succeeded,failed,cancelled,running,input_tokens,")
    );
    assert_eq!(lines.len(), 4, "{csv}");
    assert!(
        lines[1].starts_with("2026-03-01,infra,2,1,0,1,0,400,40,"),
        "{csv}"
    );
    assert!(lines[2].ends_with(",rate_limit=1"), "{csv}");
    assert!(
        lines[3].starts_with("2026-03-01,,1,1,0,0,0,400,40,0,0,9,440,2.000000,0,"),
        "{csv}"
    );
}

#[test]
fn usage_groups_and_buckets_hand_made_runs_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    grouping_and_bucketing(dir.path().join("agentgate.db").to_str().unwrap());
}

#[test]
fn usage_groups_and_buckets_hand_made_runs_on_postgres() {
    grouping_and_bucketing(&fresh_database());
}

#[test]
fn bad_usage_parameters_exit_2_with_what_to_give() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("agentgate.db");
    let store = store.to_str().unwrap();
    for (args, says) in [
        (&["--by", "year"][..], "invalid value 'year' for '--by"),
        (&["--group", "colour"][..], "unknown group `colour`"),
        (&["--group", "teams"][..], "unknown group `teams`"),
        (&["--since", "last week"][..], "`since` is `last week`"),
        (
            &["--since", "2026-03-02", "--until", "2026-03-01"][..],
            "range is empty",
        ),
        (
            &["--format", "xml"][..],
            "invalid value 'xml' for '--format",
        ),
    ] {
        let (code, stdout, stderr) = usage(dir.path(), store, args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

#[test]
fn get_v1_usage_serves_the_report_behind_the_token() {
    let home = tempfile::tempdir().unwrap();
    let data = home.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let db = data.join("agentgate.db");
    hand_made(&*open(db.to_str().unwrap()));
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let serve = Serve::start(
        &Env {
            home: home.path(),
            bin: &bin,
            vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
        },
        &["--no-executor"],
    );
    let path = "/v1/usage?by=week&group=provider&since=2026-03-01&until=2026-03-31";
    let r = get(&serve.url, path, Some(TOKEN));
    assert_eq!(r.status, 200, "{}", r.body);
    let body = r.json();
    let cli = usage_json(
        home.path(),
        db.to_str().unwrap(),
        &[
            "--by",
            "week",
            "--group",
            "provider",
            "--since",
            "2026-03-01",
            "--until",
            "2026-03-31",
        ],
    );
    assert_eq!(body, cli);
    assert_eq!(body["totals"]["runs"], 4);
    assert_eq!(body["rows"][1]["group"], "codex");

    assert_eq!(get(&serve.url, "/v1/usage", None).status, 401);
    for (query, field) in [
        ("by=year", "by"),
        ("group=tokens", "group"),
        ("until=soon", "until"),
        ("since=2026-03-02&until=2026-03-01", "since"),
        ("colour=red", "query"),
    ] {
        let r = get(&serve.url, &format!("/v1/usage?{query}"), Some(TOKEN));
        assert_eq!(r.status, 400, "{query}: {}", r.body);
        let error = &r.json()["error"];
        assert_eq!(error["type"], "invalid_parameter", "{query}: {error}");
        assert_eq!(error["field"], field, "{query}: {error}");
    }
}
