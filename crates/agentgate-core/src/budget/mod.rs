//! Budgets: limits on what runs spend, in USD and in tokens.
//!
//! Where they come from: `--max-cost` and `--max-tokens` (a run's own, over
//! `budgets.run`), and the config's windows: all runs per day and month
//! (`budgets.global`), each named agent and chain per day and month
//! (`budgets.agents`, `budgets.chains`), each `--session` name over its
//! life (`budgets.sessions`); for a job an API token submitted, the token's
//! own day and month limits (`agentgate token create --day-max-cost`) and
//! its team's (`budgets.teams`), over the runs of every token of the team.
//!
//! How they hold (`check.rs`, then `run/budget_meter.rs`):
//! - before a run starts, each window that applies is read from the store
//!   (`RunStore::spent`: the runs that started in it); one already spent
//!   ends the run with `budget` before any CLI starts, its `reset_at` the
//!   window's next start (a day's or a month's; a session's never), and a
//!   step whose agent is over its own window is skipped;
//! - while it runs, every budget that applies is a [`BudgetLine`]: what it
//!   allows, what was spent before this run. The run's own spending (its
//!   finished attempts priced, plus the current attempt's live figures: the
//!   gateway's per call when it runs, else the CLI's per-call usage as it
//!   streams) is added to each; at `warn_at` of a line a `budget_warning`
//!   status event, past a line the CLI is stopped and the attempt's error is
//!   `budget`, not recoverable;
//! - `when_over: wait` makes a queued job over a day or month window wait
//!   in the queue until the window's next start (`agentgate serve`; `run`
//!   refuses, saying when it resets).
//!
//! Tokens are `input + output` (cache reads and writes are part of input).
//! A run whose cost cannot be told (its model not on the rate card) while
//! a cost limit applies is stopped: a budget that cannot be checked does
//! not hold. Days and months are UTC.

mod check;

pub use check::{Over, lines_for_agent, lines_for_run, period_start, window_end};

use std::collections::BTreeMap;

/// A limit in USD and one in tokens; either may be absent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Limits {
    /// The most USD.
    pub max_cost_usd: Option<f64>,
    /// The most tokens (`input + output`).
    pub max_tokens: Option<u64>,
}

impl Limits {
    /// Limits as a request gives them; a cost below 0 (or not a number) is
    /// refused.
    pub fn checked(
        max_cost_usd: Option<f64>,
        max_tokens: Option<u64>,
    ) -> Result<Limits, &'static str> {
        match max_cost_usd {
            Some(usd) if !(usd.is_finite() && usd >= 0.0) => Err("a number of USD, 0 or more"),
            _ => Ok(Limits {
                max_cost_usd,
                max_tokens,
            }),
        }
    }

    /// Whether either limit is set.
    pub fn any(&self) -> bool {
        self.max_cost_usd.is_some() || self.max_tokens.is_some()
    }

    /// These, each over `under`'s where set.
    pub fn over(self, under: Limits) -> Limits {
        Limits {
            max_cost_usd: self.max_cost_usd.or(under.max_cost_usd),
            max_tokens: self.max_tokens.or(under.max_tokens),
        }
    }
}

/// The limits of a day and of a month.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PeriodLimits {
    /// Per UTC day.
    pub day: Limits,
    /// Per calendar month (UTC).
    pub month: Limits,
}

/// The window a budget counts over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    /// The UTC day.
    Day,
    /// The calendar month (UTC).
    Month,
    /// Ever (a session's life).
    Life,
}

impl Period {
    /// `day`, `month` or `life`.
    pub fn as_str(self) -> &'static str {
        match self {
            Period::Day => "day",
            Period::Month => "month",
            Period::Life => "life",
        }
    }
}

/// What a job over one of its windows does.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum WhenOver {
    /// It ends with `budget` (the default).
    #[default]
    Refuse,
    /// A queued job waits until the window's next start; `agentgate run`
    /// refuses, saying when.
    Wait,
}

/// `budgets:` as the config gives it.
#[derive(Debug, Clone, PartialEq)]
pub struct Budgets {
    /// What a job over a window does.
    pub when_over: WhenOver,
    /// The share of a line at which a `budget_warning` is sent.
    pub warn_at: f64,
    /// Every run's own limits (`--max-cost`, `--max-tokens` win).
    pub run: Limits,
    /// All runs together.
    pub global: PeriodLimits,
    /// Each named agent's runs.
    pub agents: BTreeMap<String, PeriodLimits>,
    /// Each named chain's runs.
    pub chains: BTreeMap<String, PeriodLimits>,
    /// Each session name's runs, over its life.
    pub sessions: Limits,
    /// The runs of each team's API tokens together.
    pub teams: BTreeMap<String, PeriodLimits>,
}

/// The warning share when the config gives none.
pub const DEFAULT_WARN_AT: f64 = 0.8;

impl Default for Budgets {
    fn default() -> Self {
        Budgets {
            when_over: WhenOver::Refuse,
            warn_at: DEFAULT_WARN_AT,
            run: Limits::default(),
            global: PeriodLimits::default(),
            agents: BTreeMap::new(),
            chains: BTreeMap::new(),
            sessions: Limits::default(),
            teams: BTreeMap::new(),
        }
    }
}

impl Budgets {
    /// Whether any window (read from the store) is set.
    pub fn has_windows(&self) -> bool {
        let period = |p: &PeriodLimits| p.day.any() || p.month.any();
        period(&self.global)
            || self.agents.values().any(period)
            || self.chains.values().any(period)
            || self.sessions.any()
    }
}

impl PeriodLimits {
    /// Whether either window has a limit.
    pub fn any(&self) -> bool {
        self.day.any() || self.month.any()
    }
}

/// The API token that submitted a job, for its runs' budgets.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BudgetSubmitter {
    /// The token's name.
    pub token: String,
    /// Its team, if any.
    pub team: Option<String>,
    /// The token's own day and month limits.
    pub limits: PeriodLimits,
}

/// A run's budgets once its flags are applied (`Plan::budget`).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunBudget {
    /// The config's windows and policy.
    pub budgets: Budgets,
    /// The run's own limits: the flags over `budgets.run`.
    pub run: Limits,
    /// The run's own limits in messages: `the run's limit` (the flags or
    /// the request), or `the run's limit (budgets.run)` (the config).
    pub run_source: &'static str,
    /// The API token that submitted the run's job, if one did.
    pub submitter: Option<BudgetSubmitter>,
}

impl RunBudget {
    /// Whether anything limits the run.
    pub fn any(&self) -> bool {
        self.run.any() || self.budgets.has_windows() || self.submitter_windows()
    }

    /// Whether the submitting token or its team has a window.
    fn submitter_windows(&self) -> bool {
        self.submitter.as_ref().is_some_and(|s| {
            s.limits.any()
                || s.team
                    .as_ref()
                    .and_then(|t| self.budgets.teams.get(t))
                    .is_some_and(PeriodLimits::any)
        })
    }
}

/// One budget that applies to a run while it runs: what it allows and
/// what its window spent before the run.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetLine {
    /// Which budget, in words (`the run's limit`, `the day budget of agent
    /// reviewer`).
    pub name: String,
    /// The limits.
    pub limits: Limits,
    /// USD spent in the window before this run.
    pub spent_usd: f64,
    /// Tokens spent in the window before this run.
    pub spent_tokens: u64,
    /// When the window starts again (`None`: a run's own, a session's).
    pub resets_at: Option<jiff::Timestamp>,
}

/// Which limit of a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// USD.
    Cost,
    /// Tokens.
    Tokens,
}

impl Measure {
    /// `cost` or `tokens`.
    pub fn as_str(self) -> &'static str {
        match self {
            Measure::Cost => "cost",
            Measure::Tokens => "tokens",
        }
    }
}

impl BudgetLine {
    /// The share of each limit used with `usd` and `tokens` more spent
    /// (by this run), largest first; a limit of 0 is used up by anything.
    pub fn used(&self, usd: f64, tokens: u64) -> Vec<(Measure, f64)> {
        let mut out = Vec::new();
        if let Some(max) = self.limits.max_cost_usd {
            out.push((Measure::Cost, share(self.spent_usd + usd, max)));
        }
        if let Some(max) = self.limits.max_tokens {
            let spent = self.spent_tokens.saturating_add(tokens) as f64;
            out.push((Measure::Tokens, share(spent, max as f64)));
        }
        out.sort_by(|a, b| b.1.total_cmp(&a.1));
        out
    }

    /// The line in words with `usd` and `tokens` more spent:
    /// `the run's limit: $0.1800 of $0.14`.
    pub fn describe(&self, measure: Measure, usd: f64, tokens: u64) -> String {
        match measure {
            Measure::Cost => format!(
                "{}: ${:.4} of ${}",
                self.name,
                self.spent_usd + usd,
                self.limits.max_cost_usd.unwrap_or_default()
            ),
            Measure::Tokens => format!(
                "{}: {} tokens of {}",
                self.name,
                self.spent_tokens.saturating_add(tokens),
                self.limits.max_tokens.unwrap_or_default()
            ),
        }
    }
}

fn share(spent: f64, max: f64) -> f64 {
    if max <= 0.0 {
        if spent > 0.0 { f64::INFINITY } else { 1.0 }
    } else {
        spent / max
    }
}

#[cfg(test)]
mod tests;
