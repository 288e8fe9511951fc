//! The table of a provider without one of its own, and the rows every
//! table is tried with. Each built-in provider's own table is in its
//! folder (`providers/claude/errors.rs`).

use super::common::COMMON_RULES;
use super::table::{ProviderTable, Rule};

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

/// The rows tried for `table`: its own, then the common ones.
pub fn rules(table: &ProviderTable) -> impl Iterator<Item = &'static Rule> + '_ {
    table.rules.iter().chain(COMMON_RULES.iter())
}
