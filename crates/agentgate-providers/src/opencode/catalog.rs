//! `opencode models`: one `provider/model` id a line (the config's
//! providers and its bundled models.dev snapshot; offline with
//! `OPENCODE_DISABLE_MODELS_FETCH=1`). Anything else on stdout (a notice,
//! a blank line) is skipped. opencode marks no default.

use crate::catalog::{CatalogEntry, CatalogSource, is_model_id, strip_ansi};

/// opencode's catalog: `opencode models`, offline.
pub const CATALOG: CatalogSource = CatalogSource::Command {
    args: &["models"],
    env: &[("OPENCODE_DISABLE_MODELS_FETCH", "1")],
    parse: parse_models,
};

/// The entries of `opencode models`' output.
pub fn parse_models(stdout: &str) -> Vec<CatalogEntry> {
    let mut out: Vec<CatalogEntry> = Vec::new();
    for line in strip_ansi(stdout).lines() {
        let id = line.trim();
        if id.contains('/') && is_model_id(id) && !out.iter().any(|e| e.id == id) {
            out.push(CatalogEntry::new(id));
        }
    }
    out
}
