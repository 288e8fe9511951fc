//! `--gateway` and its settings: the model gateway in front of the run's
//! CLIs (docs/guide/gateway.md), its recording and the run's limits on model
//! use.

use std::time::Duration;

use agentgate_core::{GatewayLimits, parse_duration};

/// The model gateway of a run.
#[derive(Debug, Clone, clap::Args)]
pub struct GatewayArgs {
    /// Put a model gateway in front of each CLI: an HTTP endpoint private
    /// to the run that forwards its model calls to the API it would have
    /// used, reads each call's tokens and rate limits off the wire
    /// (`model_call` events, the envelope's `gateway`, usage_source
    /// `wire`) and, where the CLI uses an API key, holds the real key
    /// while the CLI gets a stub. Default: the agent's or the config's
    /// `gateway:`.
    #[arg(long, conflicts_with = "no_gateway")]
    pub gateway: bool,
    /// No gateway, whatever the config says.
    #[arg(long)]
    pub no_gateway: bool,
    /// Keep the run's model calls (requests and responses, redacted, no
    /// credentials) in `model-calls.jsonl` in the run folder, for
    /// `agentgate fake-llm --replay`. Needs a gateway.
    #[arg(long)]
    pub record_model_calls: bool,
    /// The run's model calls at most; the next is refused and the run
    /// ends with `budget`. Needs a gateway.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_model_calls: Option<u32>,
    /// Input tokens (cache included) over the run's model calls, at most.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_input_tokens: Option<u64>,
    /// Output tokens (reasoning included) over the run's model calls, at
    /// most.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub max_output_tokens: Option<u64>,
    /// Wall time spent in model calls, summed, at most (e.g. `10m`).
    #[arg(long, value_name = "DUR", value_parser = parse_duration)]
    pub max_model_time: Option<Duration>,
}

impl GatewayArgs {
    /// `--gateway` / `--no-gateway` as the run's choice; `None`: the
    /// config's.
    pub fn choice(&self) -> Option<bool> {
        match (self.gateway, self.no_gateway) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// The limits the flags set.
    pub fn limits(&self) -> GatewayLimits {
        GatewayLimits {
            max_model_calls: self.max_model_calls,
            max_input_tokens: self.max_input_tokens,
            max_output_tokens: self.max_output_tokens,
            max_model_time: self.max_model_time,
        }
    }
}
