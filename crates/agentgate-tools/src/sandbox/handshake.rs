//! The two pipes between the sandbox and the process that becomes the tool
//! (see the module doc of `sandbox`).
//!
//! The status pipe (that process → the sandbox) carries one JSON line,
//! [`Prepared`], once the limits are applied, then, only if the tool could
//! not be started, a [`RECORD_LEN`]-byte record: what failed
//! ([`FAILED_RLIMITS`] or [`FAILED_EXEC`]) and the errno, little-endian. It
//! is close-on-exec in that process, so end of file without a record means
//! the `exec` succeeded. When the tool runs in a PID namespace, its pid 1
//! (`init.rs`) holds the pipe too and, once the tool has ended, writes one
//! more record: how it ended ([`TOOL_EXITED`] with the status, or
//! [`TOOL_KILLED`] with the signal), which pid 1 cannot pass on by its own
//! end. The go pipe (the sandbox → that process) carries one byte once the
//! first report is written; end of file without it means "do not start".
//!
//! The pipes cross `exec` of `agentgate __sandbox --apply` as inherited
//! descriptors named by number; that process reopens each through
//! `/proc/self/fd` (the new descriptors are close-on-exec) and closes the
//! inherited ones, so the tool gets neither.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, RawFd};

use agentgate_protocol::Enforcement;
use nix::fcntl::{FcntlArg, FdFlag, fcntl};
use serde::{Deserialize, Serialize};

/// What was applied, sent before the tool starts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Prepared {
    pub(crate) cpu: Enforcement,
    pub(crate) memory: Enforcement,
    pub(crate) filesystem: Enforcement,
    pub(crate) network: Enforcement,
    pub(crate) private_files: Enforcement,
    pub(crate) processes: Enforcement,
    pub(crate) warnings: Vec<String>,
}

/// What the sandbox tells the process that becomes the tool of the
/// isolation made before it (an argument of `--apply`, JSON).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Isolation {
    /// The `processes` entry of the report.
    pub(crate) processes: Enforcement,
    /// The network namespace pid 1 made (`None`: none was tried, the
    /// process makes its own when `network` asks for none).
    pub(crate) netns: Option<Result<(), String>>,
    /// Notes for the run's warnings.
    pub(crate) warnings: Vec<String>,
}

/// Setting the rlimits failed.
pub(crate) const FAILED_RLIMITS: u8 = 1;
/// `exec` of the tool failed.
pub(crate) const FAILED_EXEC: u8 = 2;
/// The tool exited with the status in the record (from pid 1).
pub(crate) const TOOL_EXITED: u8 = 3;
/// A signal, in the record, ended the tool (from pid 1).
pub(crate) const TOOL_KILLED: u8 = 4;
/// The length of a record.
pub(crate) const RECORD_LEN: usize = 5;

/// A record, built without allocating (a failure is sent after
/// `RLIMIT_AS` is set).
pub(crate) fn record(what: u8, value: i32) -> [u8; RECORD_LEN] {
    let e = value.to_le_bytes();
    [what, e[0], e[1], e[2], e[3]]
}

/// What the records after [`Prepared`] say.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Records {
    /// The tool could not be started: what failed, and the errno.
    pub(crate) failure: Option<(u8, i32)>,
    /// How the tool ended, from pid 1: `(Some(status), None)` or
    /// `(None, Some(signal))`.
    pub(crate) ended: Option<(Option<i32>, Option<i32>)>,
}

/// Decode the records (a trailing fragment is ignored).
pub(crate) fn parse_records(bytes: &[u8]) -> Records {
    let mut records = Records::default();
    for chunk in bytes.chunks_exact(RECORD_LEN) {
        let &[what, a, b, c, d] = chunk else {
            continue;
        };
        let value = i32::from_le_bytes([a, b, c, d]);
        match what {
            FAILED_RLIMITS | FAILED_EXEC if records.failure.is_none() => {
                records.failure = Some((what, value));
            }
            TOOL_EXITED => records.ended = Some((Some(value), None)),
            TOOL_KILLED => records.ended = Some((None, Some(value))),
            _ => {}
        }
    }
    records
}

/// Let `fd` be inherited across `exec` (std opens everything close-on-exec).
pub(crate) fn inherit_across_exec(fd: impl AsFd) -> nix::Result<()> {
    fcntl(fd, FcntlArg::F_SETFD(FdFlag::empty())).map(drop)
}

/// Reopen the inherited descriptor `fd` (a pipe end) as a close-on-exec
/// file, and close the inherited one.
pub(crate) fn reopen_inherited(fd: RawFd, write: bool) -> std::io::Result<File> {
    let file = std::fs::OpenOptions::new()
        .read(!write)
        .write(write)
        .open(format!("/proc/self/fd/{fd}"))?;
    nix::unistd::close(fd).map_err(std::io::Error::from)?;
    Ok(file)
}

/// Send [`Prepared`] as one line.
pub(crate) fn send_prepared(status: &mut File, prepared: &Prepared) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(prepared).map_err(std::io::Error::other)?;
    line.push(b'\n');
    status.write_all(&line)
}

/// Wait for the go byte; `false` on end of file.
pub(crate) fn wait_for_go(go: &mut File) -> bool {
    let mut byte = [0u8; 1];
    matches!(go.read(&mut byte), Ok(1))
}
