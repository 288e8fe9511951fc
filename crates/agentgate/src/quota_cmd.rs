//! `agentgate quota`: the last usage-limit state seen for each provider
//! ([`agentgate_core::quota_report`] reads it; this prints it). The table
//! has a line per provider; under it, indented, the state's message (why
//! it is held or exhausted) and the rate-limit windows the model gateway
//! last read off the wire (name, share used, remaining of the limit, reset).

use std::fmt::Write as _;
use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_core::quota_report::{self, ProviderQuota, QuotaWindow};
use agentgate_store::store_choice;
use agentgate_store::{RunStore, StoreLocation};
use anyhow::Context;
use jiff::Timestamp;

use crate::output::Stdout;

/// The longest message shown under a provider's line (the JSON has it all).
const MESSAGE_CHARS: usize = 160;

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
        out.line(format_args!("{}", table(&rows).trim_end()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The table `agentgate quota` prints.
fn table(rows: &[ProviderQuota]) -> String {
    let mut out = format!(
        "{:<20} {:<16} {:<12} SOURCE\n",
        "PROVIDER[@ACCOUNT]", "STATUS", "RESETS IN"
    );
    for r in rows {
        let resets = r
            .reset_in_seconds
            .map(humanize)
            .unwrap_or_else(|| "-".into());
        let key = agentgate_core::quota_key(&r.provider, r.account.as_deref());
        let _ = writeln!(
            out,
            "{:<20} {:<16} {:<12} {}",
            key,
            r.status,
            resets,
            r.source.as_deref().unwrap_or("-")
        );
        if let Some(message) = r.message.as_deref().and_then(|m| m.lines().next()) {
            let mut shown: String = message.chars().take(MESSAGE_CHARS).collect();
            if shown.len() < message.len() {
                shown.push('…');
            }
            let _ = writeln!(out, "  {shown}");
        }
        if !r.windows.is_empty() {
            out.push_str(&windows_table(&r.windows));
        }
    }
    out
}

/// The windows under a provider's line, indented.
fn windows_table(windows: &[QuotaWindow]) -> String {
    let rows: Vec<[String; 4]> = windows
        .iter()
        .map(|w| {
            let used = w
                .utilization
                .map(agentgate_core::usage_percent)
                .unwrap_or_else(|| "-".into());
            let left = match (w.remaining, w.limit) {
                (Some(remaining), Some(limit)) => format!("{remaining}/{limit}"),
                (Some(remaining), None) => remaining.to_string(),
                (None, Some(limit)) => format!("-/{limit}"),
                (None, None) => "-".into(),
            };
            let resets = w.resets_at.clone().unwrap_or_else(|| "-".into());
            [w.name.clone(), used, left, resets]
        })
        .collect();
    crate::table::aligned(["WINDOW", "USED", "REMAINING/LIMIT", "RESETS AT"], &rows)
        .lines()
        .map(|line| format!("  {line}\n"))
        .collect()
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
    use agentgate_protocol::RateLimitWindow;
    use agentgate_store::{QuotaState, QuotaStatus};

    use super::*;

    #[test]
    fn durations_read_naturally() {
        assert_eq!(humanize(59), "59s");
        assert_eq!(humanize(61), "1m01s");
        assert_eq!(humanize(7260), "2h01m");
    }

    #[test]
    fn a_held_provider_shows_why_and_its_windows() {
        let now: Timestamp = "2026-05-01T12:00:00Z".parse().unwrap();
        let held = QuotaState {
            status: QuotaStatus::Held,
            reset_at: Some("2026-05-01T15:00:00Z".parse().unwrap()),
            source: "wire:r1".into(),
            updated_at: now,
            message: Some(
                "held: window 5h at 97% (quota_hold_above 0.95), resets 2026-05-01T15:00:00Z"
                    .into(),
            ),
            windows: vec![
                RateLimitWindow {
                    name: "5h".into(),
                    utilization: Some(0.97),
                    resets_at: Some("2026-05-01T15:00:00Z".into()),
                    status: Some("allowed_warning".into()),
                    ..RateLimitWindow::default()
                },
                RateLimitWindow {
                    name: "requests".into(),
                    limit: Some(4000),
                    remaining: Some(3000),
                    ..RateLimitWindow::default()
                },
            ],
        };
        let rows = [
            quota_report::provider_quota("claude@team-a".into(), Some(held), now),
            quota_report::provider_quota("codex".into(), None, now),
        ];
        let text = table(&rows);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "PROVIDER[@ACCOUNT]   STATUS           RESETS IN    SOURCE",
                "claude@team-a        held             3h00m        wire:r1",
                "  held: window 5h at 97% (quota_hold_above 0.95), resets 2026-05-01T15:00:00Z",
                "  WINDOW    USED  REMAINING/LIMIT  RESETS AT",
                "  5h        97%   -                2026-05-01T15:00:00Z",
                "  requests  25%   3000/4000        -",
                "codex                unknown          -            -",
            ]
        );
    }
}
