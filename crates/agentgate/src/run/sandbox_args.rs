//! `--sandbox LEVEL`: how the run's CLIs are confined (docs/guide/sandbox.md).

use agentgate_core::SandboxLevel;

/// The sandbox of a run.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SandboxArgs {
    /// Confine the CLI: `off` (as without it), `workspace` (an environment
    /// allowlist; writes only to the workspace, the CLI's state folders and
    /// a private temporary folder; ~/.ssh, ~/.aws and agentgate's own files
    /// hidden), `strict` (workspace, and the network is only the run's
    /// model gateway and the config's `sandbox.egress_allow`), `container`
    /// (the CLI runs in a docker or podman container). Over the agent's
    /// and the config's `sandbox:`; a level below the config's
    /// `sandbox.require` is refused; the envelope's `sandbox` says what
    /// was enforced.
    #[arg(long, value_name = "LEVEL", value_parser = parse_level)]
    pub sandbox: Option<SandboxLevel>,
}

fn parse_level(s: &str) -> Result<SandboxLevel, String> {
    s.parse::<SandboxLevel>().map_err(|e| e.to_string())
}
