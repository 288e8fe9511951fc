//! The response body passed back to the CLI frame by frame as it comes
//! (nothing held back), read by the wire tap on the way; the bound on its
//! size; and the call's end when the body ends, fails, or the CLI goes
//! away.

use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Instant;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;

use super::call::{CallTrack, ResponseFacts};
use super::record::{RECORD_BODY_MAX, RecordedResponse};
use crate::wire::ResponseTap;

/// The error a body passes to hyper (which then aborts the connection to
/// the CLI, so a stream cut short is never taken for a whole one).
pub(crate) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// A model call's part of a response: its tap, what is known of the
/// response, and what is recorded of it.
#[derive(Debug)]
pub(crate) struct TappedCall {
    pub track: CallTrack,
    pub tap: ResponseTap,
    pub facts: ResponseFacts,
    /// The response's headers and body so far, when the run records.
    pub recorded: Option<RecordedResponse>,
}

/// The upstream's body on its way to the CLI.
#[derive(Debug)]
pub(crate) struct TappedBody {
    inner: Incoming,
    max_bytes: u64,
    passed: u64,
    arrived: Instant,
    first_byte: bool,
    call: Option<TappedCall>,
}

impl TappedBody {
    /// `inner` passed on up to `max_bytes`; `call` when it is a model
    /// call's.
    pub fn new(
        inner: Incoming,
        max_bytes: u64,
        arrived: Instant,
        call: Option<TappedCall>,
    ) -> TappedBody {
        TappedBody {
            inner,
            max_bytes,
            passed: 0,
            arrived,
            first_byte: false,
            call,
        }
    }

    /// End the model call (once): `error` when the body did not end well.
    fn end(&mut self, error: Option<String>) {
        if let Some(call) = self.call.take() {
            let mut facts = call.facts;
            facts.bytes = self.passed;
            facts.report = call.tap.finish();
            let recorded = call.recorded.map(|mut r| {
                r.error.clone_from(&error);
                r
            });
            call.track.end_responded(facts, error, recorded);
        }
    }

    fn on_data(&mut self, data: &Bytes) {
        if !self.first_byte && !data.is_empty() {
            self.first_byte = true;
            if let Some(call) = self.call.as_mut() {
                call.facts.ttft = Some(self.arrived.elapsed());
            }
        }
        self.passed += data.len() as u64;
        if let Some(call) = self.call.as_mut() {
            call.tap.push(data);
            if let Some(recorded) = call.recorded.as_mut() {
                let room = RECORD_BODY_MAX.saturating_sub(recorded.body.len());
                if data.len() > room {
                    recorded.body_truncated = true;
                }
                recorded
                    .body
                    .extend_from_slice(&data[..data.len().min(room)]);
            }
        }
    }
}

impl Body for TappedBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = self.get_mut();
        match ready!(Pin::new(&mut this.inner).poll_frame(cx)) {
            Some(Ok(frame)) => {
                if let Some(data) = frame.data_ref() {
                    if this.passed + data.len() as u64 > this.max_bytes {
                        let error = format!(
                            "the response passed max_response_bytes ({} bytes) and was cut after {} bytes",
                            this.max_bytes, this.passed
                        );
                        this.end(Some(error.clone()));
                        return Poll::Ready(Some(Err(error.into())));
                    }
                    this.on_data(data);
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Some(Err(e)) => {
                let error = format!("upstream reset the stream after {} bytes: {e}", this.passed);
                this.end(Some(error.clone()));
                Poll::Ready(Some(Err(error.into())))
            }
            None => {
                this.end(None);
                Poll::Ready(None)
            }
        }
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for TappedBody {
    fn drop(&mut self) {
        if self.call.is_some() {
            let error = format!("the CLI closed the connection after {} bytes", self.passed);
            self.end(Some(error));
        }
    }
}
