//! The counts the drill prints at its end, as a Markdown table (the
//! e2e suite reads its rows by name).

use std::time::Duration;

use crate::checks::Counts;

/// Print `c` and the drill's `wall` time.
pub fn print_counts(c: &Counts, wall: Duration) {
    let state = |s: &str| c.by_state.get(s).copied().unwrap_or(0);
    let rows = [
        ("jobs accepted", c.accepted.to_string()),
        ("duplicate keys (no new job)", c.deduplicated.to_string()),
        ("succeeded", state("succeeded").to_string()),
        ("failed", state("failed").to_string()),
        ("cancelled", state("cancelled").to_string()),
        ("abandoned", state("abandoned").to_string()),
        (
            "cancels asked (queued / running)",
            format!("{} / {}", c.cancels_queued, c.cancels_running),
        ),
        ("jobs re-run", c.reruns.to_string()),
        (
            "runs of killed workers ended from their result file, no result event",
            c.no_result.to_string(),
        ),
        ("workers killed (kill -9)", c.kills.to_string()),
        (
            "their CLIs ended by SIGTERM or a broken pipe",
            c.killed_clis.to_string(),
        ),
        ("schedule fires", c.fires.to_string()),
        ("queued at each kill", list(&c.queued_at_kills)),
        (
            "leases the killed worker held at each kill",
            list(&c.leases_at_kills),
        ),
        ("CLI processes", c.cli_runs.to_string()),
        (
            "max provider-a CLIs alive (/proc, stamps)",
            format!("{}, {}", c.max_a_proc, c.max_a_stamps),
        ),
        ("provider-b quota windows", c.b_windows.to_string()),
        ("b starts before its reset", c.b_early.to_string()),
        ("CLI survivors", c.survivors.to_string()),
        (
            "partition: worker cut off (ms)",
            c.partition
                .as_ref()
                .map_or("none".to_owned(), |(ms, ip)| format!("{ip} for {ms}")),
        ),
        (
            "partition: its CLI gone before its lease's end / lease taken back after it (ms)",
            c.partition_margins.map_or("none".to_owned(), |m| {
                format!("{} / {}", m.gone_before_ms, m.taken_after_ms)
            }),
        ),
        ("wall time", format!("{:.1} s", wall.as_secs_f64())),
    ];
    let burst = c.burst.as_ref().map_or_else(
        || vec![("burst", "none".to_owned())],
        |b| {
            let rate = |secs: f64| b.jobs as f64 / secs.max(1e-3);
            vec![
                (
                    "burst: submissions, jobs made",
                    format!("{}, {}", b.size, b.jobs),
                ),
                (
                    "burst: queued in (s, jobs/s)",
                    format!("{:.1}, {:.0}", b.queued_secs, rate(b.queued_secs)),
                ),
                ("burst: most jobs queued at once", b.deepest.to_string()),
                (
                    "burst: drained in (s, jobs/s)",
                    format!("{:.1}, {:.1}", b.drained_secs, rate(b.drained_secs)),
                ),
                (
                    "burst: session turns, folder writes",
                    format!("{}, {}", b.turns, b.writes),
                ),
            ]
        },
    );
    let (last, rows) = rows
        .split_last()
        .map_or((None, &rows[..]), |(l, r)| (Some(l), r));
    let rows = rows.iter().cloned().chain(burst).chain(last.cloned());
    println!("| fault drill | count |\n|---|---|");
    for (name, value) in rows {
        println!("| {name} | {value} |");
    }
}

/// `1, 2, 3`.
fn list<T: ToString>(items: &[T]) -> String {
    items
        .iter()
        .map(T::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
