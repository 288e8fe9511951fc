//! `agentgate run`: read the task, plan it with the library, run the plan
//! (or print it, with `--dry-run`), print the envelope and the audit line.
//! Everything a run does is `agentgate_core`'s; this folder is the flags
//! (`args.rs`) and the printing (`print.rs`, `progress.rs`).

mod args;
mod budget_args;
mod coalesce;
mod fallback;
mod gateway_args;
mod print;
mod progress;
mod request;
mod rotation_args;
mod sandbox_args;
mod warm_client;

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use agentgate_core::Config;
use agentgate_core::{RunOptions, append_audit, audit_line};
use agentgate_core::{TaskInput, task_from_stdin};
use agentgate_core::{dry_run_report, dry_run_report_ok, now_from_env, plan};
use agentgate_supervise::WarmKeeper;
use std::sync::Arc;

use agentgate_store::store_choice;
use agentgate_store::{RunStore, StoreBackend};
use anyhow::Context;

pub use args::{AFTER_HELP, Args, OutputFormat};
pub use coalesce::{ChunkPump, CoalesceArgs};
pub use request::read_task_text;
pub use sandbox_args::SandboxArgs;

use crate::cli_process::{forward_signals, keeper_path};
use crate::output::{Stdout, note, quiet};
use print::CliSink;
use progress::Progress;

/// Run `agentgate run`.
pub fn run(args: Args, config: Option<&Path>, store: Option<&str>) -> anyhow::Result<ExitCode> {
    if args.reasoning_fallback {
        return fallback::reasoning_fallback(&args, config, store);
    }
    if args.warm {
        if args.skill.is_some() {
            anyhow::bail!("--skill does not apply to --warm runs: run the skill without --warm");
        }
        return warm_client::run(&args, config, store);
    }
    args.check_labels()?;
    let task = read_task(&args)?;
    let given = store_choice::given(store)?;
    // Opening the store (a fresh process replays SQLite's write-ahead log)
    // overlaps loading the config, planning and starting the runtime. With
    // no store named by flag or environment the config may name one: the
    // default SQLite file is opened ahead only if it exists (opening would
    // create it), and dropped if the config names another store.
    let ahead = match (&given, args.dry_run || args.no_store) {
        (_, true) => None,
        (Some(location), false) => Some(location.clone()),
        (None, false) => agentgate_store::StoreLocation::default_sqlite()
            .ok()
            .filter(|l| matches!(l, agentgate_store::StoreLocation::Sqlite(p) if p.is_file())),
    };
    let opening = ahead
        .clone()
        .map(|location| std::thread::spawn(move || store_choice::open(&location)));
    // The keeper starts now too, warm: it waits for the CLI while the
    // config is loaded and planned (the plan decides whether a CLI runs at
    // all; an unused keeper exits when agentgate does).
    let rt = start_runtime()?;
    let keeper = keeper_path();
    let warm_keeper = keeper.as_deref().filter(|_| !args.dry_run).and_then(|k| {
        let _in_runtime = rt.enter();
        WarmKeeper::start(k)
            .inspect_err(|e| tracing::debug!("no warm keeper: {e}"))
            .ok()
    });
    let cfg = Config::load(config)?;
    for w in &cfg.warnings {
        note!("agentgate: config: {w}");
    }
    let mut flags = args.flags();
    flags.skill = args.skill_call()?;
    flags.now = now_from_env().map_err(anyhow::Error::msg)?;
    if args.dry_run {
        let planned = plan(&cfg, &flags, task);
        let store = existing_store(&args, given.as_ref(), cfg.store.as_ref());
        let out = dry_run_report(
            planned.as_ref(),
            &flags,
            store.as_deref().map(|s| s as &dyn RunStore),
        );
        Stdout::new().json(&out, args.pretty())?;
        return Ok(ExitCode::from(if dry_run_report_ok(&out) { 0 } else { 2 }));
    }
    let mut plan = plan(&cfg, &flags, task)?;
    for w in &plan.warnings {
        note!("agentgate: warning: {w}");
    }
    let wanted = (!args.dry_run && !args.no_store)
        .then(|| store_choice::choose(given.clone(), cfg.store.as_ref()))
        .transpose()?;
    // The relay runs the agent's tool calls in this process until the run
    // ends (it is dropped last).
    let (tool_server, _tool_relay) = match (plan.steps.iter().any(|s| !s.tools.is_empty()), &wanted)
    {
        (false, _) => (None, None),
        (true, None) => anyhow::bail!(
            "registry tools (--tools, an agent's tools:) are recorded as runs linked to this one: drop --no-store"
        ),
        (true, Some(store)) => {
            let (server, relay) = crate::tool_cmd::tool_server(&cfg, store, &[])?;
            (Some(server), Some(relay))
        }
    };
    let options = RunOptions {
        keeper,
        warm_keeper,
        tool_server,
        ..RunOptions::default()
    };
    let opening = match (opening, &wanted) {
        (Some(handle), Some(w)) if ahead.as_ref() == Some(w) => Some(handle),
        (_, Some(w)) => {
            let w = w.clone();
            Some(std::thread::spawn(move || store_choice::open(&w)))
        }
        (_, None) => None,
    };
    // A run is not lost because the audit trail is unavailable: it goes
    // on, and a store that could not be opened or written makes the exit
    // non-zero (see `store_refused`).
    let (store, open_failure) = match opening.map(std::thread::JoinHandle::join) {
        None => (None, None),
        Some(Ok(Ok(s))) => (Some(s), None),
        Some(Ok(Err(e))) => (None, Some(e.to_string())),
        Some(Err(_panic)) => (None, Some("opening it failed".to_owned())),
    };
    if let Some(why) = &open_failure {
        note!("agentgate: warning: running without the store (the run will exit non-zero): {why}");
    }
    if let Some(s) = &store {
        s.set_event_log_bound(cfg.event_log.max_bytes);
    }
    if args.session.is_some() && store.is_none() {
        anyhow::bail!(
            "--session needs the run store (it maps the name to the provider's session id); drop --no-store"
        );
    }
    let progress =
        (!args.stream && !quiet() && std::io::stderr().is_terminal()).then(Progress::start);
    let chunks = args.coalesce.options()?.map(coalesce::ChunkPump::start);
    let mut sink = CliSink::new(args.stream, progress, chunks);
    // Its spans, when traces are exported (under TRACEPARENT when set; the
    // CLIs given the run's).
    let trace = agentgate_telemetry::run_trace_from_env(&mut plan);
    let traced = trace.is_some();
    let mut traced_sink = agentgate_telemetry::TracedSink::new(&mut sink, trace);
    let outcome = rt.block_on(async {
        let (_forwarding, cancel) = forward_signals()?;
        let store = store.as_deref().map(|s| s as &dyn RunStore);
        anyhow::Ok(agentgate_core::run(&plan, &options, store, &mut traced_sink, cancel).await)
    });
    // Queued for export; sent (bounded) once the envelope is printed.
    traced_sink.finish();
    let flush = || {
        if traced {
            agentgate_telemetry::shutdown(agentgate_telemetry::FINAL_FLUSH);
        }
    };
    let outcome = outcome.inspect_err(|_| flush())?;
    // The run is recorded by now: an envelope that cannot be printed is
    // reported after the audit line, with its own exit code.
    let printed = match sink.finish() {
        Some(failed) => Err(failed.into()),
        None if args.stream => Ok(()),
        None => print::print_result(
            &outcome.envelope,
            &args,
            args.envelope.unwrap_or(cfg.envelope),
        ),
    };
    let audit = audit_line(&outcome.envelope, outcome.exit_code);
    note!("{audit}");
    if let Some(store) = &store {
        let log = store.runs_dir().with_file_name("audit.log");
        if let Err(e) = append_audit(&log, &audit) {
            note!(
                "agentgate: warning: failed to append to {}: {e}",
                log.display()
            );
        }
    }
    flush();
    printed?;
    let refused = open_failure.or_else(|| outcome.store_error.as_ref().map(|e| e.to_string()));
    let exit_code = match refused {
        Some(why) => store_refused(wanted.as_ref(), &why, &outcome),
        None => outcome.exit_code,
    };
    Ok(ExitCode::from(u8::try_from(exit_code).unwrap_or(1)))
}

/// The store could not be opened or refused a write of the run (a full
/// disk, a read-only file): say so after the envelope, and exit non-zero
/// (74, `EX_IOERR`, for a run that succeeded; a failed run keeps its own
/// code). A run without the store is asked for with `--no-store`.
fn store_refused(
    location: Option<&agentgate_store::StoreLocation>,
    why: &str,
    outcome: &agentgate_core::RunOutcome,
) -> i32 {
    let store = location.map_or_else(
        || "the run store".to_owned(),
        |l| format!("the run store {l}"),
    );
    let kept = match &outcome.result_file {
        Some(path) => format!("; it is also kept in {}", path.display()),
        None => String::new(),
    };
    note!(
        "agentgate: error: run {} was not recorded in {store}: {why}. Its result is the envelope \
         printed above{kept}. Free space or fix the store's permissions, or run with \
         --no-store to run without recording.",
        outcome.envelope.run_id
    );
    if outcome.exit_code == agentgate_protocol::EXIT_SUCCESS {
        agentgate_protocol::EXIT_OUTPUT_FAILED
    } else {
        outcome.exit_code
    }
}

/// Run the session host at `dir` with `key` (started by `run --warm`).
pub fn serve_session_host(dir: std::path::PathBuf, key: String) -> anyhow::Result<ExitCode> {
    use agentgate_core::session_host::{HostAddress, server};
    let mut setup = server::HostSetup::new(HostAddress { dir, key }, keeper_path());
    setup.tools = Some(std::sync::Arc::new(crate::tool_cmd::HostTools::default()));
    server::serve(setup)?;
    Ok(ExitCode::SUCCESS)
}

/// One thread drives the run: the engine's own work is small (decoding
/// lines, short store transactions), and worker threads cost more to start
/// and to wake than they save (about 0.4 ms of CPU a run). A store write
/// waiting on another process's lock delays reading; the CLI's pipes
/// buffer meanwhile.
fn start_runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

/// The task: the prompt argument as is, or stdin (plain text or a JSON
/// task input).
fn read_task(args: &Args) -> anyhow::Result<TaskInput> {
    // A skill needs no prompt: stdin is read only when asked (`-`).
    if args.skill.is_some() && args.prompt.is_none() {
        return Ok(TaskInput::default());
    }
    let task = match args.prompt.as_deref() {
        Some(p) if p != "-" => TaskInput {
            prompt: p.to_owned(),
            ..TaskInput::default()
        },
        _ => task_from_stdin(&request::read_stdin_prompt(args)?)?,
    };
    if task.prompt.trim().is_empty() && args.skill.is_none() {
        anyhow::bail!("the prompt is empty");
    }
    Ok(task)
}

/// The store, only if it already exists (a dry run creates nothing: a
/// SQLite file is opened only if it is there; a PostgreSQL database is
/// always there).
pub(super) fn existing_store(
    args: &Args,
    given: Option<&agentgate_store::StoreLocation>,
    configured: Option<&agentgate_store::StoreLocation>,
) -> Option<Arc<dyn StoreBackend>> {
    if args.no_store {
        return None;
    }
    let location = store_choice::choose(given.cloned(), configured).ok()?;
    if let agentgate_store::StoreLocation::Sqlite(path) = &location
        && !path.is_file()
    {
        return None;
    }
    store_choice::open(&location).ok()
}
