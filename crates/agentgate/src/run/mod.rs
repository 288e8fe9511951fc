//! `agentgate run`: read the task, plan it with the library, run the plan
//! (or print it, with `--dry-run`), print the envelope and the audit line.
//! Everything a run does is `agentgate_core`'s; this folder is the flags
//! (`args.rs`) and the printing (`print.rs`, `progress.rs`).

mod args;
mod print;
mod progress;
mod request;

use std::io::IsTerminal;
use std::path::Path;
use std::process::ExitCode;

use agentgate_core::config::Config;
use agentgate_core::plan::{self, now_from_env, report};
use agentgate_core::prompt::{TaskInput, task_from_stdin};
use agentgate_core::read_limit::{STDIN_PROMPT_MAX_BYTES, read_text};
use agentgate_core::run::{CancelRequest, RunOptions, append_audit, audit_line};
use agentgate_core::supervise::{Control, SignalForwarding, WarmKeeper, install_signal_forwarding};
use agentgate_store::{RunStore, Store};
use anyhow::Context;
use tokio::sync::mpsc;

pub use args::{AFTER_HELP, Args};
pub use request::TaskText;

use crate::output::{Stdout, note};
use print::CliSink;
use progress::Progress;

/// Run `agentgate run`.
pub fn run(args: Args, config: Option<&Path>) -> anyhow::Result<ExitCode> {
    let task = read_task(&args)?;
    // Opening the store (a fresh process replays SQLite's write-ahead log)
    // overlaps loading the config, planning and starting the runtime.
    let opening =
        (!args.dry_run && !args.no_store).then(|| std::thread::spawn(Store::open_default));
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
    flags.now = now_from_env().map_err(anyhow::Error::msg)?;
    if args.dry_run {
        let planned = plan::plan(&cfg, &flags, task);
        let store = existing_store(&args);
        let out = report::report(
            planned.as_ref(),
            &flags,
            store.as_ref().map(|s| s as &dyn RunStore),
        );
        Stdout::new().json(&out, args.pretty())?;
        return Ok(ExitCode::from(if report::report_ok(&out) { 0 } else { 2 }));
    }
    let plan = plan::plan(&cfg, &flags, task)?;
    for w in &plan.warnings {
        note!("agentgate: warning: {w}");
    }
    let options = RunOptions {
        keeper,
        warm_keeper,
        ..RunOptions::default()
    };
    let store = match opening.map(std::thread::JoinHandle::join) {
        None => None,
        Some(Ok(Ok(s))) => Some(s),
        Some(Ok(Err(e))) => {
            // A run must not be lost because the audit trail is unavailable.
            note!("agentgate: warning: running without the store: {e}");
            None
        }
        Some(Err(_panic)) => {
            note!("agentgate: warning: running without the store: opening it failed");
            None
        }
    };
    if args.session.is_some() && store.is_none() {
        anyhow::bail!(
            "--session needs the run store (it maps the name to the provider's session id); drop --no-store"
        );
    }
    let progress = (!args.stream && std::io::stderr().is_terminal()).then(Progress::start);
    let mut sink = CliSink::new(args.stream, progress);
    let outcome = rt.block_on(async {
        let (_forwarding, cancel) = forward_signals()?;
        let store = store.as_ref().map(|s| s as &dyn RunStore);
        anyhow::Ok(agentgate_core::run::run(&plan, &options, store, &mut sink, cancel).await)
    })?;
    // The run is recorded by now: an envelope that cannot be printed is
    // reported after the audit line, with its own exit code.
    let printed = match sink.finish() {
        Some(failed) => Err(failed.into()),
        None if args.stream => Ok(()),
        None => Stdout::new().json(&outcome.envelope, args.pretty()),
    };
    let audit = audit_line(&outcome.envelope, outcome.exit_code);
    note!("{audit}");
    if let Some(store) = &store {
        let log = store.path().with_file_name("audit.log");
        if let Err(e) = append_audit(&log, &audit) {
            note!(
                "agentgate: warning: failed to append to {}: {e}",
                log.display()
            );
        }
    }
    printed?;
    Ok(ExitCode::from(u8::try_from(outcome.exit_code).unwrap_or(1)))
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

/// The keeper to start in front of the CLI: `agentgate-keeper` next to this
/// binary when it is there (it starts in a fraction of the time), else this
/// binary's own `__keeper` subcommand.
pub(crate) fn keeper_path() -> Option<std::path::PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let small = exe.with_file_name(KEEPER_BINARY);
    Some(if small.is_file() { small } else { exe })
}

/// The file name of the keeper-only binary.
const KEEPER_BINARY: &str = "agentgate-keeper";

/// SIGINT and SIGTERM to agentgate become cancel requests (a second one:
/// kill at once), as long as the returned guard lives.
fn forward_signals() -> anyhow::Result<(SignalForwarding, mpsc::Receiver<CancelRequest>)> {
    let (ctl_tx, mut ctl_rx) = mpsc::channel::<Control>(4);
    let (cancel_tx, cancel_rx) = mpsc::channel::<CancelRequest>(4);
    let forwarding = install_signal_forwarding(ctl_tx)?;
    tokio::spawn(async move {
        while let Some(c) = ctl_rx.recv().await {
            if let Control::Cancel { immediate } = c
                && cancel_tx.send(CancelRequest { immediate }).await.is_err()
            {
                break;
            }
        }
    });
    Ok((forwarding, cancel_rx))
}

/// The task: the prompt argument as is, or stdin (plain text or a JSON
/// task input).
fn read_task(args: &Args) -> anyhow::Result<TaskInput> {
    let task = match args.prompt.as_deref() {
        Some(p) if p != "-" => TaskInput {
            prompt: p.to_owned(),
            ..TaskInput::default()
        },
        _ => {
            if std::io::stdin().is_terminal() {
                anyhow::bail!("no prompt: give it as an argument, or pipe it on stdin");
            }
            // A larger --prompt-max-bytes raises the limit with it.
            let limit = args
                .prompt_max_bytes
                .and_then(|n| u64::try_from(n).ok())
                .map_or(STDIN_PROMPT_MAX_BYTES, |n| n.max(STDIN_PROMPT_MAX_BYTES));
            let text = read_text(std::io::stdin().lock(), limit, "a prompt on stdin")
                .context("failed to read the prompt from stdin")?;
            task_from_stdin(&text)?
        }
    };
    if task.prompt.trim().is_empty() {
        anyhow::bail!("the prompt is empty");
    }
    Ok(task)
}

/// The store, only if it already exists (a dry run creates nothing).
fn existing_store(args: &Args) -> Option<Store> {
    if args.no_store {
        return None;
    }
    let path = agentgate_store::default_db_path().ok()?;
    if !path.is_file() {
        return None;
    }
    Store::open(&path).ok()
}
