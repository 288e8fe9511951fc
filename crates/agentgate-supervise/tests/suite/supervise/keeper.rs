//! The keeper: same status as the CLI, and no agent survives agentgate.

use std::process::{Command, Stdio};
use std::time::Duration;

use agentgate_supervise::{Control, EndReason, SupervisorConfig, TerminationTable};
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, getpgid};
use std::os::unix::process::{CommandExt as _, ExitStatusExt as _};

use super::support::{
    PidFile, assert_all_gone, config, keeper_path, misbehave, run, signal_names, start, texts,
};

fn with_keeper() -> SupervisorConfig {
    SupervisorConfig {
        keeper: Some(keeper_path()),
        ..config()
    }
}

#[tokio::test]
async fn the_keeper_passes_stdio_through_and_mirrors_the_exit_code() {
    let pids = PidFile::new();
    let inv = misbehave()
        .args(pids.arg())
        .args([
            "--grandchildren",
            "1",
            "--echo-stdin",
            "--eprint",
            "err",
            "--exit",
            "7",
        ])
        .stdin(b"hi".to_vec());
    let (report, lines) = run(inv, with_keeper()).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(7));
    let mut got = texts(&lines);
    got.sort();
    assert_eq!(got, ["err", "stdin:6869"]);
    let mut all = pids.read();
    // The keeper leads the group, the fixture is its child.
    assert_ne!(all[0] as u32, report.pgid);
    all.push(report.pgid as i32);
    assert_all_gone(&all).await;
}

#[tokio::test]
async fn the_keeper_mirrors_the_signal_that_ended_the_cli() {
    let pids = PidFile::new();
    let inv = misbehave()
        .args(pids.arg())
        .args(["--grandchildren", "2", "--hang"]);
    let cfg = SupervisorConfig {
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(10),
            terminate_grace: Duration::from_secs(10),
        },
        ..with_keeper()
    };
    let running = start(inv, cfg);
    let mut started = pids.wait().await;
    running.send(Control::Cancel { immediate: false }).await;
    let (report, _) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    // The keeper survived SIGINT, waited for the CLI, then died of the same
    // signal.
    assert_eq!(report.status.signal, Some(2));
    assert_eq!(report.status.code, None);
    started.push(report.pgid as i32);
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn killing_the_supervisor_with_sigkill_kills_the_whole_tree() {
    let pids = PidFile::new();
    let mut supervisor = Command::new(env!("CARGO_BIN_EXE_supervise-once"))
        .arg(keeper_path())
        .arg("--")
        .arg(env!("CARGO_BIN_EXE_misbehave"))
        .args(pids.arg())
        // The CLI and one grandchild ignore SIGTERM: only the keeper's final
        // SIGKILL ends them.
        .args(["--ignore-term", "--grandchildren", "2", "--hang"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        // Its own group, so that nothing here can reach the test's group.
        .process_group(0)
        .spawn()
        .unwrap();
    let mut started = pids.wait().await;
    let keeper = getpgid(Some(Pid::from_raw(started[0]))).unwrap().as_raw();
    assert_ne!(keeper, supervisor.id() as i32);
    started.push(keeper);

    kill(Pid::from_raw(supervisor.id() as i32), Signal::SIGKILL).unwrap();
    let status = supervisor.wait().unwrap();
    assert_eq!(status.signal(), Some(9));
    assert_all_gone(&started).await;
}

#[tokio::test]
async fn the_keeper_refuses_to_start_when_its_parent_is_not_the_given_pid() {
    let pids = PidFile::new();
    // Pid 2 is never our parent... nor the keeper's.
    let status = Command::new(keeper_path())
        .args(["__keeper", "2", "--"])
        .arg(env!("CARGO_BIN_EXE_misbehave"))
        .args(pids.arg())
        .arg("--hang")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0)
        .status()
        .unwrap();
    // It killed its own group, itself included, before starting anything.
    assert_eq!(status.signal(), Some(9));
    assert!(!pids.path.exists());
}

#[tokio::test]
async fn the_keeper_survives_the_groups_sigint_and_mirrors_the_clis_own_exit() {
    let inv = misbehave().args(["--int-exit-code", "42", "--print", "ready", "--hang"]);
    let cfg = SupervisorConfig {
        grace: TerminationTable {
            interrupt_grace: Duration::from_secs(10),
            terminate_grace: Duration::from_secs(10),
        },
        ..with_keeper()
    };
    let mut running = start(inv, cfg);
    // The CLI installs its SIGINT handler before it prints "ready".
    running.wait_lines(1).await;
    running.send(Control::Cancel { immediate: false }).await;
    let (report, lines) = running.finish().await;
    assert_eq!(report.ended_by, EndReason::Cancelled);
    assert_eq!(signal_names(&report), ["SIGINT"]);
    assert_eq!(texts(&lines), ["ready", "got SIGINT"]);
    assert_eq!(report.status.code, Some(42));
}
