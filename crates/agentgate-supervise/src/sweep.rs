//! The keeper's sweep: ending every descendant, in the group or not.
//!
//! A CLI's grandchild can leave the process group (`setsid`, usually after a
//! double fork), so a signal to the group misses it. On Linux the keeper is
//! a *child subreaper* (`PR_SET_CHILD_SUBREAPER`): an orphaned descendant is
//! re-parented to the keeper instead of to init, so every process the CLI
//! started stays in the keeper's tree, which `/proc` shows (each process's
//! parent pid). [`sweep`] SIGKILLs that tree and reaps it until nothing is
//! left, or names what could not be ended within [`SWEEP_BOUND`] (a process
//! stuck in uninterruptible sleep, `D` state, dies only when its I/O ends).
//!
//! Elsewhere (macOS: no subreaper, no `/proc`) the tree is not visible: the
//! sweep finds nothing and only the group signal applies.

use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::sys::signal::{Signal, kill};
use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;

use super::report::Survivor;

/// How long the keeper keeps killing before it names what is left.
pub(crate) const SWEEP_BOUND: Duration = Duration::from_secs(1);

/// Pause between rounds of killing and reaping.
const ROUND_PAUSE: Duration = Duration::from_millis(10);

/// Makes this process a child subreaper (Linux); a no-op elsewhere.
pub(crate) fn become_subreaper() -> Result<(), Errno> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    return nix::sys::prctl::set_child_subreaper(true);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    return Ok(());
}

/// SIGKILLs every living descendant of this process and reaps its children
/// until it has none left, for at most [`SWEEP_BOUND`]; returns the
/// descendants still alive then. Reaps any child: call it only once the
/// CLI's own status was collected.
pub(crate) fn sweep() -> Vec<Survivor> {
    let deadline = Instant::now() + SWEEP_BOUND;
    loop {
        if !reap_exited() {
            // No child at all: with a subreaper, no descendant either.
            return Vec::new();
        }
        let alive = living_descendants();
        if Instant::now() >= deadline {
            return alive
                .iter()
                .map(|pid| Survivor {
                    pid: *pid,
                    command: command_of(*pid),
                })
                .collect();
        }
        signal_all(&alive, Signal::SIGKILL);
        std::thread::sleep(ROUND_PAUSE);
    }
}

/// Sends `signal` to every living descendant, once.
pub(crate) fn signal_descendants(signal: Signal) {
    signal_all(&living_descendants(), signal);
}

/// SIGKILLs living descendants until none is left or the bound passes,
/// without reaping (for a thread that must not take the CLI's status).
pub(crate) fn kill_descendants() {
    let deadline = Instant::now() + SWEEP_BOUND;
    loop {
        let alive = living_descendants();
        if alive.is_empty() || Instant::now() >= deadline {
            return;
        }
        signal_all(&alive, Signal::SIGKILL);
        std::thread::sleep(ROUND_PAUSE);
    }
}

fn signal_all(pids: &[u32], signal: Signal) {
    for pid in pids {
        if let Ok(raw) = i32::try_from(*pid) {
            // Gone already, or not ours to signal: the next round sees it.
            let _ = kill(Pid::from_raw(raw), signal);
        }
    }
}

/// Reaps every child that has exited; false when no child is left.
fn reap_exited() -> bool {
    loop {
        match waitpid(None::<Pid>, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::StillAlive) => return true,
            Ok(_) => continue,
            Err(Errno::EINTR) => continue,
            Err(_) => return false,
        }
    }
}

/// The descendants of this process that are not zombies.
fn living_descendants() -> Vec<u32> {
    descendants_in(std::process::id(), &processes())
}

/// One process as `/proc/<pid>/stat` shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Proc {
    pid: u32,
    ppid: u32,
    zombie: bool,
}

/// The living descendants of `root` among `procs`.
fn descendants_in(root: u32, procs: &[Proc]) -> Vec<u32> {
    let mut found = Vec::new();
    let mut parents = vec![root];
    while let Some(parent) = parents.pop() {
        for p in procs.iter().filter(|p| p.ppid == parent && p.pid != root) {
            if !found.contains(&p.pid) && !parents.contains(&p.pid) {
                parents.push(p.pid);
                if !p.zombie {
                    found.push(p.pid);
                }
            }
        }
    }
    found
}

#[cfg(any(target_os = "linux", target_os = "android"))]
fn processes() -> Vec<Proc> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter_map(|pid| {
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            parse_stat(pid, &stat)
        })
        .collect()
}

#[cfg(not(any(target_os = "linux", target_os = "android")))]
fn processes() -> Vec<Proc> {
    Vec::new()
}

/// `pid (comm) S ppid ...`: the name may hold spaces and parentheses, so
/// the fields are read after its last `)`.
fn parse_stat(pid: u32, stat: &str) -> Option<Proc> {
    let (_, rest) = stat.rsplit_once(')')?;
    let mut fields = rest.split_whitespace();
    let state = fields.next()?;
    let ppid = fields.next()?.parse().ok()?;
    Some(Proc {
        pid,
        ppid,
        zombie: matches!(state, "Z" | "X"),
    })
}

/// The command line of a process, for a report: its arguments joined by
/// spaces, else its name, else empty.
fn command_of(pid: u32) -> String {
    if let Ok(raw) = std::fs::read(format!("/proc/{pid}/cmdline")) {
        let args: Vec<String> = raw
            .split(|b| *b == 0)
            .filter(|a| !a.is_empty())
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect();
        if !args.is_empty() {
            return args.join(" ");
        }
    }
    std::fs::read_to_string(format!("/proc/{pid}/comm"))
        .map(|name| name.trim_end().to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(pid: u32, ppid: u32, zombie: bool) -> Proc {
        Proc { pid, ppid, zombie }
    }

    #[test]
    fn finds_the_whole_tree_below_the_root_and_skips_zombies() {
        let procs = [
            p(1, 0, false),
            p(10, 1, false), // the keeper
            p(11, 10, false),
            p(12, 11, true),
            p(13, 12, false), // below a zombie: still ours
            p(14, 10, false), // re-parented after a double fork
            p(20, 1, false),  // someone else's
            p(21, 20, false),
        ];
        let mut found = descendants_in(10, &procs);
        found.sort_unstable();
        assert_eq!(found, [11, 13, 14]);
    }

    #[test]
    fn reads_a_stat_line_whose_name_holds_parentheses() {
        let stat = "42 (a) b (c)) S 7 42 42 0 -1";
        assert_eq!(parse_stat(42, stat), Some(p(42, 7, false)));
        assert_eq!(parse_stat(43, "43 (x) Z 9 0"), Some(p(43, 9, true)));
        assert_eq!(parse_stat(44, "garbage"), None);
    }
}
