//! `agentgate run --reasoning-fallback`: the session's figures from the
//! store, else from its CLI's own session file (see
//! `agentgate_core::reasoning_fallback`), printed as the envelope; exit 2
//! when neither has them.
//!
//! The CLI's folders are those it would run with: agentgate's environment,
//! less the `env_remove:` and plus the `env:` of the provider's defaults
//! and of the `--agent` named, so an agent whose config moves `HOME`,
//! `CODEX_HOME` or `CLAUDE_CONFIG_DIR` is read where it wrote.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use agentgate_core::{Config, FallbackSession, SessionFiles};
use agentgate_providers::session_logs::CliHomes;
use agentgate_store::store_choice;

use super::{Args, existing_store, print};
use crate::output::note;

pub(super) fn reasoning_fallback(
    args: &Args,
    config: Option<&Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let agent = args
        .agent
        .as_ref()
        .and_then(|a| a.0.first())
        .and_then(|name| cfg.agents.iter().find(|a| &a.name == name));
    let provider = args
        .provider
        .as_ref()
        .and_then(|p| p.0.first())
        .cloned()
        .or_else(|| agent.map(|a| a.provider.clone()));
    let session = match (&args.session, &args.resume) {
        (Some(name), _) => FallbackSession::Named {
            name,
            provider: provider.as_deref(),
        },
        (None, Some(id)) => FallbackSession::Native(id),
        (None, None) => anyhow::bail!("--reasoning-fallback needs --session NAME or --resume ID"),
    };
    let given = store_choice::given(store)?;
    let opened = existing_store(args, given.as_ref(), cfg.store.as_ref());

    // The environment the CLI would run with.
    let mut layers: Vec<&agentgate_core::Settings> = Vec::new();
    if let Some(p) = &provider
        && let Some(d) = cfg.defaults.iter().find(|d| &d.provider == p)
    {
        layers.push(&d.settings);
    }
    if let Some(a) = agent {
        layers.push(&a.settings);
    }
    let lookup = |key: &str| -> Option<OsString> {
        let set = layers
            .iter()
            .rev()
            .find_map(|s| s.env.iter().rev().find(|(k, _)| k == key));
        if let Some((_, v)) = set {
            return Some(OsString::from(v));
        }
        if layers.iter().any(|s| s.env_remove.iter().any(|k| k == key)) {
            return None;
        }
        std::env::var_os(key)
    };
    let homes = CliHomes::from_lookup(lookup);
    let cwd: Option<PathBuf> = args
        .cwd
        .clone()
        .or_else(|| agent.and_then(|a| a.settings.cwd.clone()))
        .or_else(|| std::env::current_dir().ok());
    let files = SessionFiles {
        homes,
        cwd: cwd.as_deref(),
        providers: provider.iter().cloned().collect(),
    };

    let envelope = match agentgate_core::reasoning_fallback(
        opened
            .as_ref()
            .map(|s| s.as_ref() as &dyn agentgate_store::RunStore),
        session,
        &files,
    ) {
        Ok(e) => e,
        Err(why) => {
            note!("agentgate: --reasoning-fallback: {why}");
            return Ok(ExitCode::from(2));
        }
    };
    if let Some(source) = &envelope.fallback {
        for skipped in &source.skipped_lines {
            note!(
                "agentgate: --reasoning-fallback: {} skipped {skipped}",
                source.path.as_deref().unwrap_or("the session file")
            );
        }
    }
    print::print_envelope(
        &envelope,
        args.envelope.unwrap_or(cfg.envelope),
        args.pretty(),
    )?;
    Ok(ExitCode::SUCCESS)
}
