//! STUB, being written: the opencode table.

use crate::classify::table::ProviderTable;

/// The opencode table.
pub static OPENCODE: ProviderTable = ProviderTable {
    name: "opencode",
    rules: &[],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
