//! What the limits see of a running job ([`RunningJob`], shown by `GET
//! /v1/queue`), and the backoff between a failed job's tries.
//!
//! The limits themselves (`max_running`, per provider, one job at a time
//! per session in submission order, one writer per folder, quota waits)
//! are decided by the store when it claims (`JobQueue::claim_next`, see
//! `agentgate_store`'s `claim_next` notes), over every executor's running
//! jobs: `claims.rs` only gives it the config's numbers and the quota.

use std::path::PathBuf;
use std::time::Duration;

use agentgate_core::QueueSpec;
use jiff::Timestamp;

/// A job running now, as the limits see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunningJob {
    /// The provider it counts against (`None`: no provider).
    pub provider: Option<String>,
    /// Its logical session.
    pub session: Option<String>,
    /// The folder it may write in.
    pub writes_in: Option<PathBuf>,
}

/// The wait before try `attempts + 1` after `attempts` failed tries:
/// `backoff` doubled per earlier try, at most `backoff_max`, plus up to a
/// quarter more at random (`jitter` in 0..=1), so jobs that failed together
/// do not all come back at once.
pub fn backoff(limits: &QueueSpec, attempts: u32, jitter: f64) -> Duration {
    let doublings = attempts.saturating_sub(1).min(30);
    let base = limits
        .backoff
        .checked_mul(1u32 << doublings)
        .unwrap_or(limits.backoff_max)
        .min(limits.backoff_max);
    base + base.mul_f64(jitter.clamp(0.0, 1.0) / 4.0)
}

/// A number in 0..=1 from the process's random hasher seed and the clock:
/// jitter needs no better randomness.
pub fn jitter() -> f64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond().unsigned_abs());
    (h.finish() % 10_001) as f64 / 10_000.0
}

#[cfg(test)]
mod tests;
