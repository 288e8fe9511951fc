//! A run's limits on its model use, enforced by its model gateway: a leaf
//! the config (`gateway.limits`), the flags (`--max-model-calls`, ...) and
//! the run request share.

use std::time::Duration;

/// The run's limits on its model use that its gateway enforces.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GatewayLimits {
    /// Model calls at most.
    pub max_model_calls: Option<u32>,
    /// Input tokens (cache included), summed over the calls, at most.
    pub max_input_tokens: Option<u64>,
    /// Output tokens (reasoning included), summed, at most.
    pub max_output_tokens: Option<u64>,
    /// Wall time of model calls, summed, at most.
    pub max_model_time: Option<Duration>,
}

impl GatewayLimits {
    /// Each limit of `over` that is set, else this one's.
    pub fn or(self, over: GatewayLimits) -> GatewayLimits {
        GatewayLimits {
            max_model_calls: over.max_model_calls.or(self.max_model_calls),
            max_input_tokens: over.max_input_tokens.or(self.max_input_tokens),
            max_output_tokens: over.max_output_tokens.or(self.max_output_tokens),
            max_model_time: over.max_model_time.or(self.max_model_time),
        }
    }

    /// Whether any limit is set.
    pub fn any(&self) -> bool {
        *self != GatewayLimits::default()
    }
}
