//! Runs that end by themselves, or after printing their result.

use std::time::Duration;

use agentgate_supervise::EndReason;

use super::support::{PidFile, assert_all_gone, config, misbehave, run, signal_names, texts};

#[tokio::test]
async fn a_completed_run_leaves_no_grandchild() {
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args([
        "--grandchildren",
        "3",
        "--print",
        "done",
        "--exit",
        "3",
    ]);
    let (report, lines) = run(inv, config()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(3));
    assert_eq!(report.status.signal, None);
    assert!(report.signals_sent.is_empty(), "{:?}", report.signals_sent);
    assert!(!report.output_leaked);
    assert_eq!(texts(&lines), ["done"]);
    let started = pids.read();
    assert_eq!(started.len(), 4);
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn result_then_hang_is_ended_after_the_result_grace() {
    let pids = PidFile::new();
    let inv = misbehave()
        .args(pids.arg())
        .args(["--grandchildren", "1", "--result-then-hang"]);
    let cfg = agentgate_supervise::SupervisorConfig {
        // A result switches the idle watchdog off: it must not fire in the
        // second between the result and the end of the result grace.
        idle_timeout: Some(Duration::from_millis(300)),
        result_grace: Duration::from_secs(1),
        ..config()
    };
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::ResultThenHang);
    assert_eq!(signal_names(&report)[0], "SIGINT");
    assert_eq!(texts(&lines), [r#"{"type":"result","result":"done"}"#]);
    assert_all_gone(&pids.read()).await;
}

#[tokio::test]
async fn a_result_followed_by_a_prompt_exit_is_a_plain_exit() {
    let inv = misbehave().args([
        "--print",
        r#"{"type":"result","result":"ok"}"#,
        "--exit",
        "0",
    ]);
    let (report, _) = run(inv, config()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert!(report.signals_sent.is_empty());
    assert!(report.status.success());
}
