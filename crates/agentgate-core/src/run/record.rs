//! What the run writes to the store: the run (at its start), each attempt,
//! the session a `--session` name maps to, and the result (kept in the
//! run's folder first, `result.json`, so a store that refuses the record
//! does not lose it). A failed write is logged and returned: the run goes
//! on, and its outcome reports the first failure (`RunOutcome::store_error`).

use std::path::PathBuf;

use agentgate_protocol::Attempt;
use agentgate_store::{
    AttemptRecord, RunFiles, RunKind, RunRecord, RunStore, SavedResult, SessionRecord,
    SessionRotation, StoreError,
};
use jiff::Timestamp;

use super::options::RunOptions;
use crate::plan::{Plan, Step};
use crate::redact::Redactor;

/// A fresh run id: time-ordered, unique enough for one machine
/// (`r` + UTC time + 8 random hex digits).
pub fn new_run_id() -> String {
    let now = Timestamp::now();
    let stamp = now.strftime("%Y%m%dT%H%M%S").to_string();
    format!("r{stamp}-{:08x}", random_u32())
}

fn random_u32() -> u32 {
    use std::collections::hash_map::RandomState;
    use std::hash::{BuildHasher, Hasher};
    let mut h = RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond().unsigned_abs());
    h.write_u32(std::process::id());
    // Truncation is the point: 32 random bits.
    (h.finish() & 0xffff_ffff) as u32
}

/// Record the run as started and create its files. A failure is the
/// caller's to report (the run goes on: it is never lost for its audit
/// trail).
pub(super) fn open_run(
    store: &dyn RunStore,
    run_id: &str,
    plan: &Plan,
    redactor: &Redactor,
    parent_run_id: Option<&str>,
) -> Result<RunFiles, StoreError> {
    let first = plan.steps.first();
    let text = |s: &str| redactor.redact_str(s).into_owned();
    let record = RunRecord {
        run_id: run_id.to_owned(),
        started_at: Timestamp::now(),
        providers: plan
            .steps
            .iter()
            .map(|s| s.provider.name().to_owned())
            .collect(),
        model: first.and_then(|s| s.request.model.as_deref().map(text)),
        session: plan.session.as_deref().map(text),
        cwd: first.map(|s| text(&s.request.cwd.display().to_string())),
        prompt_bytes: first.map_or(0, |s| s.request.prompt.len() as u64),
        kind: RunKind::Agent,
        parent_run_id: parent_run_id.map(str::to_owned),
        labels: plan
            .labels
            .iter()
            .chain(&plan.record_labels)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
    };
    store
        .insert_run(&record)
        .and_then(|()| store.create_run_files(run_id))
}

/// Record attempt `n` of the run.
pub(super) fn attempt(
    store: &dyn RunStore,
    run_id: &str,
    n: u32,
    attempt: &Attempt,
    started_at: Timestamp,
    step: &Step,
) -> Result<(), StoreError> {
    let record = AttemptRecord {
        n,
        provider: step.provider.name().to_owned(),
        agent: step.agent.clone(),
        model: attempt.model.clone(),
        session_id: attempt.session_id.clone(),
        started_at,
        ended_at: Some(Timestamp::now()),
        duration_ms: Some(attempt.duration_ms),
        exit_code: attempt.exit_code,
        error_type: attempt.error_type,
        error: attempt.error.clone(),
    };
    store
        .insert_attempt(run_id, &record)
        .inspect_err(|e| tracing::warn!("failed to record attempt {n}: {e}"))
}

/// Map the session `name` of `step`'s provider to the native `id` the run
/// ended with, one turn more than before, with the turn's context length;
/// and record the rotation the turn made (`rotated`, with the run's id).
pub(super) fn save_session(
    store: &dyn RunStore,
    name: &str,
    step: &Step,
    id: String,
    labels: &agentgate_protocol::Labels,
    context_tokens: Option<u64>,
    rotated: Option<(&agentgate_protocol::SessionRotated, &str)>,
) -> Result<(), agentgate_store::StoreError> {
    let provider = step.provider.name();
    let now = Timestamp::now();
    let turns = store
        .get_session(name, provider)
        .ok()
        .flatten()
        .map(|s| s.turns)
        .unwrap_or(0);
    if let Some((r, run_id)) = rotated {
        store.add_session_rotation(&SessionRotation {
            name: name.to_owned(),
            provider: provider.to_owned(),
            rotated_at: now,
            run_id: Some(run_id.to_owned()),
            old_native_id: r.old_session_id.clone(),
            new_native_id: Some(id.clone()),
            reason: r.reason.clone(),
            context_tokens: Some(r.context_tokens),
            max_context_tokens: Some(r.max_context_tokens),
            handoff: r.handoff.clone(),
        })?;
    }
    store.put_session(&SessionRecord {
        name: name.to_owned(),
        provider: provider.to_owned(),
        native_session_id: id,
        cwd: Some(step.request.cwd.display().to_string()),
        created_at: now,
        updated_at: now,
        turns: turns + 1,
        // Kept by the store when the session exists: the labels of the run
        // that created it.
        labels: labels.clone(),
        context_tokens,
    })
}

/// Keep the run's result in its folder (`result.json`), then, unless
/// the caller records it ([`RunOptions::caller_records_end`]), record it
/// in the store. The file written, and the first failure.
pub(super) fn finish(
    store: &dyn RunStore,
    run_id: &str,
    outcome: &SavedResult,
    options: &RunOptions,
) -> (Option<PathBuf>, Option<StoreError>) {
    let file = store
        .save_result(run_id, outcome)
        .inspect_err(|e| tracing::warn!("failed to keep the run's result in its folder: {e}"))
        .ok();
    if options.caller_records_end {
        return (file, None);
    }
    let recorded = store
        .finish_run(run_id, &outcome.envelope)
        .inspect_err(|e| tracing::warn!("failed to record the run's result: {e}"));
    (file, recorded.err())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn run_ids_are_valid_and_distinct() {
        let a = new_run_id();
        let b = new_run_id();
        assert_ne!(a, b);
        agentgate_store::validate_run_id(&a).unwrap();
    }
}
