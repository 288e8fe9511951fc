//! The budgets that apply to a run and to a step, read from the store
//! before they start: each window's spending since its start, and whether
//! it is already spent (see the module notes of `budget`).

use agentgate_store::{RunStore, SpendScope};
use jiff::civil::Date;
use jiff::tz::TimeZone;
use jiff::{Timestamp, ToSpan};

use super::{BudgetLine, Limits, Period, PeriodLimits, RunBudget};

/// A budget already spent before the run (or step) starts.
#[derive(Debug, Clone, PartialEq)]
pub struct Over {
    /// What was spent of what, in words.
    pub message: String,
    /// When the window starts again (`None`: never, or not a window).
    pub resets_at: Option<Timestamp>,
}

/// The start of the window of `period` that holds `now` (UTC).
pub fn period_start(period: Period, now: Timestamp) -> Timestamp {
    let today = now.to_zoned(TimeZone::UTC).date();
    match period {
        Period::Day => day_start(today),
        Period::Month => day_start(today.first_of_month()),
        Period::Life => Timestamp::UNIX_EPOCH,
    }
}

/// The start of the next window of `period` after the one holding `now`.
pub fn window_end(period: Period, now: Timestamp) -> Option<Timestamp> {
    let today = now.to_zoned(TimeZone::UTC).date();
    let next = match period {
        Period::Day => today.checked_add(1.day()).ok()?,
        Period::Month => today.first_of_month().checked_add(1.month()).ok()?,
        Period::Life => return None,
    };
    Some(day_start(next))
}

fn day_start(date: Date) -> Timestamp {
    date.to_zoned(TimeZone::UTC)
        .map(|z| z.timestamp())
        .unwrap_or(Timestamp::UNIX_EPOCH)
}

/// A window to read: whose runs, over what, its limits, its name.
struct Window {
    scope: SpendScope,
    period: Period,
    limits: Limits,
    name: String,
}

/// The day and month windows of `p`; `whose` ends the name (`of agent
/// reviewer`), or is empty for the global ones.
fn periods(scope: SpendScope, whose: &str, p: &PeriodLimits) -> impl Iterator<Item = Window> {
    let whose = whose.to_owned();
    [(Period::Day, p.day), (Period::Month, p.month)]
        .into_iter()
        .filter(|(_, l)| l.any())
        .map(move |(period, limits)| Window {
            scope: scope.clone(),
            period,
            limits,
            name: match whose.as_str() {
                "" => format!("the global {} budget", period.as_str()),
                w => format!("the {} budget of {w}", period.as_str()),
            },
        })
}

/// The lines of the whole run: its own limits, then the global, chain,
/// session, submitting token's and its team's windows read from `store` at
/// `now`; or the first window already
/// spent. Without a store the windows cannot be read: they are left out
/// (the caller says so).
pub fn lines_for_run(
    budget: &RunBudget,
    chain: Option<&str>,
    session: Option<&str>,
    store: Option<&dyn RunStore>,
    now: Timestamp,
) -> Result<(Vec<BudgetLine>, Vec<String>), Over> {
    let mut lines = Vec::new();
    if budget.run.any() {
        lines.push(BudgetLine {
            name: budget.run_source.to_owned(),
            limits: budget.run,
            spent_usd: 0.0,
            spent_tokens: 0,
            resets_at: None,
        });
    }
    let b = &budget.budgets;
    let mut windows: Vec<Window> = periods(SpendScope::All, "", &b.global).collect();
    if let Some(chain) = chain
        && let Some(p) = b.chains.get(chain)
    {
        windows.extend(periods(
            SpendScope::Chain(chain.to_owned()),
            &format!("chain {chain}"),
            p,
        ));
    }
    if let Some(name) = session
        && b.sessions.any()
    {
        windows.push(Window {
            scope: SpendScope::Session(name.to_owned()),
            period: Period::Life,
            limits: b.sessions,
            name: format!("the budget of session {name}"),
        });
    }
    if let Some(submitter) = &budget.submitter {
        windows.extend(periods(
            SpendScope::Token(submitter.token.clone()),
            &format!("token {}", submitter.token),
            &submitter.limits,
        ));
        if let Some(team) = &submitter.team
            && let Some(p) = b.teams.get(team)
        {
            windows.extend(periods(
                SpendScope::Team(team.clone()),
                &format!("team {team}"),
                p,
            ));
        }
    }
    let (read, warnings) = read_windows(windows, store, now)?;
    lines.extend(read);
    Ok((lines, warnings))
}

/// The lines of a step's agent (its day and month windows), or the first
/// one already spent.
pub fn lines_for_agent(
    budget: &RunBudget,
    agent: &str,
    store: Option<&dyn RunStore>,
    now: Timestamp,
) -> Result<(Vec<BudgetLine>, Vec<String>), Over> {
    let Some(p) = budget.budgets.agents.get(agent) else {
        return Ok((Vec::new(), Vec::new()));
    };
    let windows = periods(
        SpendScope::Agent(agent.to_owned()),
        &format!("agent {agent}"),
        p,
    )
    .collect();
    read_windows(windows, store, now)
}

/// Each window's spending; warnings for those that could not be read (no
/// store, a store error: the run is never stopped by its store).
fn read_windows(
    windows: Vec<Window>,
    store: Option<&dyn RunStore>,
    now: Timestamp,
) -> Result<(Vec<BudgetLine>, Vec<String>), Over> {
    let mut lines = Vec::new();
    let mut warnings = Vec::new();
    for w in windows {
        let Some(store) = store else {
            warnings.push(format!(
                "the {} cannot be checked without the run store",
                w.name
            ));
            continue;
        };
        let spent = match store.spent(&w.scope, period_start(w.period, now)) {
            Ok(s) => s,
            Err(e) => {
                warnings.push(format!("the {} could not be read: {e}", w.name));
                continue;
            }
        };
        let line = BudgetLine {
            name: w.name,
            limits: w.limits,
            spent_usd: spent.usd,
            spent_tokens: spent.tokens,
            resets_at: window_end(w.period, now),
        };
        if let Some((measure, share)) = line.used(0.0, 0).first().copied()
            && share >= 1.0
        {
            let when = match line.resets_at {
                Some(t) => format!("; it starts again at {t}"),
                None => String::new(),
            };
            return Err(Over {
                message: format!(
                    "over budget: {} spent already by {} run{}{when}",
                    line.describe(measure, 0.0, 0),
                    spent.runs,
                    if spent.runs == 1 { "" } else { "s" }
                ),
                resets_at: line.resets_at,
            });
        }
        lines.push(line);
    }
    Ok((lines, warnings))
}
