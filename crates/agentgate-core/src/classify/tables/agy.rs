//! STUB, being written: the agy table.

use crate::classify::table::ProviderTable;

/// The agy table.
pub static AGY: ProviderTable = ProviderTable {
    name: "agy",
    rules: &[],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
