//! One step of a run: a provider whose quota is known exhausted is
//! skipped; otherwise its attempts run, a vanished session recreated once,
//! an invalid model retried once with the default, each attempt checked
//! (answer, edit scope) and recorded (store, quota).

use std::path::PathBuf;

use agentgate_protocol::{
    Attempt, Envelope, ErrorInfo, ErrorKind, ErrorSource, EventBody, LogLevel, StatusEvent,
};
use jiff::Timestamp;
use tokio::sync::mpsc;

use super::attempt::{AttemptOutcome, AttemptPacket, attempt};
use super::budget_meter::BudgetMeter;
use super::checks::{self, Changes, blocking, changes_since};
use super::emitter::Emitter;
use super::handoff::Transcript;
use super::options::{CancelRequest, RunContext};
use super::record;
use super::rotation;
use super::summary_file;
use super::warm_attempt::warm_attempt;
use crate::config::Handoff;
use crate::config::split_quota_key;
use crate::plan::{EditScope, Step};
use crate::quota::{exhausted_quota, record_quota};
use crate::session_rotation::{RotationDue, RotationHandoff};
use crate::workspace::Snapshot;

/// The end of one step: its last attempt's envelope and error.
pub(super) struct StepEnd {
    pub envelope: Envelope,
    pub error: Option<ErrorInfo>,
    /// Set when the invalid-model retry replaced the requested model.
    pub model_note: Option<String>,
}

/// The `skipped` status of `step`, not started for `error` (its quota or
/// its agent's budget): where its attempt would have started, under the
/// attempt number it takes.
fn emit_skipped(em: &mut Emitter<'_>, step: &Step, error: &ErrorInfo) {
    em.emit(EventBody::Status(StatusEvent::Skipped {
        step: step.label(),
        error_type: error.kind,
        reset_at: error.reset_at.clone(),
        message: error.message.clone(),
    }));
}

/// Runs the steps of one run, and keeps what they attempted.
pub(super) struct StepRunner<'a> {
    pub ctx: RunContext<'a>,
    pub run_id: &'a str,
    /// Every attempt so far, skipped ones included.
    pub attempts: Vec<Attempt>,
    attempt_no: u32,
    /// A session the run resumed was gone and recreated.
    pub session_recreated: bool,
    /// A CLI asked to resume a session it no longer knew started another.
    pub resumed_elsewhere: bool,
    /// The first attempt record the store refused.
    pub store_error: Option<agentgate_store::StoreError>,
    /// The cost of every attempt that ran, in order, and whether it
    /// reported anything to price.
    pub costs: Vec<(agentgate_protocol::AttemptCost, bool)>,
    /// The session rotated before a step's turn (`rotation.rs`): the
    /// provider, and what the envelope says of it.
    pub rotated: Option<(String, agentgate_protocol::SessionRotated)>,
    /// The run's budgets and what it spent (`budget_meter.rs`).
    pub meter: BudgetMeter<'a>,
}

impl<'a> StepRunner<'a> {
    pub(super) fn new(ctx: RunContext<'a>, run_id: &'a str) -> StepRunner<'a> {
        StepRunner {
            ctx,
            run_id,
            attempts: Vec::new(),
            attempt_no: 0,
            session_recreated: false,
            resumed_elsewhere: false,
            store_error: None,
            costs: Vec::new(),
            rotated: None,
            meter: BudgetMeter::new(ctx.plan),
        }
    }
}

impl StepRunner<'_> {
    /// Skip `step` when its provider's quota is known exhausted until a time
    /// still ahead: record a skipped attempt and say so (a `skipped` status).
    pub(super) fn skip_exhausted(&mut self, step: &Step, em: &mut Emitter<'_>) -> Option<StepEnd> {
        if self.ctx.plan.ignore_quota {
            return None;
        }
        let store = self.ctx.store?;
        let provider = step.provider.name();
        let state = exhausted_quota(store, &step.quota_key, self.ctx.plan.now())?;
        let reset_at = state.reset_at.map(|t| t.to_string());
        let whose = match split_quota_key(&step.quota_key) {
            (_, Some(account)) => format!("its account {account}'s quota"),
            (_, None) => "its quota".to_owned(),
        };
        // A hold (`gateway.quota_hold_above`) says so, with why.
        let how = if crate::quota::is_quota_hold(&state) {
            format!(
                "is held ({})",
                state.message.as_deref().unwrap_or("near its limit")
            )
        } else {
            "is exhausted".to_owned()
        };
        let mut error = ErrorInfo::new(
            ErrorKind::Quota,
            ErrorSource::Internal,
            format!(
                "skipped {}: {whose} {how} until {} (recorded from {}; --ignore-quota tries anyway)",
                step.label(),
                reset_at.as_deref().unwrap_or("an unknown time"),
                state.source
            ),
        );
        error.reset_at = reset_at.clone();
        self.attempt_no += 1;
        em.attempt = Some(self.attempt_no);
        emit_skipped(em, step, &error);
        let attempt = Attempt {
            provider: provider.to_owned(),
            model: step.request.model.clone(),
            agent: step.agent.clone(),
            error_type: Some(ErrorKind::Quota),
            error: Some(error.message.clone()),
            recoverable: Some(true),
            reset_at,
            skipped: true,
            ..Attempt::default()
        };
        self.record_attempt(&attempt, Timestamp::now(), step);
        let mut envelope = Envelope::new(em.run_id.clone());
        envelope.provider = Some(provider.to_owned());
        Some(StepEnd {
            envelope,
            error: Some(error),
            model_note: None,
        })
    }

    /// Skip `step` when its agent's budget window is spent
    /// (`budget_meter.rs`): record a skipped attempt and say so (a `skipped`
    /// status).
    pub(super) fn skip_over_budget(
        &mut self,
        step: &Step,
        em: &mut Emitter<'_>,
    ) -> Option<StepEnd> {
        let now = self.ctx.plan.now();
        let error = self.meter.start_step(step, self.ctx.store, now, em)?;
        self.attempt_no += 1;
        em.attempt = Some(self.attempt_no);
        emit_skipped(em, step, &error);
        let attempt = Attempt {
            provider: step.provider.name().to_owned(),
            model: step.request.model.clone(),
            agent: step.agent.clone(),
            error_type: Some(ErrorKind::Budget),
            error: Some(error.message.clone()),
            recoverable: Some(false),
            reset_at: error.reset_at.clone(),
            skipped: true,
            ..Attempt::default()
        };
        self.record_attempt(&attempt, Timestamp::now(), step);
        let mut envelope = Envelope::new(em.run_id.clone());
        envelope.provider = Some(step.provider.name().to_owned());
        Some(StepEnd {
            envelope,
            error: Some(error),
            model_note: None,
        })
    }

    fn record_attempt(&mut self, attempt: &Attempt, started_at: Timestamp, step: &Step) {
        self.attempts.push(attempt.clone());
        if let Some(store) = self.ctx.store
            && let Err(e) = record::attempt(
                store,
                self.run_id,
                self.attempt_no,
                attempt,
                started_at,
                step,
            )
            && self.store_error.is_none()
        {
            self.store_error = Some(e);
        }
    }

    /// Run one step: its attempts (a vanished session recreated once, an
    /// invalid model retried once with the default), then the checks of its
    /// answer and of the files it changed. Also returns what the last
    /// attempt changed in the workspace, for the failover's check.
    pub(super) async fn step(
        &mut self,
        step: &Step,
        has_next: bool,
        handoff: Option<String>,
        em: &mut Emitter<'_>,
        cancel: &mut mpsc::Receiver<CancelRequest>,
    ) -> (StepEnd, Changes) {
        let provider = step.provider.name();
        let mut stored = None;
        let mut rotation_due = None;
        if step.request.resume.is_none()
            && let (Some(name), Some(store)) = (&self.ctx.plan.session, self.ctx.store)
        {
            match store.get_session(name, provider) {
                // Past its `max_context_tokens`, the session rotates
                // (`rotation.rs`) instead of resuming.
                Ok(Some(s)) => {
                    rotation_due = crate::session_rotation::rotation_due(
                        step.rotation.as_ref(),
                        &s.native_session_id,
                        s.context_tokens,
                    );
                    if rotation_due.is_none() {
                        stored = Some(s.native_session_id);
                    }
                }
                Ok(None) => {}
                Err(e) => em.log(
                    LogLevel::Warn,
                    format!("failed to read session `{name}`: {e}"),
                ),
            }
        }
        let home = step
            .request
            .env
            .iter()
            .rev()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
            .or_else(|| self.ctx.plan.home.clone());
        let mut seed = None;
        if let Some(due) = &rotation_due {
            seed = self.rotate(step, due, home.as_deref(), em, cancel).await;
        }
        let from_session_map = stored.is_some();
        let fresh_prompt = step.request.prompt.clone();
        let mut request = step.request_for(stored);
        if let (false, Some(server)) = (step.tools.is_empty(), &self.ctx.options.tool_server) {
            request
                .mcp_servers
                .push(server.for_step(&step.tools, &em.run_id));
        }
        if let Some(text) = &seed {
            request.prompt = crate::session_rotation::seeded_prompt(text, &request.prompt);
        }
        if let Some(h) = &handoff {
            request.prompt = format!("{h}\n\n{}", request.prompt);
        }
        // The workspace before the step, when something will ask what it
        // changed: the failover's check, the agent's edit scope, or its
        // summary file.
        let snapshot =
            if has_next || step.edit_scope != EditScope::Any || step.summary_file.is_some() {
                let cwd = request.cwd.clone();
                Some(blocking(move || Snapshot::take(&cwd)).await)
            } else {
                None
            };
        let mut changes: Changes;
        // Kept only when it may be handed on.
        em.transcript =
            (self.ctx.plan.handoff == Handoff::Summary && has_next).then(Transcript::default);

        let mut model_note = None;
        let mut model_retried = false;
        let mut capacity_retried = false;
        let mut recreated = false;
        let outcome = loop {
            self.attempt_no += 1;
            em.attempt = Some(self.attempt_no);
            let packet = AttemptPacket {
                step,
                request: &request,
                home: home.as_deref(),
            };
            // A turn of a warm process when the run keeps its session warm
            // or asks for approvals, else the CLI started for it alone.
            let warm = self.ctx.options.warm.is_some() && self.ctx.plan.session.is_some();
            self.meter.begin_attempt();
            let meter = &mut self.meter;
            let mut outcome: AttemptOutcome =
                if warm || request.permission_mode == crate::settings::PermissionMode::Ask {
                    warm_attempt(self.ctx, packet, em, cancel, meter).await
                } else {
                    attempt(self.ctx, packet, em, cancel, meter).await
                };
            self.costs.push(super::cost::price_attempt(
                &self.ctx.plan.pricing,
                provider,
                outcome.started_at,
                &mut outcome.envelope,
            ));
            self.meter.end_attempt(&outcome.envelope, em);
            changes = changes_since(snapshot.as_ref()).await;
            rotation::fill_context_tokens(&mut outcome.envelope, step, &request, home.as_deref());
            checks::check(step, &mut outcome, changes.as_ref());
            self.record_attempt(&outcome.attempt, outcome.started_at, step);
            if let Some(store) = self.ctx.store {
                record_quota(
                    store,
                    &step.quota_key,
                    &em.run_id,
                    outcome.error.as_ref(),
                    outcome.rate_limit.as_ref(),
                    self.ctx.plan.now(),
                );
            }
            if let (Some(dir), Some(error)) = (&self.ctx.plan.quota_inbox, outcome.error.as_ref())
                && error.kind == ErrorKind::Quota
            {
                let now = self.ctx.plan.now();
                let message = crate::quota_inbox::message(
                    error,
                    provider,
                    &step.quota_key,
                    step.agent.as_deref(),
                    &em.run_id,
                    now,
                );
                if let Err(e) = crate::quota_inbox::write(dir, &message, now) {
                    em.log(
                        agentgate_protocol::LogLevel::Warn,
                        format!("quota_inbox: cannot write to {}: {e}", dir.display()),
                    );
                }
            }
            let kind = outcome.error.as_ref().map(|e| e.kind);
            // A run past its budget tries nothing more.
            if kind.is_some() && self.meter.spent_out().is_some() {
                break outcome;
            }
            if kind == Some(ErrorKind::InvalidSession) && from_session_map && !recreated {
                let gone = request.resume.take().unwrap_or_default();
                request.prompt = match &handoff {
                    Some(h) => format!("{h}\n\n{fresh_prompt}"),
                    None => fresh_prompt.clone(),
                };
                em.notice(format!(
                    "session `{}` ({gone}) is no longer known to {provider}; starting a new one",
                    self.ctx.plan.session.as_deref().unwrap_or_default(),
                ));
                if let (Some(name), Some(store)) = (&self.ctx.plan.session, self.ctx.store)
                    && let Err(e) = store.delete_session(name, provider)
                {
                    tracing::warn!("failed to forget session `{name}`: {e}");
                }
                recreated = true;
                self.session_recreated = true;
                continue;
            }
            if kind == Some(ErrorKind::InvalidModel)
                && !model_retried
                && request.model.is_some()
                && request.model != step.default_model
            {
                let rejected = request.model.take().unwrap_or_default();
                request.model = step.default_model.clone();
                let with = match &request.model {
                    Some(m) => format!("the default model '{m}'"),
                    None => format!("{provider}'s own default model"),
                };
                let note = format!(
                    "{provider} model '{rejected}' was rejected as invalid; retried once with {with}"
                );
                em.notice(note.clone());
                model_note = Some(note);
                model_retried = true;
                continue;
            }
            // Gemini's capacity error (its model has no capacity now, not
            // the account's quota): once, with the lighter model.
            if kind == Some(ErrorKind::Overloaded)
                && !capacity_retried
                && let Some(lighter) = step.capacity_fallback.clone()
            {
                let asked = request.model.replace(lighter.clone());
                let asked = asked.map_or_else(|| "(its default)".to_owned(), |m| format!("'{m}'"));
                let note = format!(
                    "{provider} model {asked} -> '{lighter}' (capacity fallback: the model reported no capacity; retried once)"
                );
                em.notice(note.clone());
                model_note = Some(note);
                capacity_retried = true;
                continue;
            }
            break outcome;
        };
        if let Some(path) = &step.summary_file {
            let value = summary_file::summary(
                step.agent.as_deref(),
                &outcome.envelope,
                outcome.error.as_ref(),
                changes.as_ref(),
            );
            if let Err(e) = summary_file::write(path, &value) {
                em.log(
                    LogLevel::Warn,
                    format!("failed to write the summary file {}: {e}", path.display()),
                );
            }
        }
        // A CLI that starts a new session when asked to resume one it no
        // longer knows (agy) recreated it too.
        if let Some(asked) = request.resume.as_deref()
            && outcome.error.is_none()
            && outcome
                .envelope
                .session_id
                .as_deref()
                .is_some_and(|got| got != asked)
        {
            self.resumed_elsewhere = true;
        }
        (
            StepEnd {
                envelope: outcome.envelope,
                error: outcome.error,
                model_note,
            },
            changes,
        )
    }
}

impl StepRunner<'_> {
    /// Carry out `due` before `step`'s turn (`rotation.rs`): the notice,
    /// the summary turn of the old session (`handoff: summary`, an attempt
    /// of its own), the warm process ended. The text to seed the new
    /// session's first prompt with, if any.
    async fn rotate(
        &mut self,
        step: &Step,
        due: &RotationDue,
        home: Option<&std::path::Path>,
        em: &mut Emitter<'_>,
        cancel: &mut mpsc::Receiver<CancelRequest>,
    ) -> Option<String> {
        let name = self.ctx.plan.session.clone().unwrap_or_default();
        let report = rotation::announce(step, &name, due, em);
        let seed = match rotation::handoff_of(step) {
            RotationHandoff::None => None,
            RotationHandoff::Prompt(text) => Some(text),
            RotationHandoff::Summary => {
                let request = rotation::summary_request(step, due);
                self.attempt_no += 1;
                em.attempt = Some(self.attempt_no);
                let packet = AttemptPacket {
                    step,
                    request: &request,
                    home,
                };
                let warm = self.ctx.options.warm.is_some() && self.ctx.plan.session.is_some();
                self.meter.begin_attempt();
                let meter = &mut self.meter;
                let mut outcome =
                    if warm || request.permission_mode == crate::settings::PermissionMode::Ask {
                        warm_attempt(self.ctx, packet, em, cancel, meter).await
                    } else {
                        attempt(self.ctx, packet, em, cancel, meter).await
                    };
                // The summary turn is spent like any attempt: priced, and
                // counted against the run's budgets.
                self.costs.push(super::cost::price_attempt(
                    &self.ctx.plan.pricing,
                    step.provider.name(),
                    outcome.started_at,
                    &mut outcome.envelope,
                ));
                self.meter.end_attempt(&outcome.envelope, em);
                self.record_attempt(&outcome.attempt, outcome.started_at, step);
                rotation::summary_of(&outcome.envelope, outcome.error.as_ref(), due, em)
            }
        };
        rotation::end_warm_process(self.ctx, &name, due).await;
        self.rotated = Some((step.provider.name().to_owned(), report));
        seed
    }
}
