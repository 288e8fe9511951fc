//! `agentgate __sandbox --init SPEC_FILE STATUS_FD GO_FD`: pid 1 of the
//! tool's PID namespace (see `pidns.rs`).
//!
//! It mounts the namespace's own `/proc`, makes the network namespace
//! when the spec asks for no network or for forwarded ports (it still
//! holds the capabilities a user namespace gave it; the process after it
//! may not; for forwarded ports it brings the loopback up, `loopback.rs`,
//! and binds the ports, `relay.rs`), moves into the user namespace that
//! gives the user back their uid, starts the relays' threads (only now:
//! that move needs a single-threaded process), and starts
//! `__sandbox --apply` (pid 2, which applies Landlock and the rlimits and
//! becomes the tool), telling it what was made ([`Isolation`]). Then it
//! waits: it reaps every process of the namespace left to it, and when the
//! tool's process has ended, it writes how (status or signal) on the status
//! pipe for the sandbox, and exits with the same code (128 + the signal).
//! The kernel then kills whatever the tool left in the namespace.
//!
//! It has no signal handlers: pid 1 of a namespace ignores the signals it
//! does not handle, so the runner's SIGINT and SIGTERM to the process group
//! end the tool (pid 2, default actions) and leave pid 1 to report; SIGKILL
//! ends pid 1 too, and with it the namespace.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use nix::errno::Errno;
use nix::sched::{CloneFlags, unshare};
use nix::sys::wait::{WaitStatus, wait};
use nix::unistd::Pid;

use super::handshake::{Isolation, TOOL_EXITED, TOOL_KILLED, record, reopen_inherited};
use super::loopback::bring_loopback_up;
use super::pidns::{mount_own_proc, restore_identity};
use super::relay::{BoundPort, bind_forwarded_ports, start_relays};
use super::report::{enforced, not_enforced};
use super::{EXIT_SANDBOX_FAILED, NetworkRule, SANDBOX_SUBCOMMAND, SandboxSpec};

/// What the `processes` entry says is asked.
pub(crate) const PROCESSES_LIMIT: &str = "other processes hidden";

/// Run pid 1; the exit code.
pub(crate) fn init_main(args: &[OsString]) -> i32 {
    let [spec_path, status_fd, go_fd] = args else {
        eprintln!("agentgate sandbox: usage: __sandbox --init SPEC_FILE STATUS_FD GO_FD");
        return EXIT_SANDBOX_FAILED;
    };
    let fd = |s: &OsString| s.to_str().and_then(|s| s.parse::<i32>().ok());
    let (Some(status), Some(go)) = (fd(status_fd), fd(go_fd)) else {
        eprintln!("agentgate sandbox: --init takes two descriptor numbers");
        return EXIT_SANDBOX_FAILED;
    };
    let Some(spec) = SandboxSpec::read_or_tell(Path::new(spec_path)) else {
        return EXIT_SANDBOX_FAILED;
    };
    let isolation = isolate(&spec);
    let json = match serde_json::to_string(&isolation) {
        Ok(json) => json,
        Err(e) => {
            eprintln!("agentgate sandbox: {e}");
            return EXIT_SANDBOX_FAILED;
        }
    };
    let program = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => {
            eprintln!("agentgate sandbox: failed to find the agentgate binary: {e}");
            return EXIT_SANDBOX_FAILED;
        }
    };
    // The pipes are inherited (not close-on-exec): the next process takes
    // them by number.
    let child = Command::new(&program)
        .arg(SANDBOX_SUBCOMMAND)
        .arg("--apply")
        .arg(spec_path)
        .arg(status_fd)
        .arg(go_fd)
        .arg(json)
        .spawn();
    let tool = match child {
        Ok(child) => Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX)),
        Err(e) => {
            eprintln!(
                "agentgate sandbox: failed to start {}: {e}",
                program.display()
            );
            return EXIT_SANDBOX_FAILED;
        }
    };
    // This process keeps the status pipe (for the record of the end) as
    // a close-on-exec copy; the go pipe is the tool's business.
    let status = reopen_inherited(status, true);
    let _ = nix::unistd::close(go);
    let (record, code) = reap_until(tool);
    if let Ok(mut status) = status {
        let _ = status.write_all(&record);
    }
    code
}

/// The isolation pid 1 makes, in order: its `/proc`, the network
/// namespace, the user's identity back.
fn isolate(spec: &SandboxSpec) -> Isolation {
    let mut warnings = Vec::new();
    let processes = match mount_own_proc() {
        Ok(()) => enforced(PROCESSES_LIMIT, "PID namespace with its own /proc"),
        Err(why) => not_enforced(PROCESSES_LIMIT, why),
    };
    let (mut netns, forwarded) = match &spec.network {
        NetworkRule::None => (Some(new_network_namespace()), Vec::new()),
        NetworkRule::Forward(forwards) => {
            match new_network_namespace()
                .and_then(|()| bring_loopback_up())
                .and_then(|()| bind_forwarded_ports(forwards))
            {
                Ok(bound) => (Some(Ok(())), bound),
                Err(why) => (Some(Err(why)), Vec::new()),
            }
        }
        NetworkRule::Any | NetworkRule::Allow(_) => (None, Vec::new()),
    };
    if let Err(why) = restore_identity() {
        warnings.push(format!(
            "the tool runs as root of a user namespace (its own uid outside): {why}"
        ));
    }
    // Threads only from here on (see the module doc).
    if let Err(why) = serve(forwarded) {
        netns = Some(Err(why));
    }
    Isolation {
        processes,
        netns,
        warnings,
    }
}

fn new_network_namespace() -> Result<(), String> {
    unshare(CloneFlags::CLONE_NEWNET).map_err(|e| format!("unshare(CLONE_NEWNET) was refused: {e}"))
}

/// Start the relays of the bound ports (none: nothing to do).
fn serve(forwarded: Vec<BoundPort>) -> Result<(), String> {
    if forwarded.is_empty() {
        return Ok(());
    }
    start_relays(forwarded)
}

/// Reaps every child until `tool` has ended: the record for the sandbox
/// and the exit code.
fn reap_until(tool: Pid) -> ([u8; 5], i32) {
    loop {
        match wait() {
            Ok(WaitStatus::Exited(pid, code)) if pid == tool => {
                return (record(TOOL_EXITED, code), code);
            }
            Ok(WaitStatus::Signaled(pid, signal, _)) if pid == tool => {
                let signal = signal as i32;
                return (record(TOOL_KILLED, signal), 128 + signal);
            }
            Ok(_) | Err(Errno::EINTR) => {}
            Err(e) => {
                eprintln!("agentgate sandbox: failed to wait for the tool: {e}");
                return (
                    record(TOOL_EXITED, EXIT_SANDBOX_FAILED),
                    EXIT_SANDBOX_FAILED,
                );
            }
        }
    }
}
