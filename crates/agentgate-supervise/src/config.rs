use std::path::PathBuf;
use std::time::Duration;

use super::deadline::{DeadlinePolicy, NoticeSender};
use super::warm::WarmKeeper;

/// How [`supervise`](super::supervise) bounds and ends a run.
///
/// The defaults: no wall-clock or idle timeout, the default
/// [`TerminationTable`] (2 s after SIGINT, 3 s after SIGTERM), 5 s of
/// `result_grace`, 2 s of `drain_timeout`, no keeper.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SupervisorConfig {
    /// Wall-clock limit from spawn; past it the run is terminated and ends as
    /// [`EndReason::Timeout`](super::EndReason::Timeout).
    pub timeout: Option<Duration>,
    /// Warnings before `timeout`'s deadline and its extension while the
    /// CLI prints (ignored without `timeout`).
    pub deadline: DeadlinePolicy,
    /// Where the deadline's warnings and extensions are sent, as they
    /// happen (`None`: not sent; an extension still happens).
    pub deadline_notices: Option<NoticeSender>,
    /// Limit on silence: reset by every byte on stdout or stderr and by
    /// [`Control::Activity`](super::Control::Activity); past it the run is
    /// terminated and ends as
    /// [`EndReason::IdleTimeout`](super::EndReason::IdleTimeout).
    pub idle_timeout: Option<Duration>,
    /// The signals and graces used to end the group.
    pub grace: TerminationTable,
    /// After [`Control::ResultSeen`](super::Control::ResultSeen), how long
    /// the CLI may take to exit before it is terminated (the run still
    /// counts as completed: "result-then-hang").
    pub result_grace: Duration,
    /// After the group leader exits, how long stdout and stderr are still
    /// read. A process that left the group (e.g. a daemonized grandchild) and
    /// still holds a pipe open past this is reported as
    /// [`ExitReport::output_leaked`](super::ExitReport::output_leaked)
    /// instead of hanging the run.
    pub drain_timeout: Duration,
    /// The `agentgate` executable (or any program whose `__keeper`
    /// subcommand calls [`keeper_main`](super::keeper_main)). When set, the
    /// group leader is a keeper that runs the CLI and ends the group if
    /// agentgate dies, even by SIGKILL. When `None`, agentgate's death
    /// orphans the CLI unless the caller arranges something else.
    pub keeper: Option<PathBuf>,
    /// A keeper already started (see [`WarmKeeper`]): used instead of
    /// starting `keeper` when it runs the same program and is still
    /// waiting. Ignored without `keeper`.
    pub warm_keeper: Option<WarmKeeper>,
    /// Set to the process group's id (its leader's pid: the keeper, or
    /// the CLI without one) once it is spawned, for a caller that names
    /// or watches the process while it runs (a warm session's).
    pub spawned: Option<std::sync::Arc<std::sync::OnceLock<u32>>>,
}

impl Default for SupervisorConfig {
    fn default() -> Self {
        SupervisorConfig {
            timeout: None,
            deadline: DeadlinePolicy::default(),
            deadline_notices: None,
            idle_timeout: None,
            grace: TerminationTable::default(),
            result_grace: Duration::from_secs(5),
            drain_timeout: Duration::from_secs(2),
            keeper: None,
            warm_keeper: None,
            spawned: None,
        }
    }
}

/// The termination table: SIGINT to the whole group, wait `interrupt_grace`,
/// SIGTERM to the group, wait `terminate_grace`, SIGKILL to the group.
///
/// The defaults (2 s, 3 s) give a CLI time to save its session on SIGINT as
/// it would on Ctrl-C in a terminal. A zero grace moves to the next signal at
/// once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TerminationTable {
    /// Wait after SIGINT before SIGTERM.
    pub interrupt_grace: Duration,
    /// Wait after SIGTERM before SIGKILL.
    pub terminate_grace: Duration,
}

impl Default for TerminationTable {
    fn default() -> Self {
        TerminationTable {
            interrupt_grace: Duration::from_secs(2),
            terminate_grace: Duration::from_secs(3),
        }
    }
}
