//! The process supervisor: runs one agent CLI in its own process group, with
//! a wall-clock deadline (with warnings before it and an extension while
//! the CLI prints), an idle watchdog, cancellation, a termination table
//! (SIGINT, grace, SIGTERM, grace, SIGKILL to the whole group) and a bounded
//! drain of its output, and leaves no process of the group behind.
//!
//! [`supervise`] is the entry point; `AGENTS.md` at this crate's root
//! explains the design (the signal table, the keeper, the reaping order).
//! [`own_env`] is the one rule of what a child's environment may not hold
//! (agentgate's own variables and the secrets it holds), applied in every
//! spawn.

#![warn(missing_docs)]

mod config;
mod control;
mod deadline;
mod error;
mod forward;
mod group;
mod invocation;
mod keeper;
mod leader;
mod lines;
pub mod own_env;
mod reader;
mod report;
mod run;
mod signals;
mod spawn;
mod sweep;
mod terminate;
mod warm;
mod warm_request;

pub use config::{SupervisorConfig, TerminationTable};
pub use control::Control;
pub use deadline::{DeadlineNotice, DeadlinePolicy, NoticeSender, WarnPoint};
pub use error::SuperviseError;
pub use forward::{SignalForwarding, install_signal_forwarding};
pub use invocation::Invocation;
pub use keeper::{
    KEEPER_SUBCOMMAND, ORPHAN_GRACE as KEEPER_ORPHAN_GRACE, POLL_INTERVAL as KEEPER_POLL_INTERVAL,
    keeper_main,
};
pub use lines::{MAX_LINE_BYTES, OutputLine, Stream};
pub use report::{EndReason, ExitReport, ExitStatusInfo, SignalSent, Survivor};
pub use run::{supervise, supervise_with_stdin};
pub use spawn::find_program;
pub use warm::WarmKeeper;
