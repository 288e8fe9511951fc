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
    // An API's generic "invalid request" that no row above explained: the
    // CLI built a request this provider refuses (a 4xx, see docs/errors.md).
    Rule::text(
        "common.invalid_request",
        ProviderError,
        r"\binvalid_request_error\b",
    ),
];
