//! The fault drill (`fault-drill`, crates/agentgate-fixtures) on each
//! backend (the test PostgreSQL server; a SQLite file the processes of
//! this host share), with a fixed seed at the size: 200
//! submissions, one `serve --no-executor`, three workers, three `kill -9`s
//! of workers holding leases; and the partition drill (`--partition`: the
//! workers as hosts in network namespaces, one cut off from the database
//! for two leases, then healed); and the same drill on each backend with a
//! burst beside it (`--burst 5000`: 5,000 near-instant jobs queued at once
//! over 8 connections, the kills made while they drain). It checks every
//! assertion itself and exits 1 with the list of those that failed; this
//! test asserts its exit status and the counts it prints. One drill runs
//! at a time (`ONE_AT_A_TIME`):
//! each times processes against each other, and two at once would load
//! the machine for each other. One backend alone:
//! `cargo test -p agentgate --test all -- suite::fault_drill::the_fault_drill_holds_every_assertion_on_sqlite`.

use std::collections::HashMap;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::run_bounded;

/// The drill acts for 40 s and waits at most 300 s for the jobs to end.
const LIMIT: Duration = Duration::from_secs(900);

/// The burst's jobs.
const BURST: usize = 5000;

/// With a burst: it acts until the last kill, at most 40 s x 4 plus its
/// `--wait` (600 s), then waits as long again for the drain's end.
const BURST_LIMIT: Duration = Duration::from_secs(1800);

/// The rows of the drill's count table, by name.
fn counts(stdout: &str) -> HashMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l
                .trim()
                .trim_matches('|')
                .split('|')
                .map(str::trim)
                .collect();
            match cells.as_slice() {
                [name, value] => Some(((*name).to_owned(), (*value).to_owned())),
                _ => None,
            }
        })
        .collect()
}

/// The drill's verdict (its failed assertions, its counts in a line),
/// written to this process's own stderr, which the test harness does not
/// capture: a CI log that keeps only the lines around a `FAILED` then
/// still says which assertion failed, where the panic's message comes
/// much later.
fn tell_the_terminal(stdout: &str) {
    use std::io::Write as _;
    let failed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("  - ") || l.contains("could not run") || l.contains("kept in"))
        .take(8)
        .collect();
    let figures: Vec<String> = counts(stdout)
        .into_iter()
        .filter(|(name, _)| name != "fault drill" && name != "---")
        .map(|(name, value)| format!("{name}={value}"))
        .collect();
    let mut err = std::io::stderr().lock();
    let _ = writeln!(err, "fault-drill failed: {}", failed.join(" | "));
    let _ = writeln!(err, "fault-drill counts: {}", figures.join(", "));
}

/// Tells the terminal the drill's verdict when an assertion below fails.
struct OnFailure<'a>(&'a str);

impl Drop for OnFailure<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            tell_the_terminal(self.0);
        }
    }
}

/// Held by the drill under way.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn the_fault_drill_holds_every_assertion_on_postgres() {
    let admin = std::env::var("AGENTGATE_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "AGENTGATE_TEST_POSTGRES is not set: the fault drill needs a PostgreSQL server \
             (scripts/test.sh starts one with scripts/pg-cluster.sh)"
        )
    });
    drill(&["--postgres", &admin], 0);
}

/// The drill on PostgreSQL with a burst of 5,000 jobs queued at once
/// early on: the kills come while it drains (each with at least a tenth
/// of it queued, which the drill checks), and every assertion covers its
/// jobs, with the burst's own (a key's racing submissions made one job; a
/// session's turns ran one at a time in order; a folder's writers one at
/// a time).
#[test]
fn the_fault_drill_holds_every_assertion_with_a_burst_on_postgres() {
    let admin = std::env::var("AGENTGATE_TEST_POSTGRES").unwrap_or_else(|_| {
        panic!(
            "AGENTGATE_TEST_POSTGRES is not set: the fault drill needs a PostgreSQL server \
             (scripts/test.sh starts one with scripts/pg-cluster.sh)"
        )
    });
    drill(&["--postgres", &admin], BURST);
}

/// The partition drill (`--partition`, root and iproute2's `ip`): the
/// workers as hosts in network namespaces, on a PostgreSQL cluster of the
/// drill's own on their bridge; one cut off for two leases while it runs
/// a long job, then healed. The drill checks (from the stamps, `/proc` and
/// the database's audit of every write) that its CLI ended before its lease
/// could end, that nothing it wrote for that job landed after the lease
/// was taken back, and that it ran a job again after the heal.
#[test]
fn the_fault_drill_holds_every_assertion_across_a_network_partition() {
    let script =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-cluster.sh");
    let script = script.to_string_lossy().into_owned();
    let stdout = drill_run(&[
        "--partition",
        "--pg-cluster",
        &script,
        "--jobs",
        "60",
        "--duration",
        "20",
        "--kills",
        "0",
    ]);
    let c = counts(&stdout);
    let cut = c
        .get("partition: worker cut off (ms)")
        .cloned()
        .unwrap_or_default();
    assert!(cut.contains(" for "), "{stdout}");
    let ms: u64 = cut
        .rsplit(' ')
        .next()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    // Two leases of 5 s at least.
    assert!(ms >= 10_000, "{stdout}");
    assert_eq!(
        c.get("CLI survivors").map(String::as_str),
        Some("0"),
        "{stdout}"
    );
}

#[test]
fn the_fault_drill_holds_every_assertion_on_sqlite() {
    drill(&["--sqlite"], 0);
}

/// As `..._with_a_burst_on_postgres`, on a SQLite file.
#[test]
fn the_fault_drill_holds_every_assertion_with_a_burst_on_sqlite() {
    drill(&["--sqlite"], BURST);
}

/// The drill with `args` (seed and workers fixed here), alone; its
/// stdout, once it exited 0 saying every assertion held.
fn drill_run(args: &[&str]) -> String {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let drill = agentgate.with_file_name("fault-drill");
    let cli = agentgate.with_file_name("drill-cli");
    assert!(
        drill.is_file() && cli.is_file(),
        "fault-drill or drill-cli is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&drill);
    cmd.args(args)
        .args(["--seed", "20261125", "--workers", "3"])
        .arg("--agentgate")
        .arg(agentgate)
        .arg("--cli")
        .arg(&cli)
        .stdin(Stdio::null());
    let run = run_bounded(cmd, LIMIT);
    let _verdict = OnFailure(&run.stdout);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stdout.contains("every assertion held"),
        "{}",
        run.stdout
    );
    run.stdout.clone()
}

/// The drill on the store `store_args` names, with a burst of `burst`
/// jobs (0: none), and its assertions.
fn drill(store_args: &[&str], burst: usize) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner());
    let agentgate = std::path::Path::new(env!("CARGO_BIN_EXE_agentgate"));
    let drill = agentgate.with_file_name("fault-drill");
    let cli = agentgate.with_file_name("drill-cli");
    assert!(
        drill.is_file() && cli.is_file(),
        "fault-drill or drill-cli is missing: run `cargo build -p agentgate-fixtures --bins`"
    );
    let mut cmd = Command::new(&drill);
    cmd.args(store_args)
        .args(["--seed", "20261125", "--jobs", "200"])
        .args(["--duration", "40", "--kills", "3", "--workers", "3"])
        .arg("--agentgate")
        .arg(agentgate)
        .arg("--cli")
        .arg(&cli)
        .stdin(Stdio::null());
    let limit = if burst > 0 {
        cmd.args(["--burst", &burst.to_string(), "--wait", "600"]);
        BURST_LIMIT
    } else {
        LIMIT
    };
    let run = run_bounded(cmd, limit);
    let _verdict = OnFailure(&run.stdout);
    assert_eq!(run.code, Some(0), "{}", run.all_output());
    assert!(
        run.stdout.contains("fault-drill: seed 20261125"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("every assertion held"),
        "{}",
        run.stdout
    );

    let c = counts(&run.stdout);
    let n = |name: &str| -> usize {
        c.get(name)
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no count `{name}` in:\n{}", run.stdout))
    };
    let accepted = n("jobs accepted");
    let duplicates = n("duplicate keys (no new job)");
    let fires = n("schedule fires");
    // 200 submissions and the burst's: the duplicates made no job; each
    // fire made one.
    assert_eq!(accepted + duplicates, 200 + burst + fires, "{}", run.stdout);
    assert!(duplicates > 0 && fires >= 3, "{}", run.stdout);
    // Every accepted job has one final state.
    let ended = n("succeeded") + n("failed") + n("cancelled") + n("abandoned");
    assert_eq!(ended, accepted, "{}", run.stdout);
    assert!(n("cancelled") > 0 && n("failed") > 0, "{}", run.stdout);
    // Three workers holding leases were killed; their CLIs ended by their
    // termination, and their jobs ran again.
    assert_eq!(n("workers killed (kill -9)"), 3, "{}", run.stdout);
    // (With a burst, most CLIs a killed worker ran were the burst's, which
    // end on their own within 20 ms: the drill checks each one's end, but
    // how many the kill's termination reached is left to chance.)
    if burst == 0 {
        assert!(
            n("their CLIs ended by SIGTERM or a broken pipe") >= 3,
            "{}",
            run.stdout
        );
    }
    assert!(n("jobs re-run") >= 3, "{}", run.stdout);
    // Provider a's limit, measured from the processes and from the stamps.
    let max_a = c.get("max provider-a CLIs alive (/proc, stamps)").cloned();
    assert_eq!(max_a.as_deref(), Some("2, 2"), "{}", run.stdout);
    assert!(n("provider-b quota windows") >= 1, "{}", run.stdout);
    assert_eq!(n("b starts before its reset"), 0, "{}", run.stdout);
    assert_eq!(n("CLI survivors"), 0, "{}", run.stdout);
    if burst > 0 {
        burst_counts(&c, burst, &run.stdout);
    }
}

/// The burst's rows: all its submissions answered, most of them new jobs
/// (about 1% repeat a key), queued deep (a quarter of it at least, where
/// this machine sees two thirds or more), every kill made while at least
/// a tenth of it was queued and at a worker holding leases, its sessions
/// and folders used.
fn burst_counts(c: &HashMap<String, String>, burst: usize, stdout: &str) {
    let numbers = |name: &str| -> Vec<f64> {
        c.get(name)
            .unwrap_or_else(|| panic!("no row `{name}` in:\n{stdout}"))
            .split(", ")
            .map(|v| {
                v.parse()
                    .unwrap_or_else(|_| panic!("`{name}`: {v:?} in:\n{stdout}"))
            })
            .collect()
    };
    let made = numbers("burst: submissions, jobs made");
    assert_eq!(made[0], burst as f64, "{stdout}");
    assert!(
        made[1] >= burst as f64 * 0.95 && made[1] < burst as f64,
        "{stdout}"
    );
    assert!(
        numbers("burst: most jobs queued at once")[0] >= burst as f64 / 4.0,
        "{stdout}"
    );
    let kills = numbers("queued at each kill");
    assert_eq!(kills.len(), 3, "{stdout}");
    assert!(kills.iter().all(|q| *q >= burst as f64 / 10.0), "{stdout}");
    let leases = numbers("leases the killed worker held at each kill");
    assert!(
        leases.len() == 3 && leases.iter().all(|l| *l >= 1.0),
        "{stdout}"
    );
    let drained = numbers("burst: drained in (s, jobs/s)");
    assert!(drained[0] > 0.0 && drained[1] > 0.0, "{stdout}");
    let used = numbers("burst: session turns, folder writes");
    assert!(used[0] > 0.0 && used[1] > 0.0, "{stdout}");
}
