//! The warm keeper: started before its CLI is known, it runs the CLI
//! exactly as a cold keeper would, and leaves nothing behind when unused.

use std::os::unix::fs::symlink;

use agentgate_supervise::{EndReason, Invocation, SupervisorConfig, WarmKeeper};
use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;

use super::support::{PidFile, assert_all_gone, config, keeper_path, misbehave, run, texts};

fn warm_config(warm: &WarmKeeper) -> SupervisorConfig {
    SupervisorConfig {
        keeper: Some(keeper_path()),
        warm_keeper: Some(warm.clone()),
        ..config()
    }
}

fn pid_of(warm: &WarmKeeper) -> i32 {
    i32::try_from(warm.pid().unwrap()).unwrap()
}

/// Drops the only handle on a waiting keeper: the keeper must exit.
async fn assert_exits_when_dropped(warm: WarmKeeper) {
    let keeper = pid_of(&warm);
    drop(warm);
    assert_all_gone(&[keeper]).await;
}

#[tokio::test]
async fn the_cli_gets_exactly_the_requested_environment_folder_arguments_and_stdin() {
    let warm = WarmKeeper::start(&keeper_path()).unwrap();
    assert!(warm.is_waiting());
    let folder = tempfile::tempdir().unwrap();
    let folder = folder.path().canonicalize().unwrap();
    let mut inv = Invocation::new("/bin/sh")
        .args([
            "-c",
            r#"printf 'arg=%s\n' "$1"; printf 'set=%s\n' "$WARM_SET"; printf 'home=%s\n' "${HOME-unset}"; printf 'cwd=%s\n' "$(pwd)"; printf 'stdin=%s\n' "$(cat)"; exit 3"#,
            "sh",
            "two words",
        ])
        .stdin(b"from the socket".to_vec());
    inv.env_clear = true;
    inv.env.push(("WARM_SET".into(), "yes".into()));
    inv.env.push(("PATH".into(), "/usr/bin:/bin".into()));
    inv.cwd = Some(folder.clone());
    let (report, lines) = run(inv, warm_config(&warm)).await;
    // Taken: this run was the warm keeper's.
    assert!(!warm.is_waiting());
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(3));
    assert_eq!(
        texts(&lines),
        [
            "arg=two words".to_owned(),
            "set=yes".to_owned(),
            // Cleared: agentgate's own HOME did not reach the CLI.
            "home=unset".to_owned(),
            format!("cwd={}", folder.display()),
            "stdin=from the socket".to_owned(),
        ]
    );
}

#[tokio::test]
async fn without_stdin_bytes_the_cli_reads_dev_null_and_the_group_is_swept() {
    let warm = WarmKeeper::start(&keeper_path()).unwrap();
    let keeper = pid_of(&warm);
    let pids = PidFile::new();
    let inv =
        misbehave()
            .args(pids.arg())
            .args(["--grandchildren", "1", "--echo-stdin", "--exit", "0"]);
    let (report, lines) = run(inv, warm_config(&warm)).await;
    assert_eq!(report.status.code, Some(0));
    // The warm keeper led the group.
    assert_eq!(report.pgid, keeper.unsigned_abs());
    assert_eq!(texts(&lines), ["stdin:"]);
    let mut all = pids.read();
    all.push(keeper);
    assert_all_gone(&all).await;
}

#[tokio::test]
async fn an_unused_warm_keeper_exits_when_its_handle_is_dropped() {
    let warm = WarmKeeper::start(&keeper_path()).unwrap();
    assert_exits_when_dropped(warm).await;
}

#[tokio::test]
async fn a_warm_keeper_of_another_program_is_left_waiting() {
    let warm = WarmKeeper::start(&keeper_path()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other-keeper");
    symlink(keeper_path(), &other).unwrap();
    let cfg = SupervisorConfig {
        keeper: Some(other),
        warm_keeper: Some(warm.clone()),
        ..config()
    };
    let (report, lines) = run(misbehave().args(["--print", "cold"]), cfg).await;
    assert_eq!(report.status.code, Some(0));
    assert_eq!(texts(&lines), ["cold"]);
    assert!(warm.is_waiting());
    assert_exits_when_dropped(warm).await;
}

#[tokio::test]
async fn a_dead_warm_keeper_is_replaced_by_a_cold_one() {
    let warm = WarmKeeper::start(&keeper_path()).unwrap();
    let keeper = pid_of(&warm);
    kill(Pid::from_raw(keeper), Signal::SIGKILL).unwrap();
    assert_all_gone(&[keeper]).await;
    let inv = misbehave().args(["--echo-stdin"]).stdin(b"ok".to_vec());
    let (report, lines) = run(inv, warm_config(&warm)).await;
    assert_eq!(report.ended_by, EndReason::Exited);
    assert_eq!(report.status.code, Some(0));
    assert_eq!(texts(&lines), ["stdin:6f6b"]);
    assert_ne!(report.pgid, keeper.unsigned_abs());
}
