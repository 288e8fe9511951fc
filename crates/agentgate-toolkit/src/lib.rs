//! Write deterministic tools for agentgate in Rust.
//!
//! A tool is any program that prints the tool protocol v1 on stdout, one
//! JSON message per line (see `agentgate_protocol::ToolMessage`), and
//! honours the variables the runner sets. This crate does the protocol's
//! part so a tool's code is its work:
//!
//! - [`ToolContext::from_env`] reads `RUN_ID`, `TRACE_ID`, `WORKSPACE`,
//!   `DEADLINE_TS`, `CANCEL_FILE`, `LOG_DIR`;
//! - its methods print `start`, `progress`, `heartbeat`, `action_required`,
//!   `result` (with [`artifact`] hashing a file), `error`, `cancelled`,
//!   `log`;
//! - [`ToolContext::should_stop`] says whether to stop between batches
//!   (the cancel file exists, or the deadline passed);
//! - [`Checkpoints`] saves and loads a stage's state atomically in the
//!   workspace, so a run resumed in the same workspace continues where the
//!   last one stopped.
//!
//! The example tools `example-processor` and `example-migrator` (in
//! `src/bin/`) are seed 002's two examples written with it.

mod args;
mod checkpoint;
mod context;

pub use args::{answer_selftest, arg_value};
pub use checkpoint::Checkpoints;
pub use context::{Stop, ToolContext, artifact};
