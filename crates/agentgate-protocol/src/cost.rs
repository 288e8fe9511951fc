//! The envelope's cost report: where `tokens_used.cost_usd` came from (the
//! CLI's own figure, agentgate's rate card, or both), the two figures side
//! by side, the card entry used, and whether they differ by more than the
//! configured threshold.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where the run's cost (`tokens_used.cost_usd`) comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CostSource {
    /// Only the CLI reported a cost (the card does not price the model).
    Cli,
    /// Only the rate card priced the tokens (the CLI reported no cost).
    RateCard,
    /// Both did; `usd` is the card's, the CLI's is kept in `cli_usd`.
    Both,
}

impl CostSource {
    /// The name used in the envelope (`cli`, `rate_card`, `both`).
    pub fn as_str(self) -> &'static str {
        match self {
            CostSource::Cli => "cli",
            CostSource::RateCard => "rate_card",
            CostSource::Both => "both",
        }
    }
}

/// The rate card entry that priced an attempt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct CostCardEntry {
    /// The vendor the entry belongs to (`anthropic`, `openai`, ...).
    pub provider: String,
    /// The entry's model name (the canonical one, not the alias matched).
    pub model: String,
    /// The rate card's `version`; `config` when the entry came from the
    /// config's `pricing:` section.
    pub version: String,
}

/// How a run's (or one attempt's) cost was worked out.
///
/// `usd` is the envelope's `tokens_used.cost_usd`: the card's figure when
/// the card prices the model, else the CLI's, else `null` (never a guess;
/// `reason` then says why).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CostReport {
    /// The cost in US dollars; `null` when unknown.
    #[serde(default)]
    pub usd: Option<f64>,
    /// Where `usd` comes from; `null` when it is unknown.
    #[serde(default)]
    pub source: Option<CostSource>,
    /// The cost the CLI reported itself (Claude Code, opencode); `null`
    /// when it reported none.
    #[serde(default)]
    pub cli_usd: Option<f64>,
    /// The cost from the rate card and the run's tokens; `null` when the
    /// card does not price the model (see `reason`).
    #[serde(default)]
    pub card_usd: Option<f64>,
    /// The card entry that priced the tokens (the last attempt's, when
    /// several were priced).
    #[serde(default)]
    pub card: Option<CostCardEntry>,
    /// `cli_usd - card_usd` when both are known.
    #[serde(default)]
    pub difference_usd: Option<f64>,
    /// Whether the difference passes the threshold (`pricing.flag_above`).
    #[serde(default)]
    pub flagged: bool,
    /// Why `card_usd` (or `usd`) is unknown, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// What the figure assumes (e.g. every cache write priced at the
    /// 5-minute rate).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// One report per attempt that ran, when the run made more than one
    /// (a failover, a retry): the run's figures are their sums.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attempts: Vec<AttemptCost>,
}

/// One attempt's cost, priced with its own provider and model.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AttemptCost {
    /// The attempt's provider (the CLI).
    pub provider: String,
    /// The attempt's model; `null` when unknown.
    #[serde(default)]
    pub model: Option<String>,
    /// The attempt's own report.
    pub cost: CostReport,
}
