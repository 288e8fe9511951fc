//! What the model gateway saw on the wire: one `model_call` event per
//! request a CLI made to its model API, and the envelope's `gateway`
//! report (how many calls, the wire's usage beside the CLI's, the
//! differences between them).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::usage::Usage;

/// The wire API of a model call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub enum WireApi {
    /// Anthropic Messages (`POST /v1/messages`).
    #[serde(rename = "anthropic_messages")]
    AnthropicMessages,
    /// OpenAI Responses (`POST /v1/responses`).
    #[serde(rename = "openai_responses")]
    OpenaiResponses,
    /// OpenAI Chat Completions (`POST /v1/chat/completions`).
    #[serde(rename = "openai_chat")]
    OpenaiChat,
    /// Gemini generateContent (`POST /v1beta/models/M:generateContent`, and
    /// `:streamGenerateContent`).
    #[serde(rename = "gemini")]
    Gemini,
}

impl WireApi {
    /// The wire name, e.g. `"openai_chat"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::AnthropicMessages => "anthropic_messages",
            Self::OpenaiResponses => "openai_responses",
            Self::OpenaiChat => "openai_chat",
            Self::Gemini => "gemini",
        }
    }
}

/// One rate-limit window the API reported in a response's headers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RateLimitWindow {
    /// Which limit, named from its header: `requests`, `tokens`,
    /// `input_tokens`, `output_tokens` (Anthropic and OpenAI), `5h` and `7d`
    /// (Anthropic's unified windows), `primary` and `secondary` (Codex's
    /// usage-percent windows).
    pub name: String,
    /// The window's size as the API states it (requests or tokens).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// What is left of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remaining: Option<u64>,
    /// How much is used, from 0.0 to 1.0 (given by the API, or
    /// `1 - remaining / limit`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub utilization: Option<f64>,
    /// When it resets: RFC 3339, UTC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(extend("format" = "date-time"))]
    pub resets_at: Option<String>,
    /// The API's own status word for the window, where it gives one
    /// (Anthropic's unified `allowed`, `allowed_warning`, `rejected`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Body of `model_call`: one request a CLI made to its model API through
/// the run's gateway, as seen on the wire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ModelCallEvent {
    /// Which call of the attempt this is, from 1.
    pub call: u32,
    /// The wire API.
    pub api: WireApi,
    /// The model the request named (the response's when the request named
    /// none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The request's path, without the gateway's secret prefix and without
    /// the query.
    pub path: String,
    /// Whether the response was a stream (SSE).
    pub stream: bool,
    /// The upstream's HTTP status; absent when none came (the gateway
    /// refused the call or the upstream could not be reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// Bytes of the request body.
    pub request_bytes: u64,
    /// Bytes of the response body passed back to the CLI.
    pub response_bytes: u64,
    /// From the request's arrival to the response's last byte.
    pub latency_ms: u64,
    /// From the request's arrival to the first byte of the response body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<u64>,
    /// Tokens by class as the API reported them; absent when the response
    /// carried no usage.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// The part of `usage.cache_creation_input_tokens` written with a
    /// 5-minute TTL, where the API says (Anthropic's
    /// `cache_creation.ephemeral_5m_input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_5m_tokens: Option<u64>,
    /// The part written with a 1-hour TTL
    /// (`cache_creation.ephemeral_1h_input_tokens`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_write_1h_tokens: Option<u64>,
    /// The rate-limit windows of the response's headers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rate_limits: Vec<RateLimitWindow>,
    /// The response's `retry-after`, in seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after_s: Option<u64>,
    /// What went wrong on the wire: the upstream unreachable or reset, an
    /// invalid stream, a body over the bound, a wrong stub key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The run's limit that made the gateway refuse this call itself
    /// (`max_model_calls`, `max_input_tokens`, `max_output_tokens`,
    /// `max_model_time`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused_by: Option<String>,
}

/// Where a run's usage figures come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, JsonSchema)]
pub enum UsageSource {
    /// What the CLI printed.
    #[default]
    #[serde(rename = "cli")]
    Cli,
    /// The model API's responses, read by the gateway.
    #[serde(rename = "wire")]
    Wire,
}

/// The envelope's `gateway`: what the run's gateway saw.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GatewayReport {
    /// Model calls made through the gateway, over all attempts.
    pub model_calls: u32,
    /// Calls the gateway refused (a limit, a wrong stub key).
    #[serde(default)]
    pub refused_calls: u32,
    /// How the CLI reached its model: `api_key` (the gateway holds the key,
    /// the CLI a stub), `passthrough` (the CLI's own login passed through
    /// unchanged).
    pub key_mode: String,
    /// The upstreams the calls went to (scheme, host and port).
    #[serde(default)]
    pub upstreams: Vec<String>,
    /// The usage summed from the wire.
    pub wire_usage: Usage,
    /// The usage the CLI printed, when it printed any.
    #[serde(default)]
    pub cli_usage: Option<Usage>,
    /// Each figure where the two disagree, e.g. `output_tokens: wire 120,
    /// cli 118`.
    #[serde(default)]
    pub differences: Vec<String>,
}
