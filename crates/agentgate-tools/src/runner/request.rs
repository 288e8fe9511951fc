//! What a tool run is asked to do, and with which limits.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use agentgate_protocol::{Event, ToolErrorClass};
use agentgate_store::StoreError;

use crate::manifest::Manifest;

/// The deadline of a run when neither the caller nor the manifest sets one
/// (the policy's default, as the seed's runner: 1800 s).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(crate::policy::DEFAULT_RUN_S);
/// The heartbeat time when the manifest sets none (the policy's default, as
/// the seed's runner: 90 s).
pub const DEFAULT_HEARTBEAT: Duration = Duration::from_secs(crate::policy::DEFAULT_HEARTBEAT_S);
/// How long a cancelled tool has, after `CANCEL_FILE` appears, to stop by
/// itself before the termination table starts.
pub const DEFAULT_CANCEL_GRACE: Duration = Duration::from_secs(10);
/// The stdout cap when the manifest sets none: 64 MiB.
pub const DEFAULT_MAX_OUTPUT_BYTES: u64 = 64 * 1024 * 1024;

/// The tool to run, resolved: its manifest, its folder and its program.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolTarget {
    /// The manifest.
    pub manifest: Manifest,
    /// `tools/<name>/`: where `entry` is found.
    pub tool_dir: PathBuf,
    /// The program, absolute.
    pub entry: PathBuf,
}

/// The limits of one run, after the policy (see `crate::policy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunLimits {
    /// The wall-clock deadline.
    pub timeout: Duration,
    /// No `progress` or `heartbeat` for this long ends the run with
    /// `E_HEARTBEAT_MISSED`; `None`: no watchdog.
    pub heartbeat: Option<Duration>,
    /// After a cancel, how long the tool has to stop by itself.
    pub cancel_grace: Duration,
    /// `RLIMIT_CPU`, seconds.
    pub cpu_seconds: Option<u64>,
    /// `RLIMIT_AS`, MiB.
    pub memory_mb: Option<u64>,
    /// The most the tool may print on stdout.
    pub max_output_bytes: u64,
}

impl RunLimits {
    /// The manifest's limits, with the defaults where it sets none.
    pub fn from_manifest(manifest: &Manifest) -> Self {
        let mib = |n: u64| n.saturating_mul(1024 * 1024);
        Self {
            timeout: manifest
                .timeouts
                .run_s
                .map_or(DEFAULT_TIMEOUT, Duration::from_secs),
            heartbeat: Some(
                manifest
                    .timeouts
                    .heartbeat_s
                    .map_or(DEFAULT_HEARTBEAT, Duration::from_secs),
            ),
            cancel_grace: DEFAULT_CANCEL_GRACE,
            cpu_seconds: manifest.resources.cpu_seconds,
            memory_mb: manifest.resources.memory_mb,
            max_output_bytes: manifest
                .resources
                .max_output_mb
                .map_or(DEFAULT_MAX_OUTPUT_BYTES, mib),
        }
    }
}

/// Classifies an error code the tool reported: its class and whether a
/// retry may help, as the error-code registry lists it; `None` for a code
/// the registry does not list (the verdict then asks the manifest's exit
/// codes, then the tool's own `retryable`).
pub type ClassifyCode = Arc<dyn Fn(&str) -> Option<(ToolErrorClass, bool)> + Send + Sync>;

/// One tool run.
#[derive(Clone)]
pub struct ToolRunRequest {
    /// What to run.
    pub target: ToolTarget,
    /// The tool's arguments.
    pub args: Vec<String>,
    /// Its limits.
    pub limits: RunLimits,
    /// The policy's refusal, if it refused: the run is recorded as refused
    /// and nothing starts.
    pub refusal: Option<String>,
    /// The run's id, chosen by the caller (a workflow names its step's run
    /// before it starts); `None`: a new one. It must be a valid run id not
    /// used before.
    pub run_id: Option<String>,
    /// The run that asked for this one (an agent run through MCP, a
    /// workflow).
    pub parent_run_id: Option<String>,
    /// The run's labels, recorded with it (a workflow step's run: the
    /// workflow's labels).
    pub labels: agentgate_protocol::Labels,
    /// An earlier run of the same tool whose workspace (with its
    /// checkpoints) this run continues in.
    pub resume_from: Option<String>,
    /// `TRACE_ID`; a fresh one when `None`.
    pub trace_id: Option<String>,
    /// Bytes for the tool's stdin; `/dev/null` when `None`.
    pub stdin: Option<Vec<u8>>,
    /// Files and folders copied into the workspace before the tool starts,
    /// each under its own name (the tool's inputs). Each must resolve into
    /// `copy_in_base` or one of the tool's read paths (see `copy_in.rs`).
    pub copy_in: Vec<PathBuf>,
    /// The folder relative `copy_in` paths are relative to, and that they
    /// may come from (a workflow's folder; the working folder of `agentgate
    /// tool`); `None`: only the tool's own read paths.
    pub copy_in_base: Option<PathBuf>,
    /// The environment the scoped environment is taken from (usually the
    /// caller's own).
    pub caller_env: Vec<(String, String)>,
    /// The error-code registry.
    pub classify: ClassifyCode,
}

impl std::fmt::Debug for ToolRunRequest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRunRequest")
            .field("tool", &self.target.manifest.name)
            .field("args", &self.args)
            .field("limits", &self.limits)
            .field("refusal", &self.refusal)
            .field("parent_run_id", &self.parent_run_id)
            .field("resume_from", &self.resume_from)
            .finish_non_exhaustive()
    }
}

/// How this process runs tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunnerSetup {
    /// The `agentgate` binary: it is started as `agentgate __sandbox SPEC`.
    pub sandbox_program: PathBuf,
    /// The keeper put in front of it (see `agentgate_supervise`).
    pub keeper: Option<PathBuf>,
    /// agentgate's own files and folders no tool may read, whatever its
    /// read paths: the data folder (the default store, the API token), a
    /// token file given elsewhere, the config file. The run adds the folder
    /// of the store it records in. See [`crate::runner::private_paths`].
    pub private_paths: Vec<PathBuf>,
}

/// A tool run that could not be recorded or prepared (nothing started).
#[derive(Debug, thiserror::Error)]
pub enum ToolRunError {
    /// The store refused the run or its files.
    #[error("cannot record the tool run: {0}")]
    Store(#[from] StoreError),
    /// The run's folders could not be made.
    #[error("cannot prepare the tool run's folder {path}: {source}")]
    Prepare {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `copy_in` path could not be copied into the workspace.
    #[error("cannot copy {path} into the workspace: {source}")]
    CopyIn {
        /// The path.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A `copy_in` path leads outside what the tool may be given.
    #[error("copy_in refused: {reason}")]
    CopyInRefused {
        /// The path as given.
        path: PathBuf,
        /// Why (names where it leads and what is allowed).
        reason: String,
    },
    /// `resume_from` names no run of this tool with a workspace.
    #[error("cannot resume: {0}")]
    Resume(String),
}

/// Receives a tool run's events as they happen (after they are stored).
pub trait ToolObserver: Send {
    /// One event.
    fn event(&mut self, event: &Event);
}

impl<F: FnMut(&Event) + Send> ToolObserver for F {
    fn event(&mut self, event: &Event) {
        self(event);
    }
}
