//! How a plan is run (what is not planned per step), and how a run ended.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_protocol::Envelope;
use agentgate_store::StoreError;

use agentgate_supervise::WarmKeeper;

/// How the runner executes a plan.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// Emit a heartbeat event after this much silence.
    pub heartbeat: Duration,
    /// The keeper executable (the agentgate binary): with it, the CLI dies
    /// with agentgate even on SIGKILL.
    pub keeper: Option<PathBuf>,
    /// A keeper started ahead of the run, taken by its first attempt (see
    /// [`WarmKeeper`]); later attempts start their own.
    pub warm_keeper: Option<WarmKeeper>,
    /// How long a CLI that printed its result may take to exit.
    pub result_grace: Duration,
    /// The run's id, chosen by the caller (a server's job id, so the job's
    /// record, folder and events share it); `None`: a new one
    /// ([`super::new_run_id`]). It must be a valid run id
    /// ([`agentgate_store::validate_run_id`]) not used before, or the run is
    /// not recorded.
    pub run_id: Option<String>,
    /// How to start agentgate's MCP server for steps with registry tools
    /// (`--tools`, an agent's `tools:`); without it such a step fails
    /// with `invalid_input` before its CLI starts.
    pub tool_server: Option<super::ToolServer>,
    /// The run that started this one (a workflow), recorded as the run's
    /// `parent_run_id`.
    pub parent_run_id: Option<String>,
    /// The holder of warm sessions: with it, a run with a `--session`
    /// sends its turn to the session's living process (`--warm`).
    pub warm: Option<crate::warm::sessions::WarmSessions>,
    /// Where people answer `ask` decisions of the approval policy (a
    /// server's route); without it an `ask` is refused at once.
    pub approval_desk: Option<crate::warm::desk::ApprovalDesk>,
    /// The caller writes the run's final record itself (a server's
    /// executor writes it with its job's end, in one transaction:
    /// `JobQueue::settle`), retrying until it lands. The engine still
    /// keeps the result in the run's folder (`result.json`) and makes the
    /// run's events readable before it returns.
    pub caller_records_end: bool,
    /// More files of agentgate's own that a sandboxed CLI may not read,
    /// beside its data folder and config (`--sandbox`): a server's token
    /// file and the queue's key file, wherever they are.
    pub hidden: Vec<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            heartbeat: Duration::from_secs(15),
            keeper: None,
            warm_keeper: None,
            result_grace: Duration::from_secs(5),
            run_id: None,
            tool_server: None,
            parent_run_id: None,
            warm: None,
            approval_desk: None,
            caller_records_end: false,
            hidden: Vec::new(),
        }
    }
}

/// How the run ended.
#[derive(Debug, Clone, Default)]
pub struct RunOutcome {
    /// The result envelope (also the last event's payload).
    pub envelope: Envelope,
    /// The exit code for `agentgate run`.
    pub exit_code: i32,
    /// The first write to the store that failed (the run's start, an
    /// attempt, its events, its end): the run went on, and the store holds
    /// less of it than it should. `None` when every write landed, or
    /// without a store.
    pub store_error: Option<Arc<StoreError>>,
    /// Where the result was kept beside the run (`result.json` in its
    /// folder), if it could be.
    pub result_file: Option<PathBuf>,
}

/// A cancel request from the caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CancelRequest {
    /// Kill at once (a second Ctrl-C) rather than run the termination table.
    pub immediate: bool,
}

/// What every step and attempt of one run shares.
#[derive(Clone, Copy)]
pub(super) struct RunContext<'a> {
    pub plan: &'a crate::plan::Plan,
    pub options: &'a RunOptions,
    pub store: Option<&'a dyn agentgate_store::RunStore>,
    /// Where a CLI's files go (the run's folder in the store, else a folder
    /// of the run's own, made only if a provider writes a file).
    pub scratch: &'a agentgate_providers::Scratch,
}
