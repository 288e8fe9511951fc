//! `agentgate runs`: the audit trail.

use std::process::ExitCode;

use agentgate_store::{RunStore, Store};
use anyhow::Context;

use crate::output::{Stdout, note};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    show: Option<Show>,
    /// Print JSON (one object per run) instead of a table.
    #[arg(long)]
    json: bool,
    /// How many runs to list, newest first.
    #[arg(long, default_value_t = 20)]
    limit: usize,
}

#[derive(Debug, clap::Subcommand)]
enum Show {
    /// Show one run: its record, envelope, attempts and events.
    Show {
        /// The run id, or a unique prefix of it.
        run_id: String,
        /// Print only the run's events, as JSON lines.
        #[arg(long)]
        events: bool,
    },
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let store = Store::open_default().context("failed to open the run store")?;
    let mut out = Stdout::new();
    match args.show {
        Some(Show::Show { run_id, events }) => {
            let detail = store
                .find_run(&run_id)?
                .with_context(|| format!("no run `{run_id}` (see `agentgate runs`)"))?;
            let id = detail.summary.record.run_id.clone();
            if events {
                let log = store.read_events(&id)?;
                for e in &log.events {
                    out.json_line(e)?;
                }
                if let Some(t) = log.truncated_tail {
                    note!(
                        "agentgate: the last line of events.jsonl is cut short ({} bytes): {}",
                        t.bytes,
                        t.error
                    );
                }
            } else {
                let log = store.read_events(&id)?;
                if let Some(t) = &log.truncated_tail {
                    note!(
                        "agentgate: the last line of events.jsonl is cut short ({} bytes): {}",
                        t.bytes,
                        t.error
                    );
                }
                let value = serde_json::json!({
                    "run": detail,
                    "events_path": store.events_path(&id)?,
                    "stderr_path": store.stderr_path(&id)?,
                    "events": log.events,
                });
                out.json(&value, None)?;
            }
        }
        None => {
            let runs = store.list_runs(args.limit, 0)?;
            if args.json {
                for r in &runs {
                    out.json_line(r)?;
                }
            } else {
                out.line(format_args!(
                    "{:<28} {:<20} {:<8} {:<10} {:>9} {:>9}  ERROR",
                    "RUN", "STARTED", "PROVIDER", "STATUS", "SECONDS", "TOKENS"
                ))?;
                for r in &runs {
                    out.line(format_args!(
                        "{:<28} {:<20} {:<8} {:<10} {:>9} {:>9}  {}",
                        r.record.run_id,
                        r.record.started_at.strftime("%Y-%m-%d %H:%M:%S"),
                        r.provider.as_deref().unwrap_or("-"),
                        serde_json::to_value(r.status)?.as_str().unwrap_or("?"),
                        r.duration_ms
                            .map_or("-".into(), |d| format!("{:.1}", d as f64 / 1000.0)),
                        r.usage
                            .as_ref()
                            .map_or("-".into(), |u| u.total_tokens.to_string()),
                        r.error_type.map(|k| k.to_string()).unwrap_or_default(),
                    ))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
