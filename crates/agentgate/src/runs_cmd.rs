//! `agentgate runs`: the audit trail, from the local store or (with
//! `--server`) from an `agentgate serve`.

use std::process::ExitCode;

use anyhow::Context;

use crate::output::{Stdout, note};
use crate::remote::{Follow, OnSignal, ServerArgs, StopSignals, client_failed, follow, runtime};

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
    /// Only runs carrying this label, KEY=VALUE (repeatable: every one must
    /// match). Read through the store's label index, not by scanning runs.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
    /// Only runs from this time on: an RFC 3339 time
    /// (2026-11-30T10:00:00Z, 2026-11-30T11:00:00+01:00) or a date
    /// (2026-11-30: that day's start, UTC). Locally a run's start time,
    /// with --server its submit time (the times the list shows).
    #[arg(long, value_name = "TIME", value_parser = parse_since)]
    since: Option<jiff::Timestamp>,
    /// Only runs before this time: an RFC 3339 time, or a date
    /// (2026-11-30: that day's end, UTC, so the day is included). Must be
    /// after --since.
    #[arg(long, value_name = "TIME", value_parser = parse_until)]
    until: Option<jiff::Timestamp>,
    /// Ask this `agentgate serve` (its queue's runs) instead of the local
    /// store; `--server` alone means $AGENTGATE_SERVER, else
    /// http://127.0.0.1:7700. The token: $AGENTGATE_TOKEN, else
    /// --token-file, else the file `serve` creates.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "", global = true)]
    server: Option<String>,
    /// The token file, with --server.
    #[arg(long, value_name = "PATH", requires = "server", global = true)]
    token_file: Option<std::path::PathBuf>,
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

fn parse_label(s: &str) -> Result<(String, String), String> {
    agentgate_protocol::parse_label(s).map_err(|e| e.to_string())
}

fn parse_since(s: &str) -> Result<jiff::Timestamp, String> {
    agentgate_store::parse_since(s).map_err(|e| e.to_string())
}

fn parse_until(s: &str) -> Result<jiff::Timestamp, String> {
    agentgate_store::parse_until(s).map_err(|e| e.to_string())
}

impl Args {
    /// The window of --since and --until; an error when it is empty.
    fn window(&self) -> anyhow::Result<agentgate_store::TimeWindow> {
        if let (Some(since), Some(until)) = (self.since, self.until)
            && until <= since
        {
            anyhow::bail!("--until ({until}) must be after --since ({since})");
        }
        Ok(agentgate_store::TimeWindow {
            since: self.since,
            until: self.until,
        })
    }
}

pub fn run(
    args: Args,
    config: Option<&std::path::Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let window = args.window()?;
    if let Some(server) = &args.server {
        return remote(&args, server);
    }
    let store = crate::store_open::open_store(config, store)?;
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
                let stderr_path = store.stderr_path(&id)?;
                // `--debug-prompt`'s files, where the run saved them.
                let saved = |name: &str| {
                    stderr_path
                        .parent()
                        .map(|dir| dir.join(name))
                        .filter(|path| path.is_file())
                };
                let value = serde_json::json!({
                    "run": detail,
                    "events_path": store.events_file(&id)?,
                    "stderr_path": stderr_path,
                    "prompt_path": saved(agentgate_core::PROMPT_FILE_NAME),
                    "system_prompt_path": saved(agentgate_core::SYSTEM_PROMPT_FILE_NAME),
                    "events": log.events,
                });
                out.json(&value, None)?;
            }
        }
        None => {
            let labels: agentgate_protocol::Labels = args.labels.iter().cloned().collect();
            let listed = store.list_runs_within(&labels, window, args.limit, 0)?;
            // A damaged row is told, not the end of the list.
            for bad in &listed.unreadable {
                note!(
                    "agentgate: run {} cannot be read from the store: {}",
                    bad.id,
                    bad.error
                );
            }
            let runs = listed.runs;
            if args.json {
                for r in &runs {
                    out.json_line(r)?;
                }
            } else {
                out.line(format_args!(
                    "{:<28} {:<20} {:<8} {:<10} {:>9} {:>9}  {:<LABELS_WIDTH$}  ERROR",
                    "RUN", "STARTED", "PROVIDER", "STATUS", "SECONDS", "TOKENS", "LABELS"
                ))?;
                for r in &runs {
                    out.line(format_args!(
                        "{:<28} {:<20} {:<8} {:<10} {:>9} {:>9}  {:<LABELS_WIDTH$}  {}",
                        r.record.run_id,
                        r.record.started_at.strftime("%Y-%m-%d %H:%M:%S"),
                        r.provider.as_deref().unwrap_or("-"),
                        serde_json::to_value(r.status)?.as_str().unwrap_or("?"),
                        r.duration_ms
                            .map_or("-".into(), |d| format!("{:.1}", d as f64 / 1000.0)),
                        r.usage
                            .as_ref()
                            .map_or("-".into(), |u| u.total_tokens.to_string()),
                        labels_cell(r.record.labels.iter()),
                        r.error_type.map(|k| k.to_string()).unwrap_or_default(),
                    ))?;
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `runs --server`: the server's runs (its queue's jobs), or one of them.
fn remote(args: &Args, server: &str) -> anyhow::Result<ExitCode> {
    let server = ServerArgs {
        server: Some(server.to_owned()).filter(|s| !s.is_empty()),
        token_file: args.token_file.clone(),
    };
    let client = match server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    let rt = runtime()?;
    let mut out = Stdout::new();
    match &args.show {
        // The events: followed to the run's end, as `agentgate tail`.
        Some(Show::Show {
            run_id,
            events: true,
        }) => rt.block_on(async {
            follow(
                &client,
                run_id,
                None,
                Follow::Stream,
                OnSignal::StopFollowing,
                StopSignals::watch()?,
            )
            .await
        }),
        Some(Show::Show {
            run_id,
            events: false,
        }) => match rt.block_on(client.run(run_id)) {
            Ok(run) => {
                out.json(&run, None)?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => Ok(client_failed(&e)),
        },
        None => {
            let mut query = vec![("limit", args.limit.clamp(1, 500).to_string())];
            query.extend(
                args.labels
                    .iter()
                    .map(|(k, v)| ("label", format!("{k}={v}"))),
            );
            // As RFC 3339 in UTC: the server reads the same instants.
            query.extend(args.since.map(|at| ("since", at.to_string())));
            query.extend(args.until.map(|at| ("until", at.to_string())));
            let page = match rt.block_on(client.runs(&query)) {
                Ok(page) => page,
                Err(e) => return Ok(client_failed(&e)),
            };
            let runs = page["runs"].as_array().cloned().unwrap_or_default();
            for bad in page["unreadable"].as_array().into_iter().flatten() {
                note!(
                    "agentgate: run {} cannot be read from the server's store: {}",
                    bad["run_id"].as_str().unwrap_or("?"),
                    bad["error"].as_str().unwrap_or("?")
                );
            }
            if args.json {
                for r in &runs {
                    out.json_line(r)?;
                }
                return Ok(ExitCode::SUCCESS);
            }
            out.line(format_args!(
                "{:<28} {:<20} {:<10} {:<16} {:>8}  {:<LABELS_WIDTH$}  ERROR",
                "RUN", "CREATED", "STATUS", "PROVIDERS", "ATTEMPTS", "LABELS"
            ))?;
            for r in &runs {
                let text = |k: &str| r[k].as_str().unwrap_or("-").to_owned();
                let providers: Vec<&str> = r["providers"]
                    .as_array()
                    .map(|p| p.iter().filter_map(|v| v.as_str()).collect())
                    .unwrap_or_default();
                // A run's labels are in its request; a workflow's, in its
                // envelope once it ran.
                let labels = [&r["request"]["labels"], &r["envelope"]["labels"]]
                    .into_iter()
                    .find_map(|l| l.as_object().filter(|l| !l.is_empty()))
                    .map(|l| {
                        l.iter()
                            .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("?").to_owned()))
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default();
                out.line(format_args!(
                    "{:<28} {:<20} {:<10} {:<16} {:>8}  {:<LABELS_WIDTH$}  {}",
                    text("run_id"),
                    text("created_at")
                        .get(..19)
                        .unwrap_or("-")
                        .replace('T', " "),
                    text("status"),
                    providers.join(","),
                    r["attempts"],
                    labels_cell(labels.iter().map(|(k, v)| (k, v))),
                    r["error"].as_str().unwrap_or(""),
                ))?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// The width of the tables' LABELS column.
const LABELS_WIDTH: usize = 32;

/// A run's labels as the tables show them: `k=v,k2=v2` in key order, `-`
/// for none, cut to [`LABELS_WIDTH`] characters with `…` at the end when
/// longer (`--json` has them whole).
fn labels_cell<'a>(labels: impl Iterator<Item = (&'a String, &'a String)>) -> String {
    let text = labels
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(",");
    if text.is_empty() {
        return "-".to_owned();
    }
    if text.chars().count() <= LABELS_WIDTH {
        return text;
    }
    let mut cut: String = text.chars().take(LABELS_WIDTH - 1).collect();
    cut.push('…');
    cut
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(pairs: &[(&str, &str)]) -> String {
        let labels: agentgate_protocol::Labels = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        labels_cell(labels.iter())
    }

    #[test]
    fn labels_are_shown_compact_in_key_order_and_cut_when_long() {
        assert_eq!(cell(&[]), "-");
        assert_eq!(
            cell(&[("topic", "a b"), ("chat", "42")]),
            "chat=42,topic=a b"
        );
        let long = cell(&[
            ("ticket", "T-1234567890"),
            ("workflow", "publish-the-notes"),
        ]);
        assert_eq!(long.chars().count(), LABELS_WIDTH);
        assert_eq!(long, "ticket=T-1234567890,workflow=pu…");
        // A cut never splits a character.
        let wide = cell(&[("k", &"é".repeat(40))]);
        assert_eq!(wide.chars().count(), LABELS_WIDTH);
        assert!(wide.ends_with("éé…"), "{wide}");
    }
}
