//! One tool run: policy verdict, workspace, scoped environment, the sandbox
//! under the supervisor, the heartbeat watchdog, cancellation, the output
//! cap, artifact checks, exit-code mapping, the store, the envelope.
//!
//! [`run_tool`] is the entry point; `AGENTS.md` in this crate explains the
//! order of decisions (which cause wins when several happen).

mod artifacts;
mod copy_in;
mod emit;
mod prepare;
mod private;
mod request;
mod run;
mod verdict;
mod watch;

pub use prepare::{ENV_ALLOWLIST, SeedVars, scoped_env};
pub use private::private_paths;
pub use request::{
    ClassifyCode, DEFAULT_CANCEL_GRACE, DEFAULT_HEARTBEAT, DEFAULT_MAX_OUTPUT_BYTES,
    DEFAULT_TIMEOUT, RunLimits, RunnerSetup, ToolObserver, ToolRunError, ToolRunRequest,
    ToolTarget,
};
pub use run::{run_tool, workspace_of};

/// The class and retryable flag of one of the runner's own codes (see
/// [`crate::error_codes::RUNNER_CODES`]); `None` for any other code.
pub fn runner_code_class(code: &str) -> Option<(agentgate_protocol::ToolErrorClass, bool)> {
    crate::error_codes::runner_code(code).map(|m| (m.class, m.retryable))
}
