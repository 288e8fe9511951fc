//! What the commands that talk to a server share: the `--server` and
//! `--token-file` flags, following a run's events to its result, and the
//! exit codes of client errors. The requests themselves are
//! `agentgate_server::ApiClient`'s.

use std::path::PathBuf;
use std::process::ExitCode;

use agentgate_core::audit_line;
use agentgate_protocol::{
    EXIT_ALL_RECOVERABLE, EXIT_CANCELLED, EXIT_FAILURE, EXIT_USAGE, Envelope,
};
use agentgate_server::{ApiClient, ClientError, StreamItem};
use anyhow::Context;

use crate::output::{Stdout, error_note, exit_code, note};

/// Which server, and its token.
#[derive(Debug, clap::Args)]
pub struct ServerArgs {
    /// The server's URL (default: $AGENTGATE_SERVER, else
    /// http://127.0.0.1:7700).
    #[arg(long, value_name = "URL")]
    pub server: Option<String>,
    /// The token file (default: the one `agentgate serve` creates, `token`
    /// in agentgate's data folder). $AGENTGATE_TOKEN wins over it.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
}

impl ServerArgs {
    /// The client these flags name.
    pub fn client(&self) -> Result<ApiClient, ClientError> {
        ApiClient::from_env(self.server.as_deref(), self.token_file.as_deref())
    }
}

/// The queue's own flags of a submission.
#[derive(Debug, clap::Args)]
pub struct QueueArgs {
    /// Higher runs first (-1000 to 1000).
    #[arg(long, default_value_t = 0, allow_negative_numbers = true)]
    pub priority: i64,
    /// A repeated key returns the run the first submission created (and
    /// queues nothing).
    #[arg(long, value_name = "KEY")]
    pub idempotency_key: Option<String>,
    /// Do not start the run before this time (RFC 3339).
    #[arg(long, value_name = "TIME")]
    pub not_before: Option<jiff::Timestamp>,
}

/// The exit code for a client error, after saying it on stderr: the server
/// unreachable is worth retrying (75, as a run whose providers all failed
/// recoverably), a refused request is a usage error (2), the rest 1.
pub fn client_failed(e: &ClientError) -> ExitCode {
    error_note!("agentgate: {e}");
    exit_code(match e {
        ClientError::Connect { .. } => EXIT_ALL_RECOVERABLE,
        ClientError::Url(_) | ClientError::NoToken | ClientError::TokenFile(_) => EXIT_USAGE,
        ClientError::Api {
            status: 400 | 413 | 422,
            ..
        } => EXIT_USAGE,
        ClientError::Api { .. } | ClientError::Protocol { .. } => EXIT_FAILURE,
    })
}

/// How a run's events are printed while it is followed.
#[derive(Debug, Clone, Copy)]
pub enum Follow {
    /// Each event as a JSON line, as `agentgate run --stream` prints them.
    Stream,
    /// The same with the answer's `answer_chunk` events among them
    /// (`--coalesce`), cut here.
    Chunks(agentgate_core::CoalesceOptions),
    /// Only the envelope at the end, as `agentgate run` prints it.
    Envelope {
        /// Indent it (`None`: when stdout is a terminal).
        pretty: Option<bool>,
    },
}

/// What SIGINT or SIGTERM does while a run is followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnSignal {
    /// The first asks the server to cancel the run (the caller waits on the
    /// run it submitted, as `agentgate run` would be interrupted); a second
    /// stops following.
    CancelRun,
    /// Stop following at once; the run goes on (`agentgate tail`).
    StopFollowing,
}

/// A runtime for one client command: a thread is plenty.
pub fn runtime() -> anyhow::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("failed to start the async runtime")
}

/// SIGINT and SIGTERM, watched for as long as a client command lives:
/// made before a submission, so that a signal right after the server took
/// the run neither kills the client (the default action) before it could
/// cancel the run, nor is lost while an event is being printed (a listener
/// made anew for each wait would miss it).
pub struct StopSignals {
    interrupt: tokio::signal::unix::Signal,
    terminate: tokio::signal::unix::Signal,
}

impl StopSignals {
    /// Starts watching; must run inside the runtime.
    pub fn watch() -> anyhow::Result<StopSignals> {
        use tokio::signal::unix::{SignalKind, signal};
        Ok(StopSignals {
            interrupt: signal(SignalKind::interrupt()).context("failed to watch SIGINT")?,
            terminate: signal(SignalKind::terminate()).context("failed to watch SIGTERM")?,
        })
    }

    /// The next SIGINT or SIGTERM (one received since the last call, or
    /// since `watch`, counts).
    async fn next(&mut self) {
        tokio::select! {
            _ = self.interrupt.recv() => {}
            _ = self.terminate.recv() => {}
        }
    }
}

/// After a submission: the refusal's exit code, or (with `stream` or
/// `wait`) the run followed to its end as `follow` does (SIGINT cancels
/// it on the server), else the server's answer printed, exit 0.
pub async fn after_submit(
    client: &ApiClient,
    submitted: Result<(serde_json::Value, bool), ClientError>,
    stream: bool,
    coalesce: Option<agentgate_core::CoalesceOptions>,
    wait: bool,
    pretty: Option<bool>,
    signals: StopSignals,
) -> anyhow::Result<ExitCode> {
    let (answer, created) = match submitted {
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
    let how = if let (true, Some(options)) = (stream, coalesce) {
        Follow::Chunks(options)
    } else if stream {
        Follow::Stream
    } else if wait {
        Follow::Envelope { pretty }
    } else {
        Stdout::new().json(&answer, pretty)?;
        return Ok(ExitCode::SUCCESS);
    };
    follow(client, &run_id, None, how, OnSignal::CancelRun, signals).await
}

/// Follow `run_id`'s events to its end (a job that runs again, to its last
/// run's `result`), print them as `how` says, then
/// the audit line on stderr; the exit code is the run's, as `agentgate run`
/// would have exited. A signal does what `on_signal` says (stopping
/// following exits 130).
pub async fn follow(
    client: &ApiClient,
    run_id: &str,
    from: Option<u64>,
    how: Follow,
    on_signal: OnSignal,
    mut signals: StopSignals,
) -> anyhow::Result<ExitCode> {
    let mut out = Stdout::new();
    let mut chunks = match how {
        Follow::Chunks(options) => Some(crate::run::ChunkPump::start(options)),
        _ => None,
    };
    let mut events = client.events(run_id, from);
    let mut cancelling = false;
    // The envelope of the last `result` (or `end`) seen: the run's, once
    // the stream is over.
    let mut last_result: Option<serde_json::Value> = None;
    loop {
        let next = tokio::select! {
            next = events.next() => Some(next),
            () = signals.next() => None,
        };
        let item = match next {
            None if cancelling || on_signal == OnSignal::StopFollowing => {
                if cancelling {
                    note!("agentgate: stopped waiting for {run_id}; the server still cancels it");
                }
                return Ok(exit_code(EXIT_CANCELLED));
            }
            None => {
                cancelling = true;
                note!("agentgate: cancelling {run_id} on the server (again to stop waiting)");
                if let Err(e) = client.cancel(run_id).await {
                    error_note!("agentgate: {e}");
                }
                continue;
            }
            Some(None) => break,
            Some(Some(Err(e))) => return Ok(client_failed(&e)),
            Some(Some(Ok(item))) => item,
        };
        match item {
            StreamItem::Event { text, value } => {
                match (
                    &chunks,
                    serde_json::from_value::<agentgate_protocol::Event>(value.clone()),
                ) {
                    (Some(pump), Ok(event)) => pump.event(&event),
                    (Some(_), Err(_)) | (None, _) if !matches!(how, Follow::Envelope { .. }) => {
                        out.line(&text)?;
                    }
                    _ => {}
                }
                if value["type"] == "result" {
                    last_result = Some(value["envelope"].clone());
                }
            }
            StreamItem::Requeued(job) => {
                last_result = None;
                note!(
                    "agentgate: {run_id} runs again (attempts so far: {}, waiting for: {}, not before: {})",
                    job["attempts"],
                    job["waiting_for"].as_str().unwrap_or("-"),
                    job["not_before"].as_str().unwrap_or("-"),
                );
            }
            StreamItem::End(end) => {
                if end["envelope"].is_object() {
                    last_result = Some(end["envelope"].clone());
                } else {
                    anyhow::bail!(
                        "{run_id} ended {} without an envelope: {}",
                        end["status"].as_str().unwrap_or("?"),
                        end["error"].as_str().unwrap_or("no error given")
                    );
                }
            }
        }
    }
    if let Some(failed) = chunks.as_mut().and_then(crate::run::ChunkPump::finish) {
        return Err(failed.into());
    }
    let value = last_result
        .with_context(|| format!("the event stream of {run_id} ended without its result"))?;
    let envelope: Envelope = serde_json::from_value(value)
        .with_context(|| format!("the result of {run_id} holds no envelope"))?;
    let code = envelope.exit_code.unwrap_or(0);
    if let Follow::Envelope { pretty } = how {
        out.json(&envelope, pretty)?;
    }
    note!("{}", audit_line(&envelope, code));
    Ok(exit_code(code))
}
