//! `agentgate quota`: the last usage-limit state seen for each provider
//! ([`agentgate_core::quota_report`] reads it; this prints it).

use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_core::quota_report;
use agentgate_store::store_choice;
use agentgate_store::{RunStore, StoreLocation};
use anyhow::Context;
use jiff::Timestamp;

use crate::output::Stdout;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Print JSON (one object per provider, one per line) instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(
    args: Args,
    config: Option<&std::path::Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let cfg = Config::load(config)?;
    let location = store_choice::choose(store_choice::given(store)?, cfg.store.as_ref())?;
    // Reading creates nothing: no SQLite file yet means nothing was seen.
    let store = match &location {
        StoreLocation::Sqlite(path) if !path.is_file() => None,
        _ => Some(store_choice::open(&location).context("failed to open the run store")?),
    };
    let rows = quota_report::report(
        &cfg,
        store.as_deref().map(|s| s as &dyn RunStore),
        Timestamp::now(),
    )
    .context("failed to read the quota states")?;
    let mut out = Stdout::new();
    if args.json {
        for r in &rows {
            out.json_line(r)?;
        }
    } else {
        out.line(format_args!(
            "{:<20} {:<16} {:<12} SOURCE",
            "PROVIDER[@ACCOUNT]", "STATUS", "RESETS IN"
        ))?;
        for r in &rows {
            let resets = r
                .reset_in_seconds
                .map(humanize)
                .unwrap_or_else(|| "-".into());
            let key = agentgate_core::quota_key(&r.provider, r.account.as_deref());
            out.line(format_args!(
                "{:<20} {:<16} {:<12} {}",
                key,
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

    #[test]
    fn durations_read_naturally() {
        assert_eq!(humanize(59), "59s");
        assert_eq!(humanize(61), "1m01s");
        assert_eq!(humanize(7260), "2h01m");
    }
}
