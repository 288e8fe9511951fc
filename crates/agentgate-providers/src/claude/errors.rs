//! Claude Code (`claude -p --output-format stream-json|json`).
//!
//! Claude reports errors in its `result` record (`is_error`,
//! `api_error_status`, the message in `result`) and, in stream-json, in the
//! synthetic assistant message's `error` code (`authentication_failed`,
//! `billing_error`, `rate_limit`, `model_not_found`, `invalid_request`,
//! `server_error`, `unknown`). It exits 1 on every failure. The codes are
//! the most stable evidence, but some are too coarse ("Not logged in"
//! carries `authentication_failed`, "Prompt is too long" `invalid_request`),
//! so a few text rows come first.

use agentgate_protocol::ErrorKind::{
    Auth, ContextOverflow, CredentialUnavailable, InvalidInput, InvalidModel, InvalidSession,
    MaxTurns, Network, Quota, RateLimit,
};

use crate::classify::{NoticePattern, ProviderTable, Rule};

/// Claude Code's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "claude",
    rules: &[
        // `--max-turns N` used up: `result{subtype: "error_max_turns",
        // errors: ["Reached maximum number of turns (N)"]}`.
        Rule::code("claude.max_turns", MaxTurns, &["error_max_turns"]),
        Rule::text(
            "claude.max_turns_text",
            MaxTurns,
            r"Reached maximum number of turns",
        ),
        // `--dangerously-skip-permissions` (bypassPermissions) run as root
        // without IS_SANDBOX=1: a setup error of the caller, see docs/errors.md.
        Rule::text(
            "claude.root_refused",
            InvalidInput,
            r"cannot be used with root/sudo privileges",
        ),
        Rule::text(
            "claude.no_conversation",
            InvalidSession,
            r"No conversation found with session ID",
        ),
        Rule::text(
            "claude.not_logged_in",
            CredentialUnavailable,
            r"\bNot logged in\b",
        ),
        Rule::text(
            "claude.prompt_too_long",
            ContextOverflow,
            r"\bprompt is too long\b",
        ),
        Rule::text(
            "claude.connection",
            Network,
            r"Unable to connect to API|Connection to the API was lost|\bECONNRESET\b|\bECONNREFUSED\b|ConnectionRefused",
        ),
        // Plan limits: "Claude AI usage limit reached|<epoch>", "5-hour limit
        // reached ∙ resets 3pm", "You've hit your session limit · resets 5pm".
        Rule::text(
            "claude.usage_limit",
            Quota,
            r"usage limit reached|\blimit reached\b.*\bresets?\b|\bhit your (?:session|weekly|usage|daily|monthly|opus|sonnet)\b[^.\n]*\blimit\b",
        ),
        Rule::code("claude.code_auth", Auth, &["authentication_failed"]),
        Rule::code("claude.code_billing", Quota, &["billing_error"]),
        Rule::code("claude.code_model", InvalidModel, &["model_not_found"]),
        Rule::code("claude.code_rate_limit", RateLimit, &["rate_limit"]),
        // The same facts in `--output-format json`, which has no code.
        Rule::text(
            "claude.invalid_key",
            Auth,
            r"Invalid API key|invalid x-api-key|Session expired|OAuth token has expired|Failed to authenticate",
        ),
        Rule::text("claude.credit_balance", Quota, r"credit balance is too low"),
        Rule::text(
            "claude.selected_model",
            InvalidModel,
            r"issue with the selected model|not a valid model identifier",
        ),
        Rule::text(
            "claude.model_400",
            InvalidModel,
            r"API Error: 40[04] model: ",
        )
        .with_status(&[400, 404]),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[NoticePattern::Json {
        equals: &[("type", "system"), ("subtype", "api_retry")],
        attempt: "attempt",
        max: "max_retries",
        status: "error_status",
        delay_ms: "retry_delay_ms",
    }],
    noise: &[],
};
