//! The two pipes between the sandbox and the process that becomes the tool
//! (see the module doc of `sandbox`).
//!
//! The status pipe (that process → the sandbox) carries one JSON line,
//! [`Prepared`], once the limits are applied, then, only if the tool could
//! not be started, a [`FAILURE_LEN`]-byte record: what failed
//! ([`FAILED_RLIMITS`] or [`FAILED_EXEC`]) and the errno, little-endian. It
//! is close-on-exec in that process, so end of file without a record means
//! the `exec` succeeded. The go pipe (the sandbox → that process) carries
//! one byte once the first report is written; end of file without it means
//! "do not start".
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
}

/// Setting the rlimits failed.
pub(crate) const FAILED_RLIMITS: u8 = 1;
/// `exec` of the tool failed.
pub(crate) const FAILED_EXEC: u8 = 2;
/// The length of a failure record.
pub(crate) const FAILURE_LEN: usize = 5;

/// A failure record, built without allocating (it is sent after
/// `RLIMIT_AS` is set).
pub(crate) fn failure_record(what: u8, errno: i32) -> [u8; FAILURE_LEN] {
    let e = errno.to_le_bytes();
    [what, e[0], e[1], e[2], e[3]]
}

/// Decode a failure record.
pub(crate) fn parse_failure(bytes: &[u8]) -> Option<(u8, i32)> {
    match bytes {
        [what, a, b, c, d] => Some((*what, i32::from_le_bytes([*a, *b, *c, *d]))),
        _ => None,
    }
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
