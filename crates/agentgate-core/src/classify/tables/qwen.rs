//! Qwen Code (`qwen --output-format stream-json`): a starter table.
//!
//! Qwen exits 0 when the model API fails and reports the failure only as
//! its answer: `result{is_error: false, result: "[API Error: 429 ...]"}`.
//! The table therefore marks such an answer as an error; its HTTP status
//! and the common rows classify it. Setup failures (no API key, an unknown
//! session to resume) exit 1.

use agentgate_protocol::ErrorKind::{CredentialUnavailable, InvalidSession};

use crate::classify::table::{ProviderTable, Rule};

/// Qwen Code's table.
pub static QWEN: ProviderTable = ProviderTable {
    name: "qwen",
    rules: &[
        Rule::text(
            "qwen.missing_key",
            CredentialUnavailable,
            r"Missing API key for",
        ),
        Rule::text(
            "qwen.no_session",
            InvalidSession,
            r"No saved session found with ID",
        ),
    ],
    exit_statuses: &[],
    answer_error: Some(r"^\s*\[API Error:"),
    retry_notices: &[],
    noise: &[],
};
