//! The API document against the server it describes: schemathesis (the
//! version pinned by `scripts/schemathesis-requirements.txt`, installed by
//! `scripts/install-schemathesis.sh` into `.venv-schemathesis/`) runs all
//! its phases (examples, coverage, fuzzing, and the stateful phase that
//! follows the document's links from a created run to its page, events,
//! cancel and approvals) and all its checks against a real `agentgate
//! serve` reading its own `GET /v1/openapi.json`, with the server's token.
//! It must find no server error, no answer that disagrees with the
//! document, no request the document calls invalid taken, and no valid
//! one refused: `positive_data_acceptance` is replaced by the hooks'
//! `valid_request_accepted` (`tests/schemathesis/hooks.py`), which is the
//! same check but lets a 400/422 through when its `error.field` is one the
//! operation lists in `x-agentgate-checked-beyond-schema` (a name of the
//! config, a path on the server's disk, a cursor).
//!
//! Runs the fuzzer creates go to the stand-in `claude` of
//! [`QueueHome`] (offline, ends at once); after the server stopped, no
//! stand-in is left running. Bounded: a few examples per operation and a
//! deadline for the whole run (`--max-time`), one worker.
//!
//! A missing schemathesis fails the test (run
//! `scripts/install-schemathesis.sh`), as a missing CLI does.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

use super::serve_queue_support::{QueueHome, TOKEN};

/// The whole run's deadline, in seconds (schemathesis stops generating
/// then; the run ends shortly after).
const MAX_TIME_S: u32 = 100;
/// Test cases per operation and phase.
const MAX_EXAMPLES: u32 = 12;

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The schemathesis of `.venv-schemathesis/`, or of
/// `AGENTGATE_TEST_SCHEMATHESIS` when set.
fn schemathesis() -> PathBuf {
    let path = std::env::var_os("AGENTGATE_TEST_SCHEMATHESIS")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join(".venv-schemathesis/bin/schemathesis"));
    assert!(
        path.is_file(),
        "schemathesis is not installed at {}: run scripts/install-schemathesis.sh \
         (scripts/test.sh does)",
        path.display()
    );
    path
}

#[test]
fn schemathesis_finds_the_document_and_the_server_agree() {
    let fuzzer = schemathesis();
    let home = QueueHome::new("");
    // The fuzzer's own checks send requests without a token (that each
    // route needs one); the lock-out after 30 would make every later
    // answer a 429.
    let server = home.serve_with_vars(
        false,
        vec![("AGENTGATE_TEST_AUTH_FAILURES_MAX", "1000000".to_owned())],
        &[],
    );
    let report = home.file("schemathesis.json");
    let out = Command::new(&fuzzer)
        .arg("run")
        .arg(format!("{}/v1/openapi.json", server.url))
        .args(["-H", &format!("Authorization: Bearer {TOKEN}")])
        .args(["--phases", "examples,coverage,fuzzing,stateful"])
        .args(["--checks", "all"])
        .args(["--exclude-checks", "positive_data_acceptance"])
        .args(["--max-examples", &MAX_EXAMPLES.to_string()])
        .args(["--max-time", &MAX_TIME_S.to_string()])
        .args(["--workers", "1", "--seed", "38"])
        // Hypothesis's health checks judge the generator (too many draws
        // filtered, too slow on a loaded machine), not the API.
        .args(["--suppress-health-check", "all"])
        .args(["--generation-database", "none", "--no-color"])
        .args(["--request-timeout", "20"])
        .args(["--report", "json", "--report-json-path"])
        .arg(&report)
        .env(
            "SCHEMATHESIS_HOOKS",
            root().join("crates/agentgate/tests/schemathesis/hooks.py"),
        )
        .current_dir(home.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let (status, _, stderr) = server.stop("TERM");
    assert!(status.success(), "serve: {status:?}\n{stderr}");
    let report: Value = serde_json::from_slice(&std::fs::read(&report).unwrap_or_default())
        .unwrap_or_else(|e| panic!("no report ({e}):\n{stdout}"));
    let cases = &report["test_cases"];
    let links = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("API Links:"))
        .unwrap_or("API Links: (not printed)")
        .trim();
    eprintln!(
        "schemathesis: {} test cases generated, {} with failures, {} runs reached the CLI; {links}",
        cases["generated"],
        cases["with_failures"],
        home.cli_runs().len()
    );
    assert!(
        out.status.success(),
        "schemathesis found failures (exit {:?}):\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(report["failures"], serde_json::json!([]), "{stdout}");
    assert_eq!(report["errors"], serde_json::json!([]), "{stdout}");
    for phase in ["examples", "coverage", "fuzzing", "stateful"] {
        assert_eq!(
            report["phases"][phase]["status"], "success",
            "{phase}: {stdout}"
        );
    }
    assert!(cases["generated"].as_u64().unwrap() > 0, "{stdout}");
    // Runs were made (the document's example, and fuzzed ones), each by
    // the stand-in, and none of its processes outlived the server.
    let runs = home.cli_runs();
    assert!(!runs.is_empty(), "no run reached the CLI:\n{stdout}");
    for run in &runs {
        let alive = Command::new("kill")
            .args(["-0", &run.pid.to_string()])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap();
        assert!(!alive.success(), "stand-in {} outlived serve", run.pid);
    }
}
