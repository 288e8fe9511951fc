//! `agentgate __sandbox --apply SPEC_FILE STATUS_FD GO_FD [ISOLATION]`: the
//! process that applies the limits to itself and then becomes the tool
//! (`exec`, same pid), so the tool inherits every limit and the sandbox,
//! its parent, stays unrestricted to write its report. `ISOLATION` (JSON,
//! [`Isolation`]) says what was made before it: the PID namespace (by the
//! sandbox and pid 1) and, in it, the network namespace.
//!
//! Order matters: the pipes are reopened and the spec is read first (files
//! Landlock may forbid later); the network namespace next (its uid and gid
//! maps are written in `/proc`); then Landlock; then the report of what was
//! applied goes to the sandbox, which writes it down and says go; the
//! rlimits last, just before `exec` (after `RLIMIT_AS`, this process's own
//! allocations may fail, so nothing is allocated from there on).

use std::ffi::OsString;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::Command;

use agentgate_protocol::Enforcement;

use super::handshake::{
    FAILED_EXEC, FAILED_RLIMITS, Isolation, Prepared, record, reopen_inherited, send_prepared,
    wait_for_go,
};
use super::netns::enter_empty_network_namespace;
use super::report::{enforced, no_limit, not_enforced};
use super::restrict::{NetByLandlock, restrict};
use super::rlimits::RlimitPlan;
use super::{EXIT_SANDBOX_FAILED, NetworkRule, SandboxSpec};

/// Run the `--apply` step; returns only on failure (an exit code).
pub(crate) fn apply_main(args: &[OsString]) -> i32 {
    let (spec_path, status_fd, go_fd, isolation) = match args {
        [spec, status, go] => (spec, status, go, None),
        [spec, status, go, isolation] => (spec, status, go, Some(isolation)),
        _ => {
            eprintln!(
                "agentgate sandbox: usage: __sandbox --apply SPEC_FILE STATUS_FD GO_FD [ISOLATION]"
            );
            return EXIT_SANDBOX_FAILED;
        }
    };
    let isolation: Isolation = match isolation.map(|i| serde_json::from_str(&i.to_string_lossy())) {
        None => Isolation {
            processes: no_limit(),
            netns: None,
            warnings: Vec::new(),
        },
        Some(Ok(isolation)) => isolation,
        Some(Err(e)) => {
            eprintln!("agentgate sandbox: --apply: invalid isolation: {e}");
            return EXIT_SANDBOX_FAILED;
        }
    };
    let fd = |s: &OsString| s.to_str().and_then(|s| s.parse::<i32>().ok());
    let (Some(status_fd), Some(go_fd)) = (fd(status_fd), fd(go_fd)) else {
        eprintln!("agentgate sandbox: --apply takes two descriptor numbers");
        return EXIT_SANDBOX_FAILED;
    };
    let pipes = reopen_inherited(status_fd, true)
        .and_then(|status| Ok((status, reopen_inherited(go_fd, false)?)));
    let (mut status, mut go) = match pipes {
        Ok(pipes) => pipes,
        Err(e) => {
            eprintln!("agentgate sandbox: failed to open the pipes to the sandbox: {e}");
            return EXIT_SANDBOX_FAILED;
        }
    };
    let Some(spec) = SandboxSpec::read_or_tell(Path::new(spec_path)) else {
        return EXIT_SANDBOX_FAILED;
    };
    let (rlimits, cpu, memory) = RlimitPlan::new(&spec);
    let (net_by_landlock, netns) = network(&spec, isolation.netns);
    let restricted = restrict(&spec, &net_by_landlock);
    let mut warnings = isolation.warnings;
    warnings.extend(restricted.warnings);
    let prepared = Prepared {
        cpu,
        memory,
        filesystem: restricted.filesystem.unwrap_or_else(no_limit),
        network: netns.or(restricted.network).unwrap_or_else(no_limit),
        private_files: restricted.private_files.unwrap_or_else(no_limit),
        processes: isolation.processes,
        warnings,
    };
    if let Err(e) = send_prepared(&mut status, &prepared) {
        eprintln!("agentgate sandbox: failed to report to the sandbox: {e}");
        return EXIT_SANDBOX_FAILED;
    }
    if !wait_for_go(&mut go) {
        return EXIT_SANDBOX_FAILED;
    }
    let mut tool = Command::new(&spec.program);
    tool.args(&spec.args);
    if let Err(errno) = rlimits.apply() {
        let _ = status.write_all(&record(FAILED_RLIMITS, errno as i32));
        return super::EXIT_CANNOT_EXECUTE;
    }
    let error = tool.exec();
    let errno = error.raw_os_error().unwrap_or(0);
    let _ = status.write_all(&record(FAILED_EXEC, errno));
    super::exit_code_for_spawn_error(errno)
}

/// Apply the network rule: a network namespace where it can and must be
/// made (its report entry), else what Landlock is to do. `made` is the
/// namespace pid 1 made (or failed to), if it tried.
fn network(
    spec: &SandboxSpec,
    made: Option<Result<(), String>>,
) -> (NetByLandlock, Option<Enforcement>) {
    match &spec.network {
        NetworkRule::Any => (NetByLandlock::Off, Some(no_limit())),
        NetworkRule::None => match made.unwrap_or_else(enter_empty_network_namespace) {
            Ok(()) => (
                NetByLandlock::Off,
                Some(enforced("no network", "network namespace")),
            ),
            Err(netns_error) => (NetByLandlock::DenyTcp { netns_error }, None),
        },
        NetworkRule::Allow(destinations) => {
            let limit = format!("egress to {}", destinations.join(", "));
            match SandboxSpec::allowed_ports(destinations) {
                Ok(ports) => (NetByLandlock::AllowPorts { ports, limit }, None),
                // Checked when the spec was read; kept for safety.
                Err(e) => (NetByLandlock::Off, Some(not_enforced(limit, e))),
            }
        }
        // Made by pid 1 (init.rs), which relays the ports.
        NetworkRule::Forward(ports) => {
            let limit = forward_limit(ports);
            match made {
                Some(Ok(())) => (
                    NetByLandlock::Off,
                    Some(enforced(limit, "network namespace")),
                ),
                Some(Err(why)) => (NetByLandlock::Off, Some(not_enforced(limit, why))),
                None => (
                    NetByLandlock::Off,
                    Some(not_enforced(
                        limit,
                        "the relayed ports need the sandbox's PID namespace".to_owned(),
                    )),
                ),
            }
        }
    }
}

/// What a [`NetworkRule::Forward`] entry says is asked.
pub(crate) fn forward_limit(ports: &[super::PortForward]) -> String {
    let ports: Vec<String> = ports.iter().map(|p| p.port.to_string()).collect();
    format!("only loopback ports {} (relayed)", ports.join(", "))
}
