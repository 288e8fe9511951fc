//! The limits applied inside a tool's process: `agentgate __sandbox
//! SPEC_FILE` reads a [`SandboxSpec`], applies the limits to itself, starts
//! the tool as its child (which inherits them), waits for it, and writes a
//! [`SandboxReport`] (what was enforced, how the tool ended, its CPU time and
//! peak memory) for the runner to read.

mod paths;
mod spec;

pub use paths::{glob_to_path, system_read_paths};

pub use spec::{NetworkRule, SANDBOX_SUBCOMMAND, SandboxExit, SandboxReport, SandboxSpec};
