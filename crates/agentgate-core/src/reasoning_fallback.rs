//! `agentgate run --reasoning-fallback`: a session's reasoning and token
//! figures read back without running its CLI (seed 000's
//! `--reasoning-fallback`).
//!
//! The wrappers read the CLI's own session file, the only record they
//! had. agentgate records every run of a session in its store, with the
//! reasoning and usage the CLI reported (and what it read from session
//! files after the run: Gemini's thoughts, agy's transcript), for every
//! provider alike; so the fallback reads the store: the latest recorded
//! run whose session is the one asked for. A session agentgate never ran
//! is not found.

use agentgate_protocol::{Envelope, compact_reasoning};
use agentgate_store::RunStore;

/// How many of the latest runs are searched for the session's last one.
pub const SEARCHED_RUNS: usize = 1000;

/// The session asked for.
#[derive(Debug, Clone, Copy)]
pub enum FallbackSession<'a> {
    /// A session name (`--session NAME`), of `provider` when given.
    Named {
        /// The name.
        name: &'a str,
        /// Its provider, when the run names one.
        provider: Option<&'a str>,
    },
    /// A provider's native session id (`--resume ID`).
    Native(&'a str),
}

/// The reasoning and token figures of `session`'s latest recorded run, as
/// an envelope: `session_id`, `reasoning`, `reasoning_summary`,
/// `tokens_used`, `reasoning_tokens`, `context_tokens`, `metadata` (with
/// its `reasoning_source`), and the `run_id`, `provider`, `model` and
/// `agent` of the run they come from; `response` is empty. Errs, saying
/// why, when the session or a run of it is not found.
pub fn reasoning_fallback(
    store: &dyn RunStore,
    session: FallbackSession<'_>,
) -> Result<Envelope, String> {
    let native = match session {
        FallbackSession::Native(id) => id.to_owned(),
        FallbackSession::Named { name, provider } => {
            let sessions = store.list_sessions().map_err(|e| e.to_string())?;
            sessions
                .into_iter()
                .filter(|s| s.name == name && provider.is_none_or(|p| s.provider == p))
                .max_by_key(|s| s.updated_at)
                .map(|s| s.native_session_id)
                .ok_or_else(|| format!("no session `{name}` in the store"))?
        }
    };
    let listed = store
        .list_runs(SEARCHED_RUNS, 0)
        .map_err(|e| e.to_string())?;
    for summary in &listed.runs {
        let Some(detail) = store
            .get_run(&summary.record.run_id)
            .map_err(|e| e.to_string())?
        else {
            continue;
        };
        let Some(env) = detail.envelope else { continue };
        if env.session_id.as_deref() != Some(native.as_str()) || env.tool.is_some() {
            continue;
        }
        return Ok(figures_of(env));
    }
    Err(format!(
        "no recorded run of session {native} among the store's latest {SEARCHED_RUNS} runs"
    ))
}

/// The fallback's envelope from a recorded one: its figures, not its
/// answer or its outcome.
fn figures_of(env: Envelope) -> Envelope {
    let reasoning_summary = if env.reasoning_summary.is_empty() {
        compact_reasoning(&env.reasoning)
    } else {
        env.reasoning_summary
    };
    Envelope {
        session_id: env.session_id,
        reasoning: env.reasoning,
        reasoning_summary,
        tokens_used: env.tokens_used,
        metadata: env.metadata,
        reasoning_tokens: env.reasoning_tokens,
        context_tokens: env.context_tokens,
        provider: env.provider,
        model: env.model,
        agent: env.agent,
        ..Envelope::new(env.run_id)
    }
}
