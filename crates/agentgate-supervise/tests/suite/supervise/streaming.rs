//! A CLI that keeps reading its stdin (a warm session): chunks written
//! while it runs reach it in order, through the keeper too, and it sees end
//! of file when the sender is dropped.

use std::time::Duration;

use agentgate_supervise::{
    Control, EndReason, Invocation, OutputLine, SupervisorConfig, supervise_with_stdin,
};
use tokio::sync::mpsc;

use super::support::{RUN_BOUND, config, keeper_path};

async fn next_line(lines: &mut mpsc::Receiver<OutputLine>) -> String {
    match tokio::time::timeout(RUN_BOUND, lines.recv()).await {
        Ok(Some(line)) => String::from_utf8_lossy(&line.bytes).into_owned(),
        Ok(None) => panic!("the run ended before its line"),
        Err(_) => panic!("no line within {RUN_BOUND:?}"),
    }
}

async fn echo_turns(cfg: SupervisorConfig) {
    let (lines_tx, mut lines) = mpsc::channel(16);
    let (_control, control_rx) = mpsc::channel::<Control>(4);
    let (stdin, more) = mpsc::channel(4);
    // `cat` answers each line as it comes: a turn, then the next.
    let inv = Invocation::new("cat").stdin(Vec::new());
    let run = tokio::spawn(supervise_with_stdin(
        inv,
        SupervisorConfig {
            timeout: None,
            ..cfg
        },
        lines_tx,
        control_rx,
        Some(more),
    ));
    for turn in ["one", "two", "three"] {
        stdin.send(format!("{turn}\n").into_bytes()).await.unwrap();
        assert_eq!(next_line(&mut lines).await, turn);
    }
    // Quiet between turns: nothing ends it.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!run.is_finished());
    drop(stdin);
    let Ok(Ok(Ok(report))) = tokio::time::timeout(RUN_BOUND, run).await else {
        panic!("the run did not end at end of file");
    };
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(0));
}

#[tokio::test]
async fn stdin_stays_open_for_turns_until_the_sender_is_dropped() {
    echo_turns(config()).await;
}

#[tokio::test]
async fn stdin_stays_open_through_the_keeper() {
    echo_turns(SupervisorConfig {
        keeper: Some(keeper_path()),
        ..config()
    })
    .await;
}
