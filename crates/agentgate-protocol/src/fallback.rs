//! Where `agentgate run --reasoning-fallback` found a session's figures:
//! the envelope's `fallback`, present only on its output.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// What the figures were read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FallbackFrom {
    /// agentgate's run store: the session's latest recorded run
    /// (`run_id` is that run's).
    Store,
    /// The CLI's own session file (`path`), for a session agentgate never
    /// ran; `run_id` is empty.
    SessionFile,
}

/// The envelope's `fallback`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FallbackSource {
    /// What the figures were read from.
    pub from: FallbackFrom,
    /// The session file read (`session_file` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Lines of the session file that were skipped, each with why
    /// (`line 7: not UTF-8`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_lines: Vec<String>,
}
