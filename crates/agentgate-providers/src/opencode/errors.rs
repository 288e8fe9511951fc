//! opencode (`opencode run --format json`).
//!
//! opencode reports a failed turn as an `error` event on stdout,
//! `{name: "APIError", data: {message, statusCode, isRetryable,
//! responseBody}}`, and exits 1. The API's own message and HTTP status
//! decide through the common rows and the status defaults (opencode relays
//! OpenAI's, Anthropic's and Google's words verbatim), so the table only
//! holds opencode's own failures:
//!
//! - `-s` with a session its database does not hold: stderr "Error: Session
//!   not found", exit 1, nothing on stdout;
//! - a model its config does not know: stdout says only `UnknownError`
//!   "Unexpected server error"; the error log (which agentgate asks for on
//!   stderr) names `ProviderModelNotFoundError: Model not found: p/m.`,
//!   which the decoder reports in its place;
//! - a model server it cannot reach: `APIError` "Cannot connect to API:
//!   Unable to connect. Is the computer able to access the url?" (Bun's
//!   words for a refused or failed connection), without a status, after
//!   about a minute of retries.
//!
//! `isRetryable` is not a row: a request that cannot be retried as it is
//! (an unknown model) may still succeed with another agent.

use agentgate_protocol::ErrorKind::{InvalidModel, InvalidSession, Network};

use crate::classify::{ProviderTable, Rule};

/// opencode's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "opencode",
    rules: &[
        // Coloured even without a terminal: `\x1b[0mSession not found`
        // has no word boundary before "Session".
        Rule::text(
            "opencode.session_not_found",
            InvalidSession,
            r"Session not found\b",
        ),
        Rule::text(
            "opencode.model_not_found",
            InvalidModel,
            r"\bProviderModelNotFoundError\b|\bModel not found: \S",
        ),
        Rule::text(
            "opencode.cannot_connect",
            Network,
            r"Cannot connect to API|Unable to connect\. Is the computer able to access the url",
        ),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
