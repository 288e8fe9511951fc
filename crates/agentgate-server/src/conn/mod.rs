//! The server's own accept loop: how many connections it keeps, and how
//! long one may say nothing.
//!
//! `axum::serve` keeps every connection for as long as the peer likes, so
//! slow or idle sockets pile up until nothing new gets in. Here each
//! connection is served by hyper's HTTP/1.1 connection under three
//! [`ConnLimits`]:
//!
//! - **the header-read timeout**: a request head (request line and
//!   headers) must arrive whole within it, counted from the accept, or on
//!   a kept-alive connection from the first byte of the next request;
//! - **the idle timeout**: a kept-alive connection with no request under
//!   way and no byte of a next one is closed after it;
//! - **the connection limit**: past it a new connection gets a short `503`
//!   and is closed at once (it never reaches hyper), until others close.
//!
//! hyper's own `header_read_timeout` is off: hyper starts that timer when
//! a kept-alive connection goes idle, so it would close idle connections
//! after the header timeout and leave no room for a longer idle timeout.
//! The timers here follow the connection's phase instead
//! ([`watch::ConnWatch`]); while a request is served (an event stream may
//! last hours) neither runs.
//!
//! Each connection is a task of one `JoinSet`, holding one permit of the
//! limit's semaphore. Stopping (the `stop` watch turns true): the listener
//! is dropped, connections that are not serving a request are closed,
//! the others finish their request (hyper's graceful shutdown: no
//! keep-alive after it) and [`serve`] returns when the last one ended. The
//! caller bounds that wait with its grace; dropping [`serve`]'s future
//! drops every connection.

mod room;
mod watch;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use bytes::Bytes;
use hyper::body::{Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinSet;
use tower::ServiceExt;

pub(crate) use room::connections_within;
use watch::{Busy, ConnWatch, WatchedIo};

/// How long a request head may take to arrive, without `--header-timeout`.
pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a kept-alive connection may sit idle, without `--idle-timeout`.
pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(60);
/// How many connections are served at once, without `--max-connections`.
pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
/// The largest request head (request line and headers) read: hyper's
/// buffer for a connection never grows past it, so a connection holds at
/// most this much before its request is authenticated. A larger head gets
/// `431`.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;

/// The bounds every connection is served under (see the module notes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConnLimits {
    /// A request head must arrive whole within this.
    pub header_read_timeout: Duration,
    /// A kept-alive connection with nothing under way is closed after this.
    pub idle_timeout: Duration,
    /// Connections served at once; more are refused with `503`.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_read_timeout: DEFAULT_HEADER_READ_TIMEOUT,
            idle_timeout: DEFAULT_IDLE_TIMEOUT,
            max_connections: DEFAULT_MAX_CONNECTIONS,
        }
    }
}

/// The body of the `503` a connection over the limit gets.
const BUSY_BODY: &str = "{\"error\":{\"type\":\"unavailable\",\"message\":\"the server is serving \
                         as many connections as it allows (--max-connections); try again shortly\"}}\n";

/// The whole `503` answer: a connection over the limit never reaches hyper.
fn busy_response() -> String {
    format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\n\
         retry-after: 1\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{BUSY_BODY}",
        BUSY_BODY.len()
    )
}

/// Serve `app` on `listener` until `stop` turns true and every connection
/// has ended (see the module notes). Requests carry their peer's address
/// as [`ConnectInfo<SocketAddr>`].
pub(crate) async fn serve(
    listener: TcpListener,
    app: Router,
    limits: ConnLimits,
    mut stop: tokio::sync::watch::Receiver<bool>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let mut connections = JoinSet::new();
    let told = stop.clone();
    loop {
        tokio::select! {
            () = stopped(&mut stop) => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => match accepted {
                Ok((stream, peer)) => match Arc::clone(&slots).try_acquire_owned() {
                    Ok(permit) => {
                        let connection = Connection {
                            app: app.clone(),
                            limits,
                            peer,
                            _permit: permit,
                        };
                        connections.spawn(connection.serve(stream, told.clone()));
                    }
                    Err(_) => refuse(&stream, peer),
                },
                Err(e) if is_connection_error(&e) => {}
                Err(e) => {
                    // Out of file descriptors, most likely: wait for some
                    // to be freed rather than spin.
                    tracing::warn!(error = %e, "failed to accept a connection");
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        }
    }
    drop(listener);
    while connections.join_next().await.is_some() {}
}

fn is_connection_error(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::ConnectionRefused
            | std::io::ErrorKind::ConnectionAborted
            | std::io::ErrorKind::ConnectionReset
    )
}

/// A connection over the limit: whatever it sent already is read (so the
/// close is not a reset that could lose the answer), a `503` written, and
/// the socket closed. Nothing waits: a peer that is slow gets the close.
fn refuse(stream: &TcpStream, peer: SocketAddr) {
    let mut scratch = [0u8; 4096];
    // At most 64 KiB: a peer that keeps sending gets the close sooner.
    for _ in 0..16 {
        if !matches!(stream.try_read(&mut scratch), Ok(n) if n > 0) {
            break;
        }
    }
    let _ = stream.try_write(busy_response().as_bytes());
    tracing::debug!(%peer, "refused a connection: at the connection limit");
}

/// One accepted connection, holding its slot.
struct Connection {
    app: Router,
    limits: ConnLimits,
    peer: SocketAddr,
    _permit: OwnedSemaphorePermit,
}

impl Connection {
    async fn serve(self, stream: TcpStream, mut stop: tokio::sync::watch::Receiver<bool>) {
        let _ = stream.set_nodelay(true);
        let watch = Arc::new(ConnWatch::new(
            self.limits.header_read_timeout,
            self.limits.idle_timeout,
        ));
        let io = TokioIo::new(WatchedIo {
            stream,
            watch: Arc::clone(&watch),
        });
        let (app, peer, requests) = (self.app, self.peer, Arc::clone(&watch));
        let service = hyper::service::service_fn(move |mut request: hyper::Request<Incoming>| {
            request.extensions_mut().insert(ConnectInfo(peer));
            let busy = requests.request_started();
            let app = app.clone();
            async move {
                let response = app.oneshot(request).await?;
                Ok::<_, Infallible>(response.map(|body| GuardedBody { body, _busy: busy }))
            }
        });
        let connection = http1::Builder::new()
            .timer(TokioTimer::new())
            .header_read_timeout(None)
            .keep_alive(true)
            .max_buf_size(MAX_HEAD_BYTES)
            .serve_connection(io, service);
        tokio::pin!(connection);
        let mut stopping = false;
        loop {
            let deadline = watch.deadline();
            tokio::select! {
                ended = connection.as_mut() => {
                    if let Err(e) = ended {
                        tracing::debug!(%peer, error = %e, "a connection ended with an error");
                    }
                    return;
                }
                () = sleep_until(deadline) => {
                    if watch.deadline().is_some_and(|d| d <= tokio::time::Instant::now()) {
                        tracing::debug!(%peer, "closed a connection: a request head or an idle spell took too long");
                        return;
                    }
                }
                () = watch.changed() => {}
                () = stopped(&mut stop), if !stopping => {
                    if !watch.serving() {
                        return;
                    }
                    stopping = true;
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}

/// Returns once `stop` is true (or its sender is gone).
async fn stopped(stop: &mut tokio::sync::watch::Receiver<bool>) {
    // An error: the server is gone, as good as stopped.
    drop(stop.wait_for(|stopping| *stopping).await);
}

/// Sleeps until `deadline`; forever without one.
async fn sleep_until(deadline: Option<tokio::time::Instant>) {
    match deadline {
        Some(at) => tokio::time::sleep_until(at).await,
        None => std::future::pending().await,
    }
}

/// A response body that marks its request done when hyper drops it (sent,
/// or the connection ended).
struct GuardedBody {
    body: Body,
    _busy: Busy,
}

impl http_body::Body for GuardedBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_busy_answer_is_whole_json_with_its_length() {
        let answer = busy_response();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 503 "), "{head}");
        assert!(
            head.contains(&format!("content-length: {}", body.len())),
            "{head}"
        );
        let value: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(value["error"]["type"], "unavailable");
    }
}
