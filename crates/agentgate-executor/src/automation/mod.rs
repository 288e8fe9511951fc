//! Schedules and watched folders: the jobs `agentgate serve` creates by
//! itself (the config's `schedules:` and `watch:`, see docs/config.md).
//!
//! Both only *create* jobs in the queue ([`JobQueue::enqueue`]); the
//! executor runs them like any submitted run. What makes them safe across
//! restarts is the idempotency key: a schedule's fire is keyed by the
//! schedule's name and the fire's scheduled instant ([`Scheduler`]); a
//! watched file by its folder, inode, size, modification time and name
//! ([`FolderWatcher`]). A restarted server that enqueues the same fire or
//! file again gets the job back instead of a second one; the store, not
//! memory, is the record of what was done.
//!
//! Each schedule set and each watched folder runs on a thread of its own
//! (the queue's calls block, like every store call), woken by its timer or
//! by [`Automation::stop`]. Time comes from a [`Clock`], so tests drive
//! fires and settle times without sleeping.
//!
//! Files: `schedule.rs` (due fires, overlap, catch-up), `watch.rs` (a
//! folder's scans and its files' lives), `watch_files.rs` (listing, the
//! skip rules, moving into `done/`/`failed/`, the error record), `job.rs`
//! (a request and a key into a [`agentgate_store::NewJob`]), `runner.rs`
//! (the threads and their stop).

mod job;
mod runner;
mod schedule;
mod watch;
mod watch_files;

pub use runner::{Automation, AutomationError};

/// Where the automation reads the time: the executor's clock (the system
/// clock in `serve`, the test clock file under tests, a fake one in unit
/// tests).
use crate::clock::Clock;

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
