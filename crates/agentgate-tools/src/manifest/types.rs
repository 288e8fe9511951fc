//! The manifest's fields, as seed 002 writes them, plus the few agentgate
//! adds (each marked so).

use serde::{Deserialize, Serialize};

/// A tool's manifest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The tool's name: the folder it lives in, and what callers ask for.
    pub name: String,
    /// Its version, free text (`1.2.0`).
    pub version: String,
    /// The program to run, relative to `tools/<name>/` (any executable: a
    /// script with a `#!` line, a binary).
    pub entry: String,
    /// The tool protocol version it speaks (1).
    #[serde(default = "protocol_v1")]
    pub protocol_version: u32,
    /// agentgate: one sentence on what the tool does (the MCP description).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its inputs, passed as `--name value` (the seed's convention).
    #[serde(default)]
    pub inputs: Vec<InputSpec>,
    /// What it may touch.
    #[serde(default)]
    pub permissions: Permissions,
    /// CPU and memory limits.
    #[serde(default)]
    pub resources: Resources,
    /// Variables it needs from the caller's environment.
    #[serde(default)]
    pub env: EnvSpec,
    /// What its exit statuses mean.
    #[serde(default)]
    pub exit_codes: ExitCodes,
    /// agentgate: whether a run that ends with the `exit_codes.ok` status
    /// must have printed a valid `result` message (seed 002: a `result` or
    /// an `error` ends a run). Default true: without one the run fails with
    /// `E_PROTOCOL`. False for a tool that reports by its exit status
    /// alone: exiting ok is then success.
    #[serde(default = "result_required", skip_serializing_if = "is_true")]
    pub result_required: bool,
    /// How to check it.
    #[serde(default)]
    pub health: Health,
    /// agentgate: its deadline and heartbeat time.
    #[serde(default)]
    pub timeouts: Timeouts,
}

fn protocol_v1() -> u32 {
    1
}

/// The default of [`Manifest::result_required`].
pub(crate) fn result_required() -> bool {
    true
}

fn is_true(value: &bool) -> bool {
    *value
}

/// One input of a tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputSpec {
    /// The name: `--<name>` on the command line, the property in MCP.
    pub name: String,
    /// Its type.
    #[serde(rename = "type", default)]
    pub kind: InputType,
    /// Whether a call must give it.
    #[serde(default)]
    pub required: bool,
    /// agentgate: what it is, for the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// agentgate: the values it may take.
    #[serde(default, rename = "enum", skip_serializing_if = "Option::is_none")]
    pub choices: Option<Vec<String>>,
}

/// The type of an input.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InputType {
    /// A file or folder path (relative paths are relative to the workspace).
    Path,
    /// Any text.
    #[default]
    String,
    /// A whole number.
    Integer,
    /// A number.
    Number,
    /// A flag: `--name` when true, absent when false.
    Boolean,
}

impl InputType {
    /// Its JSON Schema type (`string` for a path).
    pub fn schema_type(self) -> &'static str {
        match self {
            InputType::Path | InputType::String => "string",
            InputType::Integer => "integer",
            InputType::Number => "number",
            InputType::Boolean => "boolean",
        }
    }
}

/// What a tool may touch.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    /// Files.
    #[serde(default)]
    pub filesystem: FilesystemPermissions,
    /// The network.
    #[serde(default)]
    pub network: NetworkPermissions,
}

/// Paths a tool may read and write: globs, `${WORKSPACE}` standing for the
/// run's workspace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FilesystemPermissions {
    /// Readable paths.
    #[serde(default)]
    pub read: Vec<String>,
    /// Writable (and readable) paths.
    #[serde(default)]
    pub write: Vec<String>,
}

/// Where a tool may connect.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkPermissions {
    /// `host:port` entries; empty means no network at all; `*` means any
    /// (which the default policy refuses).
    #[serde(default)]
    pub egress_allow: Vec<String>,
}

/// CPU and memory limits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Resources {
    /// CPU seconds (user + system) the tool's process may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_seconds: Option<u64>,
    /// Memory (address space) of the tool's process, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    /// agentgate: the most the tool may print on stdout, in MiB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_mb: Option<u64>,
}

/// Variables from the caller's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnvSpec {
    /// Passed through; a run without one of them is refused.
    #[serde(default)]
    pub require: Vec<String>,
}

/// What the tool's exit statuses mean.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExitCodes {
    /// Success.
    #[serde(default)]
    pub ok: i32,
    /// A failure worth retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retryable_error: Option<i32>,
    /// A failure not worth retrying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fatal_error: Option<i32>,
}

/// How to check a tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Health {
    /// Arguments that make the tool test itself and exit 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selftest: Option<Vec<String>>,
    /// Arguments that make the tool describe itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub describe: Option<Vec<String>>,
}

/// agentgate: a tool's time limits.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Timeouts {
    /// The wall-clock deadline of a run, in seconds (default 1800, as the
    /// seed's runner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_s: Option<u64>,
    /// A run with no `progress` or `heartbeat` for this long ends with
    /// `E_HEARTBEAT_MISSED` (default 90, as the seed's runner).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub heartbeat_s: Option<u64>,
}
