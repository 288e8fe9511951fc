//! One tool run: policy verdict, workspace, scoped environment, the sandbox
//! under the supervisor, the heartbeat watchdog, cancellation, the output
//! cap, artifact checks, exit-code mapping, the store, the envelope.
//!
//! [`run_tool`] is the entry point; `AGENTS.md` in this crate explains the
//! order of decisions (which cause wins when several happen).

mod artifacts;
mod emit;
mod prepare;
mod request;
mod run;
mod verdict;
mod watch;

pub use request::{
    ClassifyCode, DEFAULT_CANCEL_GRACE, DEFAULT_HEARTBEAT, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT,
    RunLimits,
    RunnerSetup, ToolRunError, ToolRunRequest, ToolTarget,
};
pub use run::{ToolObserver, run_tool};

/// The runner's own error codes (the tool's codes come from the error-code
/// registry). Their class and retryable flag are fixed: see
/// [`runner_code_class`].
pub mod codes {
    pub use agentgate_protocol::{CODE_HEARTBEAT_MISSED, CODE_POLICY, CODE_TIMEOUT};
    /// The tool used more CPU seconds than its limit (`RLIMIT_CPU`).
    pub const CPU_LIMIT: &str = "E_CPU_LIMIT";
    /// The tool failed after an allocation was refused under its memory limit.
    pub const MEMORY_LIMIT: &str = "E_MEMORY_LIMIT";
    /// The tool printed more than its output cap on stdout.
    pub const OUTPUT_LIMIT: &str = "E_OUTPUT_LIMIT";
    /// A declared artifact's SHA-256 differs from the file's.
    pub const ARTIFACT_MISMATCH: &str = "E_ARTIFACT_MISMATCH";
    /// A declared artifact does not exist.
    pub const ARTIFACT_MISSING: &str = "E_ARTIFACT_MISSING";
    /// The tool exited with a status its manifest does not list (or died by
    /// a signal), without reporting an error.
    pub const EXIT_UNEXPECTED: &str = "E_EXIT_UNEXPECTED";
    /// The tool exited with its manifest's `retryable_error` status without
    /// reporting an error.
    pub const EXIT_RETRYABLE: &str = "E_EXIT_RETRYABLE";
    /// The tool exited with its manifest's `fatal_error` status without
    /// reporting an error.
    pub const EXIT_FATAL: &str = "E_EXIT_FATAL";
    /// A variable of the manifest's `env.require` is not set.
    pub const ENV_MISSING: &str = "E_ENV_MISSING";
    /// The tool could not be started.
    pub const SPAWN: &str = "E_SPAWN";
    /// The tool failed after the sandbox refused one of its file accesses or
    /// connections (the seed's code for a permission refusal).
    pub const PERMISSION: &str = "E_PERMISSION";
    /// The tool's `result` has a status other than `ok`.
    pub const RESULT_NOT_OK: &str = "E_RESULT_NOT_OK";
}

/// The class and retryable flag of one of the runner's own codes; `None`
/// for any other code.
pub fn runner_code_class(code: &str) -> Option<(agentgate_protocol::ToolErrorClass, bool)> {
    use agentgate_protocol::ToolErrorClass::{
        InfraError, PolicyError, Retryable, Unknown, UserError,
    };
    Some(match code {
        codes::CODE_TIMEOUT => (InfraError, false),
        codes::CODE_HEARTBEAT_MISSED => (InfraError, true),
        codes::CODE_POLICY => (PolicyError, false),
        codes::CPU_LIMIT | codes::MEMORY_LIMIT | codes::OUTPUT_LIMIT => (InfraError, false),
        codes::ARTIFACT_MISMATCH | codes::ARTIFACT_MISSING => (InfraError, false),
        codes::EXIT_UNEXPECTED | codes::EXIT_FATAL | codes::RESULT_NOT_OK => (Unknown, false),
        codes::EXIT_RETRYABLE => (Retryable, true),
        codes::ENV_MISSING => (UserError, false),
        codes::PERMISSION => (PolicyError, false),
        codes::SPAWN => (InfraError, false),
        _ => return None,
    })
}
