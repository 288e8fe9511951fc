//! Hiding every other process: a PID namespace with a `/proc` of its own,
//! so the tool cannot read another process's environment, command line or
//! open files through `/proc/<pid>/` (Landlock does not keep a process
//! from reading `/proc/<pid>/environ` of another process of its user).
//!
//! A process cannot move itself into a new PID namespace:
//! `unshare(CLONE_NEWPID)` puts its next child there, as that namespace's
//! pid 1. So the sandbox process enters it ([`enter_pid_namespace`])
//! before it starts `__sandbox --init` (pid 1, `init.rs`), which makes a
//! mount namespace of its own, mounts a fresh `/proc` there
//! ([`mount_own_proc`]: it shows only the namespace's processes) and
//! starts the process that becomes the tool (pid 2). The tool is not pid 1
//! because pid 1 ignores every signal it has no handler for, the
//! termination table's included.
//!
//! Without root (or where root may not `unshare` by itself), a user
//! namespace comes first, mapping the user to root inside it (`0 UID 1`),
//! so that pid 1 holds the capabilities it needs to mount after its
//! `exec`. Once it has mounted, pid 1 moves into a second user namespace
//! that maps root back to the user's own uid and gid ([`restore_identity`]),
//! so the tool runs as itself, with no capability. The kernel refuses all
//! this in some places (user namespaces disabled or limited, a container
//! whose `/proc` is partly masked): the run goes on without the namespace
//! and the report says `not_enforced` with the kernel's answer.

use nix::mount::{MsFlags, mount};
use nix::sched::{CloneFlags, unshare};
use nix::unistd::{getegid, geteuid};

/// Moves this process's future children into a new PID namespace (its
/// first child is the namespace's pid 1); with a user namespace first
/// where a plain `unshare` is refused. Must run while the process has one
/// thread. The error has the kernel's answers.
pub(crate) fn enter_pid_namespace() -> Result<(), String> {
    let direct = match unshare(CloneFlags::CLONE_NEWPID) {
        Ok(()) => return Ok(()),
        Err(e) => e,
    };
    let uid = geteuid();
    let gid = getegid();
    unshare(CloneFlags::CLONE_NEWUSER).map_err(|e| {
        format!(
            "unshare(CLONE_NEWPID) was refused ({direct}), and so was a user namespace to make it in ({e}: user namespaces disabled?)"
        )
    })?;
    write_self("setgroups", "deny")?;
    write_self("uid_map", &format!("0 {uid} 1"))?;
    write_self("gid_map", &format!("0 {gid} 1"))?;
    unshare(CloneFlags::CLONE_NEWPID)
        .map_err(|e| format!("unshare(CLONE_NEWPID) was refused in a user namespace: {e}"))
}

/// In pid 1 of the new namespace: a mount namespace of its own (mounts
/// made here never reach the host), and a fresh `/proc` over the old one.
pub(crate) fn mount_own_proc() -> Result<(), String> {
    unshare(CloneFlags::CLONE_NEWNS)
        .map_err(|e| format!("unshare(CLONE_NEWNS) was refused: {e}"))?;
    mount(
        None::<&str>,
        "/",
        None::<&str>,
        MsFlags::MS_REC | MsFlags::MS_PRIVATE,
        None::<&str>,
    )
    .map_err(|e| format!("making the mounts private was refused: {e}"))?;
    mount(
        Some("proc"),
        "/proc",
        Some("proc"),
        MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
        None::<&str>,
    )
    .map_err(|e| {
        format!("mounting a /proc for the new PID namespace was refused ({e}): a container that masks parts of /proc?")
    })
}

/// In pid 1, after its mounts: when the user namespace maps the user to
/// root (see the module doc), a second one that maps root back to the
/// user's uid and gid, so that what pid 1 starts runs as the user. Nothing
/// to do when the process is not in such a namespace.
pub(crate) fn restore_identity() -> Result<(), String> {
    let (Some(uid), Some(gid)) = (outer_of_root("uid_map")?, outer_of_root("gid_map")?) else {
        return Ok(());
    };
    unshare(CloneFlags::CLONE_NEWUSER)
        .map_err(|e| format!("a user namespace to run the tool as uid {uid} was refused: {e}"))?;
    write_self("setgroups", "deny")?;
    write_self("uid_map", &format!("{uid} 0 1"))?;
    write_self("gid_map", &format!("{gid} 0 1"))
}

/// The id outside that root is mapped to in this process's user
/// namespace, when that is one id other than root (`0 1000 1`).
fn outer_of_root(file: &str) -> Result<Option<u32>, String> {
    let path = format!("/proc/self/{file}");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let fields: Vec<&str> = text.split_whitespace().collect();
    Ok(match fields.as_slice() {
        ["0", outer, "1"] => outer.parse::<u32>().ok().filter(|id| *id != 0),
        _ => None,
    })
}

fn write_self(file: &str, text: &str) -> Result<(), String> {
    std::fs::write(format!("/proc/self/{file}"), text)
        .map_err(|e| format!("failed to write /proc/self/{file} in a new user namespace: {e}"))
}
