//! Zero survivors: a CLI whose grandchild double forks and leaves the
//! session and the group (`setsid`), deaf to SIGTERM and SIGINT, leaves
//! nothing behind however the run ends, because the keeper is the subreaper
//! of everything the CLI starts and sweeps it. Checked by the daemon's
//! marker in `/proc/*/cmdline` (what `pgrep -f <marker>` counts).

use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use agentgate_supervise::{Control, EndReason, SupervisorConfig, TerminationTable};
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, getsid};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};

use super::support::{
    GONE_BOUND, PidFile, assert_alive, config, is_gone, keeper_path, misbehave, run, signal_names,
    start,
};

/// A marker no other process has: the test binary's pid and a counter.
fn marker() -> String {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    format!(
        "agentgate-escapee-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::SeqCst)
    )
}

/// The pids of living processes whose command line holds `marker`.
fn with_marker(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) && !is_gone(pid) {
            found.push(pid);
        }
    }
    found
}

/// Asserts (bounded wait) that no process with the marker is left; kills
/// any that is, so that a failure leaves nothing behind either.
async fn assert_no_survivor(marker: &str) {
    let deadline = tokio::time::Instant::now() + GONE_BOUND;
    loop {
        let left = with_marker(marker);
        if left.is_empty() {
            return;
        }
        if tokio::time::Instant::now() >= deadline {
            for pid in &left {
                let _ = kill(Pid::from_raw(*pid), Signal::SIGKILL);
            }
            panic!("survivors {GONE_BOUND:?} after the run: {left:?} ({marker})");
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// The daemon is running, in a session of its own.
fn assert_escaped(daemon: i32) {
    assert_alive(daemon);
    let session = getsid(Some(Pid::from_raw(daemon))).unwrap();
    assert_eq!(
        session.as_raw(),
        daemon,
        "the daemon did not leave the session"
    );
}

fn with_keeper() -> SupervisorConfig {
    SupervisorConfig {
        keeper: Some(keeper_path()),
        ..config()
    }
}

#[tokio::test]
async fn a_setsid_daemon_is_gone_after_a_timeout() {
    let (pids, marker) = (PidFile::new(), marker());
    let inv = misbehave().args(pids.arg()).args([
        "--setsid-grandchild",
        &marker,
        "--ignore-term",
        "--hang",
    ]);
    let cfg = SupervisorConfig {
        timeout: Some(Duration::from_secs(2)),
        ..with_keeper()
    };
    let running = start(inv, cfg);
    assert_escaped(*pids.wait().await.last().unwrap());
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Timeout);
    assert_eq!(report.survivors, []);
    assert_no_survivor(&marker).await;
}

#[tokio::test]
async fn a_setsid_daemon_is_gone_after_a_cancel_that_ends_in_sigkill() {
    let (pids, marker) = (PidFile::new(), marker());
    let inv = misbehave().args(pids.arg()).args([
        "--setsid-grandchild",
        &marker,
        "--ignore-int",
        "--ignore-term",
        "--grandchildren",
        "1",
        "--hang",
    ]);
    let running = start(inv, with_keeper());
    assert_escaped(*pids.wait().await.last().unwrap());
    running.send(Control::Cancel { immediate: false }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGINT", "SIGTERM", "SIGKILL"]);
    // The keeper ended everything, then mirrored the CLI's SIGKILL.
    assert_eq!(report.status.signal, Some(9));
    assert_eq!(report.survivors, []);
    assert_no_survivor(&marker).await;
}

#[tokio::test]
async fn a_setsid_daemon_is_gone_after_an_immediate_cancel() {
    let (pids, marker) = (PidFile::new(), marker());
    let inv = misbehave()
        .args(pids.arg())
        .args(["--setsid-grandchild", &marker, "--hang"]);
    let cfg = SupervisorConfig {
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(60),
            terminate_grace: Duration::from_secs(60),
        },
        ..with_keeper()
    };
    let running = start(inv, cfg);
    assert_escaped(*pids.wait().await.last().unwrap());
    running.send(Control::Cancel { immediate: true }).await;
    let (report, _) = running.finish().await;
    assert_eq!(signal_names(&report), ["SIGKILL"]);
    assert_no_survivor(&marker).await;
}

#[tokio::test]
async fn a_setsid_daemon_is_gone_after_the_cli_exits_by_itself() {
    let (pids, marker) = (PidFile::new(), marker());
    let inv = misbehave().args(pids.arg()).args([
        "--setsid-grandchild",
        &marker,
        "--print",
        "done",
        "--exit",
        "0",
    ]);
    let (report, _) = run(inv, with_keeper()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(0));
    assert_eq!(pids.read().len(), 2);
    assert_no_survivor(&marker).await;
}

#[tokio::test]
async fn a_setsid_daemon_is_gone_after_the_supervisor_is_killed() {
    let (pids, marker) = (PidFile::new(), marker());
    let mut supervisor = Command::new(env!("CARGO_BIN_EXE_supervise-once"))
        .arg(keeper_path())
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_misbehave"))
        .args(pids.arg())
        .args(["--setsid-grandchild", &marker, "--ignore-term", "--hang"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .process_group(0)
        .spawn()
        .unwrap();
    assert_escaped(*pids.wait().await.last().unwrap());
    kill(Pid::from_raw(supervisor.id() as i32), Signal::SIGKILL).unwrap();
    assert_eq!(supervisor.wait().unwrap().signal(), Some(9));
    assert_no_survivor(&marker).await;
}

/// A stand-in keeper that runs the program, then reports a process it
/// "could not end", as the real keeper does for one stuck in uninterruptible
/// I/O (which a test cannot produce on demand).
fn reporting_keeper(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt as _;
    let path = dir.join("keeper");
    std::fs::write(
        &path,
        "#!/bin/sh\n# __keeper <pid> -- <program> [args...]\nshift 3\n\"$@\"\ncode=$?\n\
         echo 'agentgate keeper: process 4242 survived SIGKILL: stuck-daemon --flag' >&2\n\
         exit $code\n",
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[tokio::test]
async fn a_process_the_keeper_could_not_end_is_named_in_the_report() {
    let dir = tempfile::tempdir().unwrap();
    let inv = misbehave().args(["--print", "hi", "--exit", "0"]);
    let cfg = SupervisorConfig {
        keeper: Some(reporting_keeper(dir.path())),
        ..config()
    };
    let (report, _) = run(inv, cfg).await;
    assert_eq!(report.status.code, Some(0));
    assert_eq!(
        report.survivors,
        [agentgate_supervise::Survivor {
            pid: 4242,
            command: "stuck-daemon --flag".to_owned()
        }]
    );
}

#[tokio::test]
async fn without_a_keeper_a_clis_own_report_line_is_just_output() {
    let inv = misbehave().args([
        "--eprint",
        "agentgate keeper: process 4242 survived SIGKILL: forged",
        "--exit",
        "0",
    ]);
    let (report, lines) = run(inv, config()).await;
    assert_eq!(report.survivors, []);
    assert_eq!(lines.len(), 1);
}
