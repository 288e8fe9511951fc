//! Running a [`Plan`](crate::plan::Plan): see `AGENTS.md` next to this
//! file for how the parts fit.
//!
//! [`run`] (`failover.rs`) goes through the plan's steps in order; one step
//! (`step.rs`) is one or more attempts (a vanished session recreated once,
//! an invalid model retried once); one attempt (`attempt.rs`) is the CLI
//! under the supervisor, its lines decoded as they come, its end
//! classified. `checks.rs` holds what is checked around an attempt (the
//! answer's schema, the edit scope, the workspace before failover),
//! `deadline_event.rs` turns the supervisor's deadline notices
//! into `timeout_warning` and `timeout_extended` status events,
//! `emitter.rs` numbers the events and writes them, `record.rs` writes the
//! store, `session_gate.rs` keeps a `--session` name to one run at a time,
//! `worktree.rs` gives a run in `workspace: worktree` its own git worktree,
//! `tool_server.rs` gives a step with registry tools agentgate's MCP server.

mod asked;
mod attempt;
mod attempt_end;
mod audit;
mod budget_meter;
mod capacity;
mod capture;
mod checks;
mod container;
mod cost;
mod deadline_event;
mod debug_prompt;
mod emitter;
mod failover;
mod gateway_attempt;
mod handoff;
mod options;
mod random_hex;
mod record;
mod rotation;
mod run_log;
mod sandbox_attempt;
pub use sandbox_attempt::system_read_paths;
mod session_gate;
mod step;
mod summary_file;
mod tail;
mod thread_totals;
mod tool_server;
mod warm_attempt;
mod warm_start;
mod worktree;

pub use audit::{append_audit, audit_line};
pub use capture::{parse_capture, parse_capture_streams, raw_line};
pub use debug_prompt::{PROMPT_FILE_NAME, SYSTEM_PROMPT_FILE_NAME};
pub use emitter::{EventSink, NullSink};
pub use failover::run;
pub use options::{CancelRequest, RunOptions, RunOutcome};
pub use record::new_run_id;
pub use tail::{STDERR_TAIL_BYTES, Tail};
pub use tool_server::{ToolServer, ToolServerSource};
