//! `agentgate workflow submit FILE`: a workflow sent to an `agentgate
//! serve` to be queued (`POST /v1/workflows`); with `--wait` or
//! `--stream`, followed to its end as `agentgate workflow run` prints it.

use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_core::read_limit::{MIB, read_text_file};
use agentgate_tools::workflow::Workflow;
use anyhow::Context as _;
use serde_json::{Value, json};

use crate::output::{Stdout, note};
use crate::remote::{Follow, OnSignal, QueueArgs, ServerArgs, client_failed, follow, runtime};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workflow file (YAML, `version: 1`). The server finds the tool
    /// registry and relative paths from its folder, so that folder must be
    /// on the server's machine too.
    file: PathBuf,
    /// The workflow's input, JSON.
    #[arg(long, value_name = "JSON", conflicts_with = "input_file")]
    input: Option<String>,
    /// Read the input from this JSON file.
    #[arg(long, value_name = "FILE")]
    input_file: Option<PathBuf>,
    /// Wait for the workflow to end, print its envelope and exit as
    /// `workflow run` would.
    #[arg(long)]
    wait: bool,
    /// Wait, printing every event as a JSON line.
    #[arg(long)]
    stream: bool,
    /// Pretty-print the answer or the envelope.
    #[arg(long)]
    pretty: bool,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    server: ServerArgs,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    // Checked here first: the error names this file and its line.
    let wf = Workflow::load_file(&args.file)?;
    let text = read_text_file(&args.file, 4 * MIB, "a workflow file")
        .with_context(|| format!("cannot read {}", args.file.display()))?;
    let input = match (&args.input, &args.input_file) {
        (Some(text), _) => parse_input(text)?,
        (None, Some(path)) => parse_input(
            &read_text_file(path, 16 * MIB, "the workflow's input")
                .with_context(|| format!("cannot read {}", path.display()))?,
        )?,
        (None, None) => Value::Null,
    };
    let mut body = json!({
        "workflow": text,
        "base_dir": wf.base_dir.display().to_string(),
        "input": input,
        "priority": args.queue.priority,
    });
    if let Some(key) = &args.queue.idempotency_key {
        body["idempotency_key"] = json!(key);
    }
    if let Some(at) = args.queue.not_before {
        body["not_before"] = json!(at);
    }
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    let pretty = args.pretty.then_some(true);
    runtime()?.block_on(async {
        let (answer, created) = match client.submit_workflow(&body).await {
            Ok(a) => a,
            Err(e) => return Ok(client_failed(&e)),
        };
        let run_id = answer["run_id"]
            .as_str()
            .context("the server's answer has no run_id")?
            .to_owned();
        if !created {
            note!(
                "agentgate: {run_id}: the run an earlier submission with this idempotency key created"
            );
        }
        let how = if args.stream {
            Follow::Stream
        } else if args.wait {
            Follow::Envelope { pretty }
        } else {
            Stdout::new().json(&answer, pretty)?;
            return Ok(ExitCode::SUCCESS);
        };
        follow(&client, &run_id, None, how, OnSignal::CancelRun).await
    })
}

fn parse_input(text: &str) -> anyhow::Result<Value> {
    serde_json::from_str(text).map_err(|e| anyhow::anyhow!("--input is not JSON: {e}"))
}
