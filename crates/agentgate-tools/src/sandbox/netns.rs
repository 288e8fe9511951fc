//! An empty network namespace: no interface but a loopback that is down, so
//! no address (127.0.0.1 included) can be reached.
//!
//! As root, `unshare(CLONE_NEWNET)` alone. Otherwise a user namespace comes
//! with it (`CLONE_NEWUSER | CLONE_NEWNET`, allowed to unprivileged users
//! where the kernel permits user namespaces), and the process maps its own
//! uid and gid into it (after writing `deny` to `setgroups`, which the
//! kernel requires before an unprivileged `gid_map`) so that it keeps its
//! identity and file permissions. Must run while the process has one thread
//! (the sandbox starts none) and before Landlock (the maps are in `/proc`).

use nix::sched::{CloneFlags, unshare};
use nix::unistd::{getegid, geteuid};

/// Move this process into a new, empty network namespace. The error says
/// why it could not (e.g. user namespaces disabled in a container).
pub(crate) fn enter_empty_network_namespace() -> Result<(), String> {
    let uid = geteuid();
    let gid = getegid();
    if uid.is_root() {
        return unshare(CloneFlags::CLONE_NEWNET)
            .map_err(|e| format!("unshare(CLONE_NEWNET) was refused: {e}"));
    }
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET).map_err(|e| {
        format!(
            "unshare(CLONE_NEWUSER | CLONE_NEWNET) was refused (user namespaces disabled?): {e}"
        )
    })?;
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text).map_err(|e| {
            format!("failed to write /proc/self/{file} in the new user namespace: {e}")
        })
    };
    write("setgroups", "deny".to_owned())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))
}

/// Whether a new network namespace can be made here, tried for real in this
/// process (only `agentgate __sandbox --probe` calls it, and then exits).
pub(crate) fn try_network_namespace() -> Result<(), String> {
    enter_empty_network_namespace()
}
