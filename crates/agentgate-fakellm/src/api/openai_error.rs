//! OpenAI's error body, `{"error": {"message", "type", "param", "code"}}`,
//! shared by the Chat Completions and Responses modules: most rows are the
//! same, a few are worded per endpoint as the real API words them (and
//! Codex keys on some codes, e.g. `server_is_overloaded`).

use serde_json::{Value, json};

use crate::reply::{ErrorKind, ErrorReply};

/// Which OpenAI endpoint the error answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Endpoint {
    /// `/v1/chat/completions`.
    Chat,
    /// `/v1/responses`.
    Responses,
}

/// The body for `err` on `endpoint` (`err.message` replaces the default text).
pub(crate) fn error_body(err: &ErrorReply, endpoint: Endpoint) -> Value {
    use Endpoint::{Chat, Responses};
    let model = if err.model.is_empty() {
        "gpt-test"
    } else {
        err.model.as_str()
    };
    let owned = |s: &str| s.to_owned();
    let (message, kind, param, code): (String, &str, Option<&str>, Option<&str>) = match (
        err.kind, endpoint,
    ) {
        (ErrorKind::RateLimit, _) => (
            format!(
                "Rate limit reached for {model} in organization org-test on requests per min (RPM): \
                 Limit 3, Used 3, Requested 1. Please try again in {}s.{}",
                err.retry_after.unwrap_or(20),
                if endpoint == Responses {
                    " Visit https://platform.openai.com/account/rate-limits to learn more."
                } else {
                    ""
                }
            ),
            "requests",
            None,
            Some("rate_limit_exceeded"),
        ),
        (ErrorKind::InsufficientQuota, _) => (
            owned(
                "You exceeded your current quota, please check your plan and billing details. \
                 For more information on this error, read the docs: \
                 https://platform.openai.com/docs/guides/error-codes/api-errors.",
            ),
            "insufficient_quota",
            None,
            Some("insufficient_quota"),
        ),
        (ErrorKind::Overloaded, Chat) => (
            owned(
                "That model is currently overloaded with other requests. You can retry your request, \
                 or contact us through our help center at help.openai.com if the error persists.",
            ),
            "server_error",
            None,
            None,
        ),
        (ErrorKind::Overloaded, Responses) => (
            owned("Our servers are currently overloaded. Please try again later."),
            "service_unavailable_error",
            None,
            Some("server_is_overloaded"),
        ),
        (ErrorKind::InvalidModel, _) => (
            format!("The model `{model}` does not exist or you do not have access to it."),
            "invalid_request_error",
            None,
            Some("model_not_found"),
        ),
        (ErrorKind::Auth, _) => (
            owned(
                "Incorrect API key provided: test. You can find your API key at \
                 https://platform.openai.com/account/api-keys.",
            ),
            "invalid_request_error",
            None,
            Some("invalid_api_key"),
        ),
        (ErrorKind::PermissionDenied, Chat) => (
            format!("Project `proj_test` does not have access to model `{model}`"),
            "invalid_request_error",
            None,
            Some("model_not_found"),
        ),
        (ErrorKind::PermissionDenied, Responses) => (
            owned(
                "You have insufficient permissions for this operation. Missing scopes: \
                 api.responses.write. Check that you have the correct role in your organization \
                 (Reader, Writer, Owner) and project (Member, Owner), and if you're using a \
                 restricted API key, that it has the necessary scopes.",
            ),
            "invalid_request_error",
            None,
            None,
        ),
        (ErrorKind::ContextTooLong, Chat) => (
            owned(
                "This model's maximum context length is 128000 tokens. However, your messages \
                 resulted in 131072 tokens. Please reduce the length of the messages.",
            ),
            "invalid_request_error",
            Some("messages"),
            Some("context_length_exceeded"),
        ),
        (ErrorKind::ContextTooLong, Responses) => (
            owned(
                "Your input exceeds the context window of this model. Please adjust your input \
                 and try again.",
            ),
            "invalid_request_error",
            Some("input"),
            Some("context_length_exceeded"),
        ),
        (ErrorKind::InvalidRequest, _) => {
            let field = if endpoint == Chat {
                "messages"
            } else {
                "input"
            };
            (
                format!(
                    "Invalid '{field}': empty array. Expected an array with minimum length 1, \
                     but got an empty array instead."
                ),
                "invalid_request_error",
                Some(field),
                Some("empty_array"),
            )
        }
        (ErrorKind::ServerError, Chat) => (
            owned("The server had an error while processing your request. Sorry about that!"),
            "server_error",
            None,
            None,
        ),
        (ErrorKind::ServerError, Responses) => (
            owned(
                "An error occurred while processing your request. You can retry your request, or \
                 contact us through our help center at help.openai.com if the error persists. \
                 Please include the request ID req_test in your message.",
            ),
            "server_error",
            None,
            Some("server_error"),
        ),
    };
    json!({
        "error": {
            "message": err.message.clone().unwrap_or(message),
            "type": kind,
            "param": param,
            "code": code,
        }
    })
}
