//! Workflows: tool, agent, parallel and decision steps run as one unit,
//! checkpointed in the store and resumable (issue 15; seed 002's workflow
//! orchestrator and run state machine).
//!
//! - [`definition`]: the workflow file's types.
//! - [`refs`]: `${...}` references and the templates that hold them.
//! - [`condition`]: a step's `when:`.
//! - [`agent`]: an `agent:` mapping as a run request.
//! - [`load`]: reading and checking a workflow (`check.rs`: the checks;
//!   `graph.rs`: dependencies and cycles).
//! - [`schema`]: the file's JSON Schema.

pub mod agent;
mod check;
pub mod condition;
pub mod definition;
mod graph;
pub mod load;
pub mod refs;
pub mod schema;

pub use agent::agent_request;
pub use check::{MAX_STEP_ID_LEN, is_step_id};
pub use load::{Workflow, WorkflowError};
pub use schema::workflow_schema;

#[cfg(test)]
mod tests;
