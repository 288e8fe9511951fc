//! Per sandbox level, what a run on this host would get, judged from
//! what the host has (no process is started here): `workspace` needs
//! Landlock (files) and a PID namespace (processes) besides the
//! environment allowlist, which agentgate builds itself everywhere;
//! `strict` adds a network namespace (its relay to the gateway runs as
//! the PID namespace's pid 1); `container` needs an engine that answers.

use serde::Serialize;

use agentgate_protocol::{EnforcementState, SandboxLevel};

use super::host::{EngineHealth, KernelSupport};

/// The Landlock ABI whose filesystem rights the sandbox asks for
/// (agentgate-tools' `FS_ABI`: ABI 5, Linux 6.10); below it, some rights
/// (truncation, device ioctls, renames across folders) stay open.
pub const FULL_LANDLOCK_ABI: i32 = 5;

/// One level's verdict on this host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LevelSupport {
    /// `workspace`, `strict` or `container`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub level: SandboxLevel,
    /// `enforced`, `partial` or `not_enforced`.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub state: EnforcementState,
    /// What enforces it, or what is missing and what that leaves open.
    pub reason: String,
}

/// One part of a level: held (what holds it) or not (what is missing).
struct Part {
    held: bool,
    partly: bool,
    says: String,
}

/// The verdicts for `workspace`, `strict` and `container` on `os` with
/// `kernel` and `engines`.
pub fn level_support(
    os: &str,
    kernel: &KernelSupport,
    engines: &[EngineHealth],
) -> Vec<LevelSupport> {
    let environment = Part {
        held: true,
        partly: false,
        says: "environment allowlist".to_owned(),
    };
    let files = files_part(os, kernel);
    let processes = if kernel.pid_namespace.available {
        Part {
            held: true,
            partly: false,
            says: "PID namespace".to_owned(),
        }
    } else {
        Part {
            held: false,
            partly: false,
            says: format!(
                "no PID namespace ({}): other processes stay visible",
                note(kernel.pid_namespace.note.as_ref())
            ),
        }
    };
    let network = network_part(kernel);
    vec![
        judge(SandboxLevel::Workspace, &[&environment, &files, &processes]),
        judge(
            SandboxLevel::Strict,
            &[&environment, &files, &processes, &network],
        ),
        container_support(engines),
    ]
}

fn files_part(os: &str, kernel: &KernelSupport) -> Part {
    match kernel.landlock_abi {
        Some(abi) if abi >= FULL_LANDLOCK_ABI => Part {
            held: true,
            partly: false,
            says: format!("Landlock ABI {abi} (writes, reads, hidden paths)"),
        },
        Some(abi) => Part {
            held: true,
            partly: true,
            says: format!(
                "Landlock ABI {abi} (below {FULL_LANDLOCK_ABI}: truncation, device ioctls or renames across folders stay open)"
            ),
        },
        None if os != "linux" => Part {
            held: false,
            partly: false,
            says: format!("no Landlock on {os}: files are not confined"),
        },
        None => Part {
            held: false,
            partly: false,
            says: format!(
                "no Landlock ({}): files are not confined",
                note(kernel.landlock_note.as_ref())
            ),
        },
    }
}

fn network_part(kernel: &KernelSupport) -> Part {
    match (
        kernel.network_namespace.available,
        kernel.pid_namespace.available,
    ) {
        (true, true) => Part {
            held: true,
            partly: false,
            says: "network namespace (only the gateway and egress_allow)".to_owned(),
        },
        (false, _) => Part {
            held: false,
            partly: false,
            says: format!(
                "no network namespace ({}): the network is not restricted",
                note(kernel.network_namespace.note.as_ref())
            ),
        },
        (true, false) => Part {
            held: false,
            partly: false,
            says: "no PID namespace for the gateway's relay: the network is not restricted"
                .to_owned(),
        },
    }
}

/// `enforced` when every part holds fully; `not_enforced` when none
/// holds; else `partial`, saying what holds and what does not.
fn judge(level: SandboxLevel, parts: &[&Part]) -> LevelSupport {
    let held: Vec<&str> = parts
        .iter()
        .filter(|p| p.held)
        .map(|p| p.says.as_str())
        .collect();
    let missing: Vec<&str> = parts
        .iter()
        .filter(|p| !p.held)
        .map(|p| p.says.as_str())
        .collect();
    let state = if held.is_empty() {
        EnforcementState::NotEnforced
    } else if missing.is_empty() && parts.iter().all(|p| !p.partly) {
        EnforcementState::Enforced
    } else {
        EnforcementState::Partial
    };
    let mut reason = held.join(", ");
    if !missing.is_empty() {
        if held.len() == 1 {
            reason.push_str(" only");
        }
        reason.push_str("; ");
        reason.push_str(&missing.join("; "));
    }
    LevelSupport {
        level,
        state,
        reason,
    }
}

fn container_support(engines: &[EngineHealth]) -> LevelSupport {
    let level = SandboxLevel::Container;
    if let Some(engine) = engines.iter().find(|e| e.answers) {
        let version = engine.program.version.as_deref().unwrap_or("?");
        return LevelSupport {
            level,
            state: EnforcementState::Enforced,
            reason: format!(
                "{} {version} answers `{} info` (starting a container is not tried)",
                engine.name, engine.name
            ),
        };
    }
    let found: Vec<String> = engines
        .iter()
        .filter(|e| e.program.found)
        .map(|e| {
            format!(
                "{} found but does not answer: {}",
                e.name,
                note(e.info_error.as_ref().or(e.program.error.as_ref()))
            )
        })
        .collect();
    let reason = if found.is_empty() {
        let names: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
        format!("no container engine on PATH ({})", names.join(", "))
    } else {
        found.join("; ")
    };
    LevelSupport {
        level,
        state: EnforcementState::NotEnforced,
        reason,
    }
}

fn note(note: Option<&String>) -> &str {
    note.map_or("no reason given", String::as_str)
}

#[cfg(test)]
mod tests {
    use super::super::host::{HostCapability, ProgramHealth};
    use super::*;

    fn linux(abi: Option<i32>, namespaces: bool) -> KernelSupport {
        let cap = || HostCapability {
            available: namespaces,
            note: (!namespaces).then(|| "refused".to_owned()),
        };
        KernelSupport {
            landlock_abi: abi,
            landlock_note: abi.is_none().then(|| "disabled".to_owned()),
            user_namespace: cap(),
            network_namespace: cap(),
            pid_namespace: cap(),
        }
    }

    fn state_of(levels: &[LevelSupport], level: SandboxLevel) -> &LevelSupport {
        levels.iter().find(|l| l.level == level).unwrap()
    }

    #[test]
    fn a_full_linux_host_enforces_workspace_and_strict() {
        let levels = level_support("linux", &linux(Some(7), true), &[]);
        for level in [SandboxLevel::Workspace, SandboxLevel::Strict] {
            let l = state_of(&levels, level);
            assert_eq!(l.state, EnforcementState::Enforced, "{l:?}");
            assert!(l.reason.contains("Landlock ABI 7"), "{l:?}");
        }
        let c = state_of(&levels, SandboxLevel::Container);
        assert_eq!(c.state, EnforcementState::NotEnforced);
        assert!(c.reason.contains("no container engine on PATH"), "{c:?}");
    }

    #[test]
    fn macos_has_the_environment_allowlist_only() {
        let kernel = KernelSupport::unavailable("macos has no Landlock");
        let levels = level_support("macos", &kernel, &[]);
        let w = state_of(&levels, SandboxLevel::Workspace);
        assert_eq!(w.state, EnforcementState::Partial);
        assert!(
            w.reason
                .starts_with("environment allowlist only; no Landlock on macos"),
            "{w:?}"
        );
        let s = state_of(&levels, SandboxLevel::Strict);
        assert_eq!(s.state, EnforcementState::Partial);
        assert!(s.reason.contains("the network is not restricted"), "{s:?}");
    }

    #[test]
    fn an_old_landlock_or_no_network_namespace_is_partial() {
        let levels = level_support("linux", &linux(Some(3), true), &[]);
        assert_eq!(
            state_of(&levels, SandboxLevel::Workspace).state,
            EnforcementState::Partial
        );
        let mut kernel = linux(Some(7), true);
        kernel.network_namespace = HostCapability {
            available: false,
            note: Some("EPERM".to_owned()),
        };
        let levels = level_support("linux", &kernel, &[]);
        assert_eq!(
            state_of(&levels, SandboxLevel::Workspace).state,
            EnforcementState::Enforced
        );
        let s = state_of(&levels, SandboxLevel::Strict);
        assert_eq!(s.state, EnforcementState::Partial);
        assert!(s.reason.contains("no network namespace (EPERM)"), "{s:?}");
    }

    #[test]
    fn the_first_engine_that_answers_makes_container_enforced() {
        let engine = |name: &str, answers: bool| EngineHealth {
            name: name.to_owned(),
            program: ProgramHealth {
                found: true,
                path: None,
                version: Some("1.0".to_owned()),
                error: None,
            },
            answers,
            info_error: (!answers).then(|| "daemon down".to_owned()),
            info_ms: Some(1),
        };
        let levels = level_support(
            "linux",
            &linux(Some(7), true),
            &[engine("podman", false), engine("docker", true)],
        );
        let c = state_of(&levels, SandboxLevel::Container);
        assert_eq!(c.state, EnforcementState::Enforced);
        assert!(c.reason.starts_with("docker 1.0 answers"), "{c:?}");
        let levels = level_support("linux", &linux(Some(7), true), &[engine("podman", false)]);
        let c = state_of(&levels, SandboxLevel::Container);
        assert_eq!(c.state, EnforcementState::NotEnforced);
        assert!(
            c.reason
                .contains("podman found but does not answer: daemon down")
        );
    }
}
