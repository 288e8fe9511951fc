//! Workflows: tool, agent, parallel and decision steps run as one unit,
//! checkpointed in the store and resumable (issue 15; seed 002's workflow
//! orchestrator and run state machine).
//!
//! - [`definition`]: the workflow file's types.
//! - [`refs`]: `${...}` references and the templates that hold them.
//! - [`condition`]: a step's `when:`.
//! - [`agent`]: an `agent:` mapping as a run request.

pub mod agent;
pub mod condition;
pub mod definition;
pub mod refs;

pub use agent::agent_request;
