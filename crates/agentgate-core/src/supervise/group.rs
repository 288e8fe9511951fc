use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// The process group of a supervised run, captured when the leader was
/// spawned with `process_group(0)` (so the group id is the leader's pid).
///
/// Signalling goes to the whole group; there is deliberately no way to
/// signal a single pid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ProcessGroup(Pid);

impl ProcessGroup {
    /// The group led by a process spawned with `process_group(0)`.
    pub(crate) fn led_by(leader_pid: u32) -> Option<Self> {
        let raw = i32::try_from(leader_pid).ok().filter(|p| *p > 1)?;
        Some(ProcessGroup(Pid::from_raw(raw)))
    }

    /// The group id.
    pub(crate) fn id(self) -> u32 {
        self.0.as_raw().unsigned_abs()
    }

    /// Sends `signal` to every process of the group. A group that no longer
    /// exists is not an error.
    ///
    /// Only valid while the leader is unreaped or some member is alive:
    /// otherwise the id may name someone else's group.
    pub(crate) fn signal(self, signal: Signal) -> Result<(), Errno> {
        match killpg(self.0, signal) {
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// SIGKILLs the group when dropped while armed: if the future running a
/// supervised process is dropped (its caller was cancelled), the process
/// group dies with it instead of running on unsupervised.
#[derive(Debug)]
pub(crate) struct KillOnDrop {
    group: ProcessGroup,
    armed: bool,
}

impl KillOnDrop {
    pub(crate) fn new(group: ProcessGroup) -> Self {
        KillOnDrop { group, armed: true }
    }

    /// Called once the leader is reaped: from then on its id may be reused.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if self.armed
            && let Err(e) = self.group.signal(Signal::SIGKILL)
        {
            tracing::warn!(
                pgid = self.group.id(),
                "failed to kill the abandoned process group: {e}"
            );
        }
    }
}
