//! A keeper started before its CLI is known ("warm"), so that the keeper's
//! own start is off the run's critical path.
//!
//! A cold keeper is spawned when the CLI is: its exec, dynamic linking and
//! set-up (signal state, subreaper, parent-death signal) sit between
//! agentgate deciding to run the CLI and the CLI starting, about 0.6 ms on
//! a small machine. [`WarmKeeper::start`] spawns `<keeper> __keeper <pid>
//! --warm` as soon as a caller knows it will run a CLI (agentgate run does
//! it before loading the config), with its stdin on one end of a socket
//! pair. The keeper does all its set-up and then blocks reading the
//! request (`warm_request.rs`). The first [`supervise`](super::supervise)
//! whose [`SupervisorConfig::keeper`](super::SupervisorConfig::keeper) is
//! the same program takes it (`spawn.rs`): it sends the request, and the
//! keeper only has to start the CLI. Later attempts start cold keepers.
//!
//! The warm keeper is the same process a cold one is: the group leader,
//! spawned with piped stdout and stderr, watched for agentgate's death; the
//! supervisor treats it identically. The differences: the CLI's environment
//! and folder come in the request (the keeper clears its own environment
//! for the CLI and changes folder first), and the CLI's stdin, when it has
//! one, is the rest of the socket, which the supervisor writes and then
//! closes. A warm keeper nobody takes sees the socket close when its
//! [`WarmKeeper`] is dropped (or agentgate exits) and exits 0 without
//! starting anything. When sending the request fails (the keeper died),
//! the supervisor starts a cold keeper instead.

use std::ffi::OsString;
use std::fmt;
use std::io::Write as _;
use std::os::fd::OwnedFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, Command};

use super::error::SuperviseError;
use super::invocation::Invocation;
use super::keeper::KEEPER_SUBCOMMAND;
use super::warm_request::{Request, WARM_FLAG};

/// How long sending a request may block. The socket's buffer takes any
/// ordinary request at once; this only bounds a keeper that stopped
/// reading (stopped by a signal, say) before it falls back to a cold one.
const SEND_TIMEOUT: Duration = Duration::from_secs(5);

/// A handle on at most one warm keeper, shared by clones; the first
/// matching spawn takes it.
#[derive(Clone)]
pub struct WarmKeeper {
    slot: Arc<Mutex<Option<Started>>>,
}

/// A started warm keeper waiting for its request.
pub(crate) struct Started {
    keeper: PathBuf,
    child: Child,
    control: UnixStream,
}

impl WarmKeeper {
    /// Spawns `keeper` warm. Must be called inside a tokio runtime (the
    /// child is a `tokio::process::Child`).
    pub fn start(keeper: &Path) -> Result<Self, SuperviseError> {
        let keeper = absolute(keeper);
        let spawn_error = |source| SuperviseError::Spawn {
            program: keeper.clone(),
            source,
        };
        let (ours, theirs) = UnixStream::pair().map_err(spawn_error)?;
        ours.set_write_timeout(Some(SEND_TIMEOUT))
            .map_err(spawn_error)?;
        let mut cmd = Command::new(&keeper);
        // The keeper needs no variable, and the CLI's come in its request:
        // agentgate's own stay here (a CLI could read its parent's).
        cmd.env_clear()
            .envs(crate::own_env::scrub(std::env::vars_os().collect()))
            .arg(KEEPER_SUBCOMMAND)
            .arg(std::process::id().to_string())
            .arg(WARM_FLAG)
            .stdin(Stdio::from(OwnedFd::from(theirs)))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0)
            .kill_on_drop(false);
        let child = cmd.spawn().map_err(spawn_error)?;
        Ok(WarmKeeper {
            slot: Arc::new(Mutex::new(Some(Started {
                keeper,
                child,
                control: ours,
            }))),
        })
    }

    /// The waiting keeper's pid; `None` once taken.
    pub fn pid(&self) -> Option<u32> {
        self.slot
            .lock()
            .ok()
            .and_then(|slot| slot.as_ref().and_then(|s| s.child.id()))
    }

    /// Whether the keeper is still waiting to be taken.
    pub fn is_waiting(&self) -> bool {
        self.slot.lock().is_ok_and(|slot| slot.is_some())
    }

    /// The waiting keeper, if it runs `keeper`.
    pub(crate) fn take(&self, keeper: &Path) -> Option<Started> {
        let mut slot = self.slot.lock().ok()?;
        if slot.as_ref().is_some_and(|s| s.keeper == absolute(keeper)) {
            slot.take()
        } else {
            None
        }
    }
}

impl Started {
    /// Sends the request: the keeper starts the CLI. Returns the keeper
    /// and, when the CLI reads stdin, the socket to write it to. On failure
    /// the keeper is killed (it can no longer be trusted to be waiting).
    pub(crate) fn send(mut self, req: &Request) -> Result<(Child, Option<UnixStream>), String> {
        let sent = req
            .encode()
            .and_then(|frame| {
                self.control
                    .write_all(&frame)
                    .map_err(|e| format!("failed to send the warm keeper its request: {e}"))
            })
            .and_then(|()| {
                // The rest of the socket is the CLI's stdin: a tokio stream
                // writes it, which needs a non-blocking socket.
                self.control
                    .set_nonblocking(true)
                    .map_err(|e| format!("failed to prepare the CLI's stdin: {e}"))
            });
        match sent {
            Ok(()) => Ok((self.child, req.stdin.then_some(self.control))),
            Err(e) => {
                let _ = self.child.start_kill();
                Err(e)
            }
        }
    }
}

impl fmt::Debug for WarmKeeper {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WarmKeeper")
            .field("waiting", &self.is_waiting())
            .finish()
    }
}

/// Two handles are equal when they share the slot.
impl PartialEq for WarmKeeper {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.slot, &other.slot)
    }
}

impl Eq for WarmKeeper {}

/// The CLI's (or tool's) whole environment: agentgate's (unless cleared),
/// minus the removed names, plus the invocation's values (the last one of
/// a name wins), and then without agentgate's own variables
/// ([`crate::own_env`]): every spawn, cold or warm, with or without a
/// keeper, takes its environment from here.
pub(crate) fn child_env(inv: &Invocation) -> Vec<(OsString, OsString)> {
    let mut env: Vec<(OsString, OsString)> = if inv.env_clear {
        Vec::new()
    } else {
        std::env::vars_os().collect()
    };
    env.retain(|(name, _)| !inv.env_remove.contains(name));
    for (name, value) in &inv.env {
        match env.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1.clone_from(value),
            None => env.push((name.clone(), value.clone())),
        }
    }
    crate::own_env::scrub(env)
}

/// The keeper runs with the invocation's working directory, so a relative
/// path to it must be made absolute first.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_child_env_applies_clear_remove_and_set_in_that_order() {
        let mut inv = Invocation::new("x");
        inv.env_clear = true;
        inv.env_remove.push("GONE".into());
        inv.env.push(("A".into(), "1".into()));
        inv.env
            .push(("GONE".into(), "set after the removal".into()));
        inv.env.push(("A".into(), "2".into()));
        assert_eq!(
            child_env(&inv),
            vec![
                ("A".into(), "2".into()),
                ("GONE".into(), "set after the removal".into())
            ]
        );
    }

    #[test]
    fn the_child_env_starts_from_agentgates_own() {
        let mut inv = Invocation::new("x");
        let path = std::env::var_os("PATH").expect("tests run with a PATH");
        inv.env_remove.push("PATH".into());
        let env = child_env(&inv);
        assert!(env.iter().all(|(n, _)| n != "PATH"));
        let inv = Invocation::new("x");
        assert!(child_env(&inv).contains(&("PATH".into(), path)));
    }

    #[test]
    fn the_child_env_never_holds_agentgates_own_variables() {
        let mut inv = Invocation::new("x");
        inv.env.push(("AGENTGATE_TOKEN".into(), "t".into()));
        inv.env.push(("AGENTGATE_HOME".into(), "/d".into()));
        inv.env.push(("KEEP".into(), "1".into()));
        let env = child_env(&inv);
        assert!(
            env.iter()
                .all(|(n, _)| !n.as_encoded_bytes().starts_with(b"AGENTGATE_")),
            "{env:?}"
        );
        assert!(env.contains(&("KEEP".into(), "1".into())));
    }
}
