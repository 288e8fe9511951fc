//! A session rotation in the contract: the turn that started a new native
//! session under the same `--session` name instead of resuming the old
//! one, because the old one's last turn filled its context past
//! `max_context_tokens` (the envelope's `session_rotated`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The envelope's `session_rotated`: the native session this turn left
/// behind, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SessionRotated {
    /// The native session id left behind (the envelope's `session_id` is
    /// the new one).
    pub old_session_id: String,
    /// Why, in words: `context 2400 tokens > max_context_tokens 1000`.
    pub reason: String,
    /// The old session's last turn's context length.
    pub context_tokens: u64,
    /// The limit it passed.
    pub max_context_tokens: u64,
    /// How the new session was seeded: `none`, `summary` (the old session
    /// was asked for a summary, one extra turn) or `prompt` (the caller's
    /// text).
    pub handoff: String,
}
