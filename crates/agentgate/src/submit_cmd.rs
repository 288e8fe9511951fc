//! `agentgate submit`: the run `agentgate run` would make, sent to an
//! `agentgate serve` to be queued; with `--wait` or `--stream`, followed
//! to its end and printed as `agentgate run` prints it.

use std::process::ExitCode;

use anyhow::Context;

use crate::remote::{QueueArgs, ServerArgs, StopSignals, after_submit, client_failed, runtime};
use crate::run::{self, read_task_text};

#[derive(Debug, clap::Args)]
#[group(id = "submit_flags")]
pub struct Args {
    #[command(flatten)]
    run: run::Args,
    /// Wait for the run to end, print its envelope and exit as `agentgate
    /// run` would (--stream waits too, printing every event).
    #[arg(long)]
    wait: bool,
    #[command(flatten)]
    queue: QueueArgs,
    #[command(flatten)]
    server: ServerArgs,
}

pub const AFTER_HELP: &str = "\
Takes every flag of `agentgate run` but --dry-run and --no-store. Paths
are made absolute here, and the run's working directory is this one unless
--cwd says: the server's is another.

OUTPUT
  Without --wait or --stream: the server's answer, {\"run_id\", \"status\",
  ...}, then exit 0 (follow it with `agentgate tail RUN`). With --wait: the
  envelope; with --stream: the events as JSON lines (with --coalesce, the
  answer's chunks among them, cut here as `agentgate run` cuts them); both end with the audit
  line on stderr and `agentgate run`'s exit code. SIGINT or SIGTERM while
  waiting cancels the run on the server (a second one stops waiting, 130).

EXIT CODES (besides the run's)
  2    the server refused the request (400, 422: the field is named)
  75   the server could not be reached
  1    any other failure of the request (401, ...)

ENVIRONMENT
  AGENTGATE_SERVER    the server (default http://127.0.0.1:7700)
  AGENTGATE_TOKEN     the token (else --token-file, else the default file)";

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    if args.run.log_dir.is_some() || args.run.log_name.is_some() {
        anyhow::bail!(
            "--log-dir and --log-name are `agentgate run`'s: a server writes run logs where its config's `log_dir:` says"
        );
    }
    if args.run.output == run::OutputFormat::Text {
        anyhow::bail!(
            "--output text is `agentgate run`'s: `submit --wait` prints the envelope (its `response` is the answer)"
        );
    }
    if args.run.dry_run || args.run.no_store {
        anyhow::bail!(
            "--dry-run and --no-store are `agentgate run`'s: a server always records its runs"
        );
    }
    if args.run.envelope.is_some() || args.run.reasoning_fallback {
        anyhow::bail!(
            "--envelope and --reasoning-fallback are `agentgate run`'s: a server's runs print agentgate's envelope"
        );
    }
    args.run.check_labels()?;
    let task = read_task_text(&args.run)?;
    let cwd = std::env::current_dir().context("failed to read the working directory")?;
    let mut request = args.run.request(task, &cwd);
    request.input = args.run.skill_input()?;
    request.priority = args.queue.priority;
    request.idempotency_key = args.queue.idempotency_key.clone();
    request.not_before = args.queue.not_before;
    let coalesce = args.run.coalesce.options()?;
    let client = match args.server.client() {
        Ok(c) => c,
        Err(e) => return Ok(client_failed(&e)),
    };
    runtime()?.block_on(async {
        let signals = StopSignals::watch()?;
        let submitted = client.submit(&request).await;
        after_submit(
            &client,
            submitted,
            args.run.stream,
            coalesce,
            args.wait,
            args.run.pretty(),
            signals,
        )
        .await
    })
}
