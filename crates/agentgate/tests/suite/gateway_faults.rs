//! The model gateway's guarantees with the REAL Claude Code, through the
//! gateway to `agentgate fake-llm` over HTTPS (the set-up of
//! `gateway_e2e.rs`): a 429's rate-limit headers reach the quota store
//! before the CLI retries; a run past its token limit ends with `budget`
//! and the refused call never reaches the model; an upstream that breaks
//! its stream is a recoverable failure whose call says so; a recorded run
//! replays offline to the same answer.

use std::path::Path;
use std::time::Duration;

use agentgate_fakellm::clients::Cli;
use agentgate_store::{QuotaStatus, RunStore, Store};
use jiff::Timestamp;
use serde_json::{Value, json};

use super::gateway_e2e::{REAL_KEY, TestCa, https_upstream, test_ca, with_real_key};
use super::support::{Client, FakeServer, Run, run_bounded};

const LIMIT: Duration = Duration::from_secs(180);

/// A run of Claude Code through the gateway to an HTTPS fake-llm.
struct Gated {
    ca: TestCa,
    upstream: FakeServer,
    client: Client,
    store: tempfile::TempDir,
}

impl Gated {
    fn new(script: &str) -> Gated {
        let ca = test_ca();
        let upstream = https_upstream(script, &ca);
        let mut client = Client::new(Cli::Claude, &upstream);
        with_real_key(Cli::Claude, &mut client);
        std::fs::write(
            ca.dir.path().join("agentgate.yaml"),
            format!(
                "version: 1\ngateway:\n  ca_file: {}\n",
                ca.ca_file.display()
            ),
        )
        .unwrap();
        Gated {
            ca,
            upstream,
            client,
            store: tempfile::tempdir().unwrap(),
        }
    }

    fn run(&self, extra: &[&str]) -> (Run, Vec<Value>, Value) {
        let mut cmd = self.client.agentgate();
        cmd.arg("--config")
            .arg(self.ca.dir.path().join("agentgate.yaml"))
            .args([
                "run",
                "--provider",
                "claude",
                "--yolo",
                "--stream",
                "--gateway",
            ])
            .arg("--binary")
            .arg(&self.client.program)
            .args(["--model", &self.client.setup.model])
            .args(extra)
            .arg("GATEWAY-FAULT: go")
            .env("AGENTGATE_HOME", self.store.path());
        let run = run_bounded(cmd, LIMIT);
        let events: Vec<Value> = run
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let envelope = events
            .last()
            .map(|e| e["envelope"].clone())
            .unwrap_or_default();
        (run, events, envelope)
    }

    /// The model requests fake-llm got (side requests and the like left out).
    fn model_requests(&self) -> Vec<Value> {
        self.upstream
            .requests()
            .into_iter()
            .filter(|r| r["api"].is_string() && r["side"].is_null())
            .collect()
    }
}

fn calls(events: &[Value]) -> Vec<&Value> {
    events
        .iter()
        .filter(|e| e["type"] == "model_call")
        .collect()
}

#[test]
fn a_429s_rate_limit_headers_reach_the_quota_store_before_the_retry() {
    let reset = Timestamp::now().as_second() + 3 * 3600;
    let g = Gated::new(&format!(
        r#"turns:
  - match: {{contains: "GATEWAY-FAULT"}}
    error: {{kind: rate_limit, status: 429, retry_after: 2}}
    headers:
      anthropic-ratelimit-unified-status: rejected
      anthropic-ratelimit-unified-5h-status: rejected
      anthropic-ratelimit-unified-5h-utilization: "1.0"
      anthropic-ratelimit-unified-5h-reset: "{reset}"
      anthropic-ratelimit-unified-representative-claim: five_hour
  - match: {{contains: "GATEWAY-FAULT"}}
    text: "after the wait"
"#
    ));
    let mut client_env = g.client.setup.env.clone();
    client_env.retain(|(k, _)| k != "CLAUDE_CODE_MAX_RETRIES");
    let mut cmd_extra: Vec<&str> = Vec::new();
    cmd_extra.extend(["--env", "CLAUDE_CODE_MAX_RETRIES=2"]);
    let (run, events, env) = g.run(&cmd_extra);
    assert_eq!(env["response"], "after the wait", "{}", run.all_output());
    let requests = g.model_requests();
    assert_eq!(requests.len(), 2, "{requests:#?}");
    assert_eq!(requests[0]["status"], 429, "{requests:#?}");
    let first = calls(&events);
    assert_eq!(first[0]["status"], 429, "{first:#?}");
    let window = first[0]["rate_limits"]
        .as_array()
        .and_then(|w| w.iter().find(|w| w["name"] == "5h"))
        .unwrap_or_else(|| panic!("no 5h window: {first:#?}"));
    assert_eq!(window["utilization"], json!(1.0), "{window}");
    let reset_at = Timestamp::from_second(reset).unwrap();
    assert_eq!(window["resets_at"], json!(reset_at.to_string()), "{window}");

    // The store learnt it from the 429 itself, before the CLI retried.
    let store = Store::open(g.store.path().join("agentgate.db")).unwrap();
    let state = store.get_quota("claude").unwrap().expect("a quota state");
    assert_eq!(state.status, QuotaStatus::Exhausted, "{state:?}");
    assert_eq!(state.reset_at, Some(reset_at), "{state:?}");
    assert!(state.source.starts_with("wire:"), "{state:?}");
    let retried: Timestamp = requests[1]["ts"].as_str().unwrap().parse().unwrap();
    assert!(
        state.updated_at < retried,
        "recorded at {}, the retry came at {retried}",
        state.updated_at
    );
    // The next run skips Claude until the reset: its quota is exhausted.
    let (again, events, env) = g.run(&[]);
    assert_eq!(env["error_type"], "quota", "{}", again.all_output());
    assert_eq!(g.model_requests().len(), 2, "no call was made");
    // The --stream says so with a `skipped` status: the step, `quota`, the
    // reset the wire told.
    let skips: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "status" && e["kind"] == "skipped")
        .collect();
    assert_eq!(skips.len(), 1, "{events:#?}");
    assert_eq!(skips[0]["step"], "claude", "{events:#?}");
    assert_eq!(skips[0]["error_type"], "quota", "{events:#?}");
    assert_eq!(
        skips[0]["reset_at"],
        json!(reset_at.to_string()),
        "{events:#?}"
    );
    assert_eq!(skips[0]["message"], env["error"], "{events:#?}");
}

#[test]
fn a_run_past_its_output_token_limit_ends_with_budget() {
    let g = Gated::new(
        r#"turns:
  - match: {tool_result: false}
    text: "Looking."
    tool_call: {name: Bash, command: "echo looked"}
    usage: {input: 900, output: 400, cache_read: 0, cache_write: 0, reasoning: 0}
  - match: {tool_result: true}
    repeat: true
    text: "never sent"
"#,
    );
    let (run, events, env) = g.run(&["--max-output-tokens", "100"]);
    let all = run.all_output();
    assert_eq!(env["error_type"], "budget", "{all}");
    assert_eq!(env["recoverable"], false, "{all}");
    assert_eq!(run.code, Some(1), "{all}");
    assert!(
        env["error"].as_str().unwrap().contains("max_output_tokens"),
        "{env:#}"
    );
    let calls = calls(&events);
    let refused: Vec<_> = calls
        .iter()
        .filter(|c| c["refused_by"] == "max_output_tokens")
        .collect();
    // The next model call is refused (and any side request Claude Code
    // makes meanwhile, e.g. a title: how many depends on its timing).
    assert!(!refused.is_empty(), "{calls:#?}");
    assert!(
        refused.iter().all(|c| c["status"].is_null()),
        "{refused:#?}"
    );
    assert_eq!(
        env["gateway"]["refused_calls"],
        json!(refused.len()),
        "{env:#}"
    );
    // Only the first call of the conversation reached the model.
    assert_eq!(g.model_requests().len(), 1, "{:#?}", g.model_requests());
}

#[test]
fn an_upstream_that_breaks_its_stream_is_a_recoverable_failure_with_its_call() {
    let g = Gated::new(
        r#"turns:
  - match: {contains: "GATEWAY-FAULT"}
    repeat: true
    text: ["The first part, ", "and the rest that never comes."]
    fail: mid_stream
"#,
    );
    let (run, events, env) = g.run(&[]);
    let all = run.all_output();
    assert_ne!(run.code, Some(0), "{all}");
    assert_eq!(env["recoverable"], true, "{env:#}");
    let calls = calls(&events);
    assert!(
        calls.iter().any(|c| c["error"]
            .as_str()
            .is_some_and(|e| e.contains("reset the stream"))),
        "{calls:#?}"
    );
    // The run is recorded with its events.
    let run_id = env["run_id"].as_str().unwrap();
    let log = g
        .store
        .path()
        .join("runs")
        .join(run_id)
        .join("events.jsonl");
    let stored = std::fs::read_to_string(&log).unwrap();
    assert!(stored.contains("\"model_call\""), "{stored}");
}

#[test]
fn a_recorded_run_replays_offline_to_the_same_answer() {
    let g = Gated::new(
        r#"turns:
  - match: {tool_result: false}
    text: "Checking."
    tool_call: {name: Bash, command: "echo replayed-output"}
  - match: {tool_result: true}
    text: "The command said {{tool_output}}"
"#,
    );
    let (run, _, env) = g.run(&["--record-model-calls"]);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    let answer = env["response"].as_str().unwrap().to_owned();
    assert!(answer.contains("replayed-output"), "{answer}");
    let run_id = env["run_id"].as_str().unwrap();
    let recording = g
        .store
        .path()
        .join("runs")
        .join(run_id)
        .join("model-calls.jsonl");
    let text = std::fs::read_to_string(&recording).unwrap();
    assert!(!text.contains(REAL_KEY), "the key was recorded");
    assert!(!text.contains("agentgate-stub-"), "the stub was recorded");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&recording).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }

    // Offline: fake-llm serves the recording; the CLI, pointed at it
    // directly, gets the same answer.
    let replay = FakeServer::replaying(&recording);
    let client = Client::new(Cli::Claude, &replay);
    let store = tempfile::tempdir().unwrap();
    let replayed = replay_run(&client, store.path());
    assert_eq!(replayed.0.code, Some(0), "{}", replayed.0.all_output());
    assert_eq!(replayed.1["response"], json!(answer));
}

fn replay_run(client: &Client, store: &Path) -> (Run, Value) {
    let mut cmd = client.agentgate();
    cmd.args(["run", "--provider", "claude", "--yolo", "--compact"])
        .arg("--binary")
        .arg(&client.program)
        .args(["--model", &client.setup.model])
        .arg("GATEWAY-FAULT: go")
        .env("AGENTGATE_HOME", store);
    let run = run_bounded(cmd, LIMIT);
    let envelope = super::run_e2e::last_json(&run.stdout).unwrap_or_default();
    (run, envelope)
}

/// `agentgate serve` puts a gateway in front of the runs its config asks
/// for (`gateway.providers.claude.enabled`): a job submitted with no
/// gateway flag runs through it.
#[test]
fn a_served_run_goes_through_the_gateway_its_config_turns_on() {
    use super::serve_queue_support::TOKEN;
    use super::serve_support::serve_with_cli_env;
    let ca = test_ca();
    let upstream = https_upstream(
        r#"turns:
  - match: {contains: "GATEWAY-FAULT"}
    text: "served through the gateway"
    usage: {input: 640, output: 12, cache_read: 0, cache_write: 0, reasoning: 0}
"#,
        &ca,
    );
    let mut client = Client::new(Cli::Claude, &upstream);
    with_real_key(Cli::Claude, &mut client);
    let config = ca.dir.path().join("serve.yaml");
    std::fs::write(
        &config,
        format!(
            "version: 1\ngateway:\n  ca_file: {}\n  providers:\n    claude: {{enabled: true}}\n",
            ca.ca_file.display()
        ),
    )
    .unwrap();
    let home = tempfile::tempdir().unwrap();
    let config_arg = config.display().to_string();
    let serve = serve_with_cli_env(
        home.path(),
        &client.setup.env,
        TOKEN,
        &["--config", &config_arg],
    );
    let mut cmd = client.agentgate();
    cmd.args([
        "submit",
        "--server",
        &serve.url,
        "--wait",
        "--provider",
        "claude",
        "--yolo",
        "--compact",
    ])
    .arg("--binary")
    .arg(&client.program)
    .args(["--model", &client.setup.model])
    .arg("GATEWAY-FAULT: go")
    .env("AGENTGATE_TOKEN", TOKEN);
    let submitted = run_bounded(cmd, LIMIT);
    let all = submitted.all_output();
    assert_eq!(submitted.code, Some(0), "{all}");
    let env = super::run_e2e::last_json(&submitted.stdout).unwrap_or_default();
    assert_eq!(env["response"], "served through the gateway", "{all}");
    assert_eq!(env["gateway"]["key_mode"], "api_key", "{env:#}");
    assert_eq!(env["metadata"]["usage_source"], "wire", "{env:#}");
    assert_eq!(env["tokens_used"]["input_tokens"], 640, "{env:#}");
    assert!(!all.contains(REAL_KEY));
}
