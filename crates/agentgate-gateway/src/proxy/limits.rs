//! The run's ledger: calls numbered from 1, the totals (calls, usage,
//! model time), and the limits checked before a call is forwarded.

use std::sync::Mutex;
use std::time::Duration;

use agentgate_protocol::Usage;

use super::notice::GatewaySummary;
use crate::config::CallLimits;

/// A call the run's limits refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// The limit's name (`max_model_calls`, ...).
    pub limit: &'static str,
    /// What the CLI is answered: `agentgate: this run's limit max_… (N) is reached`.
    pub message: String,
    /// What was reached, in words (for the run's notice).
    pub detail: String,
    /// The first call this limit refused (its notice is sent once).
    pub first: bool,
}

/// How a model call starts.
#[derive(Debug)]
pub(crate) struct CallStart {
    /// Its number, from 1.
    pub number: u32,
    /// Set when a limit refuses it.
    pub refusal: Option<Refusal>,
}

#[derive(Debug, Default)]
struct LedgerState {
    numbered: u32,
    forwarded: u32,
    refused: u32,
    usage: Usage,
    model_time: Duration,
    crossed: Vec<&'static str>,
}

/// The totals of one gateway.
#[derive(Debug, Default)]
pub(crate) struct Ledger {
    state: Mutex<LedgerState>,
}

impl Ledger {
    fn with<T>(&self, f: impl FnOnce(&mut LedgerState) -> T) -> T {
        let mut state = match self.state.lock() {
            Ok(state) => state,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut state)
    }

    /// Number a model call and check the limits before it is forwarded;
    /// a refused call counts as refused, else as forwarded.
    pub fn begin_call(&self, limits: &CallLimits) -> CallStart {
        self.with(|s| {
            s.numbered += 1;
            let number = s.numbered;
            let refusal = reached(limits, s).map(|(limit, shown, detail)| {
                let first = !s.crossed.contains(&limit);
                if first {
                    s.crossed.push(limit);
                }
                Refusal {
                    limit,
                    message: format!("agentgate: this run's limit {limit} ({shown}) is reached"),
                    detail,
                    first,
                }
            });
            if refusal.is_some() {
                s.refused += 1;
            } else {
                s.forwarded += 1;
            }
            CallStart { number, refusal }
        })
    }

    /// Number a model call the gateway refuses for another reason (a wrong
    /// key).
    pub fn refuse_call(&self) -> u32 {
        self.with(|s| {
            s.numbered += 1;
            s.refused += 1;
            s.numbered
        })
    }

    /// Number a model call that is neither forwarded nor refused by a
    /// check of the run (its request was over the bound, or unreadable).
    pub fn number_call(&self) -> u32 {
        self.with(|s| {
            s.numbered += 1;
            s.numbered
        })
    }

    /// A forwarded call ended after `elapsed`, with `usage` if its response
    /// carried one.
    pub fn end_call(&self, usage: Option<&Usage>, elapsed: Duration) {
        self.with(|s| {
            s.model_time += elapsed;
            if let Some(usage) = usage {
                add_usage(&mut s.usage, usage);
            }
        });
    }

    /// The totals so far, and the ledger started again: calls numbered
    /// from 1, the limits counted afresh (a warm process's gateway, one
    /// turn after another). A call in flight ends in the new ledger.
    pub fn take(&self, upstream: String) -> GatewaySummary {
        self.with(|s| {
            let taken = std::mem::take(s);
            GatewaySummary {
                model_calls: taken.forwarded,
                refused_calls: taken.refused,
                usage: taken.usage,
                upstream,
            }
        })
    }

    /// The totals.
    pub fn summary(&self, upstream: String) -> GatewaySummary {
        self.with(|s| GatewaySummary {
            model_calls: s.forwarded,
            refused_calls: s.refused,
            usage: s.usage.clone(),
            upstream,
        })
    }
}

/// The first limit reached: its name, its value as shown, and what was
/// reached in words.
fn reached(limits: &CallLimits, s: &LedgerState) -> Option<(&'static str, String, String)> {
    if let Some(max) = limits.max_calls
        && s.forwarded >= max
    {
        let detail = format!("{} model calls made; the limit is {max}", s.forwarded);
        return Some(("max_model_calls", max.to_string(), detail));
    }
    if let Some(max) = limits.max_input_tokens
        && s.usage.input_tokens >= max
    {
        let detail = format!(
            "{} input tokens used; the limit is {max}",
            s.usage.input_tokens
        );
        return Some(("max_input_tokens", max.to_string(), detail));
    }
    if let Some(max) = limits.max_output_tokens
        && s.usage.output_tokens >= max
    {
        let detail = format!(
            "{} output tokens used; the limit is {max}",
            s.usage.output_tokens
        );
        return Some(("max_output_tokens", max.to_string(), detail));
    }
    if let Some(max) = limits.max_model_time
        && s.model_time >= max
    {
        let detail = format!(
            "{:.1} s of model time used; the limit is {:.1} s",
            s.model_time.as_secs_f64(),
            max.as_secs_f64()
        );
        return Some(("max_model_time", format!("{} s", max.as_secs_f64()), detail));
    }
    None
}

/// Add one call's usage to a sum (counts added, cost added where known,
/// context the latest call's).
fn add_usage(sum: &mut Usage, call: &Usage) {
    sum.add_counts(call);
    if call.context_tokens.is_some() {
        sum.context_tokens = call.context_tokens;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_call_past_max_calls_is_refused_and_the_limit_reported_once() {
        let ledger = Ledger::default();
        let limits = CallLimits {
            max_calls: Some(1),
            ..CallLimits::default()
        };
        let first = ledger.begin_call(&limits);
        assert_eq!((first.number, first.refusal), (1, None));
        let second = ledger.begin_call(&limits);
        let refusal = second.refusal.unwrap();
        assert_eq!(second.number, 2);
        assert_eq!(refusal.limit, "max_model_calls");
        assert_eq!(
            refusal.message,
            "agentgate: this run's limit max_model_calls (1) is reached"
        );
        assert!(refusal.first);
        assert!(!ledger.begin_call(&limits).refusal.unwrap().first);
        let summary = ledger.summary("http://x:80".into());
        assert_eq!((summary.model_calls, summary.refused_calls), (1, 2));
    }

    /// One call's usage: 5 in, 6 out.
    fn call_usage() -> Usage {
        Usage {
            input_tokens: 5,
            output_tokens: 6,
            total_tokens: 11,
            ..Usage::default()
        }
    }

    #[test]
    fn a_taken_ledger_starts_again_with_its_limits_counted_afresh() {
        let ledger = Ledger::default();
        let limits = CallLimits {
            max_calls: Some(1),
            ..CallLimits::default()
        };
        assert!(ledger.begin_call(&limits).refusal.is_none());
        let usage = call_usage();
        ledger.end_call(Some(&usage), Duration::from_millis(5));
        assert!(ledger.begin_call(&limits).refusal.unwrap().first);
        let first = ledger.take("u".into());
        assert_eq!((first.model_calls, first.refused_calls), (1, 1));
        assert_eq!(first.usage.output_tokens, 6);
        // The next turn: numbered from 1, allowed its one call, and the
        // limit's first refusal told again.
        let next = ledger.begin_call(&limits);
        assert_eq!((next.number, next.refusal), (1, None));
        assert!(ledger.begin_call(&limits).refusal.unwrap().first);
        let second = ledger.take("u".into());
        assert_eq!((second.model_calls, second.refused_calls), (1, 1));
        assert_eq!(second.usage, Usage::default());
    }

    #[test]
    fn tokens_and_time_summed_over_calls_reach_their_limits() {
        let ledger = Ledger::default();
        let limits = CallLimits {
            max_output_tokens: Some(10),
            ..CallLimits::default()
        };
        assert!(ledger.begin_call(&limits).refusal.is_none());
        let usage = call_usage();
        ledger.end_call(Some(&usage), Duration::from_millis(5));
        assert!(ledger.begin_call(&limits).refusal.is_none());
        ledger.end_call(Some(&usage), Duration::from_millis(5));
        let refused = ledger.begin_call(&limits).refusal.unwrap();
        assert_eq!(refused.limit, "max_output_tokens");
        assert_eq!(ledger.summary(String::new()).usage.output_tokens, 12);

        let timed = Ledger::default();
        let limits = CallLimits {
            max_model_time: Some(Duration::from_secs(1)),
            ..CallLimits::default()
        };
        assert!(timed.begin_call(&limits).refusal.is_none());
        timed.end_call(None, Duration::from_secs(2));
        assert_eq!(
            timed.begin_call(&limits).refusal.unwrap().limit,
            "max_model_time"
        );
    }
}
