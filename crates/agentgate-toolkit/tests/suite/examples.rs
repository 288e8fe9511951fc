//! The example tools run by hand (no runner): they speak the protocol on
//! stdout, honour CANCEL_FILE, and keep their checkpoints.

use std::process::Command;

use serde_json::Value;

/// Each stdout line as JSON (a line that is not JSON reads as `null`, which
/// no assertion accepts).
fn messages(stdout: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or(Value::Null))
        .collect()
}

#[test]
fn the_processor_writes_its_summary_and_declares_it_with_its_hash() {
    let dir = tempfile::tempdir().unwrap();
    let items: Vec<Value> = (0..250).map(|i| serde_json::json!({"n": i})).collect();
    std::fs::write(
        dir.path().join("data.json"),
        serde_json::to_vec(&serde_json::json!({"items": items})).unwrap(),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_example-processor"))
        .args(["--input", "data.json", "--output", "result.json"])
        .env("WORKSPACE", dir.path())
        .env("RUN_ID", "r-test")
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let msgs = messages(&out.stdout);
    let types: Vec<&str> = msgs.iter().map(|m| m["type"].as_str().unwrap()).collect();
    assert_eq!(
        types,
        [
            "start",
            "progress",
            "heartbeat",
            "progress",
            "heartbeat",
            "result"
        ]
    );
    assert!(msgs.iter().all(|m| m["run_id"] == "r-test" && m["v"] == 1));
    let result = msgs.last().unwrap();
    assert_eq!(result["metrics"]["items"], 250);
    let summary = std::fs::read(dir.path().join("result.json")).unwrap();
    let declared = result["artifacts"][0]["sha256"].as_str().unwrap();
    let actual = agentgate_toolkit::artifact(&dir.path().join("result.json"))
        .unwrap()
        .sha256
        .unwrap();
    assert_eq!(declared, actual);
    assert!(String::from_utf8_lossy(&summary).contains("\"item_count\": 250"));
}

#[test]
fn the_migrator_stops_on_its_cancel_file_and_resumes_from_its_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("in");
    std::fs::create_dir(&source).unwrap();
    for i in 0..6 {
        std::fs::write(
            source.join(format!("{i:02}.json")),
            format!("{{\"id\":{i}}}"),
        )
        .unwrap();
    }
    let cancel = dir.path().join("CANCEL");
    let run = |cancel_now: bool| {
        if cancel_now {
            std::fs::write(&cancel, "").unwrap();
        } else {
            let _ = std::fs::remove_file(&cancel);
        }
        Command::new(env!("CARGO_BIN_EXE_example-migrator"))
            .args(["--source", "in", "--target", "out", "--batch-size", "2"])
            .env("WORKSPACE", dir.path())
            .env("CANCEL_FILE", &cancel)
            .current_dir(dir.path())
            .output()
            .unwrap()
    };
    // A checkpoint as a cancelled run leaves it: two batches done.
    agentgate_toolkit::Checkpoints::in_workspace(dir.path())
        .save("migrate", &serde_json::json!({"i": 4}))
        .unwrap();
    let cancelled = run(true);
    assert_eq!(cancelled.status.code(), Some(130));
    assert_eq!(
        messages(&cancelled.stdout).last().unwrap()["type"],
        "cancelled"
    );

    let resumed = run(false);
    assert!(resumed.status.success(), "{resumed:?}");
    let result = messages(&resumed.stdout).pop().unwrap();
    assert_eq!(result["metrics"]["resumed_at"], 4);
    assert_eq!(result["metrics"]["migrated_now"], 2);
    let migrated = std::fs::read_dir(dir.path().join("out")).unwrap().count();
    assert_eq!(
        migrated, 2,
        "only the files after the checkpoint were migrated"
    );
}
