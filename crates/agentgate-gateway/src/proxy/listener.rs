//! The listeners: the loopback port, and the Unix socket when the config
//! asks for one (a sandboxed CLI's way in, relayed from its own network
//! namespace). Both serve the same way: one HTTP/1.1 connection task per
//! CLI connection (hyper answers what is not HTTP with a 400), each
//! holding a token so shutdown can wait for them, and each told to finish
//! gracefully (its call in flight completes, no new one starts) when the
//! gateway stops. The Unix socket is made (mode 600) and removed by
//! `unix_socket.rs`.

use std::sync::Arc;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{mpsc, watch};

use super::Shared;
use super::forward;

/// Accept TCP connections until `stop` turns true.
pub(crate) async fn accept_loop(
    listener: TcpListener,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    token: mpsc::Sender<()>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|stopped| *stopped) => break,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            Err(error) => {
                accept_failed(error).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve_connection(
            stream,
            shared.clone(),
            stop.clone(),
            token.clone(),
        ));
    }
}

/// Accept Unix-socket connections until `stop` turns true.
pub(crate) async fn accept_unix_loop(
    listener: UnixListener,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    token: mpsc::Sender<()>,
) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.wait_for(|stopped| *stopped) => break,
        };
        match accepted {
            Ok((stream, _)) => {
                tokio::spawn(serve_connection(
                    stream,
                    shared.clone(),
                    stop.clone(),
                    token.clone(),
                ));
            }
            Err(error) => accept_failed(error).await,
        }
    }
}

/// Out of descriptors and the like: wait a little, go on.
async fn accept_failed(error: std::io::Error) {
    tracing::warn!(%error, "gateway: accept failed");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
}

async fn serve_connection<S>(
    stream: S,
    shared: Arc<Shared>,
    mut stop: watch::Receiver<bool>,
    _token: mpsc::Sender<()>,
) where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let service = service_fn(move |request| forward::handle(shared.clone(), request));
    let connection = http1::Builder::new()
        .timer(TokioTimer::new())
        .keep_alive(true)
        .serve_connection(TokioIo::new(stream), service);
    tokio::pin!(connection);
    let finished = tokio::select! {
        result = connection.as_mut() => Some(result),
        _ = stop.wait_for(|stopped| *stopped) => None,
    };
    let result = match finished {
        Some(result) => result,
        None => {
            connection.as_mut().graceful_shutdown();
            connection.await
        }
    };
    if let Err(error) = result {
        tracing::debug!(%error, "gateway: a connection ended with an error");
    }
}
