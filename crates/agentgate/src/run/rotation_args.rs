//! `--max-context-tokens`, `--rotate-handoff`, `--rotate-prompt`: when a
//! `--session` turn starts a new native session instead of resuming, and
//! how it is seeded (docs/guide/sessions.md, Rotation).

use agentgate_core::{RotationHandoff, RotationSettings};

/// The session rotation of a run.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RotationArgs {
    /// With --session: when the session's last turn left a context longer
    /// than N tokens (its last model call's prompt + output), this turn
    /// starts a new native session under the same name instead of
    /// resuming (over the agent's `max_context_tokens`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_context_tokens: Option<u64>,
    /// How a rotated session's first prompt is seeded: `none` or `summary`
    /// (the old session is asked for a summary first, one extra turn, and
    /// its answer starts the new session's first prompt). Over the
    /// agent's `rotate_handoff`.
    #[arg(long, value_name = "HOW", value_parser = ["none", "summary"])]
    pub rotate_handoff: Option<String>,
    /// The text a rotated session's first prompt starts with (handoff
    /// `prompt`; over the agent's `rotate_prompt`).
    #[arg(long, value_name = "TEXT", conflicts_with = "rotate_handoff")]
    pub rotate_prompt: Option<String>,
}

impl RotationArgs {
    /// What the flags say (clap lets only one of the handoff flags through).
    pub fn settings(&self) -> RotationSettings {
        let handoff = match (&self.rotate_prompt, self.rotate_handoff.as_deref()) {
            (Some(text), _) => Some(RotationHandoff::Prompt(text.clone())),
            (None, Some("summary")) => Some(RotationHandoff::Summary),
            (None, Some(_)) => Some(RotationHandoff::None),
            (None, None) => None,
        };
        RotationSettings {
            max_context_tokens: self.max_context_tokens,
            handoff,
        }
    }
}
