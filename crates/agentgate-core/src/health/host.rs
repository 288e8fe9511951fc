//! What the host has, as data: the kernel's features (what `agentgate
//! __sandbox --probe` found), a program on `PATH`, a container engine.
//! `sandbox.rs` fills them, `levels.rs` judges them.

use std::path::PathBuf;

use serde::Serialize;

/// One kernel feature: whether this host has it, and why not.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HostCapability {
    /// Whether it could be used (found by trying).
    pub available: bool,
    /// Why not, when it could not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl HostCapability {
    /// Available, or not with the reason.
    pub fn from_probe(available: bool, note: Option<String>) -> HostCapability {
        HostCapability {
            available,
            note: if available { None } else { note },
        }
    }
}

/// The kernel's side of the sandbox, as `agentgate __sandbox --probe`
/// found it by trying.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct KernelSupport {
    /// The kernel's Landlock ABI version, if it has Landlock.
    pub landlock_abi: Option<i32>,
    /// Why there is no Landlock, if there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub landlock_note: Option<String>,
    /// A user namespace (what the others need without root).
    pub user_namespace: HostCapability,
    /// A network namespace of the run's own (`strict`).
    pub network_namespace: HostCapability,
    /// A PID namespace with its own `/proc` (other processes hidden).
    pub pid_namespace: HostCapability,
}

impl KernelSupport {
    /// Nothing of it, for `why` (not Linux; the probe could not run).
    pub fn unavailable(why: &str) -> KernelSupport {
        let missing = || HostCapability {
            available: false,
            note: Some(why.to_owned()),
        };
        KernelSupport {
            landlock_abi: None,
            landlock_note: Some(why.to_owned()),
            user_namespace: missing(),
            network_namespace: missing(),
            pid_namespace: missing(),
        }
    }
}

/// A program found (or not) on `PATH`, and its version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProgramHealth {
    /// Whether it is on `PATH`.
    pub found: bool,
    /// Where.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub path: Option<PathBuf>,
    /// The version its `--version` printed.
    pub version: Option<String>,
    /// Why it was not found, or why `--version` failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// A container engine (`podman`, `docker`) for `--sandbox container`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct EngineHealth {
    /// `podman` or `docker`.
    pub name: String,
    /// Found on `PATH`, and its version.
    #[serde(flatten)]
    pub program: ProgramHealth,
    /// Whether the engine answered `<engine> info` in time (its service
    /// or daemon is reachable). Starting a container is not tried.
    pub answers: bool,
    /// Why it did not answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub info_error: Option<String>,
    /// How long `info` took, in milliseconds.
    pub info_ms: Option<u64>,
}
