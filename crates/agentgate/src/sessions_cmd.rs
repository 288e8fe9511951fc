//! `agentgate sessions`: the logical sessions of the local store (`--session
//! NAME` ↔ each provider's native session), with the last turn's context
//! length and the rotations each went through (`max_context_tokens`).

use std::process::ExitCode;

use agentgate_store::{SessionRecord, SessionRotation};

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Only the session of this name.
    name: Option<String>,
    /// Print JSON (one object per session and provider, with its
    /// `rotations`) instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(
    args: Args,
    config: Option<&std::path::Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let store = crate::store_open::open_store(config, store)?;
    let sessions: Vec<SessionRecord> = store
        .list_sessions()?
        .into_iter()
        .filter(|s| args.name.as_ref().is_none_or(|n| *n == s.name))
        .collect();
    let rotations = store.list_session_rotations(args.name.as_deref())?;
    let of = |s: &SessionRecord| -> Vec<&SessionRotation> {
        rotations
            .iter()
            .filter(|r| r.name == s.name && r.provider == s.provider)
            .collect()
    };
    let mut out = Stdout::new();
    if args.json {
        for s in &sessions {
            let mut value = serde_json::to_value(s)?;
            value["rotations"] = serde_json::to_value(of(s))?;
            out.json_line(&value)?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    out.line(format_args!(
        "{:<20} {:<8} {:<38} {:>5} {:>9} {:<20} ROTATIONS",
        "NAME", "PROVIDER", "NATIVE SESSION", "TURNS", "CONTEXT", "UPDATED"
    ))?;
    for s in &sessions {
        let rotated = of(s);
        out.line(format_args!(
            "{:<20} {:<8} {:<38} {:>5} {:>9} {:<20} {}",
            s.name,
            s.provider,
            s.native_session_id,
            s.turns,
            s.context_tokens.map_or("-".into(), |c| c.to_string()),
            s.updated_at.strftime("%Y-%m-%d %H:%M:%S"),
            rotated.len(),
        ))?;
        for r in rotated {
            out.line(format_args!(
                "  rotated {} {} -> {} ({}; handoff {}; run {})",
                r.rotated_at.strftime("%Y-%m-%d %H:%M:%S"),
                r.old_native_id,
                r.new_native_id.as_deref().unwrap_or("-"),
                r.reason,
                r.handoff,
                r.run_id.as_deref().unwrap_or("-"),
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
