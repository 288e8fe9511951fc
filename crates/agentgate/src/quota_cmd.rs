//! `agentgate quota`: the last usage-limit state seen for each provider.

use std::process::ExitCode;

use agentgate_core::config::Config;
use agentgate_store::{QuotaState, QuotaStatus, RunStore, Store};
use anyhow::Context;
use jiff::Timestamp;
use serde::Serialize;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON (one object per provider, one per line) instead of a table.
    #[arg(long)]
    json: bool,
}

/// One provider's line.
#[derive(Debug, Serialize)]
struct Row {
    provider: String,
    /// `unknown` (never seen), `available`, `warning`, `exhausted`, or
    /// `available_again` (a warning or exhaustion whose reset time passed).
    status: &'static str,
    /// The status as stored, before the reset time is taken into account.
    stored_status: Option<QuotaStatus>,
    reset_at: Option<String>,
    /// Seconds until `reset_at` from now; 0 once it passed.
    reset_in_seconds: Option<i64>,
    /// What set the state: `error:<run_id>`, `event:<run_id>` (a
    /// `rate_limit` event) or `success:<run_id>`.
    source: Option<String>,
    run_id: Option<String>,
    updated_at: Option<String>,
    message: Option<String>,
}

fn row(provider: String, state: Option<QuotaState>, now: Timestamp) -> Row {
    let Some(s) = state else {
        return Row {
            provider,
            status: "unknown",
            stored_status: None,
            reset_at: None,
            reset_in_seconds: None,
            source: None,
            run_id: None,
            updated_at: None,
            message: None,
        };
    };
    let reset_in_seconds = s.reset_at.map(|t| (t.as_second() - now.as_second()).max(0));
    let passed = s.reset_at.is_some_and(|t| t <= now);
    let status = match s.status {
        QuotaStatus::Exhausted | QuotaStatus::Warning if passed => "available_again",
        other => other.as_str(),
    };
    Row {
        provider,
        status,
        stored_status: Some(s.status),
        reset_at: s.reset_at.map(|t| t.to_string()),
        reset_in_seconds,
        run_id: s.source.split_once(':').map(|(_, id)| id.to_owned()),
        source: Some(s.source),
        updated_at: Some(s.updated_at.to_string()),
        message: s.message,
    }
}

pub fn run(args: Args, config: Option<&std::path::Path>) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let mut names: Vec<String> = cfg
        .all_providers()
        .iter()
        .map(|p| p.name().to_owned())
        .collect();
    // Reading creates nothing: no store yet means nothing was seen.
    let path = agentgate_store::default_db_path()?;
    let mut states = if path.is_file() {
        Store::open(&path)
            .context("failed to open the run store")?
            .list_quota()
            .context("failed to read the quota states")?
    } else {
        Vec::new()
    };
    for (name, _) in &states {
        if !names.contains(name) {
            names.push(name.clone());
        }
    }
    let now = Timestamp::now();
    let rows: Vec<Row> = names
        .into_iter()
        .map(|name| {
            let state = states
                .iter()
                .position(|(n, _)| *n == name)
                .map(|i| states.swap_remove(i).1);
            row(name, state, now)
        })
        .collect();
    let mut out = Stdout::new();
    if args.json {
        for r in &rows {
            out.json_line(r)?;
        }
    } else {
        out.line(format_args!(
            "{:<10} {:<16} {:<12} SOURCE",
            "PROVIDER", "STATUS", "RESETS IN"
        ))?;
        for r in &rows {
            let resets = r
                .reset_in_seconds
                .map(humanize)
                .unwrap_or_else(|| "-".into());
            out.line(format_args!(
                "{:<10} {:<16} {:<12} {}",
                r.provider,
                r.status,
                resets,
                r.source.as_deref().unwrap_or("-")
            ))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn humanize(s: i64) -> String {
    match s {
        0 => "0s".into(),
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(status: QuotaStatus, reset_at: Option<Timestamp>) -> QuotaState {
        QuotaState {
            status,
            reset_at,
            source: "error:r1".into(),
            updated_at: Timestamp::UNIX_EPOCH,
            message: None,
        }
    }

    #[test]
    fn a_passed_reset_reads_as_available_again_with_zero_seconds() {
        let now = Timestamp::from_second(1_000).unwrap();
        let past = Timestamp::from_second(500).unwrap();
        let r = row(
            "claude".into(),
            Some(state(QuotaStatus::Exhausted, Some(past))),
            now,
        );
        assert_eq!(r.status, "available_again");
        assert_eq!(r.reset_in_seconds, Some(0));
        assert_eq!(r.run_id.as_deref(), Some("r1"));
        let future = Timestamp::from_second(1_600).unwrap();
        let r = row(
            "claude".into(),
            Some(state(QuotaStatus::Exhausted, Some(future))),
            now,
        );
        assert_eq!(r.status, "exhausted");
        assert_eq!(r.reset_in_seconds, Some(600));
        assert_eq!(row("codex".into(), None, now).status, "unknown");
    }

    #[test]
    fn durations_read_naturally() {
        assert_eq!(humanize(59), "59s");
        assert_eq!(humanize(61), "1m01s");
        assert_eq!(humanize(7260), "2h01m");
    }
}
