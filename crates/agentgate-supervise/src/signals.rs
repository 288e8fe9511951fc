//! The signal state a CLI starts with: default dispositions and an empty
//! mask, whatever agentgate inherited.
//!
//! `nohup` starts agentgate with SIGHUP ignored, a background job of a
//! script with SIGINT and SIGQUIT ignored, and a parent may leave signals
//! blocked. An ignored disposition survives `exec`, so without a reset the
//! termination table's SIGINT would do nothing to the CLI.
//!
//! The standard library resets SIGPIPE for every spawned process, but not
//! the other ignored signals nor the mask (a blocked mask is inherited
//! through fork and exec). [`ignored`] lists the signals set to SIG_IGN (on
//! Linux from `/proc/self/status`, elsewhere every catchable standard
//! signal), [`is_masked`] says whether the calling thread blocks any, and
//! [`reset`] sets them back to defaults: in the child between fork and exec
//! (the keeper-less path, see `spawn.rs`), or in the keeper itself before it
//! starts the CLI. When nothing is ignored or blocked, no hook is installed,
//! so the spawn keeps its fast path.
//!
//! Real-time signals are not reset (agentgate's signal library cannot name
//! them); no known launcher ignores them.

use nix::sys::signal::{SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal};

/// The standard signals that are set to SIG_IGN in this process and that a
/// process may reset (not SIGKILL or SIGSTOP).
pub(crate) fn ignored() -> Vec<Signal> {
    let mask = ignored_mask();
    catchable()
        .filter(|signal| {
            let bit = (*signal as i32).saturating_sub(1);
            // Bit n-1 is signal n.
            (0..64).contains(&bit) && mask & (1u64 << bit) != 0
        })
        .collect()
}

/// Whether the calling thread blocks any signal (a child inherits the
/// mask of the thread that spawns it).
pub(crate) fn is_masked() -> bool {
    let mut current = SigSet::empty();
    match nix::sys::signal::pthread_sigmask(SigmaskHow::SIG_BLOCK, None, Some(&mut current)) {
        Ok(()) => current.iter().next().is_some(),
        // Unknown: resetting an empty mask costs nothing.
        Err(_) => true,
    }
}

/// Sets each signal's disposition to the default, then unblocks every
/// signal. Async-signal-safe (`sigaction` per signal, then `sigprocmask`;
/// no allocation), so it may run between fork and exec.
pub(crate) fn reset(signals: &[Signal]) -> std::io::Result<()> {
    set_default(signals)?;
    nix::sys::signal::sigprocmask(SigmaskHow::SIG_SETMASK, Some(&SigSet::empty()), None)?;
    Ok(())
}

/// Sets each signal's disposition to the default. Async-signal-safe (one
/// `sigaction` per signal, no allocation).
#[expect(
    unsafe_code,
    reason = "sigaction is unsafe because of handler functions; SIG_DFL installs none"
)]
fn set_default(signals: &[Signal]) -> std::io::Result<()> {
    let default = SigAction::new(SigHandler::SigDfl, SaFlags::empty(), SigSet::empty());
    for signal in signals {
        // SAFETY: SIG_DFL runs no code of ours in signal context, and
        // sigaction itself is async-signal-safe.
        unsafe { nix::sys::signal::sigaction(*signal, &default) }?;
    }
    Ok(())
}

/// Resets every ignored signal of this process to its default and unblocks
/// every signal of the calling thread: what the keeper does first, so the
/// CLI it starts inherits nothing and the keeper itself hears its signals.
/// Must run while the process has one thread.
pub(crate) fn reset_own_state() -> std::io::Result<()> {
    reset(&ignored())
}

fn catchable() -> impl Iterator<Item = Signal> {
    Signal::iterator().filter(|s| !matches!(s, Signal::SIGKILL | Signal::SIGSTOP))
}

/// The SigIgn mask of this process: bit n-1 set when signal n is ignored.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn ignored_mask() -> u64 {
    let read = || -> Option<u64> {
        let status = std::fs::read_to_string("/proc/self/status").ok()?;
        let hex = status
            .lines()
            .find_map(|line| line.strip_prefix("SigIgn:"))?
            .trim();
        u64::from_str_radix(hex, 16).ok()
    };
    // Unreadable: assume everything ignored; resetting a default costs
    // nothing.
    read().unwrap_or(u64::MAX)
}

/// No cheap way elsewhere to read a disposition without changing it: treat
/// them all as ignored (handlers are reset by exec anyway).
#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn ignored_mask() -> u64 {
    u64::MAX
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sees_an_ignored_signal_and_resets_it() {
        // SIGWINCH: no test harness relies on it.
        let ignore = SigAction::new(SigHandler::SigIgn, SaFlags::empty(), SigSet::empty());
        #[expect(unsafe_code, reason = "installs SIG_IGN, no handler")]
        // SAFETY: SIG_IGN runs no code.
        unsafe { nix::sys::signal::sigaction(Signal::SIGWINCH, &ignore) }.unwrap();
        assert!(ignored().contains(&Signal::SIGWINCH));
        set_default(&[Signal::SIGWINCH]).unwrap();
        assert!(!ignored().contains(&Signal::SIGWINCH));
    }
}
