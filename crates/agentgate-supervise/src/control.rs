/// A message to a running [`supervise`](super::supervise) call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// Stop the run. `immediate: false` runs the termination table (SIGINT,
    /// grace, SIGTERM, grace, SIGKILL); `immediate: true` (a second Ctrl-C)
    /// sends SIGKILL to the whole group now, also in the middle of the table.
    Cancel {
        /// Skip the graces: SIGKILL now.
        immediate: bool,
    },
    /// The decoder saw the CLI's final result. If the CLI has not exited
    /// within [`result_grace`](super::SupervisorConfig::result_grace), it is
    /// terminated and the run ends as
    /// [`EndReason::ResultThenHang`](super::EndReason::ResultThenHang). From
    /// here on the wall-clock and idle timeouts no longer apply.
    ResultSeen,
    /// The run is alive although the CLI printed nothing (e.g. a heartbeat
    /// seen elsewhere): resets the idle watchdog like a byte of output does.
    Activity,
}
