//! What one connection is doing, for its timeouts: waiting for a request
//! head (since when), idle between requests (since when), or serving a
//! request (no deadline: an event stream may last hours, and sends its own
//! keep-alive comments).
//!
//! Three things move it: [`WatchedIo`] sees bytes arrive (an idle
//! connection starts a new head), the service takes a request
//! ([`ConnWatch::request_started`]), and the [`Busy`] guard the response
//! body carries is dropped once hyper has sent the body (or the
//! connection ends). Each move wakes the connection's task, which then
//! computes its next deadline ([`ConnWatch::deadline`]).

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::time::Instant;

/// What the connection waits for, and since when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// A request head: the connection is new, or bytes of a next request
    /// arrived on a kept-alive one.
    Head { since: Instant },
    /// Nothing: the last response went out, no byte of a next request yet.
    Idle { since: Instant },
}

#[derive(Debug)]
struct State {
    phase: Phase,
    /// Requests whose response is not sent yet (HTTP/1.1: one at a time).
    in_flight: usize,
}

/// The phase of one connection, shared by its IO, its service and its task.
#[derive(Debug)]
pub(super) struct ConnWatch {
    state: Mutex<State>,
    changed: Notify,
    header_read_timeout: Duration,
    idle_timeout: Duration,
}

impl ConnWatch {
    /// A connection accepted now: waiting for its first request head.
    pub(super) fn new(header_read_timeout: Duration, idle_timeout: Duration) -> ConnWatch {
        ConnWatch {
            state: Mutex::new(State {
                phase: Phase::Head {
                    since: Instant::now(),
                },
                in_flight: 0,
            }),
            changed: Notify::new(),
            header_read_timeout,
            idle_timeout,
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// When the connection is to be closed unless something moves; `None`
    /// while a request is being served.
    pub(super) fn deadline(&self) -> Option<Instant> {
        let state = self.state();
        if state.in_flight > 0 {
            return None;
        }
        Some(match state.phase {
            Phase::Head { since } => since + self.header_read_timeout,
            Phase::Idle { since } => since + self.idle_timeout,
        })
    }

    /// Whether a request is being served.
    pub(super) fn serving(&self) -> bool {
        self.state().in_flight > 0
    }

    /// Wakes when the phase changed (a wake-up that came before the call is
    /// kept: [`Notify::notify_one`]).
    pub(super) async fn changed(&self) {
        self.changed.notified().await;
    }

    /// Bytes arrived: on an idle connection they start the next head.
    fn bytes_read(&self) {
        let mut state = self.state();
        if state.in_flight == 0 && matches!(state.phase, Phase::Idle { .. }) {
            state.phase = Phase::Head {
                since: Instant::now(),
            };
            drop(state);
            self.changed.notify_one();
        }
    }

    /// The service took a request; the guard goes with its response body.
    pub(super) fn request_started(self: &Arc<Self>) -> Busy {
        self.state().in_flight += 1;
        self.changed.notify_one();
        Busy(Arc::clone(self))
    }
}

/// A request being served: dropped when its response body is done.
#[derive(Debug)]
pub(super) struct Busy(Arc<ConnWatch>);

impl Drop for Busy {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.in_flight = state.in_flight.saturating_sub(1);
        if state.in_flight == 0 {
            state.phase = Phase::Idle {
                since: Instant::now(),
            };
        }
        drop(state);
        self.0.changed.notify_one();
    }
}

/// The connection's socket, telling its [`ConnWatch`] when bytes arrive.
#[derive(Debug)]
pub(super) struct WatchedIo {
    pub(super) stream: TcpStream,
    pub(super) watch: Arc<ConnWatch>,
}

impl AsyncRead for WatchedIo {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.bytes_read();
        }
        polled
    }
}

impl AsyncWrite for WatchedIo {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.stream).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn phases_move_the_deadline() {
        let watch = Arc::new(ConnWatch::new(
            Duration::from_secs(10),
            Duration::from_secs(60),
        ));
        let start = Instant::now();
        assert_eq!(watch.deadline(), Some(start + Duration::from_secs(10)));
        // Bytes of the first head do not move its deadline.
        tokio::time::advance(Duration::from_secs(3)).await;
        watch.bytes_read();
        assert_eq!(watch.deadline(), Some(start + Duration::from_secs(10)));
        let busy = watch.request_started();
        assert_eq!(watch.deadline(), None);
        assert!(watch.serving());
        tokio::time::advance(Duration::from_secs(100)).await;
        // Bytes read while serving (a body) change nothing.
        watch.bytes_read();
        assert_eq!(watch.deadline(), None);
        drop(busy);
        let idle = Instant::now();
        assert_eq!(watch.deadline(), Some(idle + Duration::from_secs(60)));
        assert!(!watch.serving());
        tokio::time::advance(Duration::from_secs(5)).await;
        watch.bytes_read();
        assert_eq!(
            watch.deadline(),
            Some(idle + Duration::from_secs(5) + Duration::from_secs(10)),
            "the next head has the header timeout, from its first byte"
        );
    }
}
