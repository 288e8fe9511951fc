//! The engine's command lines, as data (no I/O but reading agentgate's own
//! environment's names): `run` of an image and `exec` in a named
//! container for the CLI, and what ends each (`rm -f`, or a kill of the
//! CLI's process group inside the named container).
//!
//! Values never appear: a variable is passed as `-e NAME`, and the engine
//! takes its value from its own environment, which the wrapped invocation
//! sets.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use agentgate_supervise::Invocation;
use agentgate_supervise::own_env::is_own_name;

use super::engine::EngineKind;

/// Where the CLI runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target<'a> {
    /// `run --rm -i` of this image, in a container of agentgate's.
    Image(&'a str),
    /// `exec -i` in this running container, not agentgate's.
    Exec(&'a str),
}

/// What the engine is asked, besides the target and the CLI.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Layout<'a> {
    /// The attempt's container name (`run`), or the name of its pid file
    /// in the named container's `/tmp` (`exec`).
    pub(crate) name: &'a str,
    /// Bound at the same paths (`run` only).
    pub(crate) mounts: &'a [PathBuf],
    /// Passed as `-e NAME`, sorted.
    pub(crate) env_names: Vec<OsString>,
    /// `-w`: the CLI's working folder (none: the image's or container's).
    pub(crate) workdir: Option<PathBuf>,
    /// `sandbox.container.args`, before the image or container.
    pub(crate) extra: &'a [String],
}

/// The names of the variables the CLI would get from `inv` (all of
/// agentgate's inherited ones less `env_remove`, unless `env_clear`; then
/// `env`'s), less agentgate's own.
pub(crate) fn env_names(inv: &Invocation) -> Vec<OsString> {
    let mut names: BTreeSet<OsString> = BTreeSet::new();
    if !inv.env_clear {
        names.extend(
            std::env::vars_os()
                .map(|(name, _)| name)
                .filter(|name| !inv.env_remove.contains(name)),
        );
    }
    names.extend(inv.env.iter().map(|(name, _)| name.clone()));
    names.retain(|name| !name.is_empty() && !is_own_name(name));
    names.into_iter().collect()
}

/// The pid file an `exec`'d CLI's shell writes in the named container.
pub(crate) fn pid_file(name: &str) -> String {
    format!("/tmp/{name}.pid")
}

/// The engine's arguments that start `program args` per `layout`.
pub(crate) fn start_args(
    target: Target<'_>,
    layout: &Layout<'_>,
    program: &Path,
    args: &[OsString],
) -> Result<Vec<OsString>, String> {
    let mut out: Vec<OsString> = Vec::new();
    let mut push = |a: &str| out.push(a.into());
    match target {
        Target::Image(_) => {
            push("run");
            push("--rm");
            push("-i");
            push("--name");
            push(layout.name);
        }
        Target::Exec(_) => {
            push("exec");
            push("-i");
        }
    }
    if let Target::Image(_) = target {
        for mount in layout.mounts {
            out.push("-v".into());
            out.push(bind(mount)?);
        }
    }
    for name in &layout.env_names {
        out.push("-e".into());
        out.push(name.clone());
    }
    if let Some(dir) = &layout.workdir {
        out.push("-w".into());
        out.push(dir.as_os_str().to_owned());
    }
    out.extend(layout.extra.iter().map(OsString::from));
    match target {
        Target::Image(image) => out.push(image.into()),
        Target::Exec(container) => {
            out.push(container.into());
            // The CLI's shell leads a session of its own (the engine's
            // exec makes it one) and writes its pid, which is the session's
            // process group, where `remove` finds it; then it becomes the
            // CLI.
            out.push("/bin/sh".into());
            out.push("-c".into());
            out.push(format!("echo $$ > {} && exec \"$@\"", pid_file(layout.name)).into());
            out.push("sh".into());
        }
    }
    out.push(program.as_os_str().to_owned());
    out.extend(args.iter().cloned());
    Ok(out)
}

/// `-v PATH:PATH`: the folder at the same path in the container. A path
/// must be absolute and hold no `:` (the option's separator).
fn bind(path: &Path) -> Result<OsString, String> {
    if !path.is_absolute() {
        return Err(format!(
            "a container mount must be an absolute path, not {}",
            path.display()
        ));
    }
    if path.as_os_str().as_encoded_bytes().contains(&b':') {
        return Err(format!(
            "a container mount cannot hold `:`: {}",
            path.display()
        ));
    }
    let mut spec = path.as_os_str().to_owned();
    spec.push(":");
    spec.push(path.as_os_str());
    Ok(spec)
}

/// The engine's arguments that remove the attempt's container now (no stop
/// grace: the supervisor's termination table has run by then).
pub(crate) fn remove_args(kind: EngineKind, name: &str) -> Vec<OsString> {
    let args: &[&str] = match kind {
        EngineKind::Podman => &["rm", "-f", "-t", "0", name],
        EngineKind::Docker => &["rm", "-f", name],
    };
    args.iter().map(OsString::from).collect()
}

/// The engine's arguments that kill the `exec`'d CLI's process group (and
/// so what it started in that group) in `container`, and drop its pid
/// file.
pub(crate) fn kill_exec_args(container: &str, name: &str) -> Vec<OsString> {
    let script = format!(
        "f={}; if [ -s \"$f\" ]; then kill -s KILL -- \"-$(cat \"$f\")\" 2>/dev/null; fi; rm -f \"$f\"",
        pid_file(name)
    );
    ["exec", container, "/bin/sh", "-c", &script]
        .iter()
        .map(OsString::from)
        .collect()
}

/// A container name both engines take: a letter or digit, then letters,
/// digits, `_`, `.` or `-`.
pub(crate) fn check_name(what: &str, name: &str) -> Result<(), String> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_alphanumeric());
    if first_ok && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')) {
        Ok(())
    } else {
        Err(format!(
            "{what} `{name}` is not a container name (a letter or digit, then letters, digits, `_`, `.` or `-`)"
        ))
    }
}

/// Whether an engine's complaint says the container is already gone.
pub(crate) fn says_no_such_container(stderr: &OsStr) -> bool {
    let text = stderr.to_string_lossy().to_ascii_lowercase();
    text.contains("no such container") || text.contains("no container with name or id")
}
