//! The report file and the [`Enforcement`] values it holds.

use std::io::Write;
use std::path::Path;

use agentgate_protocol::{Enforcement, EnforcementState};

use super::SandboxReport;

/// A limit the kernel enforces as stated.
pub(crate) fn enforced(limit: impl Into<String>, by: impl Into<String>) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::Enforced,
        by: Some(by.into()),
        note: None,
    }
}

/// A limit enforced in part; `note` says what is not.
pub(crate) fn partial(
    limit: impl Into<String>,
    by: impl Into<String>,
    note: impl Into<String>,
) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::Partial,
        by: Some(by.into()),
        note: Some(note.into()),
    }
}

/// A limit asked for and not enforced; `note` says why.
pub(crate) fn not_enforced(limit: impl Into<String>, note: impl Into<String>) -> Enforcement {
    Enforcement {
        limit: limit.into(),
        state: EnforcementState::NotEnforced,
        by: None,
        note: Some(note.into()),
    }
}

/// No limit of this kind was asked for.
pub(crate) fn no_limit() -> Enforcement {
    Enforcement {
        limit: "none".to_owned(),
        state: EnforcementState::NoLimit,
        by: None,
        note: None,
    }
}

impl SandboxReport {
    /// A report of a sandbox that applied nothing (it failed first), with
    /// the reason in `spawn_error`.
    pub fn failed_before_start(reason: impl Into<String>) -> SandboxReport {
        let not_applied = || not_enforced("unknown", "the sandbox failed before applying limits");
        SandboxReport {
            cpu: not_applied(),
            memory: not_applied(),
            filesystem: not_applied(),
            network: not_applied(),
            private_files: not_applied(),
            processes: not_applied(),
            warnings: Vec::new(),
            spawn_error: Some(reason.into()),
            exit: None,
        }
    }

    /// Read a report the sandbox wrote.
    pub fn read(path: &Path) -> std::io::Result<SandboxReport> {
        let text = std::fs::read(path)?;
        serde_json::from_slice(&text).map_err(std::io::Error::other)
    }

    /// Write the report to `path` atomically: a temporary file next to it,
    /// then a rename, so a reader sees the old report or the new one whole.
    pub fn write_atomically(&self, path: &Path) -> std::io::Result<()> {
        let dir = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "report".to_owned());
        let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        let written = std::fs::File::create(&tmp).and_then(|mut file| {
            file.write_all(&json)?;
            file.write_all(b"\n")?;
            file.sync_all()
        });
        match written.and_then(|()| std::fs::rename(&tmp, path)) {
            Ok(()) => Ok(()),
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(e)
            }
        }
    }
}
