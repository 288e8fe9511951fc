//! A quota held from the wire: what `record_wire_quota` stores when a
//! model call's window is used above `gateway.quota_hold_above` is what
//! `agentgate quota` shows (why, and the windows) and what makes the next
//! run skip the provider until the window's reset.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use agentgate_protocol::{ModelCallEvent, RateLimitWindow, WireApi};
use agentgate_store::Store;
use jiff::{SignedDuration, Timestamp};
use serde_json::Value;

use super::support::{Run, run_bounded};

fn agentgate(home: &Path, args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_agentgate"));
    cmd.args(args)
        .env("AGENTGATE_HOME", home)
        .stdin(std::process::Stdio::null());
    run_bounded(cmd, Duration::from_secs(60))
}

fn call(windows: Vec<RateLimitWindow>) -> ModelCallEvent {
    ModelCallEvent {
        call: 1,
        api: WireApi::AnthropicMessages,
        model: None,
        path: "/v1/messages".into(),
        stream: true,
        status: Some(200),
        request_bytes: 10,
        response_bytes: 10,
        latency_ms: 1,
        ttft_ms: None,
        usage: None,
        cache_write_5m_tokens: None,
        cache_write_1h_tokens: None,
        rate_limits: windows,
        retry_after_s: None,
        error: None,
        refused_by: None,
    }
}

#[test]
fn a_window_held_above_the_threshold_is_shown_with_why_and_skips_the_next_run() {
    let home = tempfile::tempdir().unwrap();
    let now = Timestamp::now();
    let reset = now
        .checked_add(SignedDuration::from_hours(2))
        .unwrap()
        .round(jiff::Unit::Second)
        .unwrap();
    let store = Store::open(home.path().join("agentgate.db")).unwrap();
    let windows = vec![
        RateLimitWindow {
            name: "5h".into(),
            utilization: Some(0.97),
            resets_at: Some(reset.to_string()),
            status: Some("allowed_warning".into()),
            ..RateLimitWindow::default()
        },
        RateLimitWindow {
            name: "tokens".into(),
            limit: Some(400_000),
            remaining: Some(100_000),
            ..RateLimitWindow::default()
        },
    ];
    agentgate_core::record_wire_quota(&store, "claude", "r1", &call(windows), Some(0.95), now);
    drop(store);

    let table = agentgate(home.path(), &["quota"]);
    assert_eq!(table.code, Some(0), "{}", table.all_output());
    let lines: Vec<&str> = table.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("claude "))
        .unwrap_or_else(|| panic!("no claude line:\n{}", table.stdout));
    assert!(lines[at].contains(" held "), "{}", table.stdout);
    assert!(lines[at].ends_with("wire:r1"), "{}", table.stdout);
    assert_eq!(
        lines[at + 1],
        format!("  held: window 5h at 97% (quota_hold_above 0.95), resets {reset}")
    );
    assert!(lines[at + 2].starts_with("  WINDOW"), "{}", table.stdout);
    assert!(
        lines[at + 3].starts_with("  5h ") && lines[at + 3].contains(" 97% "),
        "{}",
        table.stdout
    );
    assert!(
        lines[at + 4].starts_with("  tokens ") && lines[at + 4].contains(" 75% "),
        "{}",
        table.stdout
    );
    assert!(lines[at + 4].contains("100000/400000"), "{}", table.stdout);

    let json = agentgate(home.path(), &["quota", "--json"]);
    let claude: Value = json
        .stdout
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|r| r["provider"] == "claude")
        .unwrap();
    assert_eq!(claude["status"], "held", "{claude:#}");
    assert_eq!(claude["reset_at"], reset.to_string());
    assert_eq!(claude["windows"][0]["name"], "5h");
    assert_eq!(claude["windows"][0]["utilization"], 0.97);
    assert_eq!(claude["windows"][1]["utilization"], 0.75);

    // The next run skips claude until the reset, as for an exhausted quota.
    let plan = agentgate(
        home.path(),
        &[
            "run",
            "-p",
            "claude",
            "--dry-run",
            "--binary",
            "/bin/true",
            "hi",
        ],
    );
    assert_eq!(plan.code, Some(0), "{}", plan.all_output());
    let plan: Value = serde_json::from_str(plan.stdout.trim()).unwrap();
    assert_eq!(plan["skipped"]["reason"], "quota held", "{plan:#}");
    assert!(
        plan["skipped"]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("held: window 5h")),
        "{plan:#}"
    );
    assert_eq!(plan["skipped"]["reset_at"], reset.to_string());
}
