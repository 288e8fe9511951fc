//! What the runner asks of the sandbox, and what the sandbox reports back.

use std::path::PathBuf;

use agentgate_protocol::Enforcement;
use serde::{Deserialize, Serialize};

/// The hidden subcommand of the `agentgate` binary that runs the sandbox.
pub const SANDBOX_SUBCOMMAND: &str = "__sandbox";

/// The limits of one tool run, and the tool to start under them. Written by
/// the runner as JSON into the run's folder; its path is the sandbox's one
/// argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    /// The tool's program (absolute).
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// CPU seconds (`RLIMIT_CPU`).
    pub cpu_seconds: Option<u64>,
    /// Address space in MiB (`RLIMIT_AS`).
    pub memory_mb: Option<u64>,
    /// Whether to restrict the filesystem to `read_paths` and
    /// `write_paths` (with Landlock).
    pub restrict_filesystem: bool,
    /// Paths (files or folders, recursively) the tool may read and execute.
    pub read_paths: Vec<PathBuf>,
    /// Paths (files or folders, recursively) the tool may read and write.
    pub write_paths: Vec<PathBuf>,
    /// The network the tool may reach.
    pub network: NetworkRule,
    /// Where to write the [`SandboxReport`].
    pub report_path: PathBuf,
}

/// The network a tool may reach.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NetworkRule {
    /// No restriction.
    Any,
    /// No network at all, loopback included.
    None,
    /// Only these `host:port` destinations.
    Allow(Vec<String>),
}

/// What the sandbox did, written to [`SandboxSpec::report_path`]: once
/// before the tool starts (the enforcement, `exit` still `None`) and again
/// when it has ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxReport {
    /// `RLIMIT_CPU`, as applied.
    pub cpu: Enforcement,
    /// `RLIMIT_AS`, as applied.
    pub memory: Enforcement,
    /// The filesystem restriction, as applied.
    pub filesystem: Enforcement,
    /// The network restriction, as applied.
    pub network: Enforcement,
    /// Why the tool could not be started, if it could not.
    pub spawn_error: Option<String>,
    /// How the tool ended; `None` until it has.
    pub exit: Option<SandboxExit>,
}

/// How the tool ended, as its parent (the sandbox) saw it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxExit {
    /// Its exit status, if it exited.
    pub code: Option<i32>,
    /// The signal that ended it (`SIGXCPU`), if one did.
    pub signal: Option<String>,
    /// CPU time (user + system) of the tool and its waited-for children, in
    /// milliseconds.
    pub cpu_ms: u64,
    /// Peak resident memory of its largest process, in KiB.
    pub max_rss_kib: u64,
}
