//! `bench-sandbox` (the program behind the sandbox's start-up figures,
//! `scripts/bench-sandbox.sh`) runs every level and the chain to a verdict
//! on a small scale, so that it cannot rot: every level (`off`,
//! `workspace`, `strict`) and every form of the `__sandbox` chain is timed
//! (a failed row, printed as FAILED with its reason, fails the test).
//! Timings are printed, never asserted.

use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::run_bounded;

const LIMIT: Duration = Duration::from_secs(300);

#[test]
fn the_sandbox_bench_runs_every_level_on_a_small_scale() {
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let bench = agentgate.with_file_name("bench-sandbox");
    let cli = agentgate.with_file_name("instant-cli");
    assert!(
        bench.is_file() && cli.is_file(),
        "bench-sandbox or instant-cli is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&bench);
    cmd.args(["--runs", "2", "--warmup", "1"])
        .arg("--agentgate")
        .arg(agentgate)
        .arg("--instant-cli")
        .arg(&cli)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    assert!(!run.timed_out, "{}", run.all_output());
    let row = |label: &str| {
        run.stdout
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no `{label}` row:\n{}", run.stdout))
            .trim_start()
            .to_owned()
    };
    let timed = |row: &str, label: &str| {
        // label, runs, median, p90: the runs column is the count asked for.
        let fields: Vec<&str> = row[label.len()..].split_whitespace().collect();
        fields.first() == Some(&"2") && fields[1].parse::<f64>().is_ok_and(|ms| ms > 0.0)
    };
    for label in [
        "off",
        "workspace",
        "strict",
        "/bin/true directly",
        "__sandbox (Landlock, PID ns)",
        "__sandbox (+ network ns, relay)",
    ] {
        let r = row(label);
        assert!(
            timed(&r, label),
            "{label} was not timed: {r}\n{}",
            run.stdout
        );
    }
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    // The added time and the ratio are against `off`, in the same process.
    assert!(
        run.stdout
            .lines()
            .filter(|l| l.contains("added median") && l.contains("ratio"))
            .count()
            == 2,
        "{}",
        run.stdout
    );
}
