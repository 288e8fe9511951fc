//! The run's budgets while it runs (`crate::budget`): the lines that apply
//! (read before the run and before each step), what this run has spent
//! (its finished attempts, priced), and the current attempt's live figures
//! (the gateway's per call when it ran, else the CLI's per-call usage as it
//! streams). At a line's `warn_at` a `budget_warning` event, once; past a
//! line, the attempt is to stop (`attempt.rs` and `warm_attempt.rs` stop
//! the CLI) and its error is `budget`.

use agentgate_protocol::{
    Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, LogLevel, ModelCallEvent, StatusEvent,
    Usage,
};
use agentgate_providers::Accumulator;
use agentgate_store::RunStore;
use jiff::Timestamp;
use jiff::civil::Date;
use jiff::tz::TimeZone;

use super::emitter::Emitter;
use crate::budget::{BudgetLine, Measure, RunBudget, lines_for_agent, lines_for_run};
use crate::cost::{PricedAttempt, Pricing};
use crate::plan::{Plan, Step};

/// What the current attempt has spent so far.
#[derive(Debug, Default)]
struct Live {
    usd: f64,
    tokens: u64,
    /// The gateway told its calls: the stream's figures are not used.
    wire: bool,
    /// The stream's usage last priced (to price only what changed).
    priced: Option<Usage>,
}

/// The run's budgets and spending (see the module notes).
pub(super) struct BudgetMeter<'a> {
    budget: &'a RunBudget,
    pricing: &'a Pricing,
    day: Date,
    run_lines: Vec<BudgetLine>,
    step_lines: Vec<BudgetLine>,
    warned: Vec<(String, Measure)>,
    /// This run's finished attempts.
    spent_usd: f64,
    spent_tokens: u64,
    live: Live,
    crossed: Option<ErrorInfo>,
    /// A line was passed by a finished attempt's figures: no further step.
    spent_out: Option<ErrorInfo>,
}

impl<'a> BudgetMeter<'a> {
    pub(super) fn new(plan: &'a Plan) -> BudgetMeter<'a> {
        BudgetMeter {
            budget: &plan.budget,
            pricing: &plan.pricing,
            day: plan.now().to_zoned(TimeZone::UTC).date(),
            run_lines: Vec::new(),
            step_lines: Vec::new(),
            warned: Vec::new(),
            spent_usd: 0.0,
            spent_tokens: 0,
            live: Live::default(),
            crossed: None,
            spent_out: None,
        }
    }

    /// Whether any budget applies (else nothing is counted).
    pub(super) fn active(&self) -> bool {
        !self.run_lines.is_empty() || !self.step_lines.is_empty()
    }

    /// Before the first step: the run's own lines and the global, chain
    /// and session windows; the error (`budget`, with the window's
    /// `reset_at`) when one is spent already.
    pub(super) fn start_run(
        &mut self,
        plan: &Plan,
        store: Option<&dyn RunStore>,
        em: &mut Emitter<'_>,
    ) -> Option<ErrorInfo> {
        if !self.budget.any() {
            return None;
        }
        let now = plan.now();
        let read = lines_for_run(
            self.budget,
            plan.chain.as_deref(),
            plan.session.as_deref(),
            store,
            now,
        );
        match read {
            Ok((lines, warnings)) => {
                for w in warnings {
                    em.log(LogLevel::Warn, w);
                }
                self.run_lines = lines;
                None
            }
            Err(over) => Some(over_error(over.message, over.resets_at)),
        }
    }

    /// Before `step`: the error that keeps it from starting, its agent's
    /// window spent (the step is skipped, the chain goes on).
    pub(super) fn start_step(
        &mut self,
        step: &Step,
        store: Option<&dyn RunStore>,
        now: Timestamp,
        em: &mut Emitter<'_>,
    ) -> Option<ErrorInfo> {
        self.step_lines.clear();
        let agent = step.agent.as_deref()?;
        match lines_for_agent(self.budget, agent, store, now) {
            Ok((lines, warnings)) => {
                for w in warnings {
                    em.log(LogLevel::Warn, w);
                }
                self.step_lines = lines;
                None
            }
            Err(over) => Some(over_error(
                format!("skipped {}: {}", step.label(), over.message),
                over.resets_at,
            )),
        }
    }

    /// A new attempt: nothing spent live yet.
    pub(super) fn begin_attempt(&mut self) {
        self.live = Live::default();
        self.crossed = None;
    }

    /// After the CLI's lines were decoded: its per-call usage so far
    /// (unless the gateway tells the calls). True when the CLI is to stop.
    pub(super) fn on_stream(
        &mut self,
        acc: &Accumulator,
        asked_model: Option<&str>,
        em: &mut Emitter<'_>,
    ) -> bool {
        if !self.active() || self.live.wire || self.crossed.is_some() {
            return false;
        }
        let Some(usage) = acc.calls_usage() else {
            return false;
        };
        if self.live.priced.as_ref() == Some(usage) {
            return false;
        }
        self.live.priced = Some(usage.clone());
        let model = acc.model().or(asked_model);
        let usd = self.price(usage, model);
        self.live.tokens = usage.input_tokens + usage.output_tokens;
        match usd {
            Ok(usd) => self.live.usd = usd,
            Err(why) => return self.cannot_price(why),
        }
        self.check(em)
    }

    /// A model call the gateway forwarded: its usage priced with its own
    /// model. True when the CLI is to stop.
    pub(super) fn on_call(&mut self, call: &ModelCallEvent, em: &mut Emitter<'_>) -> bool {
        if !self.active() || self.crossed.is_some() {
            return false;
        }
        let Some(usage) = &call.usage else {
            return false;
        };
        self.live.wire = true;
        self.live.tokens += usage.input_tokens + usage.output_tokens;
        match self.price(usage, call.model.as_deref()) {
            Ok(usd) => self.live.usd += usd,
            Err(why) => return self.cannot_price(why),
        }
        self.check(em)
    }

    /// The error of the line the attempt passed, once.
    pub(super) fn take_crossed(&mut self) -> Option<ErrorInfo> {
        self.crossed.take()
    }

    /// The attempt ended and was priced (`cost.rs`): its final figures
    /// join the run's; a line they passed ends the run after this step.
    pub(super) fn end_attempt(&mut self, env: &Envelope, em: &mut Emitter<'_>) {
        self.live = Live::default();
        self.crossed = None;
        if !self.active() {
            return;
        }
        let t = &env.tokens_used;
        let tokens = t.input_tokens + t.output_tokens;
        self.spent_usd += t.cost_usd.unwrap_or_default();
        self.spent_tokens += tokens;
        if t.cost_usd.is_none() && tokens > 0 && self.has_cost_line() {
            let why = env
                .cost
                .as_ref()
                .and_then(|c| c.reason.clone())
                .unwrap_or_else(|| "the attempt's cost is unknown".to_owned());
            self.spent_out = Some(budget_error(format!(
                "the run's cost cannot be told, so its cost budget cannot hold: {why}"
            )));
            return;
        }
        if self.check(em) {
            self.spent_out = self.crossed.take();
        }
    }

    /// The error that ends the run before another step: a line its
    /// finished attempts passed.
    pub(super) fn spent_out(&self) -> Option<ErrorInfo> {
        self.spent_out.clone()
    }

    fn has_cost_line(&self) -> bool {
        self.lines().any(|l| l.limits.max_cost_usd.is_some())
    }

    fn lines(&self) -> impl Iterator<Item = &BudgetLine> {
        self.run_lines.iter().chain(&self.step_lines)
    }

    fn price(&self, usage: &Usage, model: Option<&str>) -> Result<f64, String> {
        if !self.has_cost_line() {
            return Ok(0.0);
        }
        let report = self.pricing.price(&PricedAttempt {
            usage: Some(usage),
            no_usage_reason: "",
            model,
            day: Some(self.day),
            cli_usd: None,
        });
        report.usd.ok_or_else(|| {
            report
                .reason
                .unwrap_or_else(|| "the rate card does not price it".to_owned())
        })
    }

    fn cannot_price(&mut self, why: String) -> bool {
        self.crossed = Some(budget_error(format!(
            "stopped: the run's cost cannot be told, so its cost budget cannot hold: {why}"
        )));
        true
    }

    /// Each line against this run's spending: warnings at `warn_at`, the
    /// error past a line. True when a line was passed.
    fn check(&mut self, em: &mut Emitter<'_>) -> bool {
        let usd = self.spent_usd + self.live.usd;
        let tokens = self.spent_tokens + self.live.tokens;
        let mut crossed = None;
        let mut warnings = Vec::new();
        for line in self.lines() {
            for (measure, share) in line.used(usd, tokens) {
                if share > 1.0 && crossed.is_none() {
                    crossed = Some(format!(
                        "stopped: the run passed a budget: {}",
                        line.describe(measure, usd, tokens)
                    ));
                }
                let key = (line.name.clone(), measure);
                if share >= self.budget.budgets.warn_at && !self.warned.contains(&key) {
                    let (spent, limit) = match measure {
                        Measure::Cost => (
                            line.spent_usd + usd,
                            line.limits.max_cost_usd.unwrap_or_default(),
                        ),
                        Measure::Tokens => (
                            line.spent_tokens.saturating_add(tokens) as f64,
                            line.limits.max_tokens.unwrap_or_default() as f64,
                        ),
                    };
                    warnings.push((key, spent, limit, share));
                }
            }
        }
        for ((name, measure), spent, limit, share) in warnings {
            em.emit(EventBody::Status(StatusEvent::BudgetWarning {
                budget: name.clone(),
                measure: measure.as_str().to_owned(),
                spent,
                limit,
                share,
            }));
            self.warned.push((name, measure));
        }
        match crossed {
            Some(message) => {
                self.crossed = Some(budget_error(message));
                true
            }
            None => false,
        }
    }
}

fn budget_error(message: String) -> ErrorInfo {
    ErrorInfo::new(ErrorKind::Budget, ErrorSource::Internal, message)
}

fn over_error(message: String, resets_at: Option<Timestamp>) -> ErrorInfo {
    let mut e = budget_error(message);
    e.reset_at = resets_at.map(|t| t.to_string());
    e
}
