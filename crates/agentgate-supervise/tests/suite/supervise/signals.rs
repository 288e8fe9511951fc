//! The CLI starts with default dispositions and an empty signal mask,
//! whatever the supervisor inherited (nohup, a background job of a script,
//! a parent that blocked signals).

use std::process::{Command, Stdio};
use std::time::Duration;

use super::support::keeper_path;

/// `supervise-once` started with SIGHUP, SIGINT, SIGQUIT and SIGTERM ignored
/// (as `trap ''` does; ignored dispositions survive exec) and with signals
/// blocked; returns its output lines.
fn run_in_a_hostile_signal_state(keeper: bool) -> Vec<String> {
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(r#"trap '' HUP INT QUIT TERM; exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_supervise-once"))
        .arg("--block-signals");
    if !keeper {
        cmd.arg("--no-keeper");
    }
    cmd.arg(keeper_path())
        .arg("--")
        // The CLI: reports the masks it started with (a Rust program would
        // show the SIGPIPE its own runtime ignores).
        .args([
            "/bin/sh",
            "-c",
            "exec grep -E '^Sig(Ign|Blk):' /proc/self/status",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = rx
        .recv_timeout(Duration::from_secs(30))
        .unwrap_or_else(|_| panic!("supervise-once did not end within 30 s"))
        .unwrap();
    assert!(
        out.status.success(),
        "{:?}: {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The mask printed on the line starting with `prefix`.
fn mask(lines: &[String], prefix: &str) -> u64 {
    let line = lines
        .iter()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no `{prefix}` line in {lines:#?}"));
    u64::from_str_radix(line.trim(), 16).unwrap()
}

/// The standard signals 1 to 31. Signals 32 and 33 are glibc's own
/// (thread cancellation, set*id) and cannot be changed by any program;
/// some environments start everything with them ignored.
const STANDARD: u64 = 0x7fff_ffff;

/// Bit n-1 stands for signal n.
fn bit(signal: i32) -> u64 {
    1 << (signal - 1)
}

#[test]
fn the_cli_starts_with_default_dispositions_and_an_empty_mask() {
    let (hup, int, quit, term) = (1, 2, 3, 15);
    for keeper in [true, false] {
        let lines = run_in_a_hostile_signal_state(keeper);
        // The supervisor really was in that state...
        let ignored = mask(&lines, "supervisor SigIgn:");
        for signal in [hup, int, quit, term] {
            assert_ne!(
                ignored & bit(signal),
                0,
                "signal {signal} not ignored: {lines:#?}"
            );
        }
        assert_ne!(
            mask(&lines, "supervisor SigBlk:") & bit(int),
            0,
            "{lines:#?}"
        );
        // ...and the CLI inherited none of it.
        assert_eq!(
            mask(&lines, "SigIgn:") & STANDARD,
            0,
            "keeper {keeper}: {lines:#?}"
        );
        assert_eq!(mask(&lines, "SigBlk:"), 0, "keeper {keeper}: {lines:#?}");
    }
}
