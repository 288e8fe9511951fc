//! `bench-usage` (the program behind the usage report's figures,
//! `scripts/bench-usage.sh`) runs on a small scale, so that it cannot rot:
//! both stores are generated and every dimension's report is timed and
//! checked against the runs generated (the bench exits 1 on a mismatch).
//! Timings are printed, never asserted.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::run_bounded;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn the_usage_bench_times_every_dimension_on_a_small_scale() {
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-usage");
    assert!(
        bench.is_file(),
        "bench-usage is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(&bench);
    cmd.args(["--sizes", "300,2000", "--repeat", "1", "--dir"])
        .arg(dir.path())
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert!(!run.timed_out, "{}", run.all_output());
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    for size in ["300 runs", "2000 runs"] {
        assert!(run.stdout.contains(size), "no `{size}`:\n{}", run.stdout);
    }
    for label in [
        "COUNT(*)",
        "table scan",
        "usage (no group)",
        "usage provider",
        "usage model",
        "usage agent",
        "usage chain",
        "usage session",
        "usage label",
        "usage label:team",
    ] {
        let timed = run
            .stdout
            .lines()
            .filter(|l| l.trim_start().starts_with(label))
            .filter(|l| {
                l.trim_start()[label.len()..]
                    .split_whitespace()
                    .next()
                    .is_some_and(|ms| ms.parse::<f64>().is_ok())
            })
            .count();
        // label:team also starts with "usage label": count at least one per size.
        assert!(
            timed >= 2,
            "{label} was not timed at both sizes:\n{}",
            run.stdout
        );
    }
}
