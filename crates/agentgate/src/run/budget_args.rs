//! `--max-cost`, `--max-tokens`: a run's own budget (docs/guide/cost.md,
//! Budgets), over the config's `budgets.run`.

use agentgate_core::budget::Limits;

/// A run's own limits on what it spends.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct BudgetArgs {
    /// The most this run may spend, in USD: its tokens priced by the rate
    /// card (else its CLI's own cost), counted live from each model call's
    /// usage. A `budget_warning` event at 80%; past it the CLI is stopped
    /// and the run ends with `budget` (exit 1). Over the config's
    /// `budgets.run.max_cost`.
    #[arg(long, value_name = "USD", value_parser = usd)]
    pub max_cost: Option<f64>,
    /// The most tokens (input + output, cache included) this run may
    /// spend, counted as `--max-cost` is. Over `budgets.run.max_tokens`.
    #[arg(long, value_name = "N")]
    pub max_tokens: Option<u64>,
}

impl BudgetArgs {
    /// What the flags say.
    pub fn limits(&self) -> Limits {
        Limits {
            max_cost_usd: self.max_cost,
            max_tokens: self.max_tokens,
        }
    }
}

fn usd(text: &str) -> Result<f64, String> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "`{text}` is not an amount of USD (a number, 0 or more)"
        )),
    }
}
