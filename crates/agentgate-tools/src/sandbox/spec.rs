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
    /// The run's own folders (workspace, logs, temporary folder, home):
    /// read and write, and kept even where they lie inside a private path
    /// (a run's folder is in the store's).
    #[serde(default)]
    pub run_paths: Vec<PathBuf>,
    /// agentgate's own files and folders (its data folder with the store
    /// and the token, a token file, the config file): never readable by the
    /// tool. A read or write path inside one is not granted; one that holds
    /// one is granted entry by entry around it (see `private.rs`).
    #[serde(default)]
    pub private_paths: Vec<PathBuf>,
    /// Whether to hide every other process: a PID namespace with its own
    /// `/proc` (see `pidns.rs`).
    #[serde(default)]
    pub isolate_processes: bool,
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
    /// A new network namespace of its own whose loopback is up, with no
    /// other interface: only these loopback ports can be reached, each
    /// forwarded to a Unix socket outside (an agent CLI's model gateway,
    /// its egress proxy). Nothing of the host's network (its loopback
    /// services included) is reachable.
    Forward(Vec<PortForward>),
}

/// One loopback port inside a [`NetworkRule::Forward`] namespace: a
/// connection to `127.0.0.1:port` there is relayed to the Unix socket
/// `socket` (a path outside, reached by the sandbox's pid 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortForward {
    /// The port on 127.0.0.1 inside the namespace.
    pub port: u16,
    /// The Unix socket each connection is relayed to.
    pub socket: PathBuf,
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
    /// agentgate's own files kept from the tool, as applied.
    #[serde(default = "Enforcement::not_recorded")]
    pub private_files: Enforcement,
    /// Other processes hidden, as applied.
    #[serde(default = "Enforcement::not_recorded")]
    pub processes: Enforcement,
    /// What the sandbox changed of what it was asked (a read path inside
    /// agentgate's data folder not granted), for the run's warnings.
    #[serde(default)]
    pub warnings: Vec<String>,
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

/// A spec that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SpecError {
    /// The file could not be read.
    #[error("failed to read the sandbox spec {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// The file is not a valid spec.
    #[error("invalid sandbox spec {path}: {reason}")]
    Invalid { path: PathBuf, reason: String },
}

impl SandboxSpec {
    /// [`SandboxSpec::read`] for a stage of the sandbox that has no report
    /// to write: `None` after saying why on stderr.
    pub(crate) fn read_or_tell(path: &std::path::Path) -> Option<SandboxSpec> {
        SandboxSpec::read(path)
            .map_err(|e| eprintln!("agentgate sandbox: {e}"))
            .ok()
    }

    /// Read and check a spec file (JSON, at most 1 MiB).
    pub fn read(path: &std::path::Path) -> Result<SandboxSpec, SpecError> {
        use std::io::Read;
        let invalid = |reason: String| SpecError::Invalid {
            path: path.to_path_buf(),
            reason,
        };
        let mut text = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| f.take(MAX_SPEC_BYTES + 1).read_to_end(&mut text))
            .map_err(|source| SpecError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        if text.len() as u64 > MAX_SPEC_BYTES {
            return Err(invalid(format!("larger than {MAX_SPEC_BYTES} bytes")));
        }
        let spec: SandboxSpec =
            serde_json::from_slice(&text).map_err(|e| invalid(e.to_string()))?;
        if spec.program.as_os_str().is_empty() {
            return Err(invalid("`program` is empty".to_owned()));
        }
        if spec.report_path.as_os_str().is_empty() {
            return Err(invalid("`report_path` is empty".to_owned()));
        }
        match &spec.network {
            NetworkRule::Allow(destinations) => {
                SandboxSpec::allowed_ports(destinations).map_err(invalid)?;
            }
            NetworkRule::Forward(forwards) => check_forwards(forwards).map_err(invalid)?,
            NetworkRule::Any | NetworkRule::None => {}
        }
        Ok(spec)
    }

    /// The ports of `host:port` destinations (`[::1]:443` too), sorted,
    /// without duplicates.
    pub fn allowed_ports(destinations: &[String]) -> Result<Vec<u16>, String> {
        let mut ports = destinations
            .iter()
            .map(|d| {
                d.rsplit_once(':')
                    .filter(|(host, _)| !host.is_empty())
                    .and_then(|(_, port)| port.parse::<u16>().ok())
                    .ok_or_else(|| format!("egress destination `{d}` is not host:port"))
            })
            .collect::<Result<Vec<u16>, String>>()?;
        ports.sort_unstable();
        ports.dedup();
        Ok(ports)
    }

    /// The report path named in a spec file that is otherwise unusable, to
    /// report why there.
    pub fn report_path_of(path: &std::path::Path) -> Option<PathBuf> {
        let text = std::fs::read(path).ok()?;
        let value: serde_json::Value = serde_json::from_slice(&text).ok()?;
        value
            .get("report_path")
            .and_then(|p| p.as_str())
            .filter(|p| !p.is_empty())
            .map(PathBuf::from)
    }
}

/// Forwarded ports are distinct and not 0, each with a socket path.
fn check_forwards(forwards: &[PortForward]) -> Result<(), String> {
    let mut seen = std::collections::BTreeSet::new();
    for forward in forwards {
        if forward.port == 0 {
            return Err("a forwarded port is 0".to_owned());
        }
        if forward.socket.as_os_str().is_empty() {
            return Err(format!("forwarded port {} has no socket", forward.port));
        }
        if !seen.insert(forward.port) {
            return Err(format!("port {} is forwarded twice", forward.port));
        }
    }
    Ok(())
}

/// The largest spec file read.
const MAX_SPEC_BYTES: u64 = 1024 * 1024;

/// What this host can enforce, from [`probe`](super::probe).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSupport {
    /// The kernel's Landlock ABI version, if it has Landlock.
    pub landlock_abi: Option<i32>,
    /// Why there is no Landlock, if there is none.
    pub landlock_note: Option<String>,
    /// Whether an empty network namespace can be made (for `network: none`).
    pub network_namespace: bool,
    /// Why not, if it cannot.
    pub network_namespace_note: Option<String>,
    /// Whether a PID namespace with its own `/proc` can be made (to hide
    /// other processes).
    #[serde(default)]
    pub pid_namespace: bool,
    /// Why not, if it cannot.
    #[serde(default)]
    pub pid_namespace_note: Option<String>,
    /// Whether this process may make a user namespace (what the PID and
    /// network namespaces need without root).
    #[serde(default)]
    pub user_namespace: bool,
    /// Why not, if it cannot.
    #[serde(default)]
    pub user_namespace_note: Option<String>,
}
