//! A session rotation carried out (`max_context_tokens`, decided by
//! `crate::session_rotation`): before the turn that rotates, a `status`
//! notice says so; `handoff: summary` first sends the old native session
//! one extra turn asking for a summary (recorded as an attempt of the
//! run); a warm process of the session is ended, so the turn starts a new
//! one instead of going to the old session; the turn's prompt is seeded
//! with the summary or the caller's text. After the turn, the envelope's
//! `session_rotated` and the store's `session_rotations` row say what
//! happened (`failover.rs`, `record.rs`).
//!
//! Also: a turn whose CLI's stream did not tell its context length gets
//! it from the CLI's own session file when there is one (Codex's rollout,
//! Gemini's session file), so the next turn's check has it.

use std::path::Path;

use agentgate_protocol::{Envelope, LogLevel, SessionRotated};
use agentgate_providers::CliRequest;
use agentgate_providers::session_logs::{READABLE, read_session_log};
use tokio::sync::mpsc;

use super::attempt::{AttemptPacket, attempt};
use super::emitter::Emitter;
use super::options::CancelRequest;
use super::step::StepRunner;
use super::warm_attempt::warm_attempt;
use crate::plan::Step;
use crate::session_rotation::{RotationDue, RotationHandoff, SUMMARY_REQUEST};
use crate::warm::sessions::Taken;

impl StepRunner<'_> {
    /// Carry out `due` before `step`'s turn: the notice, the summary turn
    /// (`handoff: summary`), the warm process ended. The text to seed the
    /// new session's first prompt with, if any.
    pub(super) async fn rotate(
        &mut self,
        step: &Step,
        due: &RotationDue,
        home: Option<&Path>,
        em: &mut Emitter<'_>,
        cancel: &mut mpsc::Receiver<CancelRequest>,
    ) -> Option<String> {
        let name = self.ctx.plan.session.clone().unwrap_or_default();
        let handoff = step
            .rotation
            .as_ref()
            .map(|p| p.handoff.clone())
            .unwrap_or_default();
        em.notice(format!(
            "session `{name}` rotates: {due}; starting a new {} session instead of resuming {} (handoff: {})",
            step.provider.name(),
            due.old_native_id,
            handoff.as_str()
        ));
        let seed = match &handoff {
            RotationHandoff::None => None,
            RotationHandoff::Prompt(text) => Some(text.clone()),
            RotationHandoff::Summary => self.summary_turn(step, due, home, em, cancel).await,
        };
        end_warm_process(self, &name, due).await;
        self.rotated = Some((
            step.provider.name().to_owned(),
            SessionRotated {
                old_session_id: due.old_native_id.clone(),
                reason: due.to_string(),
                context_tokens: due.context_tokens,
                max_context_tokens: due.max_context_tokens,
                handoff: handoff.as_str().to_owned(),
            },
        ));
        seed
    }

    /// One extra turn of the old session asking for a summary; its answer,
    /// or `None` (with a warning) when the turn failed or said nothing.
    async fn summary_turn(
        &mut self,
        step: &Step,
        due: &RotationDue,
        home: Option<&Path>,
        em: &mut Emitter<'_>,
        cancel: &mut mpsc::Receiver<CancelRequest>,
    ) -> Option<String> {
        let mut request: CliRequest = step.request_for(Some(due.old_native_id.clone()));
        request.prompt = SUMMARY_REQUEST.to_owned();
        self.attempt_no += 1;
        em.attempt = Some(self.attempt_no);
        let packet = AttemptPacket {
            step,
            request: &request,
            home,
        };
        let warm = self.ctx.options.warm.is_some() && self.ctx.plan.session.is_some();
        let outcome = if warm || request.permission_mode == crate::settings::PermissionMode::Ask {
            warm_attempt(self.ctx, packet, em, cancel).await
        } else {
            attempt(self.ctx, packet, em, cancel).await
        };
        self.record_attempt(&outcome.attempt, outcome.started_at, step);
        let summary = outcome.envelope.response.trim();
        match (&outcome.error, summary.is_empty()) {
            (None, false) => Some(summary.to_owned()),
            (error, _) => {
                let why = error
                    .as_ref()
                    .map_or_else(|| "it answered nothing".to_owned(), |e| e.message.clone());
                em.log(
                    LogLevel::Warn,
                    format!(
                        "the old session {} gave no summary ({why}); the new session starts without one",
                        due.old_native_id
                    ),
                );
                None
            }
        }
    }
}

/// End the warm process of session `name`, if the holder keeps one, so
/// the rotated turn starts a new process with a new native session rather
/// than sending the turn to the old one; the next turn's envelope says
/// why (`warm.replaced_because`).
async fn end_warm_process(runner: &StepRunner<'_>, name: &str, due: &RotationDue) {
    let Some(holder) = runner.ctx.options.warm.as_ref() else {
        return;
    };
    let why = format!("the session rotated ({due})");
    match holder.take(name) {
        Taken::Held(w) => {
            w.kill().await;
            // No native id: the next process must not resume the old one.
            holder.forget(name, Some((&why, None)));
        }
        Taken::Gone { .. } => holder.forget(name, Some((&why, None))),
        Taken::None | Taken::Busy => {}
    }
}

/// The context length of the turn `envelope` ended, from its CLI's own
/// session file when its stream did not tell it (Codex, Gemini CLI).
pub(super) fn fill_context_tokens(
    envelope: &mut Envelope,
    step: &Step,
    request: &CliRequest,
    home: Option<&Path>,
) {
    if envelope.context_tokens.is_some() {
        return;
    }
    let provider = step.provider.name();
    let Some(id) = envelope.session_id.as_deref() else {
        return;
    };
    if !READABLE.contains(&provider) {
        return;
    }
    let homes = super::thread_totals::homes_of(request, home);
    match read_session_log(provider, &homes, Some(&request.cwd), id) {
        Ok(Some(log)) => {
            envelope.context_tokens = log.usage.and_then(|u| u.context_tokens);
        }
        Ok(None) => {}
        Err(e) => tracing::debug!("no context length from {provider}'s session file: {e}"),
    }
}
