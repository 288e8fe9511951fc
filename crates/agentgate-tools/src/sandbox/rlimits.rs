//! CPU seconds and memory as rlimits, applied by the process that then
//! becomes the tool (see `apply.rs`), so the tool inherits them and cannot
//! raise them (the hard limit is set too).
//!
//! `RLIMIT_CPU`: the soft limit is the budget, the hard limit
//! [`CPU_HARD_MARGIN_S`] above it: at the soft limit the kernel sends
//! `SIGXCPU` (which ends a program that does not handle it), at the hard
//! limit `SIGKILL`. `RLIMIT_AS` bounds the address space (as `ulimit -v`),
//! not the resident memory: runtimes that reserve large virtual ranges up
//! front (V8, the JVM, Go) need a higher `memory_mb` than they use.

use agentgate_protocol::Enforcement;
use nix::sys::resource::{Resource, getrlimit, setrlimit};

use super::SandboxSpec;
use super::report::{enforced, no_limit, not_enforced};

/// Seconds between the `SIGXCPU` of the soft CPU limit and the `SIGKILL` of
/// the hard one.
pub const CPU_HARD_MARGIN_S: u64 = 2;

/// The rlimits to set, worked out before any is set (setting `RLIMIT_AS`
/// must be the last thing before `exec`: after it, the sandbox's own
/// allocations may fail).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RlimitPlan {
    /// `(soft, hard)` for `RLIMIT_CPU`.
    cpu: Option<(u64, u64)>,
    /// `(soft, hard)` for `RLIMIT_AS`.
    memory: Option<(u64, u64)>,
}

impl RlimitPlan {
    /// The limits `spec` asks for, within the hard limits this process
    /// already has (a lower inherited limit stays: it is stricter), and
    /// what the report says of each.
    pub(crate) fn new(spec: &SandboxSpec) -> (RlimitPlan, Enforcement, Enforcement) {
        let (cpu, cpu_report) = match spec.cpu_seconds {
            None => (None, no_limit()),
            Some(seconds) => {
                let limit = format!("{seconds} s");
                match getrlimit(Resource::RLIMIT_CPU) {
                    Ok((_, hard_now)) => {
                        let soft = seconds.min(hard_now);
                        let hard = seconds.saturating_add(CPU_HARD_MARGIN_S).min(hard_now);
                        (Some((soft, hard)), enforced(limit, "RLIMIT_CPU"))
                    }
                    Err(e) => (None, not_enforced(limit, format!("getrlimit failed: {e}"))),
                }
            }
        };
        let (memory, memory_report) = match spec.memory_mb {
            None => (None, no_limit()),
            Some(mb) => {
                let limit = format!("{mb} MiB of address space");
                match getrlimit(Resource::RLIMIT_AS) {
                    Ok((_, hard_now)) => {
                        let bytes = mb.saturating_mul(1024 * 1024).min(hard_now);
                        (Some((bytes, bytes)), enforced(limit, "RLIMIT_AS"))
                    }
                    Err(e) => (None, not_enforced(limit, format!("getrlimit failed: {e}"))),
                }
            }
        };
        (RlimitPlan { cpu, memory }, cpu_report, memory_report)
    }

    /// Set the planned limits on this process. Allocates nothing.
    pub(crate) fn apply(self) -> nix::Result<()> {
        if let Some((soft, hard)) = self.cpu {
            setrlimit(Resource::RLIMIT_CPU, soft, hard)?;
        }
        if let Some((soft, hard)) = self.memory {
            setrlimit(Resource::RLIMIT_AS, soft, hard)?;
        }
        Ok(())
    }
}
