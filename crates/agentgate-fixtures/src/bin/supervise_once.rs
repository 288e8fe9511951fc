//! Supervises one program through a keeper, for the test that kills the
//! supervisor with SIGKILL: `supervise-once <keeper> -- <program> [args...]`.
//! Prints the exit report's Debug form when the program ends.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_core::supervise::{Invocation, SupervisorConfig, supervise};

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(keeper), Some(_), Some(program)) = (args.next(), args.next(), args.next()) else {
        eprintln!("usage: supervise-once <keeper> -- <program> [args...]");
        return ExitCode::from(2);
    };
    let inv = Invocation::new(program).args(args.collect::<Vec<OsString>>());
    let cfg = SupervisorConfig {
        keeper: Some(PathBuf::from(keeper)),
        ..SupervisorConfig::default()
    };
    let (lines_tx, mut lines_rx) = tokio::sync::mpsc::channel(64);
    let (_control_tx, control_rx) = tokio::sync::mpsc::channel(4);
    let drain = tokio::spawn(async move { while lines_rx.recv().await.is_some() {} });
    let report = supervise(inv, cfg, lines_tx, control_rx).await;
    let _ = drain.await;
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
