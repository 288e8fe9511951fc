//! `agentgate cancel RUN` and `agentgate tail RUN`: a run on a server.

use std::process::ExitCode;

use crate::output::Stdout;
use crate::remote::{Follow, OnSignal, ServerArgs, StopSignals, client_failed, follow, runtime};

#[derive(Debug, clap::Args)]
pub struct CancelArgs {
    /// The run id.
    run_id: String,
    #[command(flatten)]
    server: ServerArgs,
}

#[derive(Debug, clap::Args)]
pub struct TailArgs {
    /// The run id.
    run_id: String,
    /// Start after the event with this seq (what the last line printed had),
    /// instead of from the first event.
    #[arg(long, value_name = "SEQ")]
    after: Option<u64>,
    #[command(flatten)]
    server: ServerArgs,
}

/// `agentgate cancel`: ask the server to cancel the run; print its answer.
pub fn cancel(args: CancelArgs) -> anyhow::Result<ExitCode> {
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    let answer = runtime()?.block_on(client.cancel(&args.run_id));
    match answer {
        Ok(value) => {
            Stdout::new().json(&value, None)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(client_failed(&e)),
    }
}

/// `agentgate tail`: print the run's events as they come, to its result;
/// exit with the run's exit code.
pub fn tail(args: TailArgs) -> anyhow::Result<ExitCode> {
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    runtime()?.block_on(async {
        follow(
            &client,
            &args.run_id,
            args.after,
            Follow::Stream,
            OnSignal::StopFollowing,
            StopSignals::watch()?,
        )
        .await
    })
}
