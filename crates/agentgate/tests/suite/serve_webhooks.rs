//! Webhooks through a real `agentgate serve` (a stand-in `claude`, the
//! test clock) and a receiver on 127.0.0.1 that verifies every delivery
//! with the npm `standardwebhooks` package (`webhook_receiver.rs`): signed
//! deliveries of `run.ended` to a subscription and to a run's
//! `callback_url`, a retry after a 500 with the same `webhook-id` (the
//! clock moved past the first wait), `job.waiting` for a quota wait, both
//! tries in `GET /v1/webhooks/deliveries`; and loopback URLs refused
//! without `allow_private` (recorded refused, never received).

use serde_json::{Value, json};

use agentgate_store::JobState;

use super::serve_queue_support::{QueueHome, TOKEN, submit, submit_ok, wait_until};
use super::serve_support::get;
use super::webhook_receiver::Receiver;

/// A body signed with another secret's signature.
const FORGED: &[u8] = br#"{"type":"run.ended"}"#;

/// 32 bytes, base64.
const SECRET: &str = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSwMfKQ9r8GKYqr";

fn home_with(receiver_config: &str) -> QueueHome {
    let home = QueueHome::new(receiver_config);
    std::fs::write(home.file("whsec"), format!("{SECRET}\n")).unwrap();
    home
}

/// `GET /v1/webhooks/deliveries?QUERY`, its deliveries.
fn deliveries(url: &str, query: &str) -> Vec<Value> {
    let r = get(
        url,
        &format!("/v1/webhooks/deliveries?{query}"),
        Some(TOKEN),
    );
    assert_eq!(r.status, 200, "{r:?}");
    r.json()["deliveries"].as_array().unwrap().clone()
}

#[test]
fn deliveries_are_signed_retried_after_a_500_with_the_same_id_and_recorded() {
    let scratch = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(scratch.path(), SECRET);
    let all = receiver.url("/all");
    let home = home_with(&format!(
        "webhooks:\n  secret_file: whsec\n  allow_private: true\n  subscriptions:\n    - {{url: \"{all}\", events: [run.ended, job.waiting]}}\n"
    ));
    home.set_clock("2030-01-01T00:00:00Z");
    // A quota reset an hour later (2030-01-01T01:00:00Z).
    std::fs::write(home.file("reset"), "1893459600").unwrap();
    receiver.answer_next("/all", 500);
    let server = home.serve(true, &[]);

    let id = submit_ok(
        &server.url,
        "say tag-a",
        json!({"callback_url": receiver.url("/cb"), "labels": {"team": "web"}}),
    );
    home.wait_for_state(&id, JobState::Succeeded);

    // The run's callback: its run.ended, verified by standardwebhooks.
    let cb = receiver.wait_for("/cb", 1);
    assert_eq!(cb.len(), 1, "{cb:?}");
    assert_eq!(cb[0]["verified"], true, "{:?}", cb[0]["error"]);
    let payload = &cb[0]["payload"];
    assert_eq!(payload["type"], "run.ended");
    assert_eq!(payload["data"]["job_id"], id.as_str());
    assert_eq!(payload["data"]["state"], "succeeded");
    assert_eq!(payload["data"]["labels"]["team"], "web");
    assert_eq!(payload["data"]["envelope"]["response"], "done tag-a");

    // The subscription's first try is answered 500: recorded, pending.
    let first = receiver.wait_for("/all", 1);
    assert_eq!(first[0]["verified"], true, "{:?}", first[0]["error"]);
    assert_eq!(first[0]["status"], 500);
    assert_eq!(first[0]["payload"]["type"], "run.ended");
    let message_id = first[0]["id"].as_str().unwrap().to_owned();
    let pending = wait_until("the failed try to be recorded", || {
        let d = deliveries(&server.url, &format!("url={all}&event=run.ended"));
        (d.len() == 1 && d[0]["attempts"].as_array().unwrap().len() == 1).then_some(d)
    });
    assert_eq!(pending[0]["status"], "pending");
    assert_eq!(pending[0]["message_id"], message_id.as_str());
    assert_eq!(pending[0]["attempts"][0]["status_code"], 500);
    assert_eq!(pending[0]["attempts"][0]["outcome"], "failed");
    let next = pending[0]["next_attempt_at"].as_str().unwrap();
    assert!(
        next > "2030-01-01T00:00:04Z" && next < "2030-01-01T00:00:07Z",
        "the first retry is 5 s (plus up to 20 %) later: {next}"
    );
    // Nothing more until the clock passes that time.
    std::thread::sleep(std::time::Duration::from_millis(600));
    assert_eq!(receiver.received_at("/all").len(), 1, "retried too early");

    home.set_clock("2030-01-01T00:01:00Z");
    let both = receiver.wait_for("/all", 2);
    assert_eq!(both[1]["verified"], true, "{:?}", both[1]["error"]);
    assert_eq!(both[1]["status"], 200);
    assert_eq!(both[1]["id"], message_id.as_str(), "the same webhook-id");
    assert_eq!(both[1]["payload"], both[0]["payload"], "the same body");
    let delivered = wait_until("the retry to be recorded", || {
        let d = deliveries(&server.url, &format!("url={all}&event=run.ended"));
        (d[0]["status"] == "delivered").then_some(d)
    });
    let attempts = delivered[0]["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 2, "{delivered:?}");
    assert_eq!(
        (&attempts[0]["status_code"], &attempts[1]["status_code"]),
        (&json!(500), &json!(200))
    );
    assert_eq!(attempts[1]["outcome"], "delivered");
    assert!(delivered[0].get("next_attempt_at").is_none());

    // A job whose run hits the quota waits: job.waiting.
    let q = submit_ok(&server.url, "quota tag-q", json!({}));
    let waiting = wait_until("job.waiting", || {
        receiver
            .received_at("/all")
            .into_iter()
            .find(|r| r["payload"]["type"] == "job.waiting")
    });
    assert_eq!(waiting["verified"], true, "{:?}", waiting["error"]);
    assert_eq!(waiting["payload"]["data"]["job_id"], q.as_str());
    assert_eq!(waiting["payload"]["data"]["waiting_for"], "quota");
    assert_eq!(
        waiting["payload"]["data"]["not_before"],
        "2030-01-01T01:00:00Z"
    );

    // A queued job cancelled before any claim ends there: its callback
    // hears it.
    let later = submit_ok(
        &server.url,
        "say tag-later",
        json!({"callback_url": receiver.url("/cb-cancelled"), "not_before": "2031-01-01T00:00:00Z"}),
    );
    let cancelled = super::serve_queue_support::cancel(&server.url, &later);
    assert_eq!(cancelled.status, 200, "{cancelled:?}");
    let heard = receiver.wait_for("/cb-cancelled", 1);
    assert_eq!(heard[0]["verified"], true, "{:?}", heard[0]["error"]);
    assert_eq!(heard[0]["payload"]["data"]["job_id"], later.as_str());
    assert_eq!(heard[0]["payload"]["data"]["state"], "cancelled");

    // The listing's filters.
    let by_status = deliveries(&server.url, "status=delivered");
    assert!(by_status.iter().all(|d| d["status"] == "delivered"));
    assert_eq!(
        deliveries(&server.url, "event=job.waiting").len(),
        1,
        "one job.waiting"
    );
    let page = get(&server.url, "/v1/webhooks/deliveries?limit=1", Some(TOKEN));
    assert_eq!(page.json()["deliveries"].as_array().unwrap().len(), 1);
    let cursor = page.json()["next_cursor"].as_str().unwrap().to_owned();
    let rest = deliveries(&server.url, &format!("cursor={cursor}&limit=500"));
    assert_eq!(rest.len(), 4, "five deliveries in all: {rest:?}");
    let bad = get(
        &server.url,
        "/v1/webhooks/deliveries?status=lost",
        Some(TOKEN),
    );
    assert_eq!(bad.status, 400, "{bad:?}");

    // The receiver's check is real: a wrong signature is not verified.
    let forged = super::serve_support::request(
        &format!("http://127.0.0.1:{}", receiver.port),
        "POST",
        "/forged",
        &[
            format!("webhook-id: {message_id}"),
            format!("webhook-timestamp: {}", jiff::Timestamp::now().as_second()),
            "webhook-signature: v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=".to_owned(),
            "content-type: application/json".to_owned(),
            format!("content-length: {}", FORGED.len()),
        ],
        FORGED,
    );
    assert_eq!(forged.status, 200);
    let forged = receiver.wait_for("/forged", 1);
    assert_eq!(forged[0]["verified"], false);
}

#[test]
fn loopback_destinations_are_refused_without_allow_private_and_never_sent() {
    let scratch = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(scratch.path(), SECRET);
    let private = receiver.url("/private");
    // A host name is judged by the addresses it resolves to.
    let named = format!("http://localhost:{}/named", receiver.port);
    let home = home_with(&format!(
        "webhooks:\n  secret_env: WHSEC_TEST\n  subscriptions:\n    - {{url: \"{private}\", events: [run.ended]}}\n    - {{url: \"{named}\", events: [run.ended]}}\n"
    ));
    let server = home.serve_with_vars(false, vec![("WHSEC_TEST", SECRET.to_owned())], &[]);
    let id = submit_ok(
        &server.url,
        "say tag-p",
        json!({"callback_url": receiver.url("/cb")}),
    );
    home.wait_for_state(&id, JobState::Succeeded);
    let refused = wait_until("the three deliveries to be refused", || {
        let d = deliveries(&server.url, "status=refused");
        (d.len() == 3).then_some(d)
    });
    for d in &refused {
        let attempts = d["attempts"].as_array().unwrap();
        assert_eq!(attempts.len(), 1, "{d:?}");
        assert_eq!(attempts[0]["outcome"], "refused");
        assert!(attempts[0].get("status_code").is_none());
        let error = attempts[0]["error"].as_str().unwrap();
        assert!(error.contains("loopback"), "{error}");
        if d["url"] == named.as_str() {
            assert!(error.starts_with("localhost resolves to "), "{error}");
        }
    }
    assert!(
        receiver.received().is_empty(),
        "the receiver saw a refused delivery: {:?}",
        receiver.received()
    );
    // A URL that is not http(s) is refused at submit.
    let r = submit(
        &server.url,
        "say tag-f",
        json!({"callback_url": "file:///etc/passwd"}),
    );
    assert_eq!(r.status, 422, "{r:?}");
    assert_eq!(r.json()["error"]["field"], "callback_url");
}

#[test]
fn a_callback_url_is_refused_when_no_secret_is_configured() {
    let home = QueueHome::new("");
    let server = home.serve(false, &[]);
    let r = submit(
        &server.url,
        "say tag-n",
        json!({"callback_url": "https://hooks.example.com/x"}),
    );
    assert_eq!(r.status, 422, "{r:?}");
    assert_eq!(r.json()["error"]["field"], "callback_url");
    assert_eq!(home.job_count(), 0, "nothing queued");
}

/// A run in permission mode `ask` (the real Claude Code against
/// fake-llm) waits for a person: `approval.requested` names the request
/// `GET /v1/runs/{id}/approvals` lists.
#[test]
fn a_run_waiting_for_a_person_sends_approval_requested() {
    use agentgate_fakellm::clients::Cli;

    use super::serve_support::{post_json, serve_with_cli_env};
    use super::support::{Client, FakeServer};

    let scratch = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(scratch.path(), SECRET);
    let target = tempfile::tempdir().unwrap();
    let server = FakeServer::start(&format!(
        "turns:\n  - match: {{contains: \"WRITE\"}}\n    tool_call: {{name: Write, args: {{file_path: \"{}/a.txt\", content: \"yes\"}}}}\n",
        target.path().display()
    ));
    let client = Client::new(Cli::Claude, &server);
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("whsec"), SECRET).unwrap();
    let config = home.path().join("agentgate.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\napprovals:\n  default: ask\n  ask_timeout: 2m\nwebhooks:\n  secret_file: whsec\n  allow_private: true\n  subscriptions:\n    - {{url: \"{}\", events: [approval.requested]}}\n",
            receiver.url("/asks")
        ),
    )
    .unwrap();
    let serve = serve_with_cli_env(
        home.path(),
        &client.setup.env,
        TOKEN,
        &["--config", config.to_str().unwrap()],
    );
    let submitted = post_json(
        &serve.url,
        "/v1/runs",
        TOKEN,
        &json!({
            "prompt": "please WRITE a file",
            "providers": ["claude"],
            "permission_mode": "ask",
            "model": client.setup.model,
            "binary": client.program,
            "cwd": client.setup.workdir,
            "timeout": "150s",
        })
        .to_string(),
    );
    assert_eq!(submitted.status, 201, "{}", submitted.body);
    let run = submitted.json()["run_id"].as_str().unwrap().to_owned();
    let asked = receiver.wait_for("/asks", 1);
    assert_eq!(asked[0]["verified"], true, "{:?}", asked[0]["error"]);
    let data = &asked[0]["payload"]["data"];
    assert_eq!(asked[0]["payload"]["type"], "approval.requested");
    assert_eq!(data["run_id"], run.as_str());
    let pending = get(
        &serve.url,
        &format!("/v1/runs/{run}/approvals"),
        Some(TOKEN),
    )
    .json();
    assert_eq!(
        pending["pending"],
        json!([data["request_id"].clone()]),
        "the request the webhook names is the one pending"
    );
    let cancelled = post_json(&serve.url, &format!("/v1/runs/{run}/cancel"), TOKEN, "");
    assert!(cancelled.status < 300, "{}", cancelled.body);
}

/// A secret that is not `whsec_<base64>` stops serve at start, and the
/// error does not print it.
#[test]
fn serve_refuses_to_start_with_a_malformed_secret_without_printing_it() {
    use super::serve_support::{Env, serve_exits};

    let home = tempfile::tempdir().unwrap();
    let bin = home.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(home.path().join("whsec"), "not-a-secret-3f9a1c77\n").unwrap();
    let config = home.path().join("agentgate.yaml");
    std::fs::write(&config, "version: 1\nwebhooks:\n  secret_file: whsec\n").unwrap();
    let env = Env {
        home: home.path(),
        bin: &bin,
        vars: vec![("AGENTGATE_TOKEN", TOKEN.to_owned())],
    };
    let (status, _, stderr) = serve_exits(
        &env,
        &[
            "--listen",
            "127.0.0.1:0",
            "--config",
            config.to_str().unwrap(),
        ],
    );
    assert!(!status.success(), "{stderr}");
    assert!(stderr.contains("whsec_"), "{stderr}");
    assert!(
        !stderr.contains("3f9a1c77"),
        "the secret was printed: {stderr}"
    );
}

#[test]
fn a_budgets_warning_and_a_budget_wait_are_sent() {
    let scratch = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(scratch.path(), SECRET);
    let hooks = receiver.url("/budget");
    // The stand-in's `costly` run spends $0.06: 86% of its own $0.07 and
    // past the day's $0.05, so the next job waits for the next day.
    let home = home_with(&format!(
        "webhooks:\n  secret_file: whsec\n  allow_private: true\n  subscriptions:\n    - {{url: \"{hooks}\", events: [budget.warning, job.waiting]}}\n\
         budgets:\n  when_over: wait\n  run: {{max_cost: 0.07}}\n  global: {{day: {{max_cost: 0.05}}}}\n"
    ));
    home.set_clock(&jiff::Timestamp::now().to_string());
    let server = home.serve(true, &[]);
    let first = submit_ok(&server.url, "costly tag-c", json!({}));
    home.wait_for_state(&first, JobState::Succeeded);
    let second = submit_ok(&server.url, "say tag-s", json!({}));
    let got = receiver.wait_for("/budget", 3);
    assert!(got.iter().all(|d| d["verified"] == true), "{got:?}");
    let mut warned: Vec<(String, f64)> = got
        .iter()
        .filter(|d| d["payload"]["type"] == "budget.warning")
        .map(|d| {
            let data = &d["payload"]["data"];
            assert_eq!(data["job_id"], first.as_str(), "{data}");
            assert_eq!(data["measure"], "cost");
            assert_eq!(data["spent"].as_f64(), Some(0.06));
            (
                data["budget"].as_str().unwrap().to_owned(),
                data["limit"].as_f64().unwrap(),
            )
        })
        .collect();
    warned.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        warned,
        [
            ("the global day budget".to_owned(), 0.05),
            ("the run's limit (budgets.run)".to_owned(), 0.07)
        ]
    );
    let waiting: Vec<&Value> = got
        .iter()
        .filter(|d| d["payload"]["type"] == "job.waiting")
        .collect();
    assert_eq!(waiting.len(), 1, "{got:?}");
    assert_eq!(waiting[0]["payload"]["data"]["job_id"], second.as_str());
    assert_eq!(waiting[0]["payload"]["data"]["waiting_for"], "budget");
}
