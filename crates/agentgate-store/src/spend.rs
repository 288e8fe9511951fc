//! What the stored runs spent since a time, for budgets: the cost and the
//! tokens of the agent runs (kind `agent`) that *started* at or after
//! `since`, over all runs or one agent's, one chain's, one session's, one
//! API token's or one team's.
//!
//! A run counts with the figures `finish_run` wrote from its envelope; a
//! run still running counts nothing yet (its own limit holds it while it
//! runs). Each scope reads one partial covering index (the migration
//! `spend`: agent, chain and session name first, then the start time and
//! the figures; all runs read `runs_usage`), so a check is a short range
//! scan however large the store. A token's or a team's reads its runs' ids
//! from the labels' index `labels_by_value` (every run of a job carries
//! its submitter's labels), then each run by its key.

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
    /// The runs this API token submitted (every run of its jobs carries
    /// the label [`crate::SUBMITTER_TOKEN_LABEL`]).
    Token(String),
    /// The runs the tokens of this team submitted
    /// ([`crate::SUBMITTER_TEAM_LABEL`]).
    Team(String),
}

impl SpendScope {
    /// The value a scope filters on (`None` for all runs).
    pub(crate) fn value(&self) -> Option<&str> {
        match self {
            SpendScope::All => None,
            SpendScope::Agent(v)
            | SpendScope::Chain(v)
            | SpendScope::Session(v)
            | SpendScope::Token(v)
            | SpendScope::Team(v) => Some(v),
        }
    }

    /// The condition on `runs` the scope adds, its value the placeholder
    /// `p`: a column's, or the label side table's (read from its index
    /// `labels_by_value`).
    fn condition(&self, p: &str) -> String {
        let label = |key: &str| {
            format!(
                " AND runs.run_id IN (SELECT id FROM labels WHERE key = '{key}' AND value = {p})"
            )
        };
        match self {
            SpendScope::All => String::new(),
            SpendScope::Agent(_) => format!(" AND runs.agent = {p}"),
            SpendScope::Chain(_) => format!(" AND runs.chain = {p}"),
            SpendScope::Session(_) => format!(" AND runs.session_name = {p}"),
            SpendScope::Token(_) => label(crate::SUBMITTER_TOKEN_LABEL),
            SpendScope::Team(_) => label(crate::SUBMITTER_TEAM_LABEL),
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
    let filter = scope.condition(p2);
    format!(
        "SELECT COUNT(runs.total_tokens), {sum_usd}, {sum_tokens} FROM runs \
         WHERE runs.kind = 'agent' AND runs.started_at >= {p1}{filter}"
    )
}
