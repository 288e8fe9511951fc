//! The read API of a real `agentgate serve` over HTTP: runs listed with
//! filters and keyset pages and shown one by one, the queue's counts,
//! sessions (listed, deleted), quota, providers, the OpenAPI document, and
//! 401 without the token on every route. Jobs, sessions and quota states
//! are written straight into the store file the server reads, as an
//! executor and `agentgate run` write them.

use std::time::Duration;

use agentgate_protocol::Envelope;
use agentgate_store::{
    FinalState, JobOutcome, JobQueue, NewJob, QuotaState, QuotaStatus, RunStore, SessionRecord,
    Store,
};
use jiff::Timestamp;
use serde_json::{Value, json};

use super::serve::{Home, assert_unauthorized};
use super::serve_support::{Response, Serve, get, request};

const TOKEN: &str = "api-test-token-0123456789abcdef012";

pub(super) fn store_of(home: &Home) -> Store {
    Store::open(home.path().join("data").join(agentgate_store::DB_FILE_NAME)).unwrap()
}

/// A server whose executor lives in 2020 (its test clock): nothing these
/// tests enqueue is due for it, so the tests play the executor themselves
/// (claim, write the run's files, finish) and the server only reads.
pub(super) fn start(home: &Home, args: &[&str]) -> Serve {
    let clock = home.path().join("clock-2020");
    std::fs::write(&clock, "2020-01-01T00:00:00Z").unwrap();
    Serve::start(
        &home.env(vec![
            ("AGENTGATE_TOKEN", TOKEN.to_owned()),
            ("AGENTGATE_TEST_CLOCK_FILE", clock.display().to_string()),
        ]),
        args,
    )
}

pub(super) fn job(id: &str, providers: &[&str], session: Option<&str>) -> NewJob {
    NewJob {
        job_id: id.to_owned(),
        request: json!({"prompt": format!("task {id}"), "provider": providers}),
        priority: 0,
        not_before: None,
        idempotency_key: None,
        providers: providers.iter().map(|p| (*p).to_owned()).collect(),
        session: session.map(str::to_owned),
        writes_in: None,
        ignore_quota: false,
        planned: false,
        labels: Default::default(),
    }
}

fn at(second: i64) -> Timestamp {
    Timestamp::from_second(1_800_000_000 + second).unwrap()
}

fn ok(r: Response) -> Value {
    assert_eq!(r.status, 200, "{r:?}");
    r.json()
}

fn ids(page: &Value) -> Vec<String> {
    page["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["run_id"].as_str().unwrap().to_owned())
        .collect()
}

/// Five jobs: r0 succeeded (with an envelope), r1 running, r2 cancelled,
/// r3 and r4 queued; providers and sessions vary.
fn five_jobs(store: &Store) -> Envelope {
    store
        .enqueue(&job("r0", &["claude"], Some("s1")), at(0))
        .unwrap();
    store
        .enqueue(&job("r1", &["codex", "claude"], None), at(1))
        .unwrap();
    store
        .enqueue(&job("r2", &["gemini"], Some("s1")), at(2))
        .unwrap();
    store.enqueue(&job("r3", &["claude"], None), at(3)).unwrap();
    store
        .enqueue(&job("r4", &["codex"], Some("s2")), at(4))
        .unwrap();
    let lease = Duration::from_secs(600);
    let first = store.claim("test", lease, at(10)).unwrap().unwrap();
    assert_eq!(first.job.job_id, "r0");
    let envelope = Envelope {
        response: "all done".to_owned(),
        provider: Some("claude".to_owned()),
        ..Envelope::default()
    };
    let outcome = JobOutcome {
        state: FinalState::Succeeded,
        envelope: Some(envelope.clone()),
        error: None,
    };
    store.finish("r0", &first.token, &outcome, at(11)).unwrap();
    let second = store.claim("test", lease, at(12)).unwrap().unwrap();
    assert_eq!(second.job.job_id, "r1");
    store.cancel("r2", None, at(13)).unwrap();
    envelope
}

#[test]
fn runs_are_listed_with_filters_and_pages_and_shown_one_by_one() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    let envelope = five_jobs(&store);
    let url = &server.url;

    let all = ok(get(url, "/v1/runs", Some(TOKEN)));
    assert_eq!(ids(&all), ["r4", "r3", "r2", "r1", "r0"]);
    assert_eq!(all["next_cursor"], Value::Null);

    // Pages of two, each cursor given back as is.
    let mut pages = Vec::new();
    let mut path = "/v1/runs?limit=2".to_owned();
    for _ in 0..10 {
        let page = ok(get(url, &path, Some(TOKEN)));
        pages.push(ids(&page));
        match page["next_cursor"].as_str() {
            Some(cursor) => {
                path = format!("/v1/runs?limit=2&cursor={}", encode(cursor));
            }
            None => break,
        }
    }
    assert_eq!(pages, [vec!["r4", "r3"], vec!["r2", "r1"], vec!["r0"]]);

    for (query, expected) in [
        ("status=queued", vec!["r4", "r3"]),
        ("status=running", vec!["r1"]),
        ("status=cancelled", vec!["r2"]),
        ("provider=claude", vec!["r3", "r1", "r0"]),
        ("session=s1", vec!["r2", "r0"]),
        ("provider=codex&status=queued", vec!["r4"]),
        ("provider=nobody", vec![]),
    ] {
        let page = ok(get(url, &format!("/v1/runs?{query}"), Some(TOKEN)));
        assert_eq!(ids(&page), expected, "{query}");
    }

    for (query, named) in [
        ("status=done", "status"),
        ("limit=0", "limit"),
        ("limit=many", "limit"),
        ("cursor=garbage", "cursor"),
        ("colour=red", "colour"),
    ] {
        let r = get(url, &format!("/v1/runs?{query}"), Some(TOKEN));
        assert_eq!(r.status, 400, "{query}: {r:?}");
        let error = r.json()["error"].clone();
        assert_eq!(error["type"], "invalid_parameter", "{query}");
        assert!(
            error["message"].as_str().unwrap().contains(named),
            "{query}: {error}"
        );
    }

    let done = ok(get(url, "/v1/runs/r0", Some(TOKEN)));
    assert_eq!(done["run_id"], "r0");
    assert_eq!(done["status"], "succeeded");
    assert_eq!(done["attempts"], 1);
    assert_eq!(done["providers"], json!(["claude"]));
    assert_eq!(done["session"], "s1");
    assert_eq!(done["request"]["prompt"], "task r0");
    assert_eq!(done["created_at"], at(0).to_string());
    assert_eq!(done["ended_at"], at(11).to_string());
    assert_eq!(done["envelope"], serde_json::to_value(&envelope).unwrap());

    let running = ok(get(url, "/v1/runs/r1", Some(TOKEN)));
    assert_eq!(running["status"], "running");
    assert_eq!(running["envelope"], Value::Null);
    assert_eq!(running["ended_at"], Value::Null);
    assert!(
        running.get("lease_token").is_none() && !running.to_string().contains("token\":\""),
        "{running}"
    );

    let missing = get(url, "/v1/runs/r9", Some(TOKEN));
    assert_eq!(missing.status, 404, "{missing:?}");
    assert_eq!(missing.json()["error"]["type"], "not_found");
    assert!(missing.body.contains("r9"), "{missing:?}");
}

/// Percent-encodes what a cursor may hold outside the unreserved set.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn the_queue_sessions_quota_and_providers_read_the_store_and_config() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    let store = store_of(&home);
    five_jobs(&store);
    let url = &server.url;

    let queue = ok(get(url, "/v1/queue", Some(TOKEN)));
    assert_eq!(
        queue["counts"],
        json!({"queued": 2, "running": 1, "succeeded": 1, "failed": 0, "cancelled": 1, "abandoned": 0})
    );
    let zero = json!({"queued": 0, "running": 0, "succeeded": 0, "failed": 0, "cancelled": 0, "abandoned": 0});
    let with = |pairs: &[(&str, u64)]| {
        let mut counts = zero.clone();
        for (k, n) in pairs {
            counts[*k] = json!(n);
        }
        counts
    };
    assert_eq!(
        queue["providers"],
        json!([
            {"provider": "claude", "counts": with(&[("queued", 1), ("running", 1), ("succeeded", 1)])},
            {"provider": "codex", "counts": with(&[("queued", 1), ("running", 1)])},
            {"provider": "gemini", "counts": with(&[("cancelled", 1)])},
        ])
    );

    let session = |name: &str, provider: &str| SessionRecord {
        name: name.to_owned(),
        provider: provider.to_owned(),
        native_session_id: format!("native-{name}-{provider}"),
        cwd: Some("/work".to_owned()),
        created_at: at(0),
        updated_at: at(5),
        turns: 3,
        labels: Default::default(),
        context_tokens: None,
    };
    store.put_session(&session("review", "claude")).unwrap();
    store.put_session(&session("review", "codex")).unwrap();
    // `triage` rotated once: its context and the rotation are listed.
    store
        .put_session(&SessionRecord {
            context_tokens: Some(4200),
            ..session("triage", "claude")
        })
        .unwrap();
    store
        .add_session_rotation(&agentgate_store::SessionRotation {
            name: "triage".into(),
            provider: "claude".into(),
            rotated_at: at(4),
            run_id: Some("r4".into()),
            old_native_id: "native-old".into(),
            new_native_id: Some("native-triage-claude".into()),
            reason: "context 180000 tokens > max_context_tokens 150000".into(),
            context_tokens: Some(180_000),
            max_context_tokens: Some(150_000),
            handoff: "summary".into(),
        })
        .unwrap();
    let listed = ok(get(url, "/v1/sessions", Some(TOKEN)));
    let mut names: Vec<(String, String)> = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_owned(),
                s["provider"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            ("review".to_owned(), "claude".to_owned()),
            ("review".to_owned(), "codex".to_owned()),
            ("triage".to_owned(), "claude".to_owned())
        ]
    );
    let one = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "triage")
        .unwrap();
    assert_eq!(one["native_session_id"], "native-triage-claude");
    assert_eq!(one["turns"], 3);
    assert_eq!(one["context_tokens"], 4200);
    let rotations = one["rotations"].as_array().unwrap();
    assert_eq!(rotations.len(), 1, "{one:#}");
    assert_eq!(rotations[0]["old_native_id"], "native-old");
    assert_eq!(rotations[0]["new_native_id"], "native-triage-claude");
    assert_eq!(rotations[0]["max_context_tokens"], 150_000);
    assert_eq!(rotations[0]["handoff"], "summary");
    let review = listed["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "review")
        .unwrap();
    assert_eq!(review["rotations"], json!([]), "{review:#}");
    assert_eq!(review["context_tokens"], Value::Null);

    // A session whose run holds its lock cannot be deleted meanwhile.
    let held = store.try_lock_session("review").unwrap().unwrap();
    let busy = request(url, "DELETE", "/v1/sessions/review", &[bearer()], b"");
    assert_eq!(busy.status, 409, "{busy:?}");
    assert_eq!(busy.json()["error"]["type"], "conflict");
    drop(held);
    let deleted = ok(request(
        url,
        "DELETE",
        "/v1/sessions/review",
        &[bearer()],
        b"",
    ));
    assert_eq!(
        deleted,
        json!({"name": "review", "providers": ["claude", "codex"]})
    );
    let left: Vec<String> = store
        .list_sessions()
        .unwrap()
        .into_iter()
        .map(|s| s.name)
        .collect();
    assert_eq!(left, ["triage"]);
    let again = request(url, "DELETE", "/v1/sessions/review", &[bearer()], b"");
    assert_eq!(again.status, 404, "{again:?}");
    assert_eq!(again.json()["error"]["type"], "not_found");

    // Quota: a known exhaustion with its reset, the other providers unknown.
    let reset = Timestamp::now()
        .checked_add(jiff::SignedDuration::from_hours(2))
        .unwrap();
    store
        .put_quota(
            "claude",
            &QuotaState {
                status: QuotaStatus::Exhausted,
                reset_at: Some(reset),
                source: "error:r0".to_owned(),
                updated_at: at(20),
                message: Some("usage limit reached".to_owned()),
                windows: vec![agentgate_protocol::RateLimitWindow {
                    name: "5h".to_owned(),
                    utilization: Some(1.0),
                    resets_at: Some(reset.to_string()),
                    status: Some("rejected".to_owned()),
                    ..Default::default()
                }],
            },
        )
        .unwrap();
    let quota = ok(get(url, "/v1/quota", Some(TOKEN)));
    let providers = quota["providers"].as_array().unwrap();
    let claude = providers
        .iter()
        .find(|p| p["provider"] == "claude")
        .unwrap();
    assert_eq!(claude["status"], "exhausted");
    assert_eq!(claude["reset_at"], reset.to_string());
    assert_eq!(claude["run_id"], "r0");
    assert_eq!(claude["windows"][0]["name"], "5h");
    assert_eq!(claude["windows"][0]["utilization"], 1.0);
    assert_eq!(claude["windows"][0]["status"], "rejected");
    let codex = providers.iter().find(|p| p["provider"] == "codex").unwrap();
    assert_eq!(codex["status"], "unknown");
    assert_eq!(codex["windows"], serde_json::json!([]));

    // Providers: the stand-in `claude` on PATH is found, the others not.
    let listing = ok(get(url, "/v1/providers", Some(TOKEN)));
    assert_eq!(listing["config"]["found_by"], "default");
    let entries = listing["providers"].as_array().unwrap();
    let claude = entries.iter().find(|p| p["name"] == "claude").unwrap();
    assert_eq!(claude["binary_found"], true, "{claude}");
    assert_eq!(
        claude["binary"],
        home.path().join("bin").join("claude").display().to_string()
    );
    let codex = entries.iter().find(|p| p["name"] == "codex").unwrap();
    assert_eq!(codex["binary_found"], false, "{codex}");
}

fn bearer() -> String {
    format!("Authorization: Bearer {TOKEN}")
}

#[test]
fn every_read_route_needs_the_token_and_the_document_is_the_checked_in_one() {
    let home = Home::new("0");
    let server = start(&home, &[]);
    store_of(&home)
        .enqueue(&job("r0", &["claude"], None), at(0))
        .unwrap();
    let url = &server.url;
    for (method, path) in [
        ("GET", "/v1/runs"),
        ("GET", "/v1/runs?status=queued"),
        ("GET", "/v1/runs/r0"),
        ("GET", "/v1/runs/r0/events"),
        ("GET", "/v1/queue"),
        ("GET", "/v1/sessions"),
        ("DELETE", "/v1/sessions/x"),
        ("GET", "/v1/quota"),
        ("GET", "/v1/providers"),
        ("GET", "/v1/openapi.json"),
    ] {
        assert_unauthorized(&request(url, method, path, &[], b""));
        let wrong = ["Authorization: Bearer not-the-token".to_owned()];
        assert_unauthorized(&request(url, method, path, &wrong, b""));
    }

    let served = ok(get(url, "/v1/openapi.json", Some(TOKEN)));
    let checked_in: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../docs/openapi.json"
        ))
        .unwrap(),
    )
    .unwrap();
    assert_eq!(
        served, checked_in,
        "docs/openapi.json drifted from the served document"
    );
    assert_eq!(served["openapi"], "3.1.0");
}
