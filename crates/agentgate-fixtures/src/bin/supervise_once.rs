//! Supervises one program, for the tests that need a supervisor in a
//! process of its own (killed with SIGKILL, or started with a given signal
//! state):
//!
//! `supervise-once [--block-signals] [--no-keeper] <keeper> -- <program> [args...]`
//!
//! `--block-signals` blocks SIGHUP, SIGINT, SIGQUIT, SIGTERM and SIGUSR1 in
//! every thread of the supervisor (as a parent could leave them);
//! `--no-keeper` runs the program without the keeper. First prints its own
//! `SigIgn`/`SigBlk` masks (`supervisor SigIgn: <hex>`), then every line the
//! program printed, then the exit report's Debug form.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_supervise::{Invocation, OutputLine, SupervisorConfig, supervise};
use nix::sys::signal::{SigSet, SigmaskHow, Signal, pthread_sigmask};

const USAGE: &str =
    "usage: supervise-once [--block-signals] [--no-keeper] <keeper> -- <program> [args...]";

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1).peekable();
    let (mut block, mut keeper_on) = (false, true);
    while let Some(flag) = args.next_if(|a| a == "--block-signals" || a == "--no-keeper") {
        if flag == "--block-signals" {
            block = true;
        } else {
            keeper_on = false;
        }
    }
    let (Some(keeper), Some(_), Some(program)) = (args.next(), args.next(), args.next()) else {
        eprintln!("{USAGE}");
        return ExitCode::from(2);
    };
    if block {
        // Before the runtime starts, so that every thread inherits the mask.
        let mut set = SigSet::empty();
        for signal in [
            Signal::SIGHUP,
            Signal::SIGINT,
            Signal::SIGQUIT,
            Signal::SIGTERM,
            Signal::SIGUSR1,
        ] {
            set.add(signal);
        }
        if let Err(e) = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), None) {
            eprintln!("supervise-once: failed to block signals: {e}");
            return ExitCode::from(1);
        }
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    for line in status.lines() {
        if line.starts_with("SigIgn:") || line.starts_with("SigBlk:") {
            println!("supervisor {line}");
        }
    }
    let inv = Invocation::new(program).args(args.collect::<Vec<OsString>>());
    let cfg = SupervisorConfig {
        keeper: keeper_on.then(|| PathBuf::from(keeper)),
        ..SupervisorConfig::default()
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("supervise-once: failed to start a runtime: {e}");
            return ExitCode::from(1);
        }
    };
    runtime.block_on(run(inv, cfg))
}

async fn run(inv: Invocation, cfg: SupervisorConfig) -> ExitCode {
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::channel::<OutputLine>(64);
    let (_control_tx, control_rx) = tokio::sync::mpsc::channel(4);
    let print = tokio::spawn(async move {
        while let Some(line) = lines_rx.recv().await {
            println!("{}", String::from_utf8_lossy(&line.bytes));
        }
    });
    let report = supervise(inv, cfg, lines_tx, control_rx).await;
    let _ = print.await;
    match report {
        Ok(report) => {
            println!("{report:?}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("supervise-once: {e}");
            ExitCode::from(1)
        }
    }
}
