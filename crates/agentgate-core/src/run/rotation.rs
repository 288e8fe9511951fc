//! A session rotation carried out (`max_context_tokens`, decided by
//! `crate::session_rotation`; `step.rs`'s `StepRunner::rotate` runs these
//! in order): before the turn that rotates, a `status` notice says so; `handoff: summary` first sends the old native session
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

use agentgate_protocol::{Envelope, ErrorInfo, LogLevel, SessionRotated};
use agentgate_providers::CliRequest;
use agentgate_providers::session_logs::{READABLE, read_session_log};

use super::emitter::Emitter;
use super::options::RunContext;
use crate::plan::Step;
use crate::session_rotation::{RotationDue, RotationHandoff, SUMMARY_REQUEST};
use crate::warm::sessions::Taken;

/// Say that `step`'s turn rotates session `name` (a `status` notice); the
/// envelope's report of it.
pub(super) fn announce(
    step: &Step,
    name: &str,
    due: &RotationDue,
    em: &mut Emitter<'_>,
) -> SessionRotated {
    let handoff = handoff_of(step);
    em.notice(format!(
        "session `{name}` rotates: {due}; starting a new {} session instead of resuming {} (handoff: {})",
        step.provider.name(),
        due.old_native_id,
        handoff.as_str()
    ));
    SessionRotated {
        old_session_id: due.old_native_id.clone(),
        reason: due.to_string(),
        context_tokens: due.context_tokens,
        max_context_tokens: due.max_context_tokens,
        handoff: handoff.as_str().to_owned(),
    }
}

/// How `step`'s rotated session is seeded.
pub(super) fn handoff_of(step: &Step) -> RotationHandoff {
    step.rotation
        .as_ref()
        .map(|p| p.handoff.clone())
        .unwrap_or_default()
}

/// The extra turn of `handoff: summary`: the old session asked for its
/// summary.
pub(super) fn summary_request(step: &Step, due: &RotationDue) -> CliRequest {
    let mut request = step.request_for(Some(due.old_native_id.clone()));
    request.prompt = SUMMARY_REQUEST.to_owned();
    request
}

/// The summary the extra turn gave, or `None` (with a warning) when it
/// failed or said nothing.
pub(super) fn summary_of(
    envelope: &Envelope,
    error: Option<&ErrorInfo>,
    due: &RotationDue,
    em: &mut Emitter<'_>,
) -> Option<String> {
    let summary = envelope.response.trim();
    if error.is_none() && !summary.is_empty() {
        return Some(summary.to_owned());
    }
    let why = error.map_or_else(|| "it answered nothing".to_owned(), |e| e.message.clone());
    em.log(
        LogLevel::Warn,
        format!(
            "the old session {} gave no summary ({why}); the new session starts without one",
            due.old_native_id
        ),
    );
    None
}

/// End the warm process of session `name`, if the holder keeps one, so
/// the rotated turn starts a new process with a new native session rather
/// than sending the turn to the old one; the next turn's envelope says
/// why (`warm.replaced_because`).
pub(super) async fn end_warm_process(ctx: RunContext<'_>, name: &str, due: &RotationDue) {
    let Some(holder) = ctx.options.warm.as_ref() else {
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
