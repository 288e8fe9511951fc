//! Process tests of `agentgate_supervise`, driven by the `misbehave`
//! fixture: every ending of a run (exit, timeouts, cancel, result-then-hang,
//! the supervisor's own SIGKILL) must leave no process of the run behind.

#![expect(
    clippy::unwrap_used,
    clippy::panic,
    reason = "test helpers fail loudly"
)]

#[path = "supervise/support.rs"]
mod support;

#[path = "supervise/completion.rs"]
mod completion;
#[path = "supervise/deadline.rs"]
mod deadline;
#[path = "supervise/errors.rs"]
mod errors;
#[path = "supervise/keeper.rs"]
mod keeper;
#[path = "supervise/output.rs"]
mod output;
#[path = "supervise/signals.rs"]
mod signals;
#[path = "supervise/streaming.rs"]
mod streaming;
#[path = "supervise/survivors.rs"]
mod survivors;
#[path = "supervise/termination.rs"]
mod termination;
#[path = "supervise/warm.rs"]
mod warm;
