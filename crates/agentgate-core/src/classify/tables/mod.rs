//! The per-provider tables. Adding a provider is adding a file here with
//! its `static` [`ProviderTable`] and listing it in [`PROVIDERS`].

mod agy;
mod claude;
mod codex;
mod common;
mod cursor;
mod gemini;
mod opencode;
mod qwen;

use super::table::{ProviderTable, Rule};

pub use agy::AGY;
pub use claude::CLAUDE;
pub use codex::CODEX;
pub use common::COMMON_RULES;
pub use cursor::CURSOR;
pub use gemini::GEMINI;
pub use opencode::OPENCODE;
pub use qwen::QWEN;

/// Every provider with a table.
pub static PROVIDERS: &[&ProviderTable] =
    &[&CLAUDE, &CODEX, &GEMINI, &QWEN, &OPENCODE, &CURSOR, &AGY];

/// The table for a provider without one of its own: only the common rows,
/// the exit code's generic meaning and the HTTP status defaults apply.
pub static GENERIC: ProviderTable = ProviderTable {
    name: "generic",
    rules: &[],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};

/// The table of `provider` (case-insensitive), or [`GENERIC`].
pub fn table(provider: &str) -> &'static ProviderTable {
    PROVIDERS
        .iter()
        .copied()
        .find(|t| t.name.eq_ignore_ascii_case(provider))
        .unwrap_or(&GENERIC)
}

/// The rows tried for `table`: its own, then the common ones.
pub fn rules(table: &ProviderTable) -> impl Iterator<Item = &'static Rule> + '_ {
    table.rules.iter().chain(COMMON_RULES.iter())
}
