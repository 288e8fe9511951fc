//! Deterministic tools for agents (seed 002): programs described by
//! manifests, run by a supervised runner that enforces deadlines,
//! heartbeats, cancellation, a scoped environment, resource, filesystem and
//! network limits and an org policy, and records every run in the store.
//!
//! - [`manifest`]: the `tool.yaml` format, read as the seed writes it.
//! - [`sandbox`]: the limits applied inside the tool's process
//!   (`agentgate __sandbox`): rlimits, Landlock, a network namespace.
//! - [`runner`]: one tool run, from policy check to result envelope.
//! - [`mcp`]: the registry's tools as an MCP server (`agentgate mcp`).
//!
//! `AGENTS.md` next to this file explains how the pieces fit.

pub mod manifest;
pub mod mcp;
pub mod runner;
pub mod sandbox;
