//! The wall-clock deadline's warnings and its extension on activity, with
//! the real process: notices arrive in order while the CLI runs, an
//! extension keeps a CLI that prints alive past its timeout, and a silent
//! one (or one at `max_timeout`) is ended as `Timeout` with its tree.

use std::time::Duration;

use agentgate_supervise::{
    DeadlineNotice, DeadlinePolicy, EndReason, NoticeSender, SupervisorConfig, WarnPoint,
};
use tokio::sync::mpsc;

use super::support::{PidFile, assert_all_gone, config, misbehave, run, texts};

fn with_deadline(
    timeout: Duration,
    deadline: DeadlinePolicy,
) -> (SupervisorConfig, mpsc::UnboundedReceiver<DeadlineNotice>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let cfg = SupervisorConfig {
        timeout: Some(timeout),
        deadline,
        deadline_notices: Some(NoticeSender(tx)),
        ..config()
    };
    (cfg, rx)
}

fn drain(mut rx: mpsc::UnboundedReceiver<DeadlineNotice>) -> Vec<DeadlineNotice> {
    let mut out = Vec::new();
    while let Ok(n) = rx.try_recv() {
        out.push(n);
    }
    out
}

#[tokio::test]
async fn warnings_come_before_the_deadline_then_the_run_ends_as_timeout() {
    let pids = PidFile::new();
    let inv =
        misbehave()
            .args(pids.arg())
            .args(["--grandchildren", "1", "--print", "hello", "--hang"]);
    let timeout = Duration::from_secs(3);
    let (cfg, rx) = with_deadline(
        timeout,
        DeadlinePolicy {
            warn: vec![
                WarnPoint::Permille(300),
                WarnPoint::Remaining(Duration::from_secs(1)),
            ],
            ..DeadlinePolicy::default()
        },
    );
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    assert_eq!(texts(&lines), ["hello"]);
    let notices = drain(rx);
    let remaining: Vec<Duration> = notices
        .iter()
        .map(|n| match n {
            DeadlineNotice::Warning { remaining, .. } => *remaining,
            other => panic!("not a warning: {other:?}"),
        })
        .collect();
    assert_eq!(remaining.len(), 2, "{notices:?}");
    // In order, each with time still left, the later with less.
    assert!(remaining[0] > remaining[1], "{notices:?}");
    assert!(
        remaining[0] < timeout && !remaining[1].is_zero(),
        "{notices:?}"
    );
    let mut all = pids.read();
    all.push(report.pgid as i32);
    assert_all_gone(&all).await;
}

#[tokio::test]
async fn a_printing_cli_outlives_its_timeout_and_a_silent_one_does_not() {
    // Ticks for about 4 s (every 200 ms), then silence: the 1.5 s deadline
    // moves while it prints and passes once it is silent.
    let inv = misbehave().args(["--tick", "200", "20", "--hang"]);
    let (cfg, rx) = with_deadline(
        Duration::from_millis(1500),
        DeadlinePolicy {
            warn: Vec::new(),
            extend_on_activity: Some(Duration::from_millis(1500)),
            max_timeout: Some(Duration::from_secs(60)),
        },
    );
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    // Every tick arrived: the run went on well past its first deadline.
    assert!(
        texts(&lines).contains(&"tick 19".to_owned()),
        "{:?}",
        texts(&lines)
    );
    let notices = drain(rx);
    assert!(!notices.is_empty(), "no extension");
    for n in &notices {
        assert!(
            matches!(n, DeadlineNotice::Extended { by, .. } if *by == Duration::from_millis(1500)),
            "{notices:?}"
        );
    }
}

#[tokio::test]
async fn extensions_stop_at_max_timeout() {
    // Prints every 100 ms for 100 s: only max_timeout ends it.
    let pids = PidFile::new();
    let inv = misbehave().args(pids.arg()).args(["--tick", "100", "1000"]);
    let (cfg, rx) = with_deadline(
        Duration::from_secs(1),
        DeadlinePolicy {
            warn: Vec::new(),
            extend_on_activity: Some(Duration::from_secs(1)),
            max_timeout: Some(Duration::from_millis(2500)),
        },
    );
    let (report, lines) = run(inv, cfg).await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    assert!(!texts(&lines).contains(&"tick 999".to_owned()));
    let notices = drain(rx);
    let total: Duration = notices
        .iter()
        .map(|n| match n {
            DeadlineNotice::Extended { by, .. } => *by,
            other => panic!("not an extension: {other:?}"),
        })
        .sum();
    // Never past max_timeout: 1 s + at most 1.5 s of extensions.
    assert!(!notices.is_empty());
    assert!(total <= Duration::from_millis(1500), "{notices:?}");
    let mut all = pids.read();
    all.push(report.pgid as i32);
    assert_all_gone(&all).await;
}
