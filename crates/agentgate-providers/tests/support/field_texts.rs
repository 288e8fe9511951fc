//! Error texts seen in the field, shared by the classifier's tests
//! (`tests/suite/classify.rs` checks every row) and the replay decoders' tests.

/// Texts seen in the field (PROVIDERS.md, the CLIs' issue trackers), as a
/// failed run's final result text (`final`) or stderr (`stderr`).
#[rustfmt::skip]
pub const FIELD: &[(&str, &str, &str, &str, &str)] = &[
    ("claude", "final", "Claude AI usage limit reached|1760000000", "quota", "claude.usage_limit"),
    ("claude", "final", "5-hour limit reached ∙ resets 3pm", "quota", "claude.usage_limit"),
    ("claude", "final", "You've hit your session limit · resets 5pm (Australia/Brisbane)", "quota", "claude.usage_limit"),
    ("claude", "final", "You've hit your weekly limit · resets Mon 12:00am", "quota", "claude.usage_limit"),
    ("claude", "final", "Credit balance is too low", "quota", "claude.credit_balance"),
    ("claude", "final", "Reached maximum number of turns (2)", "max_turns", "claude.max_turns_text"),
    ("claude", "final", "Session expired. Please run /login to sign in again.", "auth", "claude.invalid_key"),
    ("claude", "final", "API Error: 401 Invalid API key · Please run /login", "auth", "claude.invalid_key"),
    ("claude", "stderr", "No conversation found with session ID: 4f1c2d3e-0000-4000-8000-000000000000", "invalid_session", "claude.no_conversation"),
    ("codex", "final", "You've hit your usage limit. Visit https://chatgpt.com/codex/settings/usage to purchase more credits or try again at 4:05 PM.", "quota", "codex.usage_limit"),
    ("codex", "final", "You’ve hit your usage limit. Upgrade to Pro (https://chatgpt.com/explore/pro) or try again in 3 days 6 hours.", "quota", "codex.usage_limit"),
    ("codex", "stderr", "Error: No saved session found with ID 4f1c2d3e-0000-4000-8000-000000000000", "invalid_session", "codex.no_rollout"),
    ("gemini", "final", "[API Error: You have exhausted your capacity on this model. Your quota will reset after 8h44m7s.]", "quota", "gemini.daily_quota"),
    ("gemini", "final", "[API Error: No capacity available for model gemini-2.5-flash on the server]", "overloaded", "gemini.capacity"),
    // Any CLI relaying an API provider's words.
    ("other", "stderr", "Error: 429 You exceeded your current quota, please check your plan and billing details.", "quota", "common.insufficient_quota"),
    ("other", "stderr", "Error: This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens.", "context_overflow", "common.context_length"),
    ("other", "stderr", "Error: connect ECONNREFUSED 127.0.0.1:8080", "network", "common.network"),
    ("cursor", "stderr", "Error: Authentication required. Please run 'agent login' first, or set CURSOR_API_KEY environment variable.", "credential_unavailable", "cursor.login_required"),
    ("cursor", "stderr", "ConnectError: [unauthenticated] Error", "auth", "cursor.unauthenticated"),
    ("cursor", "stderr", "Error: You've hit your usage limit", "quota", "cursor.usage_limit"),
    ("cursor", "stderr", "Cannot use this model: opus-4.1. Available models: auto, composer-1, gpt-5.2, opus-4.5, sonnet-4.5", "invalid_model", "cursor.model"),
    ("cursor", "stderr", "Error: Session \"4f1c2d3e-0000-4000-8000-000000000000\" not found", "invalid_session", "cursor.session_not_found"),
    ("cursor", "final", "[resource_exhausted] Too many requests, please try again in 42 seconds.", "rate_limit", "cursor.resource_exhausted"),
    ("cursor", "stderr", "ConnectError: [unavailable] read ETIMEDOUT", "network", "cursor.unavailable_network"),
    ("cursor", "stderr", "ConnectError: [unavailable] Error", "overloaded", "cursor.unavailable"),
    ("agy", "stderr", "⚠ Individual quota reached. Contact your administrator to enable overages. Resets in 141h28m14s.", "quota", "agy.quota"),
    ("agy", "stderr", "Error: 429 Too Many Requests: {\"error\":{\"code\":429,\"message\":\"Resource has been exhausted (e.g. check quota).\",\"status\":\"RESOURCE_EXHAUSTED\"}}", "rate_limit", "agy.rate_limit"),
    ("agy", "stderr", "You are not logged into Antigravity.", "credential_unavailable", "agy.not_logged_in"),
    ("agy", "stderr", "Error: 401 UNAUTHENTICATED: Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.", "auth", "agy.invalid_credentials"),
    ("agy", "stderr", "invalid model selection (--model \"gemini-9\"): model gemini-9 is not recognized as a known model or custom model in settings", "invalid_model", "agy.model"),
    ("agy", "stderr", "[agy] print timeout after 5m0s with turn in progress", "timeout", "agy.print_timeout"),
    ("opencode", "stderr", "Error: Session not found", "invalid_session", "opencode.session_not_found"),
    ("opencode", "stderr", "ProviderModelNotFoundError: Model not found: nope/x. Did you mean: standardcompute?", "invalid_model", "opencode.model_not_found"),
    ("opencode", "stderr", "Cannot connect to API: Unable to connect. Is the computer able to access the url?", "network", "opencode.cannot_connect"),
];
