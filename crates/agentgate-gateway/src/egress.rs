//! The egress proxy of a `--sandbox strict` run: an HTTP CONNECT proxy on a
//! Unix socket that opens a tunnel only to the `host:port` destinations of
//! the run's `egress_allow`, matched by the host name the CLI asked for
//! (never by a resolved address or a port alone), and refuses every other
//! with 403. The sandbox relays a loopback port inside the CLI's network
//! namespace to the socket, and the CLI is given `HTTPS_PROXY`.
//!
//! `allow.rs` parses the entries and matches destinations (pure);
//! `connection.rs` serves one connection (the head read with bounds, the
//! answer, the tunnel); `notice.rs` is what is reported. This file accepts, counts, reports refusals
//! ([`EgressNotice`], at most [`MAX_NOTICES`] of them, then only counted)
//! and stops: at [`EgressProxy::shutdown`] it stops accepting and closes
//! every tunnel, idle or not. Imports go one way: this file →
//! `connection` → (`allow`, `notice`); the socket file is
//! `unix_socket.rs`'s.

mod allow;
mod connection;
mod notice;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use tokio::net::UnixListener;
use tokio::sync::{Semaphore, mpsc, watch};

use crate::GatewayError;
use crate::unix_socket::{SocketFile, bind_unix};
use allow::AllowList;
pub use notice::{EgressNotice, EgressRefusal};

/// Refusals sent as notices, at most (past it they are only counted in
/// [`EgressSummary::refused`]).
pub const MAX_NOTICES: u32 = 100;

/// Connections served at once, at most; one past it is closed unanswered.
const MAX_CONNECTIONS: usize = 256;

/// How long [`EgressProxy::shutdown`] waits for the connections to close.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(2);

/// The egress proxy's totals.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EgressSummary {
    /// Tunnels opened.
    pub tunnels: u32,
    /// Destinations refused (noticed or not).
    pub refused: u32,
}

/// What every connection shares.
#[derive(Debug)]
struct Shared {
    allow: AllowList,
    tunnels: AtomicU32,
    refused: AtomicU32,
    notices: mpsc::UnboundedSender<EgressNotice>,
}

/// A running egress proxy, serving until [`EgressProxy::shutdown`] (or
/// dropped).
#[derive(Debug)]
pub struct EgressProxy {
    socket: PathBuf,
    shared: Arc<Shared>,
    stop: watch::Sender<bool>,
    accept: tokio::task::JoinHandle<()>,
    connections_done: mpsc::Receiver<()>,
    notices: Option<mpsc::UnboundedReceiver<EgressNotice>>,
    _file: SocketFile,
}

impl EgressProxy {
    /// Listen on `socket` (created, mode 600) and tunnel to the `allow`
    /// destinations (`host:port`, a host name or an address; `*.example.com`
    /// matches its subdomains).
    pub async fn start(allow: &[String], socket: &Path) -> Result<EgressProxy, GatewayError> {
        let allow = AllowList::parse(allow).map_err(GatewayError::EgressAllow)?;
        let (listener, file) = bind_unix(socket).map_err(GatewayError::BindUnix)?;
        let (notices, notice_rx) = mpsc::unbounded_channel();
        let shared = Arc::new(Shared {
            allow,
            tunnels: AtomicU32::new(0),
            refused: AtomicU32::new(0),
            notices,
        });
        let (stop, stop_rx) = watch::channel(false);
        let (token, connections_done) = mpsc::channel(1);
        let accept = tokio::spawn(accept_loop(listener, shared.clone(), stop_rx, token));
        tracing::debug!(socket = %socket.display(), "egress proxy listening");
        Ok(EgressProxy {
            socket: socket.to_path_buf(),
            shared,
            stop,
            accept,
            connections_done,
            notices: Some(notice_rx),
            _file: file,
        })
    }

    /// The Unix socket it listens on.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The refusals as they happen (once: `None` after the first call).
    pub fn notices(&mut self) -> Option<mpsc::UnboundedReceiver<EgressNotice>> {
        self.notices.take()
    }

    /// The totals so far.
    pub fn summary(&self) -> EgressSummary {
        EgressSummary {
            tunnels: self.shared.tunnels.load(Ordering::SeqCst),
            refused: self.shared.refused.load(Ordering::SeqCst),
        }
    }

    /// Stop accepting and close the tunnels (waiting about 2 s at most for
    /// them to go), and remove the socket.
    pub async fn shutdown(mut self) {
        self.stop.send_replace(true);
        let _ = (&mut self.accept).await;
        let closed = tokio::time::timeout(CLOSE_TIMEOUT, self.connections_done.recv()).await;
        if closed.is_err() {
            tracing::warn!("egress proxy: connections still open after {CLOSE_TIMEOUT:?}");
        }
    }
}

impl Drop for EgressProxy {
    fn drop(&mut self) {
        // Dropped without shutdown: the tasks end too.
        self.stop.send_replace(true);
    }
}

async fn accept_loop(
    listener: UnixListener,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    token: mpsc::Sender<()>,
) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|stopped| *stopped) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(%error, "egress proxy: accept failed");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::warn!("egress proxy: {MAX_CONNECTIONS} connections open; one closed");
            continue;
        };
        let shared = shared.clone();
        let stop = stop.clone();
        let token = token.clone();
        tokio::spawn(async move {
            let refused = |notice: &EgressNotice| {
                let number = shared.refused.fetch_add(1, Ordering::SeqCst) + 1;
                tracing::debug!(?notice, "egress proxy: refused");
                if number <= MAX_NOTICES {
                    let _ = shared.notices.send(notice.clone());
                }
            };
            let opened = || {
                shared.tunnels.fetch_add(1, Ordering::SeqCst);
            };
            let mut stop = stop;
            // The proxy's stop ends every connection where it is: reading
            // the head, connecting, or in a tunnel, idle or not.
            tokio::select! {
                () = connection::serve(stream, &shared.allow, refused, opened) => {}
                _ = stop.wait_for(|stopped| *stopped) => {}
            }
            drop((slot, token));
        });
    }
}
