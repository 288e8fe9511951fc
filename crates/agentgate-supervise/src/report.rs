use std::process::ExitStatus;
use std::time::Duration;

/// How a supervised run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitReport {
    /// The exit status of the group leader (with a keeper, the keeper mirrors
    /// the CLI's status: same code, or the same terminating signal).
    pub status: ExitStatusInfo,
    /// Why the run ended.
    pub ended_by: EndReason,
    /// The signals the termination table sent to the group, in order. The
    /// SIGKILL that always sweeps the group after the leader exits is not
    /// listed.
    pub signals_sent: Vec<SignalSent>,
    /// stdout or stderr was still open [`drain_timeout`] after the leader
    /// exited: a process outside the group holds it. Reading stopped there.
    ///
    /// [`drain_timeout`]: super::SupervisorConfig::drain_timeout
    pub output_leaked: bool,
    /// Processes of the run that were still alive when it ended although
    /// they were sent SIGKILL (e.g. stuck in uninterruptible I/O). Found by
    /// the keeper, which sees every descendant of the CLI (see
    /// [`SupervisorConfig::keeper`](super::SupervisorConfig::keeper)); empty
    /// without a keeper.
    pub survivors: Vec<Survivor>,
    /// The process group id (the leader's pid), for logs.
    pub pgid: u32,
    /// From spawn to the end of the drain.
    pub duration: Duration,
}

/// A process's exit status, without the platform type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitStatusInfo {
    /// The exit code, when the process exited.
    pub code: Option<i32>,
    /// The signal number, when a signal terminated the process.
    pub signal: Option<i32>,
}

impl ExitStatusInfo {
    /// The process exited with code 0.
    pub fn success(&self) -> bool {
        self.code == Some(0)
    }
}

impl From<ExitStatus> for ExitStatusInfo {
    fn from(status: ExitStatus) -> Self {
        use std::os::unix::process::ExitStatusExt as _;
        ExitStatusInfo {
            code: status.code(),
            signal: status.signal(),
        }
    }
}

/// Why a supervised run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// The process exited by itself.
    Exited,
    /// The wall-clock timeout expired.
    Timeout,
    /// No output (and no [`Control::Activity`](super::Control::Activity))
    /// for the idle timeout.
    IdleTimeout,
    /// [`Control::Cancel`](super::Control::Cancel) was received.
    Cancelled,
    /// The CLI printed its result and did not exit within the result grace;
    /// the run counts as completed.
    ResultThenHang,
}

impl EndReason {
    /// A stable lowercase name, for logs.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Exited => "exited",
            EndReason::Timeout => "timeout",
            EndReason::IdleTimeout => "idle_timeout",
            EndReason::Cancelled => "cancelled",
            EndReason::ResultThenHang => "result_then_hang",
        }
    }
}

/// One signal sent to the group by the termination table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignalSent {
    /// Its name, e.g. `"SIGTERM"`.
    pub signal: &'static str,
    /// Time from spawn to sending it.
    pub elapsed: Duration,
}

/// A process of the run that could not be ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Survivor {
    /// Its pid.
    pub pid: u32,
    /// Its command line (arguments joined by spaces), or its name.
    pub command: String,
}
