//! Codex (`codex exec --json`).
//!
//! Codex reports a failed turn as `turn.failed{error{message}}` (and the
//! same text as a top-level `error` event) and exits 1. The message is the
//! only evidence: it carries no code, and the HTTP status only in words
//! ("unexpected status 401 Unauthorized", "last status: 429"). Codex
//! rewords several API errors: insufficient quota becomes "Quota exceeded.",
//! 503 "Selected model is at capacity.", 500 "We're currently experiencing
//! high demand", a long prompt "Codex ran out of room in the model's
//! context window".
//!
//! "Model metadata for `X` not found" is deliberately absent: Codex prints
//! it as a warning item and then runs the turn with fallback metadata (see
//! the `unknown_model_warning` fixture, which succeeds).

use agentgate_protocol::ErrorKind::{
    Auth, ContextOverflow, CredentialUnavailable, InvalidModel, InvalidSession, Network,
    Overloaded, ProviderError, Quota,
};

use crate::classify::{NoticePattern, ProviderTable, Rule};

/// Codex's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "codex",
    rules: &[
        // A config.toml this Codex cannot load: this machine's setup of the
        // provider, not the request; another agent may run.
        Rule::text(
            "codex.config_error",
            ProviderError,
            r"Error loading config\.toml",
        ),
        Rule::text(
            "codex.no_rollout",
            InvalidSession,
            r"no rollout found|No saved session found with ID",
        ),
        Rule::text(
            "codex.missing_key",
            CredentialUnavailable,
            r"Missing environment variable: `",
        ),
        // ChatGPT plan limits: "You've hit your usage limit. ... try again at
        // 3:28 PM." (the apostrophe is ’ in some versions).
        Rule::text("codex.usage_limit", Quota, r"You.ve hit your usage limit"),
        Rule::text(
            "codex.quota_exceeded",
            Quota,
            r"Quota exceeded\. Check your plan",
        ),
        Rule::text(
            "codex.context_window",
            ContextOverflow,
            r"ran out of room in the model.s context window",
        ),
        Rule::text(
            "codex.at_capacity",
            Overloaded,
            r"Selected model is at capacity|experiencing high demand",
        ),
        Rule::text(
            "codex.model_missing",
            InvalidModel,
            r"\bmodel\b.{0,80}\bdoes not exist\b",
        ),
        // A stream the server ended part way: a `response.failed` with a
        // server error (Codex prints the server's words after the colon),
        // or a stream closed cleanly without `response.completed` (Codex
        // also says so when the server sent a bare `error` event, which it
        // does not read).
        Rule::text(
            "codex.stream_failed",
            ProviderError,
            r"stream disconnected before completion: (?:stream closed before response\.completed|An error occurred while processing your request|The server had an error while processing your request)",
        ),
        Rule::text(
            "codex.disconnected",
            Network,
            r"stream disconnected before completion|error sending request|waiting for network",
        ),
        Rule::text("codex.invalid_key", Auth, r"Incorrect API key provided"),
    ],
    exit_statuses: &[],
    answer_error: None,
    retry_notices: &[NoticePattern::Text(
        r"Reconnecting\.\.\.(?:\s+(?P<attempt>\d+)/(?P<max>\d+))?",
    )],
    noise: &[
        r"^WARNING: proceeding, even though we could not create PATH aliases",
        r"^Reading additional input from stdin",
    ],
};
