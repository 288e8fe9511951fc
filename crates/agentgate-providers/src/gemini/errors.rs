//! Gemini CLI (`gemini -p ... --output-format stream-json|json`).
//!
//! Gemini reports a failure as `result{status: "error", error{type,
//! message}}` in stream-json, and as an `{"error": {...}}` object on stderr
//! in json mode (stdout stays empty). Its exit code carries evidence of its
//! own: the HTTP status of the failed request modulo 256 (400 → 144, 401 →
//! 145, 403 → 147, 429 → 173, 500 → 244, 503 → 247; a 404 model error exits
//! 1), or one of its `FatalError` codes (41 auth setup, 42 input, 44
//! sandbox, 52 config, 53 turn limit, 54 tool, 55 untrusted folder, 130
//! cancelled). 44, 54 and 55 have no row (no real output shows them yet)
//! and 130 needs a terminal's Ctrl-C, which an unattended run never sends.
//!
//! Gemini turns Google's 429s into two errors: `TerminalQuotaError` ("You
//! have exhausted your daily quota on this model.", a per-day quota; also
//! "exhausted your capacity ... Your quota will reset after 8h44m7s") and
//! `RetryableQuotaError` (per-minute limits: "Resource has been exhausted",
//! "You exceeded your current quota" without a daily quota). Only the first
//! is a `quota`; it appends "Please wait and try again later" to both.

use agentgate_protocol::ErrorKind::{
    Auth, ContextOverflow, CredentialUnavailable, InvalidInput, InvalidModel, InvalidSession,
    Network, Overloaded, ProviderError, Quota, RateLimit,
};

use crate::classify::{NoticePattern, ProviderTable, Rule};

/// Gemini CLI's table.
pub static ERRORS: ProviderTable = ProviderTable {
    name: "gemini",
    rules: &[
        // FatalAuthenticationError: no usable auth method or key here
        // ("Invalid auth method selected.", "you must specify the
        // GEMINI_API_KEY environment variable").
        Rule::exit("gemini.exit_auth_setup", CredentialUnavailable, &[41]),
        // FatalInputError, raised among others by `-r` with an unknown session.
        Rule::exit("gemini.exit_resume", InvalidSession, &[42]).with_text(
            r"Error resuming session|No previous sessions found|Invalid session identifier",
        ),
        Rule::exit("gemini.exit_input", InvalidInput, &[42]),
        // FatalConfigError (a broken settings or trustedFolders file), and
        // FatalTurnLimitedError (`model.maxSessionTurns` reached): this
        // machine's or this agent's setup; another agent may do better.
        Rule::exit("gemini.exit_config", ProviderError, &[52]),
        Rule::exit("gemini.exit_turn_limit", ProviderError, &[53]),
        Rule::text(
            "gemini.capacity",
            Overloaded,
            r"MODEL_CAPACITY_EXHAUSTED|No capacity available for model|\bmodel is overloaded\b",
        ),
        Rule::text(
            "gemini.daily_quota",
            Quota,
            r"TerminalQuotaError|exhausted your daily quota|exhausted your capacity on this model|Your quota will reset",
        ),
        Rule::text(
            "gemini.minute_quota",
            RateLimit,
            r"RetryableQuotaError|Resource has been exhausted|exceeded your current quota",
        ),
        Rule::text(
            "gemini.model_not_found",
            InvalidModel,
            r"ModelNotFoundError|is not found for API version|is not supported for generateContent|unexpected model name format",
        ),
        Rule::text(
            "gemini.token_count",
            ContextOverflow,
            r"input token count .{0,40}exceeds the maximum",
        ),
        Rule::text(
            "gemini.api_key",
            Auth,
            r"API key not valid|API_KEY_INVALID|\bUNAUTHENTICATED\b",
        ),
        Rule::text(
            "gemini.fetch_failed",
            Network,
            r"\bfetch failed\b|\[API Error: terminated\]|\bECONNREFUSED\b|\bECONNRESET\b|other side closed",
        ),
    ],
    exit_statuses: &[
        400, 401, 402, 403, 404, 408, 409, 413, 422, 429, 499, 500, 502, 503, 504,
    ],
    answer_error: None,
    retry_notices: &[
        NoticePattern::Text(
            r"Attempt (?P<attempt>\d+) failed with status (?P<status>\d{3})\. Retrying with backoff",
        ),
        NoticePattern::Text(
            r"Attempt (?P<attempt>\d+) failed with (?P<status>429) error \(no Retry-After header\)\. Retrying with backoff",
        ),
        NoticePattern::Text(
            r"Attempt (?P<attempt>\d+) failed(?: with 5xx error)?\. Retrying with backoff",
        ),
        // "Attempt 1 failed: <message>. Retrying after 5337ms..."; the message
        // may span lines, so the delay can come on a line of its own.
        NoticePattern::Text(
            r"(?:Attempt (?P<attempt>\d+) failed: .*)?Retrying after (?P<delay_ms>\d+)ms",
        ),
    ],
    noise: &[
        r"^Warning: (?:256-color support not detected|Basic terminal detected)",
        r"^YOLO mode is enabled",
        r"^Approval mode overridden",
        r"^Ripgrep is not available",
        r"^\[STARTUP\]",
    ],
};
