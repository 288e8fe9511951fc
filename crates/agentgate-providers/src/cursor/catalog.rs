//! `cursor-agent models`: `id - Display Name` lines under a heading, the
//! current and default models marked `(current)` / `(default)`, maybe in
//! colour. Read tolerantly (the format is documented by third parties
//! only): a line counts when it starts with a model id followed by ` - `
//! or by nothing; headings, tips and blank lines are skipped.

use crate::catalog::{CatalogEntry, CatalogSource, is_model_id, strip_ansi};

/// cursor-agent's catalog: `cursor-agent models` (needs its login).
pub const CATALOG: CatalogSource = CatalogSource::Command {
    args: &["models"],
    env: &[],
    parse: parse_models,
};

/// The entries of `cursor-agent models`' output.
pub fn parse_models(stdout: &str) -> Vec<CatalogEntry> {
    let mut out: Vec<CatalogEntry> = Vec::new();
    for line in strip_ansi(stdout).lines() {
        let line = line.trim().trim_start_matches(['*', '-', '•', '>']).trim();
        let (id, rest) = match line.split_once(" - ") {
            Some((id, rest)) => (id.trim(), rest.trim()),
            None if !line.contains(' ') => (line, ""),
            None => continue,
        };
        if !is_model_id(id) || id.ends_with(':') || out.iter().any(|e| e.id == id) {
            continue;
        }
        let mut name = rest.to_owned();
        let mut default = false;
        for mark in [
            "(default)",
            "(current)",
            "(current, default)",
            "(default, current)",
        ] {
            if let Some(at) = name.find(mark) {
                default |= mark.contains("default");
                name.replace_range(at..at + mark.len(), "");
            }
        }
        let name = name.split_whitespace().collect::<Vec<_>>().join(" ");
        out.push(CatalogEntry {
            display_name: (!name.is_empty()).then_some(name),
            default,
            ..CatalogEntry::new(id)
        });
    }
    out
}
