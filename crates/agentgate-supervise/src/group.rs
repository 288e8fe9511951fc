use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

use super::keeper::SWEEP_SIGNAL;

/// The process group of a supervised run, captured when the leader was
/// spawned with `process_group(0)` (so the group id is the leader's pid).
///
/// Signalling goes to the whole group, or to its leader (the keeper, which
/// then ends the rest); there is deliberately no way to signal another pid.
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

    /// Sends `signal` to the leader only (the keeper). Same validity rule as
    /// [`signal`](Self::signal): the leader must be unreaped.
    pub(crate) fn signal_leader(self, signal: Signal) -> Result<(), Errno> {
        match nix::sys::signal::kill(self.0, signal) {
            Ok(()) | Err(Errno::ESRCH) => Ok(()),
            Err(e) => Err(e),
        }
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
/// group dies with it instead of running on unsupervised. With a keeper, the
/// keeper is asked to do it (it also reaches processes that left the group).
#[derive(Debug)]
pub(crate) struct KillOnDrop {
    group: ProcessGroup,
    keeper: bool,
    armed: bool,
}

impl KillOnDrop {
    pub(crate) fn new(group: ProcessGroup, keeper: bool) -> Self {
        KillOnDrop {
            group,
            keeper,
            armed: true,
        }
    }

    /// Called once the leader is reaped: from then on its id may be reused.
    pub(crate) fn disarm(&mut self) {
        self.armed = false;
    }
}

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        if !self.armed {
            return;
        }
        let sent = if self.keeper {
            self.group.signal_leader(SWEEP_SIGNAL)
        } else {
            self.group.signal(Signal::SIGKILL)
        };
        if let Err(e) = sent {
            tracing::warn!(
                pgid = self.group.id(),
                "failed to kill the abandoned process group: {e}"
            );
        }
    }
}
