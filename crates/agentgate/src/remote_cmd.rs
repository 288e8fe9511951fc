//! `agentgate cancel RUN` and `agentgate tail RUN`: a run on a server.

use std::process::ExitCode;

use crate::output::{Stdout, note};
use crate::remote::{Follow, OnSignal, ServerArgs, StopSignals, client_failed, follow, runtime};

#[derive(Debug, clap::Args)]
pub struct CancelArgs {
    /// The run id.
    #[arg(required_unless_present = "labels", conflicts_with = "labels")]
    run_id: Option<String>,
    /// Instead of a run id: cancel every queued or running run of the
    /// server that carries this label, KEY=VALUE (repeatable: every one
    /// must match), e.g. `--label chat=42`. Prints the runs cancelled.
    #[arg(long = "label", value_name = "KEY=VALUE", value_parser = parse_label)]
    labels: Vec<(String, String)>,
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
    coalesce: crate::run::CoalesceArgs,
    #[command(flatten)]
    server: ServerArgs,
}

/// `agentgate cancel`: ask the server to cancel the run; print its answer.
pub fn cancel(args: CancelArgs) -> anyhow::Result<ExitCode> {
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    let answer = match &args.run_id {
        Some(run_id) => runtime()?.block_on(client.cancel(run_id)),
        None => {
            let labels = args.labels.iter().cloned().collect();
            let answer = runtime()?.block_on(client.cancel_by_label(&labels));
            if let Ok(value) = &answer {
                tell_cancelled(value);
            }
            answer
        }
    };
    match answer {
        Ok(value) => {
            Stdout::new().json(&value, None)?;
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => Ok(client_failed(&e)),
    }
}

fn parse_label(s: &str) -> Result<(String, String), String> {
    agentgate_protocol::parse_label(s).map_err(|e| e.to_string())
}

/// One line on stderr per run a cancel by label reached (the JSON answer
/// goes to stdout).
fn tell_cancelled(answer: &serde_json::Value) {
    let runs = answer["cancelled"].as_array().cloned().unwrap_or_default();
    if runs.is_empty() {
        note!("agentgate: no queued or running run carries these labels");
    }
    for run in &runs {
        let id = run["run_id"].as_str().unwrap_or("?");
        match run["status"].as_str() {
            Some("running") => note!("agentgate: {id}: running, being stopped"),
            _ => note!("agentgate: {id}: cancelled"),
        }
    }
}

/// `agentgate tail`: print the run's events as they come, to its result
/// (with `--coalesce`, the answer's chunks among them, as `run --stream
/// --coalesce` prints them); exit with the run's exit code.
pub fn tail(args: TailArgs) -> anyhow::Result<ExitCode> {
    let how = match args.coalesce.options()? {
        Some(options) => Follow::Chunks(options),
        None => Follow::Stream,
    };
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    runtime()?.block_on(async {
        follow(
            &client,
            &args.run_id,
            args.after,
            how,
            OnSignal::StopFollowing,
            StopSignals::watch()?,
        )
        .await
    })
}
