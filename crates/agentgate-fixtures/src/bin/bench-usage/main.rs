//! How long a usage report (`agentgate usage`, `GET /v1/usage`) takes on
//! SQLite stores of growing size.
//!
//! `bench-usage [--sizes 10000,100000,1000000] [--repeat N] [--dir DIR]`
//! builds, for each size, a fresh store (the real migrations, through
//! `SqliteStore::open`) and fills it in one transaction with that many
//! ended agent runs spread evenly over 90 days ending now: 4 providers, 8
//! models, 6 agents, 3 chains, 500 sessions, 2 labels per run (`team`,
//! `env`), about 7% failed and 2% cancelled, 1 run in 10 without a cost,
//! each row with a compact envelope (~400 bytes) that carries its agent,
//! chain and labels. Then it times, in the same process, a baseline (`SELECT
//! SUM(total_tokens) FROM runs NOT INDEXED`: a read of every row of the
//! table; `COUNT(*)` is printed too, SQLite answers it from an index) and the report of the
//! last 30 days by day for each dimension (none, provider, model, agent,
//! chain, session, label, label:team), each the median of `--repeat` runs
//! (default 3), printed in ms and as a ratio to the baseline. `--keep`
//! keeps the stores, to try `agentgate usage --store DIR/usage-N.db` on them. Target: under
//! 1 s for a month's report at one million runs.
//!
//! Every report's totals must equal the generated runs of its range (the
//! bench knows how many it wrote there) and the label report's rows must
//! count each run twice; anything else ends it with exit 1. Timings never
//! fail it.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{load_average, machine};
use agentgate_store::{SqliteStore, UsageQuery, UsageReports};
use jiff::{Timestamp, ToSpan};
use rusqlite::{Connection, params};

const USAGE: &str = "\
usage: bench-usage [--sizes N,N,...] [--repeat N] [--dir DIR] [--keep]

  --sizes N,N,...   store sizes in runs (default 10000,100000,1000000)
  --repeat N        timed reports per dimension, the median printed (default 3)
  --dir DIR         where the stores are built (default: a temporary folder)
  --keep            keep each store (DIR/usage-N.db), to try `agentgate usage` on it";

const PROVIDERS: [&str; 4] = ["claude", "codex", "gemini", "qwen"];
const MODELS: [&str; 8] = [
    "claude-sonnet-4-5",
    "claude-opus-4-1",
    "gpt-5-codex",
    "gpt-5",
    "gemini-2.5-pro",
    "gemini-2.5-flash",
    "qwen3-coder-plus",
    "qwen3-coder-flash",
];
const AGENTS: [&str; 6] = [
    "reviewer", "fixer", "planner", "writer", "tester", "triager",
];
const CHAINS: [&str; 3] = ["default", "cheap", "deep"];
const TEAMS: [&str; 5] = ["infra", "web", "data", "ml", "docs"];
const DIMENSIONS: [Option<&str>; 8] = [
    None,
    Some("provider"),
    Some("model"),
    Some("agent"),
    Some("chain"),
    Some("session"),
    Some("label"),
    Some("label:team"),
];
const DAYS: i64 = 90;

struct Options {
    sizes: Vec<usize>,
    repeat: usize,
    dir: Option<PathBuf>,
    keep: bool,
}

fn main() -> ExitCode {
    let options = match parse_args() {
        Ok(o) => o,
        Err(e) => {
            eprintln!("bench-usage: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(&options) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-usage: {e}");
            ExitCode::from(1)
        }
    }
}

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        sizes: vec![10_000, 100_000, 1_000_000],
        repeat: 3,
        dir: None,
        keep: false,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--sizes" => {
                options.sizes = value()?
                    .split(',')
                    .map(|s| {
                        s.trim()
                            .parse::<usize>()
                            .map_err(|e| format!("--sizes: {e}"))
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--repeat" => {
                options.repeat = value()?
                    .parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or("--repeat needs a whole number above 0")?;
            }
            "--dir" => options.dir = Some(PathBuf::from(value()?)),
            "--keep" => options.keep = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument `{other}`")),
        }
    }
    Ok(options)
}

fn run(options: &Options) -> Result<(), String> {
    let temp = tempfile::tempdir().map_err(|e| format!("temporary folder: {e}"))?;
    let dir = options
        .dir
        .clone()
        .unwrap_or_else(|| temp.path().to_owned());
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    println!("machine: {}; load: {}", machine(), load_average());
    println!(
        "a month's report by day (the last 30 of 90 days), median of {} runs",
        options.repeat
    );
    let now = Timestamp::now();
    for &size in &options.sizes {
        let path = dir.join(format!("usage-{size}.db"));
        let _ = std::fs::remove_file(&path);
        let started = Instant::now();
        let in_month = generate(&path, size, now)?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        println!(
            "\n{size} runs ({in_month} in the month), generated in {:.1} s, {} MiB",
            started.elapsed().as_secs_f64(),
            bytes / (1024 * 1024)
        );
        measure(&path, options.repeat, now, in_month)?;
        if !options.keep {
            let _ = std::fs::remove_file(&path);
        }
    }
    Ok(())
}

/// Writes `size` ended agent runs over the 90 days before `now`; returns
/// how many started in the last 30 days.
fn generate(path: &Path, size: usize, now: Timestamp) -> Result<u64, String> {
    // The schema, as agentgate makes it.
    drop(SqliteStore::open(path).map_err(|e| e.to_string())?);
    let mut conn = Connection::open(path).map_err(|e| e.to_string())?;
    let sql = |e: rusqlite::Error| e.to_string();
    conn.pragma_update(None, "synchronous", "OFF")
        .map_err(sql)?;
    let tx = conn.transaction().map_err(sql)?;
    let span_ms = DAYS * 86_400_000;
    let month_start = now
        .checked_sub((30 * 24).hours())
        .map_err(|e| e.to_string())?;
    let mut in_month = 0;
    {
        let mut run = tx
            .prepare(
                "INSERT INTO runs (run_id, status, started_at, ended_at, providers, model, \
                 session_name, prompt_bytes, provider, final_model, duration_ms, exit_code, \
                 error_type, input_tokens, output_tokens, cache_read_input_tokens, \
                 cache_creation_input_tokens, reasoning_tokens, total_tokens, cost_usd, \
                 envelope, kind) VALUES (?1, ?2, ?3, ?3, ?4, ?5, ?6, 100, ?7, ?5, 1000, ?8, \
                 ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, 'agent')",
            )
            .map_err(sql)?;
        let mut label = tx
            .prepare("INSERT INTO labels (id, key, value) VALUES (?1, ?2, ?3)")
            .map_err(sql)?;
        for i in 0..size {
            // Evenly spread, oldest first (as a store fills).
            let offset = span_ms - (i as i64 * span_ms) / size.max(1) as i64;
            let started = now
                .checked_sub(offset.milliseconds())
                .map_err(|e| e.to_string())?;
            if started >= month_start {
                in_month += 1;
            }
            let run_id = format!("run-{i:08}");
            let provider = PROVIDERS[i % 4];
            let model = MODELS[(i / 4) % 8];
            let agent = AGENTS[i % 6];
            let chain = CHAINS[i % 3];
            let team = TEAMS[i % 5];
            let env = if i % 2 == 0 { "prod" } else { "dev" };
            let (status, error) = match i % 100 {
                0..=6 => ("failed", Some("rate_limit")),
                7..=8 => ("cancelled", Some("cancelled")),
                _ => ("succeeded", None),
            };
            let input = 1000 + (i % 997) as i64;
            let output = 200 + (i % 389) as i64;
            let cache_read = (i % 5000) as i64;
            let cache_write = (i % 700) as i64;
            let reasoning = output / 4;
            let total = input + output + cache_read + cache_write;
            let cost = (i % 10 != 0).then(|| (input + output) as f64 * 3e-6);
            let envelope = serde_json::json!({
                "success": status == "succeeded", "provider": provider, "model": model,
                "response": "done", "error_type": error, "duration_ms": 1000,
                "tokens_used": {"input_tokens": input, "output_tokens": output,
                    "cache_read_input_tokens": cache_read,
                    "cache_creation_input_tokens": cache_write, "total_tokens": total,
                    "cost_usd": cost},
                "reasoning_tokens": reasoning, "agent": agent, "chain": chain,
                "labels": {"team": team, "env": env}, "run_id": run_id,
            })
            .to_string();
            run.execute(params![
                run_id,
                status,
                format!("{started:.9}"),
                format!("[\"{provider}\"]"),
                model,
                format!("session-{}", i % 500),
                provider,
                if status == "succeeded" { 0 } else { 1 },
                error,
                input,
                output,
                cache_read,
                cache_write,
                reasoning,
                total,
                cost,
                envelope,
            ])
            .map_err(sql)?;
            label.execute(params![run_id, "team", team]).map_err(sql)?;
            label.execute(params![run_id, "env", env]).map_err(sql)?;
        }
    }
    tx.commit().map_err(sql)?;
    conn.execute_batch("ANALYZE").map_err(sql)?;
    Ok(in_month)
}

fn measure(path: &Path, repeat: usize, now: Timestamp, in_month: u64) -> Result<(), String> {
    let conn = Connection::open(path).map_err(|e| e.to_string())?;
    let scalar = |sql: &'static str| {
        let conn = &conn;
        move || {
            conn.query_row(sql, [], |r| r.get::<_, Option<i64>>(0))
                .map(|_| ())
                .map_err(|e| e.to_string())
        }
    };
    // SQLite answers COUNT(*) from its smallest index; the baseline reads
    // every row of the table once.
    let count = median(repeat, scalar("SELECT COUNT(*) FROM runs"))?;
    let baseline = median(
        repeat,
        scalar("SELECT SUM(total_tokens) FROM runs NOT INDEXED"),
    )?;
    println!(
        "  {:<22} {:>10.1} ms {:>6.2}x",
        "COUNT(*)",
        ms(count),
        ratio(count, baseline)
    );
    println!(
        "  {:<22} {:>10.1} ms   1.00x  (baseline)",
        "table scan",
        ms(baseline)
    );
    let store = SqliteStore::open(path).map_err(|e| e.to_string())?;
    let since = now
        .checked_sub((30 * 24).hours())
        .map_err(|e| e.to_string())?
        .to_string();
    let until = now
        .checked_add(1.second())
        .map_err(|e| e.to_string())?
        .to_string();
    for group in DIMENSIONS {
        let query = UsageQuery::from_params(Some("day"), group, Some(&since), Some(&until), now)
            .map_err(|e| e.to_string())?;
        let mut report = None;
        let took = median(repeat, || {
            report = Some(store.usage_report(&query).map_err(|e| e.to_string())?);
            Ok(())
        })?;
        let report = report.ok_or("no report")?;
        if report.totals.runs != in_month {
            return Err(format!(
                "{group:?}: the totals count {} runs, {in_month} were written in the month",
                report.totals.runs
            ));
        }
        let in_rows: u64 = report.rows.iter().map(|r| r.figures.runs).sum();
        let expected = if group == Some("label") {
            2 * in_month
        } else {
            in_month
        };
        if in_rows != expected {
            return Err(format!(
                "{group:?}: the rows count {in_rows} runs, not {expected}"
            ));
        }
        println!(
            "  {:<22} {:>10.1} ms {:>6.2}x  ({} rows)",
            format!("usage {}", group.unwrap_or("(no group)")),
            ms(took),
            ratio(took, baseline),
            report.rows.len()
        );
    }
    Ok(())
}

fn median(repeat: usize, mut f: impl FnMut() -> Result<(), String>) -> Result<Duration, String> {
    let mut times = Vec::with_capacity(repeat);
    for _ in 0..repeat {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed());
    }
    times.sort();
    Ok(times[times.len() / 2])
}

fn ratio(took: Duration, baseline: Duration) -> f64 {
    took.as_secs_f64() / baseline.as_secs_f64().max(1e-9)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
