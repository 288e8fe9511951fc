//! The config's `sandbox.require` as a policy: a real `agentgate serve`
//! refuses a request whose level is below it (asked for, or the config's
//! default) with 422 naming the field `sandbox`, and queues one that meets
//! it; `agentgate run` refuses the same before it starts anything, and
//! `--dry-run` shows each step's level and what the config adds; a
//! workflow whose agent steps are below it is refused when submitted,
//! unless `workflow submit --sandbox` gives them a level that meets it.
//! The stand-in CLI never runs: what is queued waits for a `not_before`
//! far ahead.

use std::time::Duration;

use serde_json::{Value, json};

use super::serve_queue_support::{QueueHome, TOKEN, post};
use super::support::run_bounded;

const LATER: &str = "2100-01-01T00:00:00Z";

const CONFIG: &str = "sandbox:\n  require: workspace\n  env_allow: [CORP_PROXY_CA]\nagents:\n  a: {provider: claude}\nchains:\n  default: {agents: [a]}\n";

#[test]
fn serve_refuses_a_run_below_the_required_level_with_422_naming_sandbox() {
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &[]);
    for (body, level) in [
        (json!({"prompt": "hi", "sandbox": "off"}), "`off`"),
        (json!({"prompt": "hi"}), "`off` (the default"),
    ] {
        let r = post(&server.url, "/v1/runs", &body.to_string());
        assert_eq!(r.status, 422, "{body}: {r:?}");
        let error = &r.json()["error"];
        assert_eq!(error["type"], "invalid_request", "{body}: {r:?}");
        assert_eq!(error["field"], "sandbox", "{body}: {r:?}");
        let message = error["message"].as_str().unwrap();
        assert!(
            message.contains(level) && message.contains("requires `workspace`"),
            "{body}: {message}"
        );
    }
    // Not a level at all: refused on the same field.
    let r = post(
        &server.url,
        "/v1/runs",
        &json!({"prompt": "hi", "sandbox": "tight"}).to_string(),
    );
    assert_eq!(r.status, 422, "{r:?}");
    assert_eq!(r.json()["error"]["field"], "sandbox", "{r:?}");
    assert_eq!(home.job_count(), 0, "nothing was queued");

    for level in ["workspace", "strict"] {
        let body = json!({"prompt": "hi", "sandbox": level, "not_before": LATER});
        let r = post(&server.url, "/v1/runs", &body.to_string());
        assert_eq!(r.status, 201, "{level}: {r:?}");
        let id = r.json()["run_id"].as_str().unwrap().to_owned();
        assert_eq!(home.job(&id).request["sandbox"], level, "stored as asked");
    }
    assert_eq!(home.job_count(), 2);
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}

#[test]
fn run_refuses_the_same_and_the_dry_run_shows_the_level() {
    let home = QueueHome::new(CONFIG);
    let run = |args: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.arg("run")
            .args(args)
            .env("AGENTGATE_HOME", home.file("data"))
            .env("AGENTGATE_CONFIG", home.file("agentgate.yaml"))
            .env_remove("AGENTGATE_STORE")
            .current_dir(home.path())
            .stdin(std::process::Stdio::null());
        run_bounded(cmd, Duration::from_secs(30))
    };
    let refused = run(&["--sandbox", "off", "hi"]);
    assert_eq!(refused.code, Some(2), "{}", refused.all_output());
    assert!(
        refused.stderr.contains("requires `workspace`"),
        "{}",
        refused.all_output()
    );
    assert!(!home.file("stamps").exists(), "the CLI never started");

    let planned = run(&["--dry-run", "--sandbox", "workspace", "hi"]);
    let report: Value = serde_json::from_str(planned.stdout.trim())
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", planned.all_output()));
    assert_eq!(report["sandbox"]["level"], "workspace", "{report}");
    assert_eq!(report["sandbox"]["env_allow"], json!(["CORP_PROXY_CA"]));
    let refused = run(&["--dry-run", "hi"]);
    let report: Value = serde_json::from_str(refused.stdout.trim()).unwrap();
    assert_eq!(refused.code, Some(2), "{}", refused.all_output());
    assert!(
        report["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("sandbox.require")),
        "{report}"
    );
}

#[test]
fn a_workflow_below_the_required_level_is_refused_unless_submitted_with_sandbox() {
    let home = QueueHome::new(CONFIG);
    let server = home.serve(false, &[]);
    let file = home.file("wf.yaml");
    std::fs::write(
        &file,
        "version: 1\nname: w\nsteps:\n  - id: ask\n    agent: {agent: a, prompt: hi}\n",
    )
    .unwrap();
    let submit = |extra: &[&str]| {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_agentgate"));
        cmd.args(["workflow", "submit"])
            .arg(&file)
            .args(["--not-before", LATER])
            .args(extra)
            .env("AGENTGATE_SERVER", &server.url)
            .env("AGENTGATE_TOKEN", TOKEN)
            .env("AGENTGATE_HOME", home.file("client"))
            .env_remove("AGENTGATE_CONFIG")
            .stdin(std::process::Stdio::null());
        run_bounded(cmd, Duration::from_secs(30))
    };
    let refused = submit(&[]);
    assert_eq!(refused.code, Some(2), "{}", refused.all_output());
    let out = refused.all_output();
    assert!(
        out.contains("sandbox")
            && out.contains("step `ask`")
            && out.contains("requires `workspace`"),
        "{out}"
    );
    assert_eq!(home.job_count(), 0, "nothing was queued");

    let accepted = submit(&["--sandbox", "workspace"]);
    assert_eq!(accepted.code, Some(0), "{}", accepted.all_output());
    let id = serde_json::from_str::<Value>(accepted.stdout.trim()).unwrap()["run_id"]
        .as_str()
        .unwrap()
        .to_owned();
    let stored = home.job(&id).request;
    assert_eq!(
        stored["workflow"]["steps"][0]["agent"]["sandbox"], "workspace",
        "{stored}"
    );
    let (status, _, stderr) = server.stop("TERM");
    assert_eq!(status.code(), Some(0), "{stderr}");
}
