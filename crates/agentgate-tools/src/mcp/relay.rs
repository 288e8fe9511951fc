//! The relay: registry tools for an agent's CLI without handing the CLI
//! anything of agentgate's.
//!
//! The agentgate process that runs an agent (`agentgate run`, `serve`'s
//! executor, `agentgate worker`, a workflow, the session host) holds a
//! [`ToolHost`] behind a Unix socket ([`ToolRelay`]): its own store, config
//! and registry. The MCP server the CLI starts is `agentgate mcp --relay
//! SOCKET`: it opens nothing itself and relays each listing and each call
//! over the socket ([`RelayClient`]). So neither the CLI's environment nor
//! the MCP server's entry in the CLI's configuration (a file, an argument
//! or a variable, which the agent can read) holds the store's URL, the
//! token or any other `AGENTGATE_*` value: only the socket's path.
//!
//! The socket is in a folder of its own made 0700 (`tempfile`), so only
//! the user's processes reach it; what reaching it gives is what the MCP
//! server gives the agent anyway: the offered tools, run under the policy
//! and recorded as children of the run the client names.
//!
//! The wire: one JSON line from the client ([`RelayRequest`]), then JSON
//! lines from the host ([`RelayLine`]): a listing; or a call's progress
//! lines and one last line (the envelope, an invalid-arguments error, or
//! a failure). A client that goes away before the last line cancels the
//! call (its MCP client cancelled, or its CLI ended): the tool gets its
//! cancel, then the termination table.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use agentgate_core::CancelRequest;
use agentgate_protocol::ToolEnvelope;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::{mpsc, oneshot};

use super::host::{CallOutcome, ListedTool, Progress, ToolCall, ToolHost};

/// The socket's name in its folder.
const SOCKET_NAME: &str = "tools.sock";

/// The longest request line: a call's arguments and its caller's
/// environment.
const REQUEST_MAX: u64 = 16 * 1024 * 1024;

/// What a client asks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RelayRequest {
    /// The tools among these names (every tool when empty).
    List {
        /// The names.
        tools: Vec<String>,
    },
    /// Run a tool.
    Call(ToolCall),
}

/// What the host answers, line by line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RelayLine {
    /// The listing.
    Listed {
        /// The tools.
        tools: Vec<ListedTool>,
    },
    /// A call's progress.
    Progress(Progress),
    /// No such tool.
    NoSuchTool {
        /// The name asked for.
        tool: String,
    },
    /// The arguments do not fit: the structured error.
    Invalid {
        /// The error.
        error: Value,
    },
    /// The tool's envelope.
    Envelope {
        /// The envelope.
        envelope: Box<ToolEnvelope>,
    },
    /// The request failed.
    Failed {
        /// Why.
        message: String,
    },
}

/// A running relay: its socket serves calls until it is dropped.
#[derive(Debug)]
pub struct ToolRelay {
    socket: PathBuf,
    stop: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
    _dir: tempfile::TempDir,
}

impl ToolRelay {
    /// Serves `host` on a new socket, on a thread of its own (with its own
    /// runtime, so it serves whatever the caller's threads do).
    pub fn start(host: ToolHost) -> std::io::Result<ToolRelay> {
        let dir = tempfile::Builder::new()
            .prefix("agentgate-tools-")
            .tempdir()?;
        let socket = dir.path().join(SOCKET_NAME);
        let std_listener = std::os::unix::net::UnixListener::bind(&socket)?;
        std_listener.set_nonblocking(true)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("agentgate-tool-relay")
            .enable_all()
            .build()?;
        let (stop_tx, stop_rx) = oneshot::channel();
        let host = Arc::new(host);
        let thread = std::thread::Builder::new()
            .name("agentgate-tool-relay".into())
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match UnixListener::from_std(std_listener) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::warn!("the tool relay cannot listen: {e}");
                            return;
                        }
                    };
                    tokio::select! {
                        () = accept(listener, host) => {}
                        _ = stop_rx => {}
                    }
                });
                // Dropping the runtime drops the calls still running: their
                // tools' groups are killed by the supervisor.
                runtime.shutdown_timeout(std::time::Duration::from_secs(1));
            })?;
        Ok(ToolRelay {
            socket,
            stop: Some(stop_tx),
            thread: Some(thread),
            _dir: dir,
        })
    }

    /// The socket `agentgate mcp --relay` connects to.
    pub fn socket(&self) -> &Path {
        &self.socket
    }
}

impl Drop for ToolRelay {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept(listener: UnixListener, host: Arc<ToolHost>) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(stream, host.clone()));
            }
            Err(e) => {
                tracing::warn!("the tool relay failed to accept a connection: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }
}

async fn serve_connection(stream: UnixStream, host: Arc<ToolHost>) {
    let (read, mut write) = stream.into_split();
    let mut reader = BufReader::new(read.take(REQUEST_MAX));
    let mut line = Vec::new();
    let request = match reader.read_until(b'\n', &mut line).await {
        Ok(0) => return,
        Ok(_) => serde_json::from_slice::<RelayRequest>(&line)
            .map_err(|e| format!("the relay's request is not one: {e}")),
        Err(e) => Err(format!("failed to read the relay's request: {e}")),
    };
    let request = match request {
        Ok(r) => r,
        Err(message) => {
            let _ = send(&mut write, &RelayLine::Failed { message }).await;
            return;
        }
    };
    match request {
        RelayRequest::List { tools } => {
            let answer = match host.listed(&tools) {
                Ok(tools) => RelayLine::Listed { tools },
                Err(message) => RelayLine::Failed { message },
            };
            let _ = send(&mut write, &answer).await;
        }
        RelayRequest::Call(call) => {
            let (progress_tx, mut progress_rx) = mpsc::unbounded_channel();
            let (cancel_tx, cancel_rx) = mpsc::channel(2);
            // The client's end of file (or a broken connection) is its
            // cancel: it wants no answer any more.
            let mut rest = reader.into_inner();
            let watch = tokio::spawn(async move {
                let mut sink = [0u8; 512];
                loop {
                    match rest.read(&mut sink).await {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                }
                let _ = cancel_tx.send(CancelRequest { immediate: false }).await;
            });
            let calling = host.clone();
            let mut running =
                tokio::spawn(async move { calling.call(call, progress_tx, cancel_rx).await });
            let outcome = loop {
                tokio::select! {
                    Some(p) = progress_rx.recv() => {
                        let _ = send(&mut write, &RelayLine::Progress(p)).await;
                    }
                    ended = &mut running => {
                        break ended.unwrap_or_else(|e| CallOutcome::Failed(format!("the tool run failed: {e}")));
                    }
                }
            };
            while let Ok(p) = progress_rx.try_recv() {
                let _ = send(&mut write, &RelayLine::Progress(p)).await;
            }
            watch.abort();
            let last = match outcome {
                CallOutcome::NoSuchTool(tool) => RelayLine::NoSuchTool { tool },
                CallOutcome::Invalid(error) => RelayLine::Invalid { error },
                CallOutcome::Ran(envelope) => RelayLine::Envelope { envelope },
                CallOutcome::Failed(message) => RelayLine::Failed { message },
            };
            let _ = send(&mut write, &last).await;
        }
    }
}

async fn send(write: &mut (impl AsyncWriteExt + Unpin), line: &RelayLine) -> std::io::Result<()> {
    let mut bytes = serde_json::to_vec(line).map_err(std::io::Error::other)?;
    bytes.push(b'\n');
    write.write_all(&bytes).await?;
    write.flush().await
}

/// The MCP server's side: each listing and call is a connection to the
/// relay's socket.
#[derive(Debug, Clone)]
pub struct RelayClient {
    socket: PathBuf,
}

impl RelayClient {
    /// A client of the relay at `socket`.
    pub fn new(socket: PathBuf) -> Self {
        Self { socket }
    }

    async fn open(&self, request: &RelayRequest) -> Result<Lines, String> {
        let stream = UnixStream::connect(&self.socket).await.map_err(|e| {
            format!(
                "cannot reach the agentgate run that offers these tools ({}): {e}",
                self.socket.display()
            )
        })?;
        let (read, mut write) = stream.into_split();
        let mut bytes = serde_json::to_vec(request).map_err(|e| e.to_string())?;
        bytes.push(b'\n');
        write
            .write_all(&bytes)
            .await
            .map_err(|e| format!("failed to send the request to the relay: {e}"))?;
        Ok(Lines {
            reader: BufReader::new(read),
            _write: write,
        })
    }

    /// The tools among `names`.
    pub async fn list(&self, names: &[String]) -> Result<Vec<ListedTool>, String> {
        let mut lines = self
            .open(&RelayRequest::List {
                tools: names.to_vec(),
            })
            .await?;
        match lines.next().await? {
            RelayLine::Listed { tools } => Ok(tools),
            RelayLine::Failed { message } => Err(message),
            other => Err(format!("the relay answered a listing with {other:?}")),
        }
    }

    /// Runs `call` through the relay; `cancelled` ending first closes the
    /// connection, which cancels the tool.
    pub async fn call(
        &self,
        call: ToolCall,
        progress: mpsc::UnboundedSender<Progress>,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> CallOutcome {
        let mut lines = match self.open(&RelayRequest::Call(call)).await {
            Ok(lines) => lines,
            Err(e) => return CallOutcome::Failed(e),
        };
        let reading = async {
            loop {
                match lines.next().await {
                    Ok(RelayLine::Progress(p)) => {
                        let _ = progress.send(p);
                    }
                    Ok(RelayLine::NoSuchTool { tool }) => return CallOutcome::NoSuchTool(tool),
                    Ok(RelayLine::Invalid { error }) => return CallOutcome::Invalid(error),
                    Ok(RelayLine::Envelope { envelope }) => return CallOutcome::Ran(envelope),
                    Ok(RelayLine::Failed { message }) => return CallOutcome::Failed(message),
                    Ok(RelayLine::Listed { .. }) => {
                        return CallOutcome::Failed(
                            "the relay answered a call with a listing".to_owned(),
                        );
                    }
                    Err(e) => return CallOutcome::Failed(e),
                }
            }
        };
        tokio::select! {
            outcome = reading => outcome,
            () = cancelled => CallOutcome::Failed("cancelled".to_owned()),
        }
    }
}

/// The host's lines of one connection (the write half kept open: closing
/// it would read as a cancel).
struct Lines {
    reader: BufReader<tokio::net::unix::OwnedReadHalf>,
    _write: tokio::net::unix::OwnedWriteHalf,
}

impl Lines {
    async fn next(&mut self) -> Result<RelayLine, String> {
        let mut line = Vec::new();
        match self.reader.read_until(b'\n', &mut line).await {
            Ok(0) => Err("the relay closed the connection before answering".to_owned()),
            Ok(_) => serde_json::from_slice(&line)
                .map_err(|e| format!("the relay sent something unreadable: {e}")),
            Err(e) => Err(format!("failed to read the relay's answer: {e}")),
        }
    }
}
