//! Pricing tokens: [`Pricing`] (the card with the config's entries in
//! front, and the threshold of the CLI-vs-card flag) turns one attempt's
//! token figures into a [`CostReport`], and [`sum_attempts`] adds up the
//! reports of a run's attempts.

use agentgate_protocol::{AttemptCost, CostCardEntry, CostReport, CostSource, Usage};
use jiff::civil::Date;

use super::card::{CardEntry, Lookup, RateCard, builtin_card};

/// When a CLI's own cost and the card's differ enough to be flagged: the
/// difference must pass both bounds (`pricing.flag_above`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FlagThreshold {
    /// Share of the card's figure (0.05 = 5%).
    pub relative: f64,
    /// US dollars.
    pub usd: f64,
}

impl Default for FlagThreshold {
    fn default() -> Self {
        FlagThreshold {
            relative: 0.05,
            usd: 0.01,
        }
    }
}

impl FlagThreshold {
    /// Whether `difference` (CLI minus card) passes both bounds.
    pub fn flags(&self, difference: f64, card: f64) -> bool {
        let d = difference.abs();
        d > self.usd && d > self.relative * card.abs()
    }
}

/// How runs are priced: the rate card (the config's entries first) and
/// the flag's threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Pricing {
    /// The card, the config's entries in front.
    pub card: RateCard,
    /// Why the built-in card could not be read, when it could not.
    pub card_error: Option<String>,
    /// The CLI-vs-card flag's threshold.
    pub flag_above: FlagThreshold,
}

impl Default for Pricing {
    /// The built-in card and the default threshold.
    fn default() -> Self {
        match builtin_card() {
            Ok(card) => Pricing {
                card: card.clone(),
                card_error: None,
                flag_above: FlagThreshold::default(),
            },
            Err(e) => Pricing {
                card: RateCard::default(),
                card_error: Some(format!("the built-in rate card cannot be read: {e}")),
                flag_above: FlagThreshold::default(),
            },
        }
    }
}

/// An attempt's figures, as pricing needs them.
#[derive(Debug, Clone, Default)]
pub struct PricedAttempt<'a> {
    /// The tokens (cache reads and writes parts of `input_tokens`,
    /// reasoning part of `output_tokens`); `None` when the attempt
    /// reported none, or only estimates.
    pub usage: Option<&'a Usage>,
    /// Why `usage` is `None`.
    pub no_usage_reason: &'a str,
    /// The model, as reported or asked for.
    pub model: Option<&'a str>,
    /// The day (UTC) the attempt started.
    pub day: Option<Date>,
    /// The cost the CLI reported.
    pub cli_usd: Option<f64>,
}

/// Round away float noise (a ten-billionth of a dollar).
fn round(usd: f64) -> f64 {
    (usd * 1e10).round() / 1e10
}

impl Pricing {
    /// The card's cost of `usage` under `entry`, or why there is none;
    /// notes on what the figure assumes go to `notes`.
    fn card_cost(entry: &CardEntry, usage: &Usage, notes: &mut Vec<String>) -> Result<f64, String> {
        if let Some(limit) = entry.prompt_tokens_up_to {
            match usage.context_tokens {
                Some(c) if c > limit => {
                    return Err(format!(
                        "the run's context reached {c} tokens; the card prices `{}` only for prompts up to {limit} tokens",
                        entry.model
                    ));
                }
                Some(_) => {}
                None => notes.push(format!(
                    "priced at the rate for prompts up to {limit} tokens (the run's context length is unknown)"
                )),
            }
        }
        let p = &entry.usd_per_million;
        let reasoning_apart = p.reasoning.is_some();
        let output = if reasoning_apart {
            usage.output_tokens.saturating_sub(usage.reasoning_tokens)
        } else {
            usage.output_tokens
        };
        // Cache writes by lifetime: the 1-hour part at the 1-hour rate, the
        // rest at the 5-minute rate. An entry without a 1-hour rate does
        // not price 1-hour writes (no guess from the 5-minute rate).
        let (write_5m, write_1h) = (usage.cache_write_5m_tokens(), usage.cache_write_1h_tokens());
        if write_5m > 0 && write_1h == 0 && p.cache_write_1h != p.cache_write_5m {
            notes.push(
                "every cache write priced at the 5-minute rate: the usage reports no 1-hour writes (or does not tell them apart)".to_owned(),
            );
        }
        // (what the class is called, its key on the card, tokens, price)
        let classes = [
            (
                "uncached input",
                "input",
                usage.uncached_input_tokens(),
                p.input,
            ),
            (
                "cache read",
                "cache_read",
                usage.cache_read_input_tokens,
                p.cache_read,
            ),
            (
                "5-minute cache write",
                "cache_write_5m",
                write_5m,
                p.cache_write_5m,
            ),
            (
                "1-hour cache write",
                "cache_write_1h",
                write_1h,
                p.cache_write_1h,
            ),
            ("output", "output", output, p.output),
            (
                "reasoning",
                "reasoning",
                if reasoning_apart {
                    usage.reasoning_tokens
                } else {
                    0
                },
                p.reasoning,
            ),
        ];
        let mut usd = 0.0;
        for (class, key, tokens, price) in classes {
            if tokens == 0 {
                continue;
            }
            let Some(price) = price else {
                return Err(format!(
                    "the rate card entry of `{}` has no {class} price (`usd_per_million.{key}`), and the run used {tokens} {class} tokens",
                    entry.model
                ));
            };
            usd += tokens as f64 * price / 1_000_000.0;
        }
        Ok(round(usd))
    }

    /// One attempt's cost report.
    pub fn price(&self, a: &PricedAttempt<'_>) -> CostReport {
        let mut notes = Vec::new();
        let mut card = None;
        let card_usd: Result<f64, String> = match (a.usage, a.model, a.day) {
            _ if self.card_error.is_some() => Err(self.card_error.clone().unwrap_or_default()),
            (None, _, _) => Err(a.no_usage_reason.to_owned()),
            (_, None, _) => Err("the run's model is unknown".to_owned()),
            (_, _, None) => Err("the run's start date is unknown".to_owned()),
            (Some(usage), Some(model), Some(day)) => match self.card.lookup(model, day) {
                Lookup::Missing(why) => Err(why),
                Lookup::Found(entry) => {
                    card = Some(CostCardEntry {
                        provider: entry.provider.clone(),
                        model: entry.model.clone(),
                        version: entry.version.clone(),
                    });
                    Pricing::card_cost(entry, usage, &mut notes)
                }
            },
        };
        let (card_usd, reason) = match card_usd {
            Ok(usd) => (Some(usd), None),
            Err(why) => (None, Some(why)),
        };
        report(card_usd, a.cli_usd, card, reason, notes, self.flag_above)
    }
}

/// A report from the card's and the CLI's figures.
fn report(
    card_usd: Option<f64>,
    cli_usd: Option<f64>,
    card: Option<CostCardEntry>,
    reason: Option<String>,
    notes: Vec<String>,
    flag_above: FlagThreshold,
) -> CostReport {
    let source = match (card_usd, cli_usd) {
        (Some(_), Some(_)) => Some(CostSource::Both),
        (Some(_), None) => Some(CostSource::RateCard),
        (None, Some(_)) => Some(CostSource::Cli),
        (None, None) => None,
    };
    let difference_usd = match (cli_usd, card_usd) {
        (Some(cli), Some(card)) => Some(round(cli - card)),
        _ => None,
    };
    let flagged = match (difference_usd, card_usd) {
        (Some(d), Some(card)) => flag_above.flags(d, card),
        _ => false,
    };
    CostReport {
        usd: card_usd.or(cli_usd),
        source,
        cli_usd,
        card_usd,
        card,
        difference_usd,
        flagged,
        // Only when the card could not price what the CLI priced, or
        // nothing is known.
        reason: if card_usd.is_none() { reason } else { None },
        notes,
        attempts: Vec::new(),
    }
}

/// The run's report from its attempts' (in order). One attempt: its own
/// report. Several: each priced on its own, the figures summed; an
/// attempt that reported neither tokens nor a cost counts as 0, with a
/// note; any other unknown figure leaves the sum unknown.
///
/// Each attempt comes with whether it reported anything (token figures or
/// a cost of its own).
pub fn sum_attempts(
    attempts: Vec<(AttemptCost, bool)>,
    flag_above: FlagThreshold,
) -> Option<CostReport> {
    if attempts.len() <= 1 {
        return attempts.into_iter().next().map(|(a, _)| a.cost);
    }
    let (attempts, reported): (Vec<AttemptCost>, Vec<bool>) = attempts.into_iter().unzip();
    let mut notes = Vec::new();
    let mut reasons = Vec::new();
    let mut card_sum = Some(0.0);
    let mut cli_sum: Option<f64> = None;
    let mut usd_sum = Some(0.0);
    let mut card = None;
    for (i, a) in attempts.iter().enumerate() {
        let c = &a.cost;
        let n = i + 1;
        if !reported[i] {
            notes.push(format!(
                "attempt {n} ({}) reported no tokens and no cost: counted as 0",
                a.provider
            ));
            continue;
        }
        usd_sum = usd_sum.zip(c.usd).map(|(s, u)| s + u);
        card_sum = card_sum.zip(c.card_usd).map(|(s, u)| s + u);
        if let Some(cli) = c.cli_usd {
            cli_sum = Some(cli_sum.unwrap_or(0.0) + cli);
        }
        if let Some(why) = &c.reason {
            reasons.push(format!("attempt {n} ({}): {why}", a.provider));
        }
        if c.card.is_some() {
            card.clone_from(&c.card);
        }
        notes.extend(c.notes.iter().map(|note| format!("attempt {n}: {note}")));
    }
    let mut run = report(
        card_sum.map(round),
        cli_sum.map(round),
        card,
        (!reasons.is_empty()).then(|| reasons.join("; ")),
        notes,
        flag_above,
    );
    // The run's cost is the sum of what each attempt's cost was taken
    // from (the card's where it priced the attempt, else the CLI's).
    run.usd = usd_sum.map(round);
    if run.usd.is_none() {
        run.source = None;
        if run.reason.is_none() {
            run.reason = Some(reasons.join("; "));
        }
    }
    run.flagged |= attempts.iter().any(|a| a.cost.flagged);
    run.attempts = attempts;
    Some(run)
}
