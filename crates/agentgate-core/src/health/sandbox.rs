//! What this host can enforce for sandboxed runs (`--sandbox`): the
//! kernel's side ([`KernelSupport`], found by the caller with `agentgate
//! __sandbox --probe`, since this crate does not start the sandbox
//! itself), bubblewrap, the container engines (found on `PATH`, their
//! version, and whether the engine answers `info`, each bounded in time),
//! and per level whether a run would be enforced, `partial` or
//! `not_enforced`, with the reason (`levels.rs`).

use std::ffi::OsStr;
use std::time::{Duration, Instant};

use serde::Serialize;

use super::host::{EngineHealth, KernelSupport, ProgramHealth};
use super::levels::{LevelSupport, level_support};
use super::probe::{probe_version, run_bounded};

/// What `agentgate health` reports of the sandbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SandboxHealth {
    /// The operating system (`linux`, `macos`).
    pub os: String,
    /// Landlock and the namespaces.
    pub kernel: KernelSupport,
    /// Bubblewrap (`bwrap`): reported for the reader; agentgate's levels
    /// make their namespaces themselves and do not need it.
    pub bubblewrap: ProgramHealth,
    /// The container engines, in the order `container` picks them when
    /// the config names none.
    pub engines: Vec<EngineHealth>,
    /// Per level (`workspace`, `strict`, `container`), what a run here
    /// would get.
    pub levels: Vec<LevelSupport>,
}

/// The engines `container` looks for, in order.
pub const CONTAINER_ENGINES: [&str; 2] = ["podman", "docker"];

/// Check the programs on `path` (the `PATH` value; `None`: none) side by
/// side, each probe bounded by `timeout`, and judge each level with
/// `kernel`.
pub fn check_sandbox(
    kernel: KernelSupport,
    path: Option<&OsStr>,
    timeout: Duration,
) -> SandboxHealth {
    let (bubblewrap, engines) = std::thread::scope(|s| {
        let bwrap = s.spawn(|| program_health("bwrap", path, timeout));
        let engines: Vec<_> = CONTAINER_ENGINES
            .iter()
            .map(|name| s.spawn(move || engine_health(name, path, timeout)))
            .collect();
        (
            bwrap.join().unwrap_or_default(),
            engines
                .into_iter()
                .filter_map(|h| h.join().ok())
                .collect::<Vec<_>>(),
        )
    });
    let os = std::env::consts::OS.to_owned();
    let levels = level_support(&os, &kernel, &engines);
    SandboxHealth {
        os,
        kernel,
        bubblewrap,
        engines,
        levels,
    }
}

fn program_health(name: &str, path: Option<&OsStr>, timeout: Duration) -> ProgramHealth {
    let Some(program) = path.and_then(|p| agentgate_supervise::find_program(OsStr::new(name), p))
    else {
        return ProgramHealth {
            found: false,
            path: None,
            version: None,
            error: Some(format!("`{name}` is not on PATH")),
        };
    };
    let (version, error) = match probe_version(&program, timeout) {
        Ok(v) => (v.number, None),
        Err(e) => (None, Some(e.to_string())),
    };
    ProgramHealth {
        found: true,
        path: Some(program),
        version,
        error,
    }
}

fn engine_health(name: &str, path: Option<&OsStr>, timeout: Duration) -> EngineHealth {
    let program = program_health(name, path, timeout);
    let mut engine = EngineHealth {
        name: name.to_owned(),
        answers: false,
        info_error: None,
        info_ms: None,
        program,
    };
    let Some(executable) = engine.program.path.clone() else {
        return engine;
    };
    let start = Instant::now();
    let info = run_bounded(&executable, &["info"], timeout);
    engine.info_ms = Some(u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX));
    match info {
        Ok(_) => engine.answers = true,
        Err(e) => engine.info_error = Some(e.to_string()),
    }
    engine
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    fn script(dir: &Path, name: &str, body: &str) {
        let file = dir.join(name);
        std::fs::write(&file, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&file, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
    }

    #[test]
    fn an_engine_that_does_not_answer_info_is_found_but_not_answering() {
        let dir = tempfile::tempdir().unwrap();
        script(
            dir.path(),
            "docker",
            r#"case "$1" in --version) echo "Docker version 28.2.2, build x";; *) echo "Cannot connect to the Docker daemon" >&2; exit 1;; esac"#,
        );
        script(
            dir.path(),
            "podman",
            r#"case "$1" in --version) echo "podman version 4.3.1";; info) echo "host: {}";; esac"#,
        );
        let health = check_sandbox(
            KernelSupport::unavailable("test"),
            Some(dir.path().as_os_str()),
            Duration::from_secs(10),
        );
        let [podman, docker] = &health.engines[..] else {
            panic!("{:?}", health.engines)
        };
        assert!(podman.program.found && podman.answers, "{podman:?}");
        assert_eq!(podman.program.version.as_deref(), Some("4.3.1"));
        assert!(docker.program.found && !docker.answers, "{docker:?}");
        assert_eq!(docker.program.version.as_deref(), Some("28.2.2"));
        assert!(
            docker
                .info_error
                .as_deref()
                .is_some_and(|e| e.contains("Cannot connect to the Docker daemon")),
            "{docker:?}"
        );
        assert!(!health.bubblewrap.found);
    }

    #[test]
    fn a_hung_engine_is_bounded() {
        let dir = tempfile::tempdir().unwrap();
        script(
            dir.path(),
            "podman",
            r#"case "$1" in --version) echo "podman version 4.3.1";; info) sleep 30;; esac"#,
        );
        let start = Instant::now();
        let engine = engine_health(
            "podman",
            Some(dir.path().as_os_str()),
            Duration::from_millis(300),
        );
        assert!(!engine.answers);
        assert!(
            engine
                .info_error
                .as_deref()
                .is_some_and(|e| e.contains("did not exit")),
            "{engine:?}"
        );
        assert!(start.elapsed() < Duration::from_secs(20));
    }
}
