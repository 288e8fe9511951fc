//! `agentgate run --reasoning-fallback`: a session's reasoning and token
//! figures read back without running its CLI (seed 000's
//! `--reasoning-fallback`).
//!
//! Two sources, in order:
//!
//! 1. agentgate's store, which records every run of a session with the
//!    reasoning and usage the CLI reported (and what it read from session
//!    files after the run: Gemini's thoughts, agy's transcript), for every
//!    provider alike: the latest recorded run whose session is the one
//!    asked for.
//! 2. When the store has no run of it (a session agentgate never ran, or
//!    no store at all), the CLI's own session file, as the wrappers read
//!    it: Claude Code's, Codex's rollout, Gemini CLI's
//!    ([`agentgate_providers::session_logs`]), for the session's last turn.
//!    The id asked for (`--resume ID`, or a `--session NAME` the store does
//!    not know, taken as an id) is looked for under the folders the CLI
//!    would use (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `HOME`).
//!
//! The envelope's `fallback` says which (`store`, or `session_file` with
//! the file's path and any lines skipped as unreadable).

use std::path::Path;

use agentgate_protocol::{
    Envelope, FallbackFrom, FallbackSource, Metadata, ReasoningAbsentReason, ReasoningSource,
    TokensUsed, compact_reasoning,
};
use agentgate_providers::session_logs::{self, CliHomes, SessionLog};
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

/// Where the CLIs' own session files are looked for.
#[derive(Debug, Clone, Default)]
pub struct SessionFiles<'a> {
    /// The folders the CLIs use (from the environment they would run with).
    pub homes: CliHomes,
    /// The working folder (Claude Code files sessions by it).
    pub cwd: Option<&'a Path>,
    /// The CLIs whose files are read; empty: every one agentgate can read
    /// ([`session_logs::READABLE`]).
    pub providers: Vec<String>,
}

/// The reasoning and token figures of `session`'s last turn, as an
/// envelope: `session_id`, `reasoning`, `reasoning_summary`,
/// `tokens_used`, `reasoning_tokens`, `context_tokens`, `metadata` (with
/// its `reasoning_source`), `provider`, `model`, and `fallback` saying
/// where they were read; from the store (then `run_id` and `agent` are the
/// recorded run's), else from the CLI's session file. `response` is
/// empty. Errs, saying why, when neither has the session.
pub fn reasoning_fallback(
    store: Option<&dyn RunStore>,
    session: FallbackSession<'_>,
    files: &SessionFiles<'_>,
) -> Result<Envelope, String> {
    let mut why = Vec::new();
    let mut id = match session {
        FallbackSession::Native(id) => id.to_owned(),
        FallbackSession::Named { name, .. } => name.to_owned(),
    };
    let mut provider = match session {
        FallbackSession::Named { provider, .. } => provider.map(str::to_owned),
        FallbackSession::Native(_) => None,
    };
    match store {
        Some(store) => match from_store(store, session) {
            Ok(Found::Run(env)) => return Ok(*env),
            Ok(Found::NoRun {
                native,
                provider: p,
            }) => {
                why.push(format!(
                    "no recorded run of session {native} among the store's latest {SEARCHED_RUNS} runs"
                ));
                id = native;
                provider = provider.or(p);
            }
            Ok(Found::NoSession(name)) => why.push(format!("no session `{name}` in the store")),
            Err(e) => why.push(format!("the store could not be read: {e}")),
        },
        None => why.push("there is no run store".to_owned()),
    }
    let wanted: Vec<String> = match (&provider, files.providers.is_empty()) {
        (Some(p), _) => vec![p.clone()],
        (None, false) => files.providers.clone(),
        (None, true) => session_logs::READABLE
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
    };
    for p in &wanted {
        match session_logs::read_session_log(p, &files.homes, files.cwd, &id) {
            Ok(Some(log)) => return Ok(from_file(log)),
            Ok(None) => {}
            Err(e) => why.push(format!("{p}'s session file could not be read: {e}")),
        }
    }
    why.push(format!("no session file of {id} for {}", wanted.join(", ")));
    Err(why.join("; "))
}

enum Found {
    Run(Box<Envelope>),
    NoRun {
        native: String,
        provider: Option<String>,
    },
    NoSession(String),
}

fn from_store(store: &dyn RunStore, session: FallbackSession<'_>) -> Result<Found, String> {
    let (native, provider) = match session {
        FallbackSession::Native(id) => (id.to_owned(), None),
        FallbackSession::Named { name, provider } => {
            let sessions = store.list_sessions().map_err(|e| e.to_string())?;
            let Some(s) = sessions
                .into_iter()
                .filter(|s| s.name == name && provider.is_none_or(|p| s.provider == p))
                .max_by_key(|s| s.updated_at)
            else {
                return Ok(Found::NoSession(name.to_owned()));
            };
            (s.native_session_id, Some(s.provider))
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
        return Ok(Found::Run(Box::new(figures_of(env))));
    }
    Ok(Found::NoRun { native, provider })
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
        fallback: Some(FallbackSource {
            from: FallbackFrom::Store,
            path: None,
            skipped_lines: Vec::new(),
        }),
        ..Envelope::new(env.run_id)
    }
}

/// The fallback's envelope from a CLI's session file.
fn from_file(log: SessionLog) -> Envelope {
    let reasoning = log.reasoning.join("\n\n");
    let reasoning_available = !reasoning.trim().is_empty();
    let token_usage_available = log.usage.is_some();
    let usage = log.usage.unwrap_or_default();
    Envelope {
        session_id: Some(log.session_id),
        reasoning_summary: compact_reasoning(&reasoning),
        tokens_used: TokensUsed::from_usage(&usage, ""),
        metadata: Metadata {
            token_usage_available,
            reasoning_available,
            reasoning_source: if reasoning_available {
                ReasoningSource::SessionLog
            } else {
                ReasoningSource::None
            },
            reasoning_absent_reason: if reasoning_available {
                ReasoningAbsentReason::Available
            } else {
                ReasoningAbsentReason::ModelNotEmitted
            },
            ..Metadata::default()
        },
        reasoning,
        reasoning_tokens: usage.reasoning_tokens,
        context_tokens: usage.context_tokens,
        provider: Some(log.provider.to_owned()),
        model: log.model,
        fallback: Some(FallbackSource {
            from: FallbackFrom::SessionFile,
            path: Some(log.path.display().to_string()),
            skipped_lines: log.skipped,
        }),
        ..Envelope::new("")
    }
}
