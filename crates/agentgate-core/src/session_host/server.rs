//! The host's side: the lock, the socket, the connections, the end.

use std::cell::Cell;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use nix::fcntl::{Flock, FlockArg};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use super::turn::{Host, run_turn};
use super::{ClientLine, HOST_LINGER, HostAddress, HostError, HostLine, private_dir};
use crate::run::{CancelRequest, ToolServerSource};
use crate::warm::sessions::{WarmSessions, WarmSettings};

/// What a host is started with.
#[derive(Debug, Clone)]
pub struct HostSetup {
    /// Its files.
    pub address: HostAddress,
    /// The keeper executable every warm process runs under.
    pub keeper: Option<PathBuf>,
    /// How long it stays with nothing to hold or serve.
    pub linger: Duration,
    /// Where the registry tools of a client's config come from (this host
    /// runs them, for as long as it runs); `None`: a run asking for tools
    /// is refused.
    pub tools: Option<Arc<dyn ToolServerSource>>,
}

impl HostSetup {
    /// A host at `address` with the keeper `keeper` and [`HOST_LINGER`].
    pub fn new(address: HostAddress, keeper: Option<PathBuf>) -> Self {
        HostSetup {
            address,
            keeper,
            linger: HOST_LINGER,
            tools: None,
        }
    }
}

/// Run a host until it is idle past its linger time or gets SIGTERM or
/// SIGINT. Returns at once, with `Ok`, when another host holds the lock.
pub fn serve(setup: HostSetup) -> Result<(), HostError> {
    let address = &setup.address;
    private_dir(&address.dir)?;
    let lock_path = address.lock();
    let lock_file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .mode(0o600)
        .open(&lock_path)
        .map_err(|e| io_error("lock", &lock_path, e))?;
    let _lock = match Flock::lock(lock_file, FlockArg::LockExclusiveNonblock) {
        Ok(lock) => lock,
        Err((_, nix::errno::Errno::EWOULDBLOCK)) => {
            tracing::info!("another session host serves {}", address.socket().display());
            return Ok(());
        }
        Err((_, errno)) => return Err(io_error("lock", &lock_path, errno.into())),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| io_error("runtime", &address.dir, e))?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, serve_locked(&setup))
}

async fn serve_locked(setup: &HostSetup) -> Result<(), HostError> {
    let address = &setup.address;
    let socket = address.checked_socket()?;
    // The lock is ours: a socket left there is a dead host's.
    match std::fs::remove_file(&socket) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io_error("socket", &socket, e)),
    }
    let listener = UnixListener::bind(&socket).map_err(|e| io_error("socket", &socket, e))?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|e| io_error("socket", &socket, e))?;
    let pid_path = address.pid();
    std::fs::write(&pid_path, format!("{}\n", std::process::id()))
        .map_err(|e| io_error("pid file", &pid_path, e))?;
    tracing::info!(socket = %socket.display(), "the session host listens");
    let host = Rc::new(Host::new(
        WarmSessions::new(WarmSettings::default()),
        setup.keeper.clone(),
        setup.tools.clone(),
    ));
    let _idle_watch = host.sessions.watch_idle();
    let clients = Rc::new(Cell::new(0_usize));
    let mut last_busy = Instant::now();
    let mut term = signal(tokio::signal::unix::SignalKind::terminate())?;
    let mut int = signal(tokio::signal::unix::SignalKind::interrupt())?;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    loop {
        tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    last_busy = Instant::now();
                    let (host, clients) = (host.clone(), clients.clone());
                    clients.set(clients.get() + 1);
                    tokio::task::spawn_local(async move {
                        connection(stream, &host).await;
                        clients.set(clients.get().saturating_sub(1));
                    });
                }
                Err(e) => tracing::warn!("accept failed: {e}"),
            },
            _ = term.recv() => break,
            _ = int.recv() => break,
            _ = tick.tick() => {
                if clients.get() > 0 || !host.sessions.sessions().is_empty() {
                    last_busy = Instant::now();
                } else if last_busy.elapsed() >= setup.linger {
                    break;
                }
            }
        }
    }
    tracing::info!("the session host ends");
    // Clients no longer find it; the processes end before it does.
    let _ = std::fs::remove_file(&socket);
    let _ = std::fs::remove_file(&pid_path);
    host.sessions.end_all().await;
    Ok(())
}

fn signal(kind: tokio::signal::unix::SignalKind) -> Result<tokio::signal::unix::Signal, HostError> {
    tokio::signal::unix::signal(kind).map_err(|e| io_error("signal handler", Path::new(""), e))
}

fn io_error(what: &'static str, path: &Path, source: std::io::Error) -> HostError {
    HostError::Io {
        what,
        path: path.to_path_buf(),
        source,
    }
}

/// One client: its run line, its turn, its cancel lines. The client's end
/// of the connection closing cancels the turn.
async fn connection(stream: UnixStream, host: &Host) {
    let (read, mut write) = stream.into_split();
    let mut lines = BufReader::new(read).lines();
    let (out, mut out_rx) = mpsc::unbounded_channel::<HostLine>();
    let writer = tokio::task::spawn_local(async move {
        while let Some(line) = out_rx.recv().await {
            let Ok(mut text) = serde_json::to_string(&line) else {
                tracing::error!("a line for the client could not be encoded");
                continue;
            };
            text.push('\n');
            if write.write_all(text.as_bytes()).await.is_err() {
                // The client is gone: its reader cancels the turn.
                break;
            }
        }
        let _ = write.shutdown().await;
    });
    let request = match lines.next_line().await {
        Ok(Some(text)) => match serde_json::from_str::<ClientLine>(&text) {
            Ok(ClientLine::Run(request)) => Some(request),
            Ok(ClientLine::Cancel { .. }) => None,
            Err(e) => {
                let _ = out.send(refused(format!("an unreadable request: {e}")));
                None
            }
        },
        _ => None,
    };
    if let Some(request) = request {
        let (cancel_tx, cancel_rx) = mpsc::channel::<CancelRequest>(4);
        let reader = tokio::task::spawn_local(async move {
            loop {
                let (cancel, gone) = match lines.next_line().await {
                    Ok(Some(text)) => match serde_json::from_str::<ClientLine>(&text) {
                        Ok(ClientLine::Cancel { immediate }) => {
                            (CancelRequest { immediate }, false)
                        }
                        _ => continue,
                    },
                    // The client went away: its turn is not for anyone.
                    Ok(None) | Err(_) => (CancelRequest { immediate: false }, true),
                };
                if cancel_tx.send(cancel).await.is_err() || gone {
                    return;
                }
            }
        });
        run_turn(host, *request, out.clone(), cancel_rx).await;
        reader.abort();
    }
    drop(out);
    let _ = writer.await;
}

fn refused(message: String) -> HostLine {
    HostLine::Refused {
        message,
        exit_code: agentgate_protocol::EXIT_USAGE,
    }
}
