//! Approvals: a CLI's request for permission before a tool call, answered
//! from a policy (`approvals:` in the config) rather than failed or
//! bypassed.
//!
//! - [`class`]: what a request is about, the same for every CLI (the
//!   tool's class, name, paths, command);
//! - [`policy`]: the rules and the verdict (first rule that holds, else the
//!   default), with the conservative readings of paths and commands;
//! - [`pattern`]: the globs the rules use.
//!
//! Each CLI's long-lived mode turns its own requests into a
//! [`class::ToolCall`] and the verdict into its own answer (`warm/`).

pub mod class;
pub mod pattern;
pub mod policy;

pub use class::{ToolCall, ToolClass, class_of_acp_kind, class_of_tool};
pub use policy::{ApprovalPolicy, DEFAULT_ASK_TIMEOUT, Decision, Rule, Verdict, unwrap_shell};
