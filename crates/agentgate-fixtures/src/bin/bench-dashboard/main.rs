//! How long the dashboard takes to paint its runs list, in headless
//! Chromium, with a large store.
//!
//! `bench-dashboard [--runs N] [--repeat N] [--agentgate PATH]` builds two
//! SQLite stores (the real migrations, through `SqliteStore::open`): an
//! empty one (the baseline) and one with `--runs` (default 10,000) ended
//! runs of the queue (jobs), each with a request and an envelope like a
//! real run's (~600 bytes: provider, model, usage, cost, labels; one in
//! ten failed). For each it starts `agentgate serve` on it, opens the page
//! in Debian's headless Chromium with the token in localStorage, and loads
//! it `--repeat` times (default 7). Each load's figure is the page's own
//! mark `runs-listed`: set by the dashboard in the animation frame after it
//! filled the list for the first time (so, its first paint), in ms from
//! the navigation's start (the Performance timeline; the WebDriver round
//! trips are not in it). It prints the median and the slowest load of each
//! store, and the large store's median as a ratio to the empty one's
//! (measured in the same process). Target: under 500 ms with 10,000 runs.
//!
//! It also prints what the page weighs: its files and their bytes (the
//! page, its scripts and style sheet, as the browser's resource timing
//! saw them) and how many came from another origin.
//!
//! The list must show a full first page (50 rows; none in the empty
//! store), else the bench ends with exit 1. Timings never fail it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use agentgate_fixtures::bench::{Serve, TOKEN, load_average, machine};
use agentgate_fixtures::webdriver::{Chromium, browser_paths};
use agentgate_store::SqliteStore;
use jiff::{Timestamp, ToSpan};
use rusqlite::{Connection, params};
use serde_json::{Value, json};

const USAGE: &str = "\
usage: bench-dashboard [--runs N] [--repeat N] [--agentgate PATH]

  --runs N          ended runs in the large store (default 10000)
  --repeat N        page loads per store, the median printed (default 7)
  --agentgate PATH  the agentgate binary (default: next to bench-dashboard)";

/// The rows of the list's first page (app.js asks for 50).
const PAGE: u64 = 50;

struct Options {
    runs: u64,
    repeat: usize,
    agentgate: PathBuf,
}

fn options() -> Result<Options, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let mut o = Options {
        runs: 10_000,
        repeat: 7,
        agentgate: exe.with_file_name("agentgate"),
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--runs" => o.runs = value()?.parse().map_err(|_| "--runs: a number")?,
            "--repeat" => {
                o.repeat = value()?.parse().map_err(|_| "--repeat: a number")?;
                if o.repeat == 0 {
                    return Err("--repeat: at least 1".into());
                }
            }
            "--agentgate" => o.agentgate = PathBuf::from(value()?),
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown argument {other}\n{USAGE}")),
        }
    }
    Ok(o)
}

/// A store at `path` with `runs` ended jobs, the newest a minute ago.
fn fill(path: &Path, runs: u64) -> Result<(), String> {
    drop(SqliteStore::open(path).map_err(|e| e.to_string())?);
    let mut conn = Connection::open(path).map_err(|e| e.to_string())?;
    let sql = |e: rusqlite::Error| e.to_string();
    conn.pragma_update(None, "synchronous", "OFF")
        .map_err(sql)?;
    let tx = conn.transaction().map_err(sql)?;
    let now = Timestamp::now();
    {
        let mut insert = tx
            .prepare(
                "INSERT INTO jobs (job_id, request, state, priority, created_at, not_before, \
                 attempts, providers, envelope, error, ended_at, planned) \
                 VALUES (?1, ?2, ?3, 0, ?4, ?4, 1, '[\"claude\"]', ?5, ?6, ?7, 1)",
            )
            .map_err(sql)?;
        for i in 0..runs {
            let created = now
                .checked_sub(
                    i64::try_from(runs - i)
                        .unwrap_or(0)
                        .saturating_mul(30)
                        .saturating_add(60)
                        .seconds(),
                )
                .map_err(|e| e.to_string())?;
            let ended = created
                .checked_add(12.seconds())
                .map_err(|e| e.to_string())?;
            let id = format!("r{}-{i:06x}", created.strftime("%Y%m%dT%H%M%S"));
            let failed = i % 10 == 3;
            let team = if i % 2 == 0 { "web" } else { "infra" };
            let labels = json!({"ticket": format!("T-{}", i % 500), "team": team});
            let request = json!({"prompt": format!("Fix ticket T-{}", i % 500),
                                 "providers": ["claude"], "labels": labels});
            let envelope = json!({
                "response": if failed { "" } else { "Fixed: the test passes now." },
                "run_id": id, "provider": "claude", "model": "claude-sonnet-4-5",
                "duration_ms": 12_000 + (i % 900), "labels": labels,
                "error": if failed { Value::from("API Error: 529 overloaded") } else { Value::Null },
                "error_type": if failed { Value::from("overloaded") } else { Value::Null },
                "tokens_used": {"input_tokens": 12_000 + i % 1000, "output_tokens": 800,
                                "total_tokens": 12_800 + i % 1000, "cost_usd": 0.0431},
                "attempts": [{"provider": "claude", "model": "claude-sonnet-4-5",
                              "duration_ms": 12_000 + (i % 900)}],
            });
            insert
                .execute(params![
                    id,
                    request.to_string(),
                    if failed { "failed" } else { "succeeded" },
                    format!("{created:.9}"),
                    envelope.to_string(),
                    failed.then_some("API Error: 529 overloaded"),
                    format!("{ended:.9}"),
                ])
                .map_err(sql)?;
        }
    }
    tx.commit().map_err(sql)
}

/// The page's loads against a server on `store`: each load's ms to the
/// list's first paint, and the rows it painted.
fn measure(o: &Options, browser: &Chromium, store: &Path) -> Result<(Vec<f64>, u64), String> {
    let home = store.parent().ok_or("no folder")?;
    let mut command = Command::new(&o.agentgate);
    command
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--no-executor",
            "--store",
        ])
        .arg(store)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", home)
        .env("AGENTGATE_HOME", home.join("data"))
        .current_dir(home);
    let serve = Serve::start(command)?;
    let page = format!("{}/", serve.url);
    browser.goto(&page)?;
    browser.script(
        "localStorage.setItem('agentgate.token', arguments[0]);",
        json!([TOKEN]),
    )?;
    let mut times = Vec::new();
    let mut rows = 0;
    for n in 0..o.repeat {
        browser.goto("about:blank")?;
        browser.goto(&format!("{page}?load={n}"))?;
        let start = Instant::now();
        let mark = loop {
            let mark = browser.script(
                "const m = performance.getEntriesByName('runs-listed')[0];
                 return m ? [m.startTime, document.querySelectorAll('#runs tbody tr').length] : null;",
                json!([]),
            )?;
            if !mark.is_null() {
                break mark;
            }
            if start.elapsed() > Duration::from_secs(60) {
                return Err("the page never listed the runs".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        times.push(mark[0].as_f64().ok_or("no mark time")?);
        rows = mark[1].as_u64().ok_or("no row count")?;
    }
    Ok((times, rows))
}

/// What the page the browser shows weighs: its files (the page and what
/// it loaded itself, not its API calls), their bytes as served, and how
/// many came from another origin (the strict CSP allows none).
fn page_weight(browser: &Chromium) -> Result<String, String> {
    let w = browser.script(
        "const nav = performance.getEntriesByType('navigation')[0];
         const files = performance.getEntriesByType('resource')
           .filter((r) => r.initiatorType !== 'fetch' && r.initiatorType !== 'xmlhttprequest');
         const bytes = files.reduce((n, r) => n + r.decodedBodySize, nav.decodedBodySize);
         const foreign = files.filter((r) => new URL(r.name).origin !== location.origin).length;
         return [files.length + 1, bytes, foreign];",
        json!([]),
    )?;
    let (files, bytes, foreign) = (
        w[0].as_u64().ok_or("no file count")?,
        w[1].as_f64().ok_or("no byte count")?,
        w[2].as_u64().ok_or("no origin count")?,
    );
    Ok(format!(
        "the page: {files} files, {:.1} kB as served (uncompressed), {foreign} from another origin",
        bytes / 1000.0
    ))
}

fn median(times: &[f64]) -> f64 {
    let mut sorted = times.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}

fn run() -> Result<(), String> {
    let o = options()?;
    let (chromium, chromedriver) = browser_paths();
    println!("machine: {}; load: {}", machine(), load_average());
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let browser = Chromium::start(&chromium, &chromedriver, 1280, 800)?;
    let mut baseline = None;
    for runs in [0, o.runs] {
        let folder = dir.path().join(format!("store-{runs}"));
        std::fs::create_dir_all(&folder).map_err(|e| e.to_string())?;
        let store = folder.join("agentgate.db");
        let filling = Instant::now();
        fill(&store, runs)?;
        let filled = filling.elapsed();
        let (times, rows) = measure(&o, &browser, &store)?;
        if runs == 0 {
            println!("{}", page_weight(&browser)?);
        }
        let want = runs.min(PAGE);
        if rows != want {
            return Err(format!(
                "{runs} runs: the list painted {rows} rows, not {want}"
            ));
        }
        let mid = median(&times);
        let slowest = times.iter().copied().fold(0.0, f64::max);
        let ratio = match baseline {
            None => {
                baseline = Some(mid);
                "baseline".to_owned()
            }
            Some(base) => format!("{:.2}x the empty store", mid / base),
        };
        println!(
            "{runs:>7} runs (filled in {:.1} s): the list painted {rows} rows in {mid:.0} ms \
             (median of {}, slowest {slowest:.0} ms), {ratio}",
            filled.as_secs_f64(),
            times.len()
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("bench-dashboard: {e}");
            ExitCode::FAILURE
        }
    }
}
