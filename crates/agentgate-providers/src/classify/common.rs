//! Rows tried for every provider after its own: the API providers' own
//! error vocabulary (OpenAI, Anthropic, Google), which the CLIs relay
//! verbatim, and the network errors of their HTTP stacks.

use agentgate_protocol::ErrorKind::{
    Auth, ContextOverflow, InvalidModel, Network, Overloaded, ProviderError, Quota, RateLimit,
};

use super::table::Rule;

/// The common rows.
pub static COMMON_RULES: &[Rule] = &[
    Rule::text(
        "common.insufficient_quota",
        Quota,
        r"\binsufficient_quota\b|exceeded your current quota|credit balance is too low",
    ),
    Rule::text(
        "common.context_length",
        ContextOverflow,
        r"context_length_exceeded|maximum context length|exceeds the context window|prompt is too long",
    ),
    Rule::text(
        "common.model_not_found",
        InvalidModel,
        r"\bmodel_not_found\b|\bmodel\b.{0,80}\bdoes not exist\b|does not have access to model",
    ),
    Rule::text(
        "common.invalid_key",
        Auth,
        r"\binvalid_api_key\b|Incorrect API key|Invalid API key|\bauthentication_error\b|API key not valid",
    ),
    Rule::text(
        "common.overloaded",
        Overloaded,
        r"\boverloaded\b|\bhigh demand\b",
    ),
    Rule::text(
        "common.rate_limit",
        RateLimit,
        r"\brate_limit_exceeded\b|\brate limit reached\b|\bToo Many Requests\b",
    ),
    Rule::text(
        "common.network",
        Network,
        r"\bECONNREFUSED\b|\bECONNRESET\b|\bETIMEDOUT\b|\bENOTFOUND\b|\bEAI_AGAIN\b|\bfetch failed\b|socket hang up|other side closed|error sending request",
    ),
    // A stream that stopped without a finish reason (or with no text at
    // all): Gemini CLI's and Qwen Code's InvalidStreamError. Gemini prints
    // it as an `error` event before `result{status: "error"}` and exits 0
    // (also when the server sent an error chunk part way, which it does not
    // read); Qwen appends "[API Error: Model stream ended ...]" to the
    // partial answer and exits 0.
    Rule::text(
        "common.stream_incomplete",
        ProviderError,
        r"Model stream ended (?:without a finish reason|with empty response text)",
    ),
    // A server error the API reported, often inside a stream that had
    // already started (OpenAI's 500 wordings, its `server_error` type,
    // Anthropic's `api_error`), relayed by a CLI without an HTTP status.
    Rule::text(
        "common.server_error",
        ProviderError,
        r"The server had an error while processing your request|An error occurred while processing your request|\bserver_error\b|\bapi_error\b",
    ),
    // An API's generic "invalid request" that no row above explained: the
    // CLI built a request this provider refuses (a 4xx, see docs/errors.md).
    Rule::text(
        "common.invalid_request",
        ProviderError,
        r"\binvalid_request_error\b",
    ),
];
