//! What the stored runs spent since a time, for budgets: the cost and the
//! tokens of the agent runs (kind `agent`) that *started* at or after
//! `since`, over all runs or one agent's, one chain's or one session's.
//!
//! A run counts with the figures `finish_run` wrote from its envelope; a
//! run still running counts nothing yet (its own limit holds it while it
//! runs). Each scope reads one partial covering index (the migration
//! `spend`: agent, chain and session name first, then the start time and
//! the figures; all runs read `runs_usage`), so a check is a short range
//! scan however large the store.

/// Whose runs a [`Spent`] sums.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpendScope {
    /// Every agent run.
    All,
    /// The runs whose last attempt was this named agent's.
    Agent(String),
    /// The runs that followed this chain.
    Chain(String),
    /// The runs of this session name (`--session`).
    Session(String),
}

impl SpendScope {
    /// The column a scope filters on, and its value (`None` for all runs).
    pub(crate) fn filter(&self) -> Option<(&'static str, &str)> {
        match self {
            SpendScope::All => None,
            SpendScope::Agent(name) => Some(("agent", name)),
            SpendScope::Chain(name) => Some(("chain", name)),
            SpendScope::Session(name) => Some(("session_name", name)),
        }
    }
}

/// The sums of a scope's runs since a time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Spent {
    /// Their cost in USD (runs without a cost count nothing).
    pub usd: f64,
    /// Their tokens (`total_tokens` as each run recorded it).
    pub tokens: u64,
    /// How many of them ended (recorded their figures; a run still
    /// running counts nothing yet, nor is counted).
    pub runs: u64,
}

/// The SQL of a spend query on either backend: `p1` is the placeholder of
/// `since`, `p2` of the scope's value.
pub(crate) fn spend_sql(
    scope: &SpendScope,
    sum_usd: &str,
    sum_tokens: &str,
    p1: &str,
    p2: &str,
) -> String {
    let filter = match scope.filter() {
        None => String::new(),
        Some((column, _)) => format!(" AND runs.{column} = {p2}"),
    };
    format!(
        "SELECT COUNT(runs.total_tokens), {sum_usd}, {sum_tokens} FROM runs \
         WHERE runs.kind = 'agent' AND runs.started_at >= {p1}{filter}"
    )
}
