//! Qwen Code (`qwen --output-format stream-json`).
//!
//! Up to 0.2x Qwen exits 0 when the model API fails and reports the failure
//! only as its answer: `result{is_error: false, result: "[API Error: 429
//! ...]"}`; when the stream breaks after text has started, the report
//! follows the partial text (`"Partial answer [API Error: The server had an
//! error ...]"`). The table therefore marks such an answer as an error; its
//! HTTP status and the common rows classify it (OpenAI's error bodies, which
//! Qwen relays verbatim after `[API Error: <status>`). From 0.24 Qwen exits
//! 1 and the same report is a failed `result{subtype:
//! "error_during_execution", is_error: true, error: {message}}`, which the
//! decoder makes structured evidence; the same rows classify its message.
//! Setup failures (no API key, no auth type, an unknown session to resume)
//! exit 1 in every version.
//!
//! Qwen retries a 429 or 5xx seven times (about 80 s) whatever its settings
//! say, and writes nothing about it to its output; only with
//! `QWEN_CODE_UNATTENDED_RETRY=1` (persistent retries, up to 6 h) does it
//! print a heartbeat on stderr while it waits 30 s or more.

use agentgate_protocol::ErrorKind::{CredentialUnavailable, InvalidSession};

use crate::classify::{NoticePattern, ProviderTable, Rule};

/// Qwen Code's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "qwen",
    rules: &[
        // No usable credential for the configured auth: "Missing API key for
        // OpenAI-compatible auth", "No auth type is selected" (neither a
        // setting nor --auth-type nor an OPENAI_API_KEY), and the
        // discontinued Qwen OAuth free tier.
        Rule::text(
            "qwen.missing_key",
            CredentialUnavailable,
            r"Missing API key for|No auth type is selected|Qwen OAuth free tier (?:has been|was) discontinued",
        ),
        // `-r <uuid>` of a session Qwen does not know; `-r <text>` searches
        // session titles.
        Rule::text(
            "qwen.no_session",
            InvalidSession,
            r"No saved session found with (?:ID|title)",
        ),
    ],
    exit_statuses: &[],
    // The report is the whole answer, or, when the stream broke after text
    // had started (an error chunk, a cut), appended to the partial text.
    answer_error: Some(r"(?s)^\s*\[API Error:|\[API Error: .*\]\s*$"),
    retry_notices: &[NoticePattern::Text(
        r"\[qwen-code\] Waiting for API capacity\.\.\. attempt (?P<attempt>\d+), retry in (?P<delay_s>\d+)s",
    )],
    noise: &[],
};
