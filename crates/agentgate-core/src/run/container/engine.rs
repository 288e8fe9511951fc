//! The container engine of `--sandbox container`: which program
//! (`sandbox.container.engine`, else `podman` on `PATH`, else `docker`),
//! what it is (`podman 4.3.1`, `docker 28.2.2`, from its `--version`,
//! asked once per program and process, bounded in time), and so which
//! spelling of `rm` ends a container at once.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::config::ContainerSpec;

/// How long `ENGINE --version` may take before the engine counts as not
/// running.
const VERSION_TIMEOUT: Duration = Duration::from_secs(20);

/// The engines' dialects that differ in what agentgate writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EngineKind {
    /// `podman`: `rm -f -t 0` (no stop timeout), a missing container is
    /// no error.
    Podman,
    /// `docker` (or another engine that speaks its command line): `rm -f`
    /// kills at once; a missing container is an error to tell apart.
    Docker,
}

/// A resolved engine: its program and what its `--version` said.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Engine {
    /// The program, absolute.
    pub(crate) program: PathBuf,
    /// Its dialect.
    pub(crate) kind: EngineKind,
    /// `podman 4.3.1`, `docker 28.2.2`: for the envelope's report.
    pub(crate) label: String,
}

/// What each program's `--version` said, asked once per process.
static PROBED: Mutex<Option<HashMap<PathBuf, Engine>>> = Mutex::new(None);

/// The engine `spec` names (a name looked up on agentgate's `PATH`, or a
/// path), else `podman` on `PATH`, else `docker`; checked by running its
/// `--version`. The error says what is missing, before any CLI starts.
pub(crate) fn resolve(spec: &ContainerSpec) -> Result<Engine, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let program = match spec.engine.as_deref().filter(|e| !e.is_empty()) {
        Some(named) => find_program(OsStr::new(named), &path).ok_or_else(|| {
            format!(
                "container engine `{named}` (sandbox.container.engine) is not an executable file{}",
                if named.contains('/') { "" } else { " on PATH" }
            )
        })?,
        None => find_program(OsStr::new("podman"), &path)
            .or_else(|| find_program(OsStr::new("docker"), &path))
            .ok_or_else(|| {
                "no container engine: neither podman nor docker is on PATH (install one, or name it in sandbox.container.engine)".to_owned()
            })?,
    };
    probe(&program)
}

pub(crate) use agentgate_supervise::find_program;

/// `program --version`, once per process (cached).
fn probe(program: &Path) -> Result<Engine, String> {
    let cached = PROBED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .as_ref()
        .and_then(|m| m.get(program).cloned());
    if let Some(engine) = cached {
        return Ok(engine);
    }
    let text = version_text(program)?;
    let engine = Engine {
        program: program.to_owned(),
        kind: kind_of(program, &text),
        label: label_of(program, &text),
    };
    PROBED
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get_or_insert_with(HashMap::new)
        .insert(program.to_owned(), engine.clone());
    Ok(engine)
}

/// The line `program --version` prints with its version, within
/// [`VERSION_TIMEOUT`] (the health check's bounded probe).
fn version_text(program: &Path) -> Result<String, String> {
    crate::health::probe_version(program, VERSION_TIMEOUT)
        .map(|v| v.line)
        .map_err(|e| format!("container engine {}: {e}", program.display()))
}

/// Podman says so in its version line (`podman version 4.3.1`); so does
/// its name. Anything else is spoken to as docker.
pub(crate) fn kind_of(program: &Path, version: &str) -> EngineKind {
    let named_podman = program
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("podman"));
    if version.to_ascii_lowercase().starts_with("podman") || named_podman {
        EngineKind::Podman
    } else {
        EngineKind::Docker
    }
}

/// `podman version 4.3.1` -> `podman 4.3.1`; `Docker version 28.2.2,
/// build e6534b4` -> `docker 28.2.2`; anything else: the program's file
/// name and the line as it is.
pub(crate) fn label_of(program: &Path, version: &str) -> String {
    let words: Vec<&str> = version.split_whitespace().collect();
    if let [name, "version", number, ..] = words.as_slice() {
        return format!(
            "{} {}",
            name.to_ascii_lowercase(),
            number.trim_end_matches(',')
        );
    }
    let file = program
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| program.display().to_string());
    if version.is_empty() {
        file
    } else {
        format!("{file} ({version})")
    }
}
