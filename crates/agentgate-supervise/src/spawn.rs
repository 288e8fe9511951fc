use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use tokio::io::AsyncWrite;
use tokio::process::{Child, Command};

use super::error::SuperviseError;
use super::group::ProcessGroup;
use super::invocation::Invocation;
use super::keeper::KEEPER_SUBCOMMAND;
use super::signals;
use super::warm::{WarmKeeper, absolute, child_env};
use super::warm_request::Request;

/// The `PATH` execvp falls back to when the environment has none.
const DEFAULT_PATH: &str = "/bin:/usr/bin";

/// Where the CLI's stdin bytes go: its pipe, or a warm keeper's socket.
pub(crate) type StdinWriter = Box<dyn AsyncWrite + Send + Unpin>;

/// A spawned group leader.
pub(crate) struct Spawned {
    pub(crate) child: Child,
    pub(crate) group: ProcessGroup,
    /// Set when the invocation has stdin bytes.
    pub(crate) stdin: Option<StdinWriter>,
}

/// Spawns the invocation (through the keeper when one is given: the warm
/// one when it waits for this keeper program, else a new one) as the
/// leader of a new process group, with stdout and stderr piped, and stdin
/// piped when there are bytes to write.
pub(crate) fn spawn(
    inv: &Invocation,
    keeper: Option<&Path>,
    warm: Option<&WarmKeeper>,
) -> Result<Spawned, SuperviseError> {
    if let Some(cwd) = &inv.cwd {
        let checked = std::fs::metadata(cwd).and_then(|m| {
            if m.is_dir() {
                Ok(())
            } else {
                Err(std::io::Error::new(
                    std::io::ErrorKind::NotADirectory,
                    "not a directory",
                ))
            }
        });
        if let Err(source) = checked {
            return Err(SuperviseError::WorkingDir {
                path: cwd.clone(),
                source,
            });
        }
    }
    if let Some((keeper, warm)) = keeper.zip(warm)
        && let Some(started) = warm.take(keeper)
    {
        let request = Request {
            program: resolve(inv)?,
            args: inv.args.clone(),
            env: child_env(inv),
            cwd: inv.cwd.clone(),
            stdin: inv.stdin.is_some(),
        };
        match started.send(&request) {
            Ok((child, control)) => {
                let group = child.id().and_then(ProcessGroup::led_by).ok_or_else(|| {
                    SuperviseError::NoPid {
                        program: absolute(keeper),
                    }
                })?;
                let stdin = match control.map(tokio::net::UnixStream::from_std) {
                    None => None,
                    Some(Ok(socket)) => Some(Box::new(socket) as StdinWriter),
                    Some(Err(source)) => {
                        // The CLI is starting: it must not run on without
                        // its supervisor.
                        let _ = group.signal(nix::sys::signal::Signal::SIGKILL);
                        return Err(SuperviseError::Spawn {
                            program: absolute(keeper),
                            source,
                        });
                    }
                };
                return Ok(Spawned {
                    child,
                    group,
                    stdin,
                });
            }
            Err(e) => tracing::debug!("the warm keeper is unusable ({e}); starting another"),
        }
    }
    let (exe, mut cmd) = match keeper {
        Some(keeper) => {
            let keeper = absolute(keeper);
            let program = resolve(inv)?;
            let mut cmd = Command::new(&keeper);
            cmd.arg(KEEPER_SUBCOMMAND)
                .arg(std::process::id().to_string())
                .arg("--")
                .arg(program)
                .args(&inv.args);
            (keeper, cmd)
        }
        None => {
            let mut cmd = Command::new(&inv.program);
            cmd.args(&inv.args);
            reset_ignored_signals(&mut cmd);
            (inv.program.clone(), cmd)
        }
    };
    // The whole environment, built (and scrubbed of agentgate's own
    // variables) in one place for cold and warm spawns alike.
    cmd.env_clear().envs(child_env(inv));
    if let Some(cwd) = &inv.cwd {
        cmd.current_dir(cwd);
    }
    cmd.stdin(if inv.stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .process_group(0)
    .kill_on_drop(false);
    let mut child = cmd.spawn().map_err(|source| {
        if source.kind() == std::io::ErrorKind::NotFound
            && keeper.is_none()
            && !has_dir(&inv.program)
        {
            SuperviseError::ProgramNotFound {
                program: inv.program.clone(),
            }
        } else {
            SuperviseError::Spawn {
                program: exe.clone(),
                source,
            }
        }
    })?;
    let group = child
        .id()
        .and_then(ProcessGroup::led_by)
        .ok_or(SuperviseError::NoPid { program: exe })?;
    let stdin = child.stdin.take().map(|pipe| Box::new(pipe) as StdinWriter);
    Ok(Spawned {
        child,
        group,
        stdin,
    })
}

/// The CLI must start with default dispositions and an empty mask (see
/// `signals.rs`): when agentgate has signals set to SIG_IGN or blocked, they
/// are reset in the child before exec. Only then: a hook makes the spawn
/// fork instead of taking the faster `posix_spawn` path. (With a keeper,
/// the keeper resets its own state.)
#[expect(
    unsafe_code,
    reason = "pre_exec runs between fork and exec; the hook only calls sigaction"
)]
fn reset_ignored_signals(cmd: &mut Command) {
    let ignored = signals::ignored();
    if ignored.is_empty() && !signals::is_masked() {
        return;
    }
    // SAFETY: the closure only calls `sigaction` on a list built before the
    // fork, then `sigprocmask` (no allocation, no lock): async-signal-safe.
    unsafe {
        cmd.pre_exec(move || signals::reset(&ignored));
    }
}

/// The program as the keeper must exec it: a bare name is looked up on the
/// `PATH` the child will have, so that the keeper needs no `PATH` and a
/// missing program is an error here rather than an exit code there.
fn resolve(inv: &Invocation) -> Result<PathBuf, SuperviseError> {
    if has_dir(&inv.program) {
        return Ok(inv.program.clone());
    }
    if inv.program.as_os_str().is_empty() {
        return Err(SuperviseError::ProgramNotFound {
            program: inv.program.clone(),
        });
    }
    let path = match inv.env_override("PATH") {
        Some(value) => value.cloned(),
        None => std::env::var_os("PATH"),
    };
    let path = path.unwrap_or_else(|| DEFAULT_PATH.into());
    find_program(inv.program.as_os_str(), &path).ok_or_else(|| SuperviseError::ProgramNotFound {
        program: inv.program.clone(),
    })
}

/// `name` as a path when it has a `/` (made absolute), else the first
/// executable file of that name in the folders of `path` (a `PATH` value),
/// as the supervisor finds a program: the one lookup every part of
/// agentgate that finds a program on a `PATH` uses.
pub fn find_program(name: &std::ffi::OsStr, path: &std::ffi::OsStr) -> Option<PathBuf> {
    if has_dir(Path::new(name)) {
        let p = Path::new(name);
        return is_executable(p)
            .then(|| std::path::absolute(p).ok())
            .flatten();
    }
    std::env::split_paths(path)
        .filter(|dir| !dir.as_os_str().is_empty())
        .map(|dir| dir.join(name))
        .find(|candidate| is_executable(candidate))
        .and_then(|p| std::path::absolute(p).ok())
}

fn has_dir(program: &Path) -> bool {
    program.as_os_str().as_encoded_bytes().contains(&b'/')
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_a_bare_name_on_the_childs_path() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("tool");
        std::fs::write(&exe, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let mut inv = Invocation::new("tool");
        inv.env
            .push(("PATH".into(), dir.path().as_os_str().to_owned()));
        assert_eq!(resolve(&inv).unwrap(), exe);
    }

    #[test]
    fn skips_files_that_are_not_executable() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("tool"), "data").unwrap();
        let mut inv = Invocation::new("tool");
        inv.env
            .push(("PATH".into(), dir.path().as_os_str().to_owned()));
        assert!(matches!(
            resolve(&inv),
            Err(SuperviseError::ProgramNotFound { .. })
        ));
    }

    #[test]
    fn keeps_a_path_with_a_directory_as_is() {
        let inv = Invocation::new("./bin/tool");
        assert_eq!(resolve(&inv).unwrap(), PathBuf::from("./bin/tool"));
    }

    #[test]
    fn a_cleared_environment_falls_back_to_the_default_path() {
        let mut inv = Invocation::new("sh");
        inv.env_clear = true;
        let found = resolve(&inv).unwrap();
        assert!(
            found.starts_with("/bin") || found.starts_with("/usr/bin"),
            "{found:?}"
        );
    }
}
