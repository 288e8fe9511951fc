//! `bench-dashboard` (the program behind the dashboard's paint figure,
//! `scripts/bench-dashboard.sh`) runs on a small scale, so that it cannot
//! rot: both stores are built and served, the page is loaded in headless
//! Chromium, and the list must paint a full first page of the large store
//! and none of the empty one (the bench exits 1 otherwise), and its
//! weight counts the page and every file it names, none from another
//! origin. Timings are printed, never asserted.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::run_bounded;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn the_dashboard_bench_times_the_lists_first_paint_on_a_small_scale() {
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-dashboard");
    assert!(
        bench.is_file(),
        "bench-dashboard is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&bench);
    cmd.args(["--runs", "120", "--repeat", "2", "--agentgate"])
        .arg(agentgate)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert!(!run.timed_out, "{}", run.all_output());
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    for line in [
        "0 runs (filled in",
        "the list painted 0 rows in",
        "120 runs (filled in",
        "the list painted 50 rows in",
        "x the empty store",
    ] {
        assert!(run.stdout.contains(line), "no `{line}`:\n{}", run.stdout);
    }
    // The page's weight: the page and every file it names, none from
    // another origin.
    let page = std::fs::read_to_string(
        super::support::workspace_root().join("crates/agentgate-server/src/dashboard/index.html"),
    )
    .unwrap();
    let files = 1 + page.matches("\"/assets/").count();
    let weight = format!("the page: {files} files, ");
    assert!(
        run.stdout.contains(&weight),
        "no `{weight}`:\n{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("(uncompressed), 0 from another origin"),
        "{}",
        run.stdout
    );
}
