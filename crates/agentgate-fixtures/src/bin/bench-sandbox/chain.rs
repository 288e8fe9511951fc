//! The sandbox's own chain, timed without an agent run around it:
//! `agentgate __sandbox SPEC` (the supervising process, pid 1 of a PID
//! namespace, the process that applies Landlock and becomes the program)
//! around `/bin/true`, against `/bin/true` started directly. Two specs:
//! what `workspace` asks (Landlock on the filesystem, other processes
//! hidden) and what `strict` adds (a network namespace whose one loopback
//! port is relayed to a Unix socket outside).

use std::path::{Path, PathBuf};

use agentgate_tools::sandbox::{
    NetworkRule, PortForward, SANDBOX_SUBCOMMAND, SandboxReport, SandboxSpec, system_read_paths,
};

use crate::process::Job;

/// The program every arm runs.
pub const TRUE: &str = "/bin/true";

/// One arm of the chain's measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChainArm {
    /// `/bin/true` itself.
    Direct,
    /// `__sandbox` with `workspace`'s kinds of limits.
    Workspace,
    /// `__sandbox` with `strict`'s network besides.
    Strict,
}

impl ChainArm {
    pub const ALL: [ChainArm; 3] = [ChainArm::Direct, ChainArm::Workspace, ChainArm::Strict];

    pub fn label(self) -> &'static str {
        match self {
            ChainArm::Direct => "/bin/true directly",
            ChainArm::Workspace => "__sandbox (Landlock, PID ns)",
            ChainArm::Strict => "__sandbox (+ network ns, relay)",
        }
    }
}

/// The spec files of the two sandboxed arms, written once into `dir`.
#[derive(Debug)]
pub struct ChainSpecs {
    /// `workspace`'s spec file and the report it names.
    workspace: (PathBuf, PathBuf),
    /// `strict`'s.
    strict: (PathBuf, PathBuf),
    agentgate: PathBuf,
}

impl ChainSpecs {
    /// Writes the specs into `dir` (its `work` folder the writable one).
    pub fn write(dir: &Path, agentgate: &Path) -> Result<ChainSpecs, String> {
        let work = dir.join("work");
        std::fs::create_dir_all(&work)
            .map_err(|e| format!("failed to create {}: {e}", work.display()))?;
        let path = std::env::var_os("PATH");
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let base = SandboxSpec {
            program: PathBuf::from(TRUE),
            args: Vec::new(),
            cpu_seconds: None,
            memory_mb: None,
            restrict_filesystem: true,
            read_paths: system_read_paths(path.as_deref(), home.as_deref()),
            write_paths: vec![work.clone()],
            run_paths: vec![work],
            private_paths: Vec::new(),
            isolate_processes: true,
            network: NetworkRule::Any,
            report_path: dir.join("workspace-report.json"),
        };
        let strict = SandboxSpec {
            network: NetworkRule::Forward(vec![PortForward {
                port: 8080,
                socket: dir.join("gateway.sock"),
            }]),
            report_path: dir.join("strict-report.json"),
            ..base.clone()
        };
        let write = |name: &str, spec: &SandboxSpec| -> Result<(PathBuf, PathBuf), String> {
            let file = dir.join(name);
            let json = serde_json::to_vec(spec).map_err(|e| format!("a spec: {e}"))?;
            std::fs::write(&file, json)
                .map_err(|e| format!("failed to write {}: {e}", file.display()))?;
            Ok((file, spec.report_path.clone()))
        };
        Ok(ChainSpecs {
            workspace: write("workspace.json", &base)?,
            strict: write("strict.json", &strict)?,
            agentgate: agentgate.to_path_buf(),
        })
    }

    pub fn job(&self, arm: ChainArm) -> Job {
        let sandboxed = |spec: &Path| Job {
            program: self.agentgate.clone(),
            args: vec![SANDBOX_SUBCOMMAND.into(), spec.into()],
            env: Vec::new(),
        };
        match arm {
            ChainArm::Direct => Job {
                program: PathBuf::from(TRUE),
                args: Vec::new(),
                env: Vec::new(),
            },
            ChainArm::Workspace => sandboxed(&self.workspace.0),
            ChainArm::Strict => sandboxed(&self.strict.0),
        }
    }

    /// Before a run: the last run's report removed, so that [`Self::check`]
    /// reads this run's.
    pub fn reset(&self, arm: ChainArm) {
        let report = match arm {
            ChainArm::Direct => return,
            ChainArm::Workspace => &self.workspace.1,
            ChainArm::Strict => &self.strict.1,
        };
        let _ = std::fs::remove_file(report);
    }

    /// After a sandboxed run: its report must say the program exited 0,
    /// and every limit asked for was enforced (else the figure would time
    /// less than the level asks).
    pub fn check(&self, arm: ChainArm) -> Result<(), String> {
        let report_path = match arm {
            ChainArm::Direct => return Ok(()),
            ChainArm::Workspace => &self.workspace.1,
            ChainArm::Strict => &self.strict.1,
        };
        let text = std::fs::read(report_path)
            .map_err(|e| format!("no sandbox report at {}: {e}", report_path.display()))?;
        let report: SandboxReport = serde_json::from_slice(&text)
            .map_err(|e| format!("the sandbox report does not parse: {e}"))?;
        if report.exit.as_ref().and_then(|e| e.code) != Some(0) {
            return Err(format!("{TRUE} did not exit 0 in the sandbox: {report:?}"));
        }
        let weak: Vec<String> = [
            ("filesystem", &report.filesystem),
            ("network", &report.network),
            ("processes", &report.processes),
        ]
        .into_iter()
        .filter(|(_, e)| {
            matches!(
                e.state,
                agentgate_protocol::EnforcementState::NotEnforced
                    | agentgate_protocol::EnforcementState::Partial
            )
        })
        .map(|(part, e)| {
            format!(
                "{part}: {:?} ({})",
                e.state,
                e.note.as_deref().unwrap_or("")
            )
        })
        .collect();
        if weak.is_empty() {
            Ok(())
        } else {
            Err(format!("not enforced: {}", weak.join("; ")))
        }
    }
}
