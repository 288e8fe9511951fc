//! What the gateway tells the run: a notice per model call and per limit
//! crossed, and the totals.

use agentgate_protocol::{ModelCallEvent, Usage};

/// What the gateway sends the run as it happens.
#[derive(Debug, Clone, PartialEq)]
#[expect(
    clippy::large_enum_variant,
    reason = "the run matches on the event itself; a notice is sent once per call"
)]
pub enum GatewayNotice {
    /// A model call ended (its last response byte, its failure, or the
    /// gateway's own refusal).
    Call(ModelCallEvent),
    /// A call was refused because the run reached one of its limits; sent
    /// once per limit.
    LimitCrossed {
        /// `max_model_calls`, `max_input_tokens`, `max_output_tokens` or
        /// `max_model_time`.
        limit: &'static str,
        /// What was reached, in words.
        detail: String,
    },
}

/// The gateway's totals.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GatewaySummary {
    /// Model calls forwarded to the upstream.
    pub model_calls: u32,
    /// Model calls the gateway refused itself (a limit, a wrong stub key).
    pub refused_calls: u32,
    /// The usage summed over the calls whose responses carried one.
    pub usage: Usage,
    /// The upstream, `scheme://host:port`.
    pub upstream: String,
}
