//! `budgets:`: limits on what runs spend (see `crate::budget`).
//!
//! ```yaml
//! budgets:
//!   when_over: wait          # or refuse (the default)
//!   warn_at: 0.8             # the share of a budget that sends budget_warning
//!   run: {max_cost: 0.50, max_tokens: 200000}      # each run's own
//!   global: {day: {max_cost: 20}, month: {max_cost: 400}}
//!   agents:
//!     reviewer: {day: {max_cost: 5}, month: {max_tokens: 50000000}}
//!   chains:
//!     default: {day: {max_cost: 10}}
//!   sessions: {max_cost: 2.00}                     # each session name, over its life
//!   teams:                                         # the runs of a team's API tokens
//!     payments: {day: {max_cost: 8}}
//! ```
//!
//! An agent or chain named here must be one the file defines; a team is
//! any name a token's `--team` can be (tokens live in the store).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::yaml::{Entries, Fault};
use super::{AgentSpec, ChainSpec};
use crate::budget::{Budgets, Limits, PeriodLimits, WhenOver};

/// `budgets:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawBudgets {
    when_over: Option<Spanned<String>>,
    warn_at: Option<Spanned<f64>>,
    run: Option<Spanned<RawLimits>>,
    global: Option<Spanned<RawPeriods>>,
    #[serde(default)]
    agents: Entries<Spanned<RawPeriods>>,
    #[serde(default)]
    chains: Entries<Spanned<RawPeriods>>,
    sessions: Option<Spanned<RawLimits>>,
    #[serde(default)]
    teams: Entries<Spanned<RawPeriods>>,
}

/// `{max_cost, max_tokens}` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLimits {
    max_cost: Option<f64>,
    max_tokens: Option<u64>,
}

/// `{day, month}` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPeriods {
    day: Option<RawLimits>,
    month: Option<RawLimits>,
}

fn limits<T>(at: &Spanned<T>, what: &str, raw: &RawLimits) -> Result<Limits, Fault> {
    if let Some(usd) = raw.max_cost
        && !(usd.is_finite() && usd >= 0.0)
    {
        return Err(Fault::at(
            at,
            format!("budgets: {what}.max_cost is {usd}; it is a number of USD, 0 or more"),
        ));
    }
    Ok(Limits {
        max_cost_usd: raw.max_cost,
        max_tokens: raw.max_tokens,
    })
}

fn periods(at: &Spanned<RawPeriods>, what: &str) -> Result<PeriodLimits, Fault> {
    let limit = |p: &Option<RawLimits>, name: &str| match p {
        Some(l) => limits(at, &format!("{what}.{name}"), l),
        None => Ok(Limits::default()),
    };
    Ok(PeriodLimits {
        day: limit(&at.value.day, "day")?,
        month: limit(&at.value.month, "month")?,
    })
}

/// Check `budgets:` against the file's agents and chains.
pub(super) fn convert(
    raw: &RawBudgets,
    agents: &[AgentSpec],
    chains: &[ChainSpec],
) -> Result<Budgets, Fault> {
    let mut out = Budgets::default();
    if let Some(w) = &raw.when_over {
        out.when_over = match w.value.trim() {
            "refuse" => WhenOver::Refuse,
            "wait" => WhenOver::Wait,
            other => {
                return Err(Fault::at(
                    w,
                    format!("budgets: when_over is `{other}`; use refuse or wait"),
                ));
            }
        };
    }
    if let Some(w) = &raw.warn_at {
        if !(w.value > 0.0 && w.value <= 1.0) {
            return Err(Fault::at(
                w,
                format!(
                    "budgets: warn_at is {}; it is a share of a budget, above 0 and at most 1",
                    w.value
                ),
            ));
        }
        out.warn_at = w.value;
    }
    if let Some(r) = &raw.run {
        out.run = limits(r, "run", &r.value)?;
    }
    if let Some(g) = &raw.global {
        out.global = periods(g, "global")?;
    }
    if let Some(s) = &raw.sessions {
        out.sessions = limits(s, "sessions", &s.value)?;
    }
    out.agents = named(&raw.agents, "agents", |n| {
        agents.iter().any(|a| a.name == n)
    })?;
    out.chains = named(&raw.chains, "chains", |n| {
        chains.iter().any(|c| c.name == n)
    })?;
    for (name, _) in &raw.teams.0 {
        agentgate_store::check_token_name("team", &name.value)
            .map_err(|m| Fault::at(name, format!("budgets: teams.{}: {m}", name.value)))?;
    }
    out.teams = named(&raw.teams, "teams", |_| true)?;
    Ok(out)
}

fn named(
    entries: &Entries<Spanned<RawPeriods>>,
    what: &str,
    known: impl Fn(&str) -> bool,
) -> Result<BTreeMap<String, PeriodLimits>, Fault> {
    let mut out = BTreeMap::new();
    for (name, p) in &entries.0 {
        if !known(&name.value) {
            return Err(Fault::at(
                name,
                format!(
                    "budgets: {what}.{} names no {} of this file",
                    name.value,
                    what.trim_end_matches('s')
                ),
            ));
        }
        out.insert(
            name.value.clone(),
            periods(p, &format!("{what}.{}", name.value))?,
        );
    }
    Ok(out)
}
