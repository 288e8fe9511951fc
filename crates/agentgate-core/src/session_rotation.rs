//! The session rotation policy: `max_context_tokens`.
//!
//! A `--session` name maps to one native session per provider. Each turn
//! stores the context length the CLI reported for it (the last model
//! call's prompt + output, the envelope's `context_tokens`). Before the
//! next turn, [`rotation_due`] compares that length with the step's
//! [`RotationPolicy`]: past the limit, the turn starts a new native
//! session under the same name instead of resuming, seeded as
//! [`RotationHandoff`] says. An unknown length (a CLI that did not tell
//! it) never rotates.
//!
//! This module decides and words; `run/rotation.rs` carries it out (the
//! summary turn, the warm process ended) and `run/record.rs` keeps the
//! history in the store.

use std::fmt;
use std::str::FromStr;

/// How a rotated session's first prompt is seeded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum RotationHandoff {
    /// Nothing: the new session starts from the turn's prompt alone.
    #[default]
    None,
    /// The old session is asked for a summary first (one extra turn); its
    /// answer prefixes the new session's first prompt.
    Summary,
    /// The caller's text prefixes the new session's first prompt.
    Prompt(String),
}

impl RotationHandoff {
    /// `none`, `summary` or `prompt`.
    pub fn as_str(&self) -> &'static str {
        match self {
            RotationHandoff::None => "none",
            RotationHandoff::Summary => "summary",
            RotationHandoff::Prompt(_) => "prompt",
        }
    }

    /// The handoff named `kind` (`none`, `summary`, `prompt`) with the
    /// caller's `text`: `prompt` needs the text, and a text alone means
    /// `prompt`.
    pub fn from_parts(kind: Option<&str>, text: Option<&str>) -> Result<Option<Self>, String> {
        let text = text.map(str::trim).filter(|t| !t.is_empty());
        match (kind.map(str::trim), text) {
            (None, None) => Ok(None),
            (None, Some(t)) | (Some("prompt"), Some(t)) => {
                Ok(Some(RotationHandoff::Prompt(t.to_owned())))
            }
            (Some("prompt"), None) => {
                Err("`prompt` handoff needs its text (rotate_prompt, --rotate-prompt)".into())
            }
            (Some(k), None) => k.parse().map(Some),
            (Some(k), Some(_)) => Err(format!(
                "a rotate prompt is given with handoff `{k}`: use handoff `prompt`, or leave the prompt out"
            )),
        }
    }
}

impl FromStr for RotationHandoff {
    type Err = String;

    /// `none` or `summary` (`prompt` takes its text: [`Self::from_parts`]).
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(RotationHandoff::None),
            "summary" => Ok(RotationHandoff::Summary),
            "prompt" => {
                Err("`prompt` handoff needs its text (rotate_prompt, --rotate-prompt)".into())
            }
            other => Err(format!(
                "`{other}` is not a rotation handoff (none, summary or prompt)"
            )),
        }
    }
}

/// What a layer (the agent's config, the run's flags or request) says
/// about rotation; `None` says nothing, so the layer below decides.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RotationSettings {
    /// Rotate when the last turn's context passed this many tokens.
    pub max_context_tokens: Option<u64>,
    /// How the new session is seeded.
    pub handoff: Option<RotationHandoff>,
}

impl RotationSettings {
    /// `self` over `lower`, each value on its own; the policy when a limit
    /// is set.
    pub fn policy_over(&self, lower: &RotationSettings) -> Option<RotationPolicy> {
        let max_context_tokens = self.max_context_tokens.or(lower.max_context_tokens)?;
        let handoff = self
            .handoff
            .clone()
            .or_else(|| lower.handoff.clone())
            .unwrap_or_default();
        Some(RotationPolicy {
            max_context_tokens,
            handoff,
        })
    }
}

/// A step's rotation policy.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotationPolicy {
    /// Rotate when the last turn's context passed this many tokens.
    pub max_context_tokens: u64,
    /// How the new session is seeded.
    pub handoff: RotationHandoff,
}

/// A rotation decided before a turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RotationDue {
    /// The native session left behind.
    pub old_native_id: String,
    /// Its last turn's context length.
    pub context_tokens: u64,
    /// The limit it passed.
    pub max_context_tokens: u64,
}

impl fmt::Display for RotationDue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "context {} tokens > max_context_tokens {}",
            self.context_tokens, self.max_context_tokens
        )
    }
}

/// Whether the turn after one whose context was `last_context` tokens, in
/// native session `native_id`, starts a new session under `policy`: only
/// when the length is known and strictly above the limit.
pub fn rotation_due(
    policy: Option<&RotationPolicy>,
    native_id: &str,
    last_context: Option<u64>,
) -> Option<RotationDue> {
    let policy = policy?;
    let context = last_context?;
    (context > policy.max_context_tokens).then(|| RotationDue {
        old_native_id: native_id.to_owned(),
        context_tokens: context,
        max_context_tokens: policy.max_context_tokens,
    })
}

/// The extra turn `handoff: summary` sends the old session.
pub const SUMMARY_REQUEST: &str = "This conversation is about to continue in a new session that will not see it. \
Write a concise summary for that session: the task, what has been done, the decisions and facts that matter, \
and what remains to do. Answer with the summary only.";

/// The new session's first prompt: the handoff's text (the old session's
/// summary or the caller's), then the turn's prompt.
pub fn seeded_prompt(handoff_text: &str, prompt: &str) -> String {
    format!(
        "Context carried over from the previous session of this conversation:\n\n{}\n\n---\n\n{prompt}",
        handoff_text.trim()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(max: u64) -> RotationPolicy {
        RotationPolicy {
            max_context_tokens: max,
            handoff: RotationHandoff::None,
        }
    }

    #[test]
    fn rotates_only_past_a_known_context() {
        let p = policy(1000);
        let due = rotation_due(Some(&p), "s-1", Some(1001)).unwrap();
        assert_eq!(due.old_native_id, "s-1");
        assert_eq!(
            due.to_string(),
            "context 1001 tokens > max_context_tokens 1000"
        );
        assert_eq!(
            rotation_due(Some(&p), "s-1", Some(1000)),
            None,
            "at the limit"
        );
        assert_eq!(rotation_due(Some(&p), "s-1", Some(10)), None);
        assert_eq!(rotation_due(Some(&p), "s-1", None), None, "unknown");
        assert_eq!(rotation_due(None, "s-1", Some(u64::MAX)), None, "no policy");
    }

    #[test]
    fn a_layer_over_another_sets_each_value_on_its_own() {
        let agent = RotationSettings {
            max_context_tokens: Some(150_000),
            handoff: Some(RotationHandoff::Summary),
        };
        let flags = RotationSettings {
            max_context_tokens: Some(1000),
            handoff: None,
        };
        assert_eq!(
            flags.policy_over(&agent),
            Some(RotationPolicy {
                max_context_tokens: 1000,
                handoff: RotationHandoff::Summary
            })
        );
        let handoff_only = RotationSettings {
            max_context_tokens: None,
            handoff: Some(RotationHandoff::Summary),
        };
        assert_eq!(handoff_only.policy_over(&RotationSettings::default()), None);
        assert_eq!(
            RotationSettings::default().policy_over(&flags),
            Some(policy(1000))
        );
    }

    #[test]
    fn handoffs_parse_from_a_kind_and_a_text() {
        let parts = RotationHandoff::from_parts;
        assert_eq!(parts(None, None), Ok(None));
        assert_eq!(
            parts(Some("summary"), None),
            Ok(Some(RotationHandoff::Summary))
        );
        assert_eq!(parts(Some("none"), None), Ok(Some(RotationHandoff::None)));
        assert_eq!(
            parts(None, Some(" go on ")),
            Ok(Some(RotationHandoff::Prompt("go on".into())))
        );
        assert_eq!(
            parts(Some("prompt"), Some("x")),
            Ok(Some(RotationHandoff::Prompt("x".into())))
        );
        assert!(
            parts(Some("prompt"), None)
                .unwrap_err()
                .contains("needs its text")
        );
        assert!(parts(Some("summary"), Some("x")).is_err());
        assert!(
            parts(Some("all"), None)
                .unwrap_err()
                .contains("not a rotation handoff")
        );
    }

    #[test]
    fn the_seeded_prompt_carries_the_handoff_then_the_prompt() {
        let p = seeded_prompt("  SUMMARY-1 \n", "next task");
        assert!(p.contains("SUMMARY-1\n\n---\n\nnext task"), "{p}");
    }
}
