//! An agent's rotation keys: `max_context_tokens`, `rotate_handoff`,
//! `rotate_prompt`.

use super::{invalid, parse};
use crate::session_rotation::{RotationHandoff, RotationPolicy, RotationSettings};

#[test]
fn an_agent_takes_its_rotation_keys() {
    let cfg = parse(
        "version: 1\nagents:\n  a:\n    provider: codex\n    max_context_tokens: 150000\n    \
         rotate_handoff: summary\n  b:\n    provider: claude\n    max_context_tokens: 9000\n    \
         rotate_prompt: \"Notes are in NOTES.md\"\n  c:\n    provider: claude\n",
    )
    .unwrap();
    assert_eq!(
        cfg.agent("a").unwrap().rotation,
        RotationSettings {
            max_context_tokens: Some(150_000),
            handoff: Some(RotationHandoff::Summary),
        }
    );
    let b = &cfg.agent("b").unwrap().rotation;
    assert_eq!(
        b.handoff,
        Some(RotationHandoff::Prompt("Notes are in NOTES.md".into()))
    );
    assert_eq!(
        cfg.agent("c").unwrap().rotation,
        RotationSettings::default()
    );
    // A run's flag wins over the agent's limit, keeping its handoff.
    let flags = RotationSettings {
        max_context_tokens: Some(1000),
        handoff: None,
    };
    assert_eq!(
        flags.policy_over(b),
        Some(RotationPolicy {
            max_context_tokens: 1000,
            handoff: RotationHandoff::Prompt("Notes are in NOTES.md".into()),
        })
    );
}

#[test]
fn bad_rotation_keys_are_refused_at_their_line() {
    for (bad, wanted) in [
        ("max_context_tokens: 0", "at least 1"),
        ("rotate_handoff: all", "not a rotation handoff"),
        ("rotate_handoff: prompt", "needs its text"),
    ] {
        let (line, message) = invalid(&format!(
            "version: 1\nagents:\n  r:\n    provider: claude\n    {bad}\n"
        ));
        assert_eq!(line, Some(5), "{message}");
        assert!(message.contains(wanted), "{bad}: {message}");
    }
}
