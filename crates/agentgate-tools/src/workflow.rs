//! Workflows: tool, agent, parallel and decision steps run as one unit,
//! checkpointed in the store and resumable (seed 002's workflow
//! orchestrator and run state machine). `docs/workflows.md` is the
//! reference of the file and of what a run writes.
//!
//! Reading a workflow:
//! - [`definition`]: the workflow file's types.
//! - [`refs`]: `${...}` references and the templates that hold them.
//! - [`condition`]: a step's `when:`.
//! - [`agent`]: an `agent:` mapping as a run request.
//! - [`load`]: reading and checking a workflow (`check.rs`: the checks;
//!   `graph.rs`: dependencies and cycles).
//! - [`schema`]: the file's JSON Schema.
//!
//! Running one:
//! - [`engine`]: a run and a resume; `context.rs` what a run's steps
//!   share, `step.rs` one step (its tries, a
//!   `parallel` group's scheduling), `kinds.rs` the tool and agent runs a
//!   step makes, `decision.rs` a decision step, `cancel.rs` the cancel
//!   scopes, `journal.rs` the run's own events, `report.rs` its envelope.
//! - [`history`]: a run read back from its events, the checkpoint a resume
//!   starts from.
//! - [`listing`]: workflow runs and their steps, as `workflow runs` and
//!   `workflow show` print them.
//!
//! The workflow run is a run of kind `workflow` in the store; every run a
//! step makes is a run of its own with the workflow as `parent_run_id`.

pub mod agent;
mod cancel;
mod check;
pub mod condition;
mod context;
mod decision;
pub mod definition;
pub mod engine;
mod graph;
pub mod history;
mod journal;
mod kinds;
pub mod listing;
pub mod load;
pub mod refs;
mod report;
pub mod schema;
mod step;

pub use agent::agent_request;
pub use check::{MAX_STEP_ID_LEN, is_step_id};
pub use engine::{
    AgentRunHook, WorkflowEnv, WorkflowOutcome, WorkflowRunError, WorkflowStart, resume_workflow,
    run_workflow, stored_workflow,
};
pub use journal::WorkflowObserver;
pub use load::{Workflow, WorkflowError};
pub use schema::workflow_schema;

#[cfg(test)]
mod tests;
