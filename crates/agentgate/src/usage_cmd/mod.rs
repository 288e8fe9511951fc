//! `agentgate usage`: what the stored runs spent, by day, week or month and
//! one dimension. The report is the store's (`agentgate_store::UsageReports`);
//! this module parses the flags and prints it as a table, JSON or CSV
//! (`render.rs`).

mod render;

use std::process::ExitCode;

use agentgate_store::UsageQuery;

use crate::output::Stdout;

pub const AFTER_HELP: &str = "\
WHAT IS COUNTED
  Agent runs that started in [--since, --until), bucketed by the UTC day,
  ISO week (named by its Monday) or month of their start. Each row: runs,
  runs by outcome (succeeded, failed, cancelled, running) and by error type,
  tokens by class (input, output, cache read, cache write, reasoning, total)
  and the cost in USD of the runs that recorded one; runs without a cost
  are counted apart (`runs_without_cost`, the table's `NO COST`), never as
  zero. With --group label a run counts in one row per label it carries;
  the totals count it once. Grouping by API token is not available yet:
  runs do not record the token that submitted them.

EXAMPLES
  agentgate usage                                  this month, by day
  agentgate usage --by week --group provider
  agentgate usage --group label:team --since 2026-10-01 --until 2026-12-31
  agentgate usage --group model --format csv > usage.csv
  agentgate usage --json | jq .totals.cost_usd

  The same report over HTTP: GET /v1/usage?by=week&group=provider";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The time bucket of each row (UTC).
    #[arg(long, value_name = "BUCKET", default_value = "day",
          value_parser = ["day", "week", "month"])]
    by: String,
    /// The dimension rows are grouped by: provider, model, agent, chain,
    /// session, token (the API token that submitted the run), team (its
    /// team), label (every KEY=VALUE pair) or label:KEY (one key's
    /// values). Without it, one row per bucket.
    #[arg(long, value_name = "DIMENSION")]
    group: Option<String>,
    /// The first day (YYYY-MM-DD, UTC) or instant (RFC 3339) covered.
    /// Default: the first day of the current month.
    #[arg(long, value_name = "DATE")]
    since: Option<String>,
    /// The last day covered (YYYY-MM-DD, UTC, included), or the first
    /// instant not covered (RFC 3339). Default: the end of the current month.
    #[arg(long, value_name = "DATE")]
    until: Option<String>,
    /// How to print: an aligned table, JSON (the whole report) or CSV (one
    /// line per row, with a header).
    #[arg(long, value_name = "FORMAT", default_value = "table",
          value_parser = ["table", "json", "csv"])]
    format: String,
    /// Print JSON: the same as --format json.
    #[arg(long, conflicts_with = "format")]
    json: bool,
}

pub fn run(
    args: Args,
    config: Option<&std::path::Path>,
    store: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let query = UsageQuery::from_params(
        Some(&args.by),
        args.group.as_deref(),
        args.since.as_deref(),
        args.until.as_deref(),
        jiff::Timestamp::now(),
    )?;
    let store = crate::store_open::open_store(config, store)?;
    let report = store.usage_report(&query)?;
    let mut out = Stdout::new();
    let format = if args.json {
        "json"
    } else {
        args.format.as_str()
    };
    match format {
        "json" => out.json(&report, None)?,
        "csv" => out.text(&render::csv(&report))?,
        _ => out.text(&render::table(&report))?,
    }
    Ok(ExitCode::SUCCESS)
}
