//! The tools' sandbox (`agentgate __sandbox SPEC_FILE`) as files: the spec
//! it reads and the report it writes, in their JSON shapes
//! (`agentgate-tools`' `SandboxSpec` and `SandboxReport`: that crate
//! depends on this one, so the shapes are written here; the end-to-end
//! tests run them through the real sandbox). The spec is written private
//! (mode 600).

use std::path::{Path, PathBuf};

use agentgate_protocol::{Enforcement, EnforcementState};
use serde::{Deserialize, Serialize};

/// The hidden subcommand that runs the sandbox.
pub(super) const SANDBOX_SUBCOMMAND: &str = "__sandbox";

/// `SandboxSpec`.
#[derive(Debug, Clone, Serialize)]
pub(super) struct SpecFile {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cpu_seconds: Option<u64>,
    pub memory_mb: Option<u64>,
    pub restrict_filesystem: bool,
    pub read_paths: Vec<PathBuf>,
    pub write_paths: Vec<PathBuf>,
    pub run_paths: Vec<PathBuf>,
    pub private_paths: Vec<PathBuf>,
    pub isolate_processes: bool,
    pub network: NetworkRule,
    pub report_path: PathBuf,
}

/// `NetworkRule` (only the two an agent CLI gets).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum NetworkRule {
    /// `workspace`: as it is.
    Any,
    /// `strict`: a namespace of its own whose loopback ports are relayed.
    Forward(Vec<PortForward>),
}

/// `PortForward`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub(super) struct PortForward {
    pub port: u16,
    pub socket: PathBuf,
}

/// `SandboxReport`, the parts read.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct ReportFile {
    pub filesystem: Enforcement,
    pub network: Enforcement,
    #[serde(default)]
    pub private_files: Option<Enforcement>,
    #[serde(default)]
    pub processes: Option<Enforcement>,
    #[serde(default)]
    pub warnings: Vec<String>,
    #[serde(default)]
    pub spawn_error: Option<String>,
}

impl SpecFile {
    /// Write it to `path`, readable by the user only.
    pub(super) fn write(&self, path: &Path) -> Result<(), String> {
        use std::io::Write as _;
        use std::os::unix::fs::OpenOptionsExt as _;
        let json = serde_json::to_vec(self).map_err(|e| format!("the sandbox spec: {e}"))?;
        let _ = std::fs::remove_file(path);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path)
            .and_then(|mut f| f.write_all(&json))
            .map_err(|e| format!("failed to write the sandbox spec {}: {e}", path.display()))
    }
}

impl ReportFile {
    /// The report at `path`; `Err` says why there is none.
    pub(super) fn read(path: &Path) -> Result<ReportFile, String> {
        let bytes = std::fs::read(path)
            .map_err(|e| format!("the sandbox wrote no report ({}): {e}", path.display()))?;
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("the sandbox's report is unreadable: {e}"))
    }
}

/// An entry that held.
pub(super) fn enforced(limit: impl Into<String>, by: impl Into<String>) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::Enforced,
        by: Some(by.into()),
        note: None,
    }
}

/// An entry that did not hold, and why.
pub(super) fn not_enforced(limit: impl Into<String>, why: impl Into<String>) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::NotEnforced,
        by: None,
        note: Some(why.into()),
    }
}

/// An entry the level asks nothing of.
pub(super) fn no_limit(limit: impl Into<String>) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::NoLimit,
        by: None,
        note: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_is_written_in_the_tools_shape_and_private() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sandbox.json");
        let spec = SpecFile {
            program: PathBuf::from("/usr/bin/claude"),
            args: vec!["-p".to_owned()],
            cpu_seconds: None,
            memory_mb: None,
            restrict_filesystem: true,
            read_paths: vec![PathBuf::from("/usr")],
            write_paths: vec![PathBuf::from("/w")],
            run_paths: Vec::new(),
            private_paths: vec![PathBuf::from("/home/u/.ssh")],
            isolate_processes: true,
            network: NetworkRule::Forward(vec![PortForward {
                port: 4000,
                socket: PathBuf::from("/tmp/s/gateway.sock"),
            }]),
            report_path: dir.path().join("report.json"),
        };
        spec.write(&path).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            v["network"],
            serde_json::json!({"forward": [{"port": 4000, "socket": "/tmp/s/gateway.sock"}]})
        );
        assert_eq!(v["isolate_processes"], true);
        let any = serde_json::to_value(NetworkRule::Any).unwrap();
        assert_eq!(any, "any");
        // Written again (a second attempt): replaced.
        spec.write(&path).unwrap();
    }

    #[test]
    fn a_report_reads_with_or_without_its_later_fields() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.json");
        let e = |s: &str| serde_json::json!({"limit": "x", "state": s, "by": null, "note": null});
        std::fs::write(
            &path,
            serde_json::json!({
                "cpu": e("none"), "memory": e("none"), "filesystem": e("enforced"),
                "network": e("none"), "spawn_error": null, "exit": null
            })
            .to_string(),
        )
        .unwrap();
        let r = ReportFile::read(&path).unwrap();
        assert_eq!(r.filesystem.state, EnforcementState::Enforced);
        assert!(r.processes.is_none());
        assert!(ReportFile::read(&dir.path().join("missing")).is_err());
    }
}
