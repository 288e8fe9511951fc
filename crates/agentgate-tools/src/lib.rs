//! Deterministic tools for agents (seed 002): programs described by
//! manifests, run by a supervised runner that enforces deadlines,
//! heartbeats, cancellation, a scoped environment, resource, filesystem and
//! network limits and an org policy, and records every run in the store.
//!
//! - [`manifest`]: the `tool.yaml` format, read as the seed writes it.
//! - [`registry`]: every tool (the registry folder and the config's
//!   `tools.define`), the error codes, the policy.
//! - [`error_codes`]: code → class and retryable (the runner's own, then
//!   `error_codes.yaml`).
//! - [`policy`]: the org policy and the limits it gives a run.
//! - [`check`]: `agentgate tools check`: a tool's manifest, entry, policy
//!   and selftest.
//! - [`sandbox`]: the limits applied inside the tool's process
//!   (`agentgate __sandbox`): rlimits, Landlock, a network namespace.
//! - [`runner`]: one tool run, from policy check to result envelope.
//! - [`mcp`]: the registry's tools as an MCP server (`agentgate mcp`).
//! - [`invoke`]: from the registry to a run request, and to the MCP tools.
//! - [`for_agents`]: the MCP server that gives agent runs registry tools.
//! - [`workflow`]: workflows of tool, agent, parallel and decision steps.
//!
//! `AGENTS.md` next to this file explains how the pieces fit.

pub mod check;
pub mod error_codes;
pub mod for_agents;
pub mod glob;
pub mod invoke;
pub mod manifest;
pub mod mcp;
pub mod policy;
pub mod registry;
mod resolved;
pub mod runner;
pub mod sandbox;
pub mod workflow;
mod yaml;

pub use yaml::YamlFault;
