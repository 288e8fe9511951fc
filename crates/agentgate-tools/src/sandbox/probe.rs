//! What this host can enforce, found by trying: `agentgate __sandbox
//! --probe` (a child process, so the caller is not itself restricted or
//! moved) enters a PID namespace and starts `__sandbox --probe-init` in it
//! (which mounts its own `/proc`, as pid 1 of a tool run does), makes an
//! empty network namespace and a Landlock ruleset that allows everything,
//! makes a user namespace last (it changes the probe's own credentials),
//! and prints a [`SandboxSupport`] as JSON.

use std::path::Path;
use std::process::{Command, Stdio};

use super::netns::try_network_namespace;
use super::pidns::{enter_pid_namespace, mount_own_proc};
use super::restrict::probe_abi;
use super::{SANDBOX_SUBCOMMAND, SandboxSupport};

/// Probe with the `agentgate` binary at `agentgate` (in agentgate itself,
/// `std::env::current_exe()`).
pub fn probe(agentgate: &Path) -> SandboxSupport {
    let failed = |why: String| SandboxSupport {
        landlock_abi: None,
        landlock_note: Some(why.clone()),
        network_namespace: false,
        network_namespace_note: Some(why.clone()),
        pid_namespace: false,
        pid_namespace_note: Some(why.clone()),
        user_namespace: false,
        user_namespace_note: Some(why),
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
    // The PID namespace first (it may need a user namespace, which needs a
    // single thread), the network's next (its maps are written in /proc).
    let pidns = enter_pid_namespace().and_then(|()| pid_one_mounts_proc());
    let netns = try_network_namespace();
    let landlock = probe_abi();
    let userns = nix::sched::unshare(nix::sched::CloneFlags::CLONE_NEWUSER)
        .map_err(|e| format!("unshare(CLONE_NEWUSER) was refused: {e}"));
    let support = SandboxSupport {
        landlock_abi: landlock.as_ref().ok().copied(),
        landlock_note: landlock.err(),
        network_namespace: netns.is_ok(),
        network_namespace_note: netns.err(),
        pid_namespace: pidns.is_ok(),
        pid_namespace_note: pidns.err(),
        user_namespace: userns.is_ok(),
        user_namespace_note: userns.err(),
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

/// Start `__sandbox --probe-init` (pid 1 of the namespace just entered)
/// and read its answer.
fn pid_one_mounts_proc() -> Result<(), String> {
    let program =
        std::env::current_exe().map_err(|e| format!("failed to find the agentgate binary: {e}"))?;
    let out = Command::new(&program)
        .args([SANDBOX_SUBCOMMAND, "--probe-init"])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("failed to start {}: {e}", program.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stdout).trim().to_owned())
    }
}

/// `--probe-init`: what pid 1 of a tool run does first, then exit 0, or 1
/// with the reason on stdout.
pub(crate) fn probe_init_main() -> i32 {
    match mount_own_proc() {
        Ok(()) => 0,
        Err(why) => {
            println!("{why}");
            1
        }
    }
}

/// What `agentgate health` reports of the kernel: [`probe`] on Linux;
/// elsewhere (macOS) nothing, with the reason, and no process started.
pub fn kernel_support(agentgate: &Path) -> agentgate_core::health::KernelSupport {
    use agentgate_core::health::{HostCapability, KernelSupport};
    if !cfg!(target_os = "linux") {
        return KernelSupport::unavailable(&format!(
            "{} has no Landlock and no Linux namespaces",
            std::env::consts::OS
        ));
    }
    let found = probe(agentgate);
    KernelSupport {
        landlock_abi: found.landlock_abi,
        landlock_note: found.landlock_note,
        user_namespace: HostCapability::from_probe(found.user_namespace, found.user_namespace_note),
        network_namespace: HostCapability::from_probe(
            found.network_namespace,
            found.network_namespace_note,
        ),
        pid_namespace: HostCapability::from_probe(found.pid_namespace, found.pid_namespace_note),
    }
}
