//! STUB, being written: the cursor table.

use crate::classify::table::ProviderTable;

/// The cursor table.
pub static CURSOR: ProviderTable = ProviderTable {
    name: "cursor",
    rules: &[],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
