//! Claude Code's models: it has no listing command (its aliases are
//! compiled into the binary), so this is a table of the ids and aliases
//! of the pinned version (an alias's target can be moved by
//! `ANTHROPIC_DEFAULT_{OPUS,SONNET,HAIKU}_MODEL`). Informative only:
//! Claude sends any other name to its server as is.

use crate::catalog::{CatalogSource, StaticModel};

/// Claude's catalog: agentgate's table.
pub const CATALOG: CatalogSource = CatalogSource::Static(TABLE);

static TABLE: &[StaticModel] = &[
    StaticModel {
        id: "claude-opus-5-5",
        display_name: "Claude Opus 5.5",
        default: false,
        aliases: &["opus", "best"],
    },
    StaticModel {
        id: "claude-sonnet-5-5",
        display_name: "Claude Sonnet 5.5",
        default: true,
        aliases: &["sonnet"],
    },
    StaticModel {
        id: "claude-haiku-5-5",
        display_name: "Claude Haiku 5.5",
        default: false,
        aliases: &["haiku"],
    },
    StaticModel {
        id: "claude-fable-5-2",
        display_name: "Claude Fable 5.2",
        default: false,
        aliases: &["fable"],
    },
    StaticModel {
        id: "opusplan",
        display_name: "Opus to plan, Sonnet to act (alias)",
        default: false,
        aliases: &[],
    },
    StaticModel {
        id: "claude-opus-4-8",
        display_name: "Claude Opus 4.8",
        default: false,
        aliases: &[],
    },
    StaticModel {
        id: "claude-sonnet-4-5",
        display_name: "Claude Sonnet 4.5",
        default: false,
        aliases: &[],
    },
    StaticModel {
        id: "claude-haiku-4-5",
        display_name: "Claude Haiku 4.5",
        default: false,
        aliases: &[],
    },
];
