//! A run whose agentgate process was SIGKILLed reads as `abandoned` in
//! `agentgate runs` and `runs show`, and the events it wrote stay readable.
//!
//! The CLI is a stand-in Claude Code (a bash script passed with `--binary`)
//! that prints its init record and half an answer, then hangs, so the run is
//! mid-answer when agentgate is killed.

use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::support::agentgate_ok;

const AGENTGATE: &str = env!("CARGO_BIN_EXE_agentgate");

const HALF_AN_ANSWER: &str = r#"#!/bin/bash
echo $$ > "$(dirname "$0")/cli.pid"
echo '{"type":"system","subtype":"init","session_id":"sess-half","model":"fake-model"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"half an answer"}]},"session_id":"sess-half"}'
exec sleep 1000
"#;

/// The events file of the only run in `home`, once it holds `needle`.
fn wait_for_event(home: &Path, needle: &str) -> String {
    let start = Instant::now();
    loop {
        let found = std::fs::read_dir(home.join("runs"))
            .into_iter()
            .flatten()
            .flatten()
            .find_map(|entry| {
                let text = std::fs::read_to_string(entry.path().join("events.jsonl")).ok()?;
                text.contains(needle)
                    .then(|| entry.file_name().to_string_lossy().into_owned())
            });
        if let Some(run_id) = found {
            return run_id;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no event with `{needle}` within 60 s"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_sigkilled_run_reads_abandoned_and_keeps_its_events() {
    let dir = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let script = dir.path().join("claude");
    std::fs::write(&script, HALF_AN_ANSWER).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();

    let mut child = Command::new(AGENTGATE)
        .args(["run", "--provider", "claude", "--binary"])
        .arg(&script)
        .arg("answer slowly")
        .env("AGENTGATE_HOME", home.path())
        .env_remove("AGENTGATE_LOG")
        .current_dir(dir.path())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    let run_id = wait_for_event(home.path(), "half an answer");

    // While agentgate lives, the run is running.
    let before = agentgate_ok(home.path(), &["runs", "--json"]);
    let listed: Value = serde_json::from_str(before.stdout.trim()).unwrap();
    assert_eq!(listed["status"], "running", "{}", before.stdout);

    child.kill().unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9));

    let table = agentgate_ok(home.path(), &["runs"]);
    let row = table
        .stdout
        .lines()
        .find(|l| l.starts_with(&run_id))
        .unwrap_or_else(|| panic!("no row for {run_id}:\n{}", table.stdout));
    assert!(row.contains("abandoned"), "{row}");

    let listed = agentgate_ok(home.path(), &["runs", "--json"]);
    let listed: Value = serde_json::from_str(listed.stdout.trim()).unwrap();
    assert_eq!(listed["status"], "abandoned");
    assert_eq!(listed["owner"]["pid"], child.id());

    let shown = agentgate_ok(home.path(), &["runs", "show", &run_id]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    assert_eq!(shown["run"]["summary"]["status"], "abandoned", "{shown}");
    let texts: Vec<&str> = shown["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["text"].as_str())
        .collect();
    assert!(texts.contains(&"half an answer"), "{shown}");

    let events = agentgate_ok(home.path(), &["runs", "show", &run_id, "--events"]);
    assert!(
        events.stdout.lines().any(|l| l.contains("sess-half")),
        "{}",
        events.stdout
    );

    // The keeper ends the CLI once agentgate is gone; make sure of it.
    if let Ok(pid) = std::fs::read_to_string(dir.path().join("cli.pid")) {
        let _ = Command::new("kill")
            .args(["-KILL", pid.trim()])
            .stderr(Stdio::null())
            .status();
    }
}
