//! Gemini CLI's models: it has no listing command, so this is a table of
//! the names its bundle knows (`VALID_GEMINI_MODELS`, `modelDefinitions`,
//! the aliases), as of the pinned version. Informative only: Gemini sends
//! any other name to its server as is.

use crate::catalog::{CatalogSource, StaticModel};

/// Gemini's catalog: agentgate's table.
pub const CATALOG: CatalogSource = CatalogSource::Static(TABLE);

const fn m(id: &'static str, display_name: &'static str) -> StaticModel {
    StaticModel::new(id, display_name)
}

static TABLE: &[StaticModel] = &[
    StaticModel {
        default: true,
        ..m("auto", "Auto (Gemini routes each request)")
    },
    m("auto-gemini-3", "Auto within Gemini 3"),
    m("auto-gemini-2.5", "Auto within Gemini 2.5"),
    StaticModel {
        aliases: &["pro"],
        ..m("gemini-3.1-pro-preview", "Gemini 3.1 Pro (preview)")
    },
    m(
        "gemini-3.1-pro-preview-customtools",
        "Gemini 3.1 Pro (custom tools)",
    ),
    m("gemini-3-pro-preview", "Gemini 3 Pro (preview)"),
    m("gemini-3-flash-preview", "Gemini 3 Flash (preview)"),
    m("gemini-3.8-flash", "Gemini 3.8 Flash"),
    m("gemini-3.5-flash", "Gemini 3.5 Flash"),
    m("gemini-3-flash", "Gemini 3 Flash"),
    m("gemini-3.5-flash-lite", "Gemini 3.5 Flash-Lite"),
    m("gemini-3.1-flash-lite", "Gemini 3.1 Flash-Lite"),
    m("gemini-2.5-pro", "Gemini 2.5 Pro"),
    m("gemini-2.5-flash", "Gemini 2.5 Flash"),
    m("gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite"),
    m("flash", "Gemini's current Flash model (alias)"),
    m("flash-lite", "Gemini's current Flash-Lite model (alias)"),
    m("gemma-4-31b-it", "Gemma 4 31B"),
    m("gemma-4-26b-a4b-it", "Gemma 4 26B A4B"),
];
