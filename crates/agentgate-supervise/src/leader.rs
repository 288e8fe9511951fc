//! Observing the group leader's exit.
//!
//! Where `waitid(WNOWAIT)` exists, the exit is observed without reaping: the
//! leader stays a zombie, so neither its pid nor the group id can be reused
//! while the rest of the group is killed. Elsewhere (macOS) the leader is
//! reaped first; POSIX still keeps the group id reserved while any member
//! lives, so the sweep that follows cannot reach another group unless the
//! group emptied and its id was reused in between.

use std::process::ExitStatus;

use tokio::process::Child;

/// What observing the exit left behind.
#[derive(Debug)]
pub(crate) enum Exited {
    /// The leader exited and is still a zombie: reap it with `Child::wait`.
    #[cfg_attr(
        not(any(target_os = "linux", target_os = "android", target_os = "freebsd")),
        expect(dead_code, reason = "only waitid(WNOWAIT) leaves the leader unreaped")
    )]
    NotReaped,
    /// The leader exited and was reaped.
    Reaped(ExitStatus),
}

/// Resolves once the leader has exited.
pub(crate) async fn exited(child: &mut Child) -> std::io::Result<Exited> {
    #[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
    if let Some(pid) = child.id() {
        match tokio::task::spawn_blocking(move || wait_without_reaping(pid)).await {
            Ok(Ok(())) => return Ok(Exited::NotReaped),
            Ok(Err(e)) => {
                tracing::debug!(pid, "waitid(WNOWAIT) failed, reaping instead: {e}");
            }
            Err(e) => {
                tracing::debug!(pid, "the waitid task failed, reaping instead: {e}");
            }
        }
    }
    child.wait().await.map(Exited::Reaped)
}

#[cfg(any(target_os = "linux", target_os = "android", target_os = "freebsd"))]
fn wait_without_reaping(pid: u32) -> Result<(), nix::errno::Errno> {
    use nix::errno::Errno;
    use nix::sys::wait::{Id, WaitPidFlag, waitid};
    use nix::unistd::Pid;

    let pid = i32::try_from(pid).map_err(|_| Errno::EINVAL)?;
    loop {
        match waitid(
            Id::Pid(Pid::from_raw(pid)),
            WaitPidFlag::WEXITED | WaitPidFlag::WNOWAIT,
        ) {
            Ok(_) => return Ok(()),
            Err(Errno::EINTR) => continue,
            Err(e) => return Err(e),
        }
    }
}
