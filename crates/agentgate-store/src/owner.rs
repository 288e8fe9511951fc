//! Who owns a running run, and whether that owner is still there.
//!
//! `insert_run` stamps the calling process as the run's owner: its pid, its
//! start time (on Linux `/proc/<pid>/stat` field 22, clock ticks since boot),
//! the boot id (`/proc/sys/kernel/random/boot_id`) and the host name. A run
//! still `running` in the store whose owner is gone reads as
//! [`RunStatus::Abandoned`](crate::RunStatus::Abandoned): the owner's agentgate died (SIGKILL, power loss,
//! a disk full before the final write) and nothing will finish the run.
//!
//! The status is computed at read time, never written back: the stored
//! status stays `running`, so a read never writes and every backend derives
//! the same answer from the same owner columns
//! ([`effective_status`](crate::effective_status)).
//!
//! Owner gone = same host and (another boot, or no process with that pid,
//! or a process with that pid but another start time: the pid was reused).
//! A run owned by another host is left `running`: its process cannot be
//! checked from here. A run recorded before owners were stored (schema
//! version 2 and older) has no owner and stays `running` too.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The process that runs a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunOwner {
    /// Its process id.
    pub pid: u32,
    /// When it started, in clock ticks since boot (`/proc/<pid>/stat` field
    /// 22); `None` where the system does not tell.
    pub start_ticks: Option<u64>,
    /// The boot it belongs to (Linux `boot_id`); `None` where unknown.
    pub boot_id: Option<String>,
    /// The host name.
    pub host: String,
}

/// What can be told of a run's owner from this process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OwnerState {
    /// The owner process is running.
    Alive,
    /// The owner process is gone (or its pid now belongs to another one).
    Gone,
    /// The owner runs on another host: it cannot be checked from here.
    Elsewhere,
}

impl RunOwner {
    /// The calling process.
    pub fn current() -> RunOwner {
        let pid = std::process::id();
        RunOwner {
            pid,
            start_ticks: process_start_ticks(pid),
            boot_id: boot_id().clone(),
            host: host_name().clone(),
        }
    }

    /// Whether the owner is still there, as seen from this process.
    pub fn state(&self) -> OwnerState {
        self.state_against(host_name(), boot_id().as_deref(), process_probe)
    }

    /// [`RunOwner::state`] against a given host, boot and process table
    /// (`probe(pid)`: `None` when no such process runs, else its start
    /// ticks if known).
    pub fn state_against(
        &self,
        host: &str,
        boot: Option<&str>,
        probe: impl Fn(u32) -> Option<Option<u64>>,
    ) -> OwnerState {
        if self.host != host {
            return OwnerState::Elsewhere;
        }
        if let (Some(mine), Some(theirs)) = (boot, self.boot_id.as_deref())
            && mine != theirs
        {
            return OwnerState::Gone;
        }
        match probe(self.pid) {
            None => OwnerState::Gone,
            Some(now) => match (now, self.start_ticks) {
                (Some(now), Some(then)) if now != then => OwnerState::Gone,
                _ => OwnerState::Alive,
            },
        }
    }
}

fn host_name() -> &'static String {
    static HOST: OnceLock<String> = OnceLock::new();
    HOST.get_or_init(|| {
        nix::unistd::gethostname()
            .ok()
            .map(|h| h.to_string_lossy().into_owned())
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "localhost".to_owned())
    })
}

fn boot_id() -> &'static Option<String> {
    static BOOT: OnceLock<Option<String>> = OnceLock::new();
    BOOT.get_or_init(|| {
        std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
            .ok()
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    })
}

/// `None` when no process `pid` runs (a zombie counts as gone); else its
/// start ticks where the system tells them.
fn process_probe(pid: u32) -> Option<Option<u64>> {
    let stat = format!("/proc/{pid}/stat");
    match std::fs::read_to_string(&stat) {
        Ok(text) => {
            let (state, ticks) = parse_stat(&text)?;
            (state != 'Z' && state != 'X').then_some(ticks)
        }
        // No /proc (not Linux): ask the kernel whether the pid exists.
        Err(_) if !std::path::Path::new("/proc/self/stat").exists() => {
            let pid = nix::unistd::Pid::from_raw(i32::try_from(pid).ok()?);
            match nix::sys::signal::kill(pid, None) {
                Ok(()) | Err(nix::errno::Errno::EPERM) => Some(None),
                Err(_) => None,
            }
        }
        Err(_) => None,
    }
}

fn process_start_ticks(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    parse_stat(&text)?.1
}

/// The state (field 3) and start time (field 22) of a `/proc/<pid>/stat`
/// line. The command name (field 2) is in parentheses and may hold spaces
/// and parentheses: the fields are counted from the last `)`.
fn parse_stat(text: &str) -> Option<(char, Option<u64>)> {
    let after = &text[text.rfind(')')? + 1..];
    let mut fields = after.split_whitespace();
    let state = fields.next()?.chars().next()?;
    // Field 3 was the state; field 22 is 19 further.
    let ticks = fields.nth(18).and_then(|f| f.parse().ok());
    Some((state, ticks))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owner(pid: u32, ticks: Option<u64>) -> RunOwner {
        RunOwner {
            pid,
            start_ticks: ticks,
            boot_id: Some("boot-a".to_owned()),
            host: "box".to_owned(),
        }
    }

    #[test]
    fn a_live_owner_with_its_start_time_is_alive() {
        let state =
            owner(42, Some(1000)).state_against("box", Some("boot-a"), |_| Some(Some(1000)));
        assert_eq!(state, OwnerState::Alive);
    }

    #[test]
    fn a_reused_pid_with_another_start_time_is_gone() {
        let state = owner(42, Some(1000)).state_against("box", Some("boot-a"), |pid| {
            assert_eq!(pid, 42);
            Some(Some(2000))
        });
        assert_eq!(state, OwnerState::Gone);
    }

    #[test]
    fn no_process_with_the_pid_is_gone() {
        let state = owner(42, Some(1000)).state_against("box", Some("boot-a"), |_| None);
        assert_eq!(state, OwnerState::Gone);
    }

    #[test]
    fn another_boot_is_gone_even_if_the_pid_and_ticks_match() {
        let state =
            owner(42, Some(1000)).state_against("box", Some("boot-b"), |_| Some(Some(1000)));
        assert_eq!(state, OwnerState::Gone);
    }

    #[test]
    fn another_host_is_not_judged() {
        let state = owner(42, Some(1000)).state_against("other", Some("boot-b"), |_| None);
        assert_eq!(state, OwnerState::Elsewhere);
    }

    #[test]
    fn this_process_is_alive_and_a_dead_child_is_gone() {
        let me = RunOwner::current();
        assert_eq!(me.state(), OwnerState::Alive);
        if cfg!(target_os = "linux") {
            assert!(me.start_ticks.is_some(), "{me:?}");
        }
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        let dead = RunOwner { pid, ..me.clone() };
        assert_eq!(dead.state(), OwnerState::Gone);
        // Same pid, another start time: the pid was reused.
        let reused = RunOwner {
            start_ticks: me.start_ticks.map(|t| t + 1),
            ..me
        };
        if cfg!(target_os = "linux") {
            assert_eq!(reused.state(), OwnerState::Gone);
        }
    }

    #[test]
    fn stat_fields_are_counted_from_the_last_parenthesis() {
        let line =
            "123 (we ird) (x)) S 1 123 123 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 50";
        assert_eq!(parse_stat(line), Some(('S', Some(987654))));
        assert_eq!(parse_stat("garbage"), None);
    }
}
