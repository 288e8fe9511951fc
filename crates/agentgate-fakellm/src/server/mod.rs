//! The HTTP server: how it is started (a script or a recording to answer
//! with, the request log, plain HTTP or TLS) and stopped. `handle.rs`
//! answers each request, `route.rs` says what a path asks for,
//! `respond.rs` builds the HTTP responses (JSON, SSE streams, breaks),
//! `shared.rs` is the state every request sees, `options.rs` what a
//! server is started with.

mod handle;
mod options;
mod respond;
mod route;
mod shared;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;

use crate::log::LogEntry;
use crate::tls;

pub use options::{Answers, ServerConfig, ServerOptions};
pub use respond::encode_frame;
pub use shared::Shared;

/// Request bodies up to this size are accepted (agent CLIs send large ones).
const BODY_LIMIT: usize = 256 * 1024 * 1024;

/// A running server.
#[derive(Debug)]
pub struct FakeLlm {
    addr: SocketAddr,
    https: bool,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl FakeLlm {
    /// Bind `addr` (port 0 picks a free port) and serve in the background.
    pub async fn start(
        addr: SocketAddr,
        config: impl Into<ServerOptions>,
    ) -> std::io::Result<FakeLlm> {
        let mut options = config.into();
        let tls = options.tls.take();
        let https = tls.is_some();
        let shared = Shared::new(options)?;
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let addr = listener.local_addr()?;
        let app = router(shared.clone());
        let stopped = shared.until_shutdown();
        let task = match tls {
            None => tokio::spawn(async move {
                use axum::serve::ListenerExt;
                // No Nagle delay: a streamed frame goes out as it is written
                // (a first frame would otherwise often wait ~40 ms for the
                // client's delayed ACK).
                let listener = listener.tap_io(|tcp| {
                    let _ = tcp.set_nodelay(true);
                });
                axum::serve(listener, app)
                    .with_graceful_shutdown(stopped)
                    .await
            }),
            Some(tls) => tokio::spawn(tls::serve(listener, tls, app, stopped)),
        };
        Ok(FakeLlm {
            addr,
            https,
            shared,
            task,
        })
    }

    /// The address it listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The base URL, `http://127.0.0.1:PORT` (`https://` with TLS; no
    /// trailing slash).
    pub fn url(&self) -> String {
        let scheme = if self.https { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// The requests logged so far.
    pub fn requests(&self) -> Vec<LogEntry> {
        self.shared.requests()
    }

    /// Uses left per scripted turn (`None` = unlimited), in script order.
    pub fn turns_remaining(&self) -> Vec<Option<u32>> {
        self.shared.turns_remaining()
    }

    /// Stop serving: hanging requests are released (with a 503), then the
    /// server waits for open connections to finish.
    pub async fn shutdown(self) -> std::io::Result<()> {
        self.shared.stop();
        match self.task.await {
            Ok(r) => r,
            Err(e) => Err(std::io::Error::other(e)),
        }
    }
}

/// The axum router (exposed for in-process tests).
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .fallback(handle::handle)
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(shared)
}
