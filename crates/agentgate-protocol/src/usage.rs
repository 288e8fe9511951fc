//! Token and cost accounting.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Token and cost figures of one turn, an attempt or a run, normalized across
/// providers.
///
/// Semantics, the same for every provider:
///
/// - `input_tokens`: every input token the model processed and the provider
///   billed, each counted once: uncached input, plus cache reads, plus cache
///   writes. Claude reports these three apart (agentgate adds them up);
///   OpenAI/Codex and Gemini already include cached tokens in their input
///   figure. `cache_read_input_tokens` and `cache_creation_input_tokens` are
///   therefore parts of `input_tokens`, never on top of it.
/// - `cache_creation_1h_input_tokens`: the part of
///   `cache_creation_input_tokens` written with a 1-hour lifetime
///   (Anthropic's `cache_creation.ephemeral_1h_input_tokens`), priced at
///   a higher rate than the 5-minute writes that make up the rest. Part
///   of the cache writes, never on top of them; 0 when there were none or
///   the source does not tell the lifetimes apart (then every write is a
///   5-minute one); absent from the JSON when 0.
/// - `output_tokens`: every generated token, reasoning included;
///   `reasoning_tokens` is the part of it spent on reasoning.
/// - `total_tokens` = `input_tokens` + `output_tokens`.
/// - `context_tokens`: how full the model's context was after the last model
///   call: that call's input tokens (cache included) plus its output.
///   Unlike the other counts it is a level, not a sum: `None` when unknown.
/// - `cost_usd`: the provider's reported cost, or agentgate's computed one;
///   `None` when neither is known (zero means free, not unknown).
/// - `estimated`: the counts were estimated (e.g. from text length) rather
///   than reported by the provider.
///
/// Counts a provider does not report are 0.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Usage {
    /// All billed input tokens, cache reads and writes included.
    #[serde(default)]
    pub input_tokens: u64,
    /// All generated tokens, reasoning included.
    #[serde(default)]
    pub output_tokens: u64,
    /// The part of `input_tokens` read from the prompt cache.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
    /// The part of `input_tokens` written to the prompt cache.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// The part of `cache_creation_input_tokens` written with a 1-hour
    /// lifetime (the rest has a 5-minute one); absent when 0.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_creation_1h_input_tokens: u64,
    /// The part of `output_tokens` spent on reasoning.
    #[serde(default)]
    pub reasoning_tokens: u64,
    /// `input_tokens` + `output_tokens`.
    #[serde(default)]
    pub total_tokens: u64,
    /// Cost in US dollars, `null` when unknown.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// Context size after the last model call, `null` when unknown.
    #[serde(default)]
    pub context_tokens: Option<u64>,
    /// Whether the figures are estimates rather than provider-reported.
    #[serde(default)]
    pub estimated: bool,
}

impl Usage {
    /// Add `other`'s counts to these: every token count, the cost where
    /// either is known (a sum when both are), `estimated` when either is.
    /// `context_tokens`, a level and not a sum, is left as it is.
    pub fn add_counts(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_creation_1h_input_tokens += other.cache_creation_1h_input_tokens;
        self.reasoning_tokens += other.reasoning_tokens;
        self.total_tokens += other.total_tokens;
        self.cost_usd = sum_costs(self.cost_usd, other.cost_usd);
        self.estimated |= other.estimated;
    }

    /// Input tokens that were neither read from nor written to the cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cache_read_input_tokens)
            .saturating_sub(self.cache_creation_input_tokens)
    }

    /// The cache writes with a 1-hour lifetime, at most all of them.
    pub fn cache_write_1h_tokens(&self) -> u64 {
        self.cache_creation_1h_input_tokens
            .min(self.cache_creation_input_tokens)
    }

    /// The cache writes with a 5-minute lifetime: every write that is not
    /// a 1-hour one.
    pub fn cache_write_5m_tokens(&self) -> u64 {
        self.cache_creation_input_tokens - self.cache_write_1h_tokens()
    }
}

/// Two costs added: the sum when both are known, else the one known (an
/// unknown cost is not zero).
pub(crate) fn sum_costs(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a + b),
        (a, b) => a.or(b),
    }
}

/// Whether a count is 0 (serde's `skip_serializing_if`).
pub(crate) fn is_zero(n: &u64) -> bool {
    *n == 0
}
