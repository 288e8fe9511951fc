//! What a run's gateway is started with.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// How the gateway handles the CLI's credentials.
#[derive(Clone)]
pub enum KeyMode {
    /// The gateway holds the real key; the CLI holds `stub`, valid only
    /// for this gateway. A request whose key is not `stub` is refused
    /// (401 in the API's error shape); the real key replaces it upstream,
    /// in the header the API uses (`x-api-key` or `authorization: Bearer`
    /// for Anthropic, as the CLI sent it; `authorization: Bearer` for
    /// OpenAI; `x-goog-api-key` for Gemini).
    ApiKey {
        /// The real key. Never logged, recorded or put in an event.
        real: String,
        /// The key the CLI is given.
        stub: String,
    },
    /// The CLI's own credentials (a subscription login, OAuth) pass
    /// through unchanged; the path's secret is the only check.
    Passthrough,
}

impl std::fmt::Debug for KeyMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::ApiKey { .. } => f.write_str("ApiKey { .. }"),
            Self::Passthrough => f.write_str("Passthrough"),
        }
    }
}

/// The run's limits on its model use. A call that would start past one is
/// refused by the gateway with the API's own error shape (HTTP 400, so the
/// CLI does not retry), and the gateway reports the limit crossed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallLimits {
    /// Model calls at most.
    pub max_calls: Option<u32>,
    /// Input tokens (cache included) summed over the calls, at most.
    pub max_input_tokens: Option<u64>,
    /// Output tokens (reasoning included) summed over the calls, at most.
    pub max_output_tokens: Option<u64>,
    /// Wall time of model calls (request to last byte), summed, at most.
    pub max_model_time: Option<Duration>,
}

/// Turns text into its redacted form before it is recorded.
pub type Redact = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// What a gateway is started with.
#[derive(Clone)]
pub struct GatewayConfig {
    /// The base URL the CLI would have used without the gateway (e.g.
    /// `https://api.anthropic.com`, `https://api.openai.com/v1`): a
    /// request to `<gateway>/<secret>/REST` goes to `<upstream>/REST`.
    pub upstream: String,
    /// How the CLI's credentials are handled.
    pub key: KeyMode,
    /// A PEM file of CA certificates trusted for the upstream besides the
    /// system's roots.
    pub ca_file: Option<PathBuf>,
    /// The proxy settings (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY`, either
    /// case), as read from agentgate's environment by the caller.
    pub proxy_env: Vec<(String, String)>,
    /// The run's limits.
    pub limits: CallLimits,
    /// Time allowed for the upstream's response headers (a call whose
    /// upstream never answers fails after it with a gateway error).
    pub response_timeout: Duration,
    /// The largest request body taken from the CLI (413 past it).
    pub max_request_bytes: u64,
    /// The largest response body passed back (the stream is cut past it,
    /// and the call's `error` says so).
    pub max_response_bytes: u64,
    /// Where the requests and responses are recorded (`model-calls.jsonl`),
    /// when asked (`--record-model-calls`).
    pub record_dir: Option<PathBuf>,
    /// Applied to every recorded text (the run's redactor).
    pub redact: Option<Redact>,
    /// Also serve on this Unix socket (created, mode 600; removed at
    /// shutdown): a sandboxed CLI in a network namespace of its own reaches
    /// the gateway through it (`--sandbox strict`). The TCP listener and
    /// its base URL stay the same.
    pub unix_socket: Option<PathBuf>,
}

impl std::fmt::Debug for GatewayConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GatewayConfig")
            .field("upstream", &self.upstream)
            .field("key", &self.key)
            .field("ca_file", &self.ca_file)
            .field("limits", &self.limits)
            .field("record_dir", &self.record_dir)
            .finish_non_exhaustive()
    }
}

impl GatewayConfig {
    /// A config for `upstream` with `key` and the defaults: 10 minutes for
    /// the response headers, 32 MiB of request, 256 MiB of response, no
    /// limits, no recording.
    pub fn new(upstream: impl Into<String>, key: KeyMode) -> Self {
        Self {
            upstream: upstream.into(),
            key,
            ca_file: None,
            proxy_env: Vec::new(),
            limits: CallLimits::default(),
            response_timeout: Duration::from_secs(600),
            max_request_bytes: 32 << 20,
            max_response_bytes: 256 << 20,
            record_dir: None,
            redact: None,
            unix_socket: None,
        }
    }
}
