//! What this host can enforce, found by trying: `agentgate __sandbox
//! --probe` (a child process, so the caller is not itself restricted or
//! moved) makes an empty network namespace and a Landlock ruleset that
//! allows everything, and prints a [`SandboxSupport`] as JSON.

use std::path::Path;
use std::process::{Command, Stdio};

use super::netns::try_network_namespace;
use super::restrict::probe_abi;
use super::{SANDBOX_SUBCOMMAND, SandboxSupport};

/// Probe with the `agentgate` binary at `agentgate` (in agentgate itself,
/// `std::env::current_exe()`).
pub fn probe(agentgate: &Path) -> SandboxSupport {
    let failed = |why: String| SandboxSupport {
        landlock_abi: None,
        landlock_note: Some(why.clone()),
        network_namespace: false,
        network_namespace_note: Some(why),
    };
    let output = Command::new(agentgate)
        .args([SANDBOX_SUBCOMMAND, "--probe"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    match output {
        Err(e) => failed(format!(
            "failed to run {} to probe: {e}",
            agentgate.display()
        )),
        Ok(out) => serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| failed(format!("the probe printed no report: {e}"))),
    }
}

/// The probe's own side: try, print, exit code.
pub(crate) fn probe_main() -> i32 {
    // The namespace first: its maps are written in /proc.
    let netns = try_network_namespace();
    let landlock = probe_abi();
    let support = SandboxSupport {
        landlock_abi: landlock.as_ref().ok().copied(),
        landlock_note: landlock.err(),
        network_namespace: netns.is_ok(),
        network_namespace_note: netns.err(),
    };
    match serde_json::to_string(&support) {
        Ok(json) => {
            println!("{json}");
            0
        }
        Err(e) => {
            eprintln!("agentgate sandbox: {e}");
            super::EXIT_SANDBOX_FAILED
        }
    }
}
