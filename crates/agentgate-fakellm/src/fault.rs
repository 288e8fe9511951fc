//! Streams that break part way (a turn's `fail:` or `hang: mid_stream`).
//!
//! Every break happens after the first frame that carries content (text,
//! thinking or a tool call), so that the client has started its answer:
//! the frames after it are dropped and the stream ends the way the
//! [`Cut`] says, with the API's own in-stream error event where there is
//! one. The server sends the frames and carries out the [`Ending`].

use crate::api::{self, Frame};
use crate::reply::{Cut, ErrorReply, Response};
use crate::request::{Api, ChatRequest};

/// How a streamed body ends once its frames are sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ending {
    /// The stream ends normally.
    Complete,
    /// The connection is closed abruptly (no terminating chunk).
    Close,
    /// The connection stays open until the client goes away or the server stops.
    Hang,
}

/// Cut `frames` (a whole answer to `req`) after its first content frame
/// as `cut` says: the frames to send and how the stream ends.
pub fn break_off(
    req: &ChatRequest,
    resp: &Response,
    mut frames: Vec<Frame>,
    cut: &Cut,
) -> (Vec<Frame>, Ending) {
    let sent = frames
        .iter()
        .position(|f| f.content)
        .map_or(frames.len(), |i| i + 1);
    frames.truncate(sent);
    let ending = match cut {
        Cut::Fail => Ending::Close,
        Cut::Hang => Ending::Hang,
        Cut::NoFinish => Ending::Complete,
        Cut::ErrorEvent(err) => {
            frames.push(stream_error(req, resp, err, false, sent));
            Ending::Complete
        }
        Cut::ResponseFailed(err) => {
            frames.push(stream_error(req, resp, err, true, sent));
            Ending::Complete
        }
    };
    (frames, ending)
}

/// The in-stream error event that ends `resp`'s stream after `sent` frames
/// (`failed`: Responses' `response.failed` instead of a bare `error`).
fn stream_error(
    req: &ChatRequest,
    resp: &Response,
    err: &ErrorReply,
    failed: bool,
    sent: usize,
) -> Frame {
    match req.api {
        Api::Anthropic => api::anthropic::stream_error(err),
        Api::Responses => api::responses::stream_error(req, resp, err, failed, sent),
        Api::Chat => api::chat::stream_error(err),
        Api::Gemini => api::gemini::stream_error(err),
    }
}
