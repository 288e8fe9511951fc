//! The result of one tool run: what `agentgate tool` prints, what an MCP
//! call returns, and what the run's stored envelope carries in `tool`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::ErrorKind;
use crate::exit_code::{
    EXIT_ALL_RECOVERABLE, EXIT_CANCELLED, EXIT_FAILURE, EXIT_SUCCESS, EXIT_TIMEOUT, EXIT_USAGE,
};

/// How a tool run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ToolStatus {
    /// The tool reported a `result` with status `ok` (or exited with its
    /// `ok` code without one) and every check passed.
    #[serde(rename = "ok")]
    Ok,
    /// The tool, or the runner on its behalf, reported an error: see `code`.
    #[serde(rename = "error")]
    Error,
    /// The run was cancelled.
    #[serde(rename = "cancelled")]
    Cancelled,
    /// The tool asked for a decision (`action_required`) and stopped without
    /// a result: answer `actions` and call it again.
    #[serde(rename = "action_required")]
    ActionRequired,
}

/// The class of an error code, as the error-code registry
/// (`error_codes.yaml`) gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ToolErrorClass {
    /// The input is wrong: ask the user to fix it; do not retry.
    #[serde(rename = "user_error")]
    UserError,
    /// A transient failure: retry with backoff.
    #[serde(rename = "retryable")]
    Retryable,
    /// The environment failed (deadline, disk, limits): split the work or
    /// change the limits.
    #[serde(rename = "infra_error")]
    InfraError,
    /// A permission or policy refused it: change the policy; do not retry.
    #[serde(rename = "policy_error")]
    PolicyError,
    /// Not classified (a code the registry does not know).
    #[serde(rename = "unknown")]
    Unknown,
}

impl ToolErrorClass {
    /// The wire name, e.g. `"user_error"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::UserError => "user_error",
            Self::Retryable => "retryable",
            Self::InfraError => "infra_error",
            Self::PolicyError => "policy_error",
            Self::Unknown => "unknown",
        }
    }

    /// Every class, in declaration order.
    pub const ALL: [ToolErrorClass; 5] = [
        Self::UserError,
        Self::Retryable,
        Self::InfraError,
        Self::PolicyError,
        Self::Unknown,
    ];
}

/// What the tool's exit status means under its manifest's `exit_codes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ExitMeaning {
    /// The manifest's `ok` code.
    #[serde(rename = "ok")]
    Ok,
    /// The manifest's `retryable_error` code.
    #[serde(rename = "retryable_error")]
    RetryableError,
    /// The manifest's `fatal_error` code.
    #[serde(rename = "fatal_error")]
    FatalError,
    /// A code the manifest does not list, or death by a signal.
    #[serde(rename = "unexpected")]
    Unexpected,
}

/// How the tool process ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ToolExit {
    /// Its exit status, if it exited.
    pub code: Option<i32>,
    /// The signal that ended it (`SIGKILL`, `SIGXCPU`), if one did.
    pub signal: Option<String>,
    /// What the status means under the manifest.
    pub meaning: ExitMeaning,
}

/// How a declared artifact compared with the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum ArtifactState {
    /// The file's SHA-256 equals the declared one.
    #[serde(rename = "verified")]
    Verified,
    /// The file's SHA-256 differs from the declared one.
    #[serde(rename = "mismatch")]
    Mismatch,
    /// No file or folder at the path.
    #[serde(rename = "missing")]
    Missing,
    /// The path exists; no SHA-256 was declared (or it is a folder), so there
    /// was nothing to compare.
    #[serde(rename = "unchecked")]
    Unchecked,
}

/// One artifact of the tool's `result`, checked by the runner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ArtifactCheck {
    /// The path as the tool declared it.
    pub path: String,
    /// The file it names (a relative path resolved against the workspace).
    pub resolved: String,
    /// The declared SHA-256.
    pub sha256: Option<String>,
    /// The SHA-256 the runner computed from the file, if it is a file.
    pub actual_sha256: Option<String>,
    /// The verdict.
    pub state: ArtifactState,
}

/// Whether a limit was enforced, and how.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum EnforcementState {
    /// The kernel (or the runner) enforces the limit as stated.
    #[serde(rename = "enforced")]
    Enforced,
    /// Enforced in part (see `note`), e.g. egress ports but not hosts.
    #[serde(rename = "partial")]
    Partial,
    /// Asked for but not enforced here (see `note` for why).
    #[serde(rename = "not_enforced")]
    NotEnforced,
    /// The manifest asks for no limit of this kind.
    #[serde(rename = "none")]
    NoLimit,
}

/// One limit of a tool run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Enforcement {
    /// The limit, e.g. `60 s`, `256 MiB`, `no egress`.
    pub limit: String,
    /// Whether it held.
    pub state: EnforcementState,
    /// By what: `RLIMIT_CPU`, `Landlock ABI 7`, `network namespace`.
    pub by: Option<String>,
    /// Why it is partial or not enforced.
    pub note: Option<String>,
}

/// Every limit of a tool run, and what enforced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LimitsReport {
    /// `resources.cpu_seconds`.
    pub cpu: Enforcement,
    /// `resources.memory_mb`.
    pub memory: Enforcement,
    /// The cap on the bytes the tool may print on stdout.
    pub output: Enforcement,
    /// `permissions.filesystem` read and write paths.
    pub filesystem: Enforcement,
    /// `permissions.network.egress_allow`.
    pub network: Enforcement,
    /// agentgate's own files (its data folder, which holds the store and
    /// the API token, a token file elsewhere, the config file): never
    /// readable by the tool, whatever its read paths.
    #[serde(default = "Enforcement::not_recorded")]
    pub private_files: Enforcement,
    /// Other processes: the tool sees only its own in `/proc` (so not the
    /// environment or command line of any other).
    #[serde(default = "Enforcement::not_recorded")]
    pub processes: Enforcement,
}

impl Enforcement {
    /// The entry of a limit a report does not have (written by an
    /// agentgate from before the limit was reported).
    pub fn not_recorded() -> Enforcement {
        Enforcement {
            limit: "unknown".to_owned(),
            state: EnforcementState::NotEnforced,
            by: None,
            note: Some("not recorded (the run is older than this entry)".to_owned()),
        }
    }
}

/// A decision the tool asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ActionRequest {
    /// The decision, e.g. `choose_migration_strategy`.
    pub action: String,
    /// What the tool said about it.
    pub context: Option<Value>,
}

/// The result of one tool run.
///
/// Every field is always present, `null` (or empty) when not known or not
/// applicable, so the shape is stable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ToolEnvelope {
    /// The run's id, as in its events and the store.
    pub run_id: String,
    /// The tool's name.
    pub tool: String,
    /// The tool's version, from its manifest.
    pub version: String,
    /// How it ended.
    pub status: ToolStatus,
    /// The error code: the tool's own (`E_INPUT_NOT_FOUND`) or the runner's
    /// (`E_TIMEOUT`, `E_HEARTBEAT_MISSED`, `E_CPU_LIMIT`, …); `null` on `ok`.
    pub code: Option<String>,
    /// The code's class from the error-code registry; `null` on `ok`.
    pub class: Option<ToolErrorClass>,
    /// Whether the same call may succeed if retried (the registry's word for
    /// the code; `false` for codes it does not know).
    pub retryable: bool,
    /// What went wrong, for humans; `null` on `ok`.
    pub error: Option<String>,
    /// What to do about it, from the tool.
    pub hint: Option<String>,
    /// The artifacts of the tool's `result`, each checked against its file.
    pub artifacts: Vec<ArtifactCheck>,
    /// The metrics of the tool's `result`.
    pub metrics: Map<String, Value>,
    /// The decisions the tool asked for, in order.
    pub actions: Vec<ActionRequest>,
    /// How the tool process ended; `null` if it never started.
    pub tool_exit: Option<ToolExit>,
    /// The exit status of `agentgate tool` for this result (see
    /// [`ToolEnvelope::exit_status_for`]).
    pub exit_code: i32,
    /// Wall-clock duration, in milliseconds.
    pub duration_ms: u64,
    /// CPU time the tool (and its children) used, in milliseconds.
    pub cpu_ms: Option<u64>,
    /// Peak resident memory of the tool's largest process, in KiB.
    pub max_rss_kib: Option<u64>,
    /// The limits and what enforced each; `null` if the tool never started.
    pub limits: Option<LimitsReport>,
    /// The run's workspace (`WORKSPACE`).
    pub workspace: Option<String>,
    /// The agent run that called the tool (through MCP), if any.
    pub parent_run_id: Option<String>,
    /// The earlier run whose workspace (and checkpoints) this run continued.
    pub resumed_from: Option<String>,
    /// The last lines of the tool's stderr (bounded); `null` if it wrote none.
    pub stderr_tail: Option<String>,
    /// Things the runner noticed that did not change the status: an exit
    /// code the manifest does not list, output after the result, a protocol
    /// version other than 1.
    pub warnings: Vec<String>,
}

impl ToolEnvelope {
    /// The exit status of `agentgate tool` for a run that ended with
    /// `status`, error `code` of `class`, and `retryable`:
    ///
    /// | result | code |
    /// |---|---|
    /// | `ok`, `action_required` | 0 |
    /// | class `policy_error` (refused before it started) | 2 |
    /// | `cancelled` | 130 |
    /// | `E_TIMEOUT`, `E_HEARTBEAT_MISSED` | 124 |
    /// | retryable | 75 |
    /// | any other error | 1 |
    pub fn exit_status_for(
        status: ToolStatus,
        code: Option<&str>,
        class: Option<ToolErrorClass>,
        retryable: bool,
    ) -> i32 {
        match status {
            ToolStatus::Ok | ToolStatus::ActionRequired => EXIT_SUCCESS,
            ToolStatus::Cancelled => EXIT_CANCELLED,
            ToolStatus::Error => {
                if class == Some(ToolErrorClass::PolicyError) && code == Some(CODE_POLICY) {
                    EXIT_USAGE
                } else if matches!(code, Some(CODE_TIMEOUT | CODE_HEARTBEAT_MISSED)) {
                    EXIT_TIMEOUT
                } else if retryable {
                    EXIT_ALL_RECOVERABLE
                } else {
                    EXIT_FAILURE
                }
            }
        }
    }

    /// The [`ErrorKind`] a stored agent-style envelope gives this result:
    /// `None` on `ok` and `action_required`; `cancelled`; `timeout` for
    /// `E_TIMEOUT`; `idle_timeout` for `E_HEARTBEAT_MISSED`; `policy` for a
    /// policy refusal; `tool_error` for every other error.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        match self.status {
            ToolStatus::Ok | ToolStatus::ActionRequired => None,
            ToolStatus::Cancelled => Some(ErrorKind::Cancelled),
            ToolStatus::Error => Some(match self.code.as_deref() {
                Some(CODE_TIMEOUT) => ErrorKind::Timeout,
                Some(CODE_HEARTBEAT_MISSED) => ErrorKind::IdleTimeout,
                _ if self.class == Some(ToolErrorClass::PolicyError) => ErrorKind::Policy,
                _ => ErrorKind::ToolError,
            }),
        }
    }
}

/// The runner's code: the wall-clock deadline passed.
pub const CODE_TIMEOUT: &str = "E_TIMEOUT";
/// The runner's code: no `progress` or `heartbeat` within the heartbeat time.
pub const CODE_HEARTBEAT_MISSED: &str = "E_HEARTBEAT_MISSED";
/// The runner's code: the policy refused the tool before it started.
pub const CODE_POLICY: &str = "E_POLICY";
