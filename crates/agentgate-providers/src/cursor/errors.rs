//! Cursor's agent CLI (`cursor-agent --print --output-format stream-json`).
//!
//! cursor-agent reports a failure in two ways: a `result` record with
//! `is_error: true` (or `subtype: "error"`) whose `result` is the error text,
//! or (the documented case, cursor.com/docs/cli/reference/output-format) a
//! non-zero exit with the message on stderr and no `result` at all; the
//! decoder turns that stderr text into a terminal error. Its exit code is 1
//! whatever went wrong, so only the words tell.
//!
//! Cursor's backend speaks Connect RPC; its errors surface as
//! `[unauthenticated]`, `[resource_exhausted]`, `[unavailable]` codes in
//! front of the message (`ConnectError: [unauthenticated] Error`).
//!
//! The rows are built from cursor-agent's published docs and texts quoted in
//! public issue threads (listed in
//! `crates/agentgate-fixtures/transcripts/README.md`), not from a live CLI.

use agentgate_protocol::ErrorKind::{
    Auth, CredentialUnavailable, InvalidModel, InvalidSession, Network, Overloaded, Quota,
    RateLimit,
};

use crate::classify::{ProviderTable, Rule};

/// cursor-agent's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "cursor",
    rules: &[
        // No login here: "Error: Authentication required. Please run 'agent
        // login' first, or set CURSOR_API_KEY environment variable."
        Rule::text(
            "cursor.login_required",
            CredentialUnavailable,
            r"Authentication required\. Please run '(?:cursor-)?agent login'|^\s*(?:Error:\s*)?Not authenticated\b",
        ),
        // Credentials that Cursor's backend rejected (an expired session, a
        // revoked key).
        Rule::text(
            "cursor.unauthenticated",
            Auth,
            r"\[unauthenticated\]|\bERROR_NOT_LOGGED_IN\b|try logging out and back in",
        ),
        Rule::text(
            "cursor.usage_limit",
            Quota,
            r"hit your usage limit|hit your free requests limit|usage limits will reset",
        ),
        Rule::text(
            "cursor.model",
            InvalidModel,
            r"Cannot use this model|\bInvalid model\b|\bmodel\b.{0,60}\bis not available or invalid",
        ),
        Rule::text(
            "cursor.session_not_found",
            InvalidSession,
            r"\b(?:chat|session|conversation)\b.{0,80}\bnot found\b|\bno (?:chat|session|conversation) (?:found|with id)\b",
        ),
        Rule::text(
            "cursor.resource_exhausted",
            RateLimit,
            r"\[resource_exhausted\]",
        ),
        Rule::text(
            "cursor.unavailable_network",
            Network,
            r"\[unavailable\].{0,80}\b(?:ETIMEDOUT|ECONNRESET|ECONNREFUSED|ENOTFOUND|EAI_AGAIN)\b",
        ),
        Rule::text("cursor.unavailable", Overloaded, r"\[unavailable\]"),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[],
    noise: &[],
};
