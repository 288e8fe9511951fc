//! Timeouts, cancellation and the termination table.

use std::time::Duration;

use agentgate_supervise::{Control, EndReason, TerminationTable};

use super::support::{
    PidFile, assert_all_gone, config, misbehave, run, signal_names, start, texts,
};

const SIGINT: i32 = 2;
const SIGKILL: i32 = 9;

#[tokio::test]
async fn wall_timeout_kills_the_whole_tree_even_while_output_flows() {
    let pids = PidFile::new();
    let inv = misbehave()
        .args(pids.arg())
        .args(["--grandchildren", "2", "--tick", "100", "1000"]);
    let cfg = config();
    let cfg = agentgate_supervise::SupervisorConfig {
        timeout: Some(Duration::from_millis(2500)),
        // Output keeps the idle watchdog quiet; it must not extend the wall clock.
        idle_timeout: Some(Duration::from_secs(1)),
        ..cfg
    };
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    assert_eq!(signal_names(&report)[0], "SIGINT");
    assert!(
        texts(&lines).contains(&"tick 0".to_owned()),
        "{:?}",
        texts(&lines)
    );
    let mut all = pids.read();
    all.push(report.pgid as i32);
    assert_all_gone(&all).await;
}

#[tokio::test]
async fn idle_timeout_kills_the_whole_tree() {
    let pids = PidFile::new();
    let inv =
        misbehave()
            .args(pids.arg())
            .args(["--grandchildren", "2", "--print", "hello", "--hang"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        idle_timeout: Some(Duration::from_secs(1)),
        ..config()
    };
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::IdleTimeout);
    assert_eq!(texts(&lines), ["hello"]);
    assert_eq!(report.status.signal, Some(SIGINT));
    assert_all_gone(&pids.read()).await;
}

#[tokio::test]
async fn output_resets_the_idle_watchdog() {
    // 20 ticks 100 ms apart: 2 s in all, far past the 1 s idle limit, never
    // 1 s silent.
    let inv = misbehave().args(["--tick", "100", "20"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        idle_timeout: Some(Duration::from_secs(1)),
        ..config()
    };
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(0));
    assert_eq!(lines.len(), 20);
}

#[tokio::test]
async fn control_activity_resets_the_idle_watchdog() {
    let inv = misbehave().args(["--sleep-ms", "1800", "--print", "woke"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        idle_timeout: Some(Duration::from_millis(700)),
        ..config()
    };
    let running = start(inv, cfg);
    let heartbeat = running.control.clone();
    tokio::spawn(async move {
        // Ends when the run drops its receiver.
        while heartbeat.send(Control::Activity).await.is_ok() {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    let (report, lines) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(texts(&lines), ["woke"]);
}

#[tokio::test]
async fn graceful_cancel_sends_sigint_to_the_group() {
    let pids = PidFile::new();
    let inv = misbehave()
        .args(pids.arg())
        .args(["--grandchildren", "2", "--hang"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        // Long graces: the leader dies of SIGINT, so nothing else is sent.
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(10),
            terminate_grace: Duration::from_secs(10),
        },
        ..config()
    };
    let running = start(inv, cfg);
    let started = pids.wait().await;
    running.send(Control::Cancel { immediate: false }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGINT"]);
    assert_eq!(report.status.signal, Some(SIGINT));
    // The first grandchild ignores SIGINT: the sweep after the leader's exit
    // must still end it.
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn immediate_cancel_sends_sigkill_at_once() {
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args([
        "--ignore-int",
        "--ignore-term",
        "--grandchildren",
        "2",
        "--hang",
    ]);
    let running = start(inv, config());
    let started = pids.wait().await;
    running.send(Control::Cancel { immediate: true }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGKILL"]);
    assert_eq!(report.status.signal, Some(SIGKILL));
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn second_cancel_cuts_the_table_short() {
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args([
        "--ignore-int",
        "--ignore-term",
        "--grandchildren",
        "1",
        "--hang",
    ]);
    let cfg = agentgate_supervise::SupervisorConfig {
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(60),
            terminate_grace: Duration::from_secs(60),
        },
        ..config()
    };
    let running = start(inv, cfg);
    let started = pids.wait().await;
    running.send(Control::Cancel { immediate: false }).await;
    running.send(Control::Cancel { immediate: true }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGINT", "SIGKILL"]);
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn a_child_that_ignores_sigint_and_sigterm_is_escalated_to_sigkill() {
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args([
        "--ignore-int",
        "--ignore-term",
        "--grandchildren",
        "2",
        "--hang",
    ]);
    let running = start(inv, config());
    // The pid file is written once the handlers are in place.
    let started = pids.wait().await;
    running.send(Control::Cancel { immediate: false }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGINT", "SIGTERM", "SIGKILL"]);
    let times: Vec<Duration> = report.signals_sent.iter().map(|s| s.elapsed).collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    assert_eq!(report.status.signal, Some(SIGKILL));
    assert_all_gone(&started).await;
}
