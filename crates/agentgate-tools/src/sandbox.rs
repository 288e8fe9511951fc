//! The limits applied inside a tool's process: `agentgate __sandbox
//! SPEC_FILE` reads a [`SandboxSpec`], applies the limits, starts the tool
//! under them, waits for it, and writes a [`SandboxReport`] (what was
//! enforced, how the tool ended, its CPU time and peak memory) for the
//! runner to read.
//!
//! Two processes, both `agentgate __sandbox`, three when the other
//! processes are hidden:
//!
//! ```text
//! runner ─ keeper ─ __sandbox SPEC  (supervise.rs: unrestricted, writes the report,
//!                     │               outlives the tool; enters a new PID namespace)
//!                     └ __sandbox --init SPEC S G  (init.rs: pid 1 of it: its own /proc,
//!                        │                          the network namespace, its relays (relay.rs);
//!                        │                          reaps, reports the end)
//!                        └ __sandbox --apply SPEC S G ISOLATION  (apply.rs: Landlock with
//!                             agentgate's own files carved out, rlimits on itself,
//!                             then exec → the tool, same pid)
//! ```
//!
//! The limits are applied by the last process to itself and inherited by
//! the tool through `exec`, with no code between fork and exec (the
//! workspace has no `unsafe`). The first stays free of them: Landlock would
//! keep it from writing its report (and a folder it could write, the tool
//! could write too), and `RLIMIT_AS` counts its own address space. They
//! talk over two pipes (`handshake.rs`): the first report is written once
//! the limits are known and before the tool starts. Where the kernel
//! refuses the PID namespace (`pidns.rs`), the first starts `--apply`
//! itself, and the report says why the processes are not hidden.
//!
//! Exit codes: the tool's, or 128 + the signal that killed it; 126 (127 if
//! not found) when the tool could not be started; 125 when the sandbox
//! itself failed (a bad spec: one line on stderr, and the report, with
//! `spawn_error`, if the spec names where).
//!
//! What is enforced where is in docs/tools.md ("Limits and what is
//! enforced where").

mod apply;
mod handshake;
mod init;
mod loopback;
mod netns;
mod paths;
mod pidns;
mod private;
mod probe;
mod relay;
mod report;
mod restrict;
mod rlimits;
mod spec;
mod supervise;

use std::ffi::OsString;
use std::path::Path;

pub use paths::{glob_to_path, system_read_paths};
pub use probe::{kernel_support, probe};
pub use restrict::FS_ABI;
pub use rlimits::CPU_HARD_MARGIN_S;
pub use spec::{
    NetworkRule, PortForward, SANDBOX_SUBCOMMAND, SandboxExit, SandboxReport, SandboxSpec,
    SandboxSupport, SpecError,
};

/// The sandbox itself failed (a bad spec, a pipe or report it could not
/// make).
pub const EXIT_SANDBOX_FAILED: i32 = 125;
/// The tool was found but could not be started.
pub const EXIT_CANNOT_EXECUTE: i32 = 126;
/// The tool was not found.
pub const EXIT_NOT_FOUND: i32 = 127;

/// `agentgate __sandbox ARGS...` (the arguments after the subcommand):
/// `SPEC_FILE`, `--probe`, or the internal `--apply SPEC_FILE STATUS_FD
/// GO_FD`. Returns the exit code; on success `--apply` does not return (it
/// has become the tool).
pub fn sandbox_main(args: Vec<OsString>) -> i32 {
    match args.split_first() {
        Some((first, [])) if first == "--probe" => probe::probe_main(),
        Some((first, rest)) if first == "--apply" => apply::apply_main(rest),
        Some((first, rest)) if first == "--init" => init::init_main(rest),
        Some((first, [])) if first == "--probe-init" => probe::probe_init_main(),
        Some((spec, [])) if !spec.to_string_lossy().starts_with("--") => {
            supervise::supervise_main(Path::new(spec))
        }
        _ => {
            eprintln!("agentgate sandbox: usage: agentgate __sandbox SPEC_FILE | --probe");
            EXIT_SANDBOX_FAILED
        }
    }
}

/// The exit code for a tool that could not be started with `errno`.
fn exit_code_for_spawn_error(errno: i32) -> i32 {
    if errno == nix::errno::Errno::ENOENT as i32 {
        EXIT_NOT_FOUND
    } else {
        EXIT_CANNOT_EXECUTE
    }
}
