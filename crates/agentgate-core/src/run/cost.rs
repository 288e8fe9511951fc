//! The envelope's cost: each attempt priced on its own as it ends (its
//! tokens, the wire's when the gateway ran, else the CLI's, against the
//! plan's rate card, beside the CLI's own figure), then the run's report,
//! the sum of its attempts', in `tokens_used.cost_usd` and `cost`.

use agentgate_protocol::{AttemptCost, Envelope, Usage};
use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::cost::{PricedAttempt, Pricing};

/// The tokens the envelope holds, as pricing (and the gateway's report of
/// the CLI's figures) needs them; or why there are none.
pub(super) fn envelope_usage(env: &Envelope) -> Result<Usage, &'static str> {
    let t = &env.tokens_used;
    if t.estimated {
        return Err("the token figures are estimates, not the provider's");
    }
    if !env.metadata.token_usage_available {
        return Err("the run reported no token figures");
    }
    Ok(Usage {
        input_tokens: t.input_tokens,
        output_tokens: t.output_tokens,
        cache_read_input_tokens: t.cache_read_input_tokens,
        cache_creation_input_tokens: t.cache_creation_input_tokens,
        cache_creation_1h_input_tokens: t.cache_creation_1h_input_tokens,
        reasoning_tokens: env.reasoning_tokens,
        total_tokens: t.total_tokens,
        cost_usd: t.cost_usd,
        context_tokens: env.context_tokens,
        estimated: false,
    })
}

/// Price one attempt's envelope (its figures final: the gateway's applied)
/// and put the report on it: `tokens_used.cost_usd` becomes the card's
/// figure where the card prices the model, else stays the CLI's. Also
/// says whether the attempt reported anything (tokens or a cost).
pub(super) fn price_attempt(
    pricing: &Pricing,
    provider: &str,
    started_at: Timestamp,
    env: &mut Envelope,
) -> (AttemptCost, bool) {
    let usage = envelope_usage(env);
    let cli_usd = env.tokens_used.cost_usd;
    let report = pricing.price(&PricedAttempt {
        usage: usage.as_ref().ok(),
        no_usage_reason: usage.as_ref().err().copied().unwrap_or_default(),
        model: env.model.as_deref(),
        day: Some(started_at.to_zoned(TimeZone::UTC).date()),
        cli_usd,
    });
    env.tokens_used.cost_usd = report.usd;
    env.cost = Some(Box::new(report.clone()));
    let reported = usage.is_ok() || cli_usd.is_some();
    let cost = AttemptCost {
        provider: provider.to_owned(),
        model: env.model.clone(),
        cost: report,
    };
    (cost, reported)
}

/// The run's cost on its envelope: the sum of its attempts' (none priced:
/// the envelope is left as it is).
pub(super) fn finish_run(
    pricing: &Pricing,
    env: &mut Envelope,
    attempts: Vec<(AttemptCost, bool)>,
) {
    if let Some(report) = crate::cost::sum_attempts(attempts, pricing.flag_above) {
        env.tokens_used.cost_usd = report.usd;
        env.cost = Some(Box::new(report));
    }
}
