//! The wire protocols. Each module parses its request body into a
//! [`ChatRequest`](crate::ChatRequest) and renders a
//! [`Response`](crate::reply::Response) or an
//! [`ErrorReply`](crate::reply::ErrorReply) the way its provider does.

pub mod anthropic;
pub mod chat;
pub mod gemini;
mod openai_error;
pub mod responses;

use serde_json::Value;

/// What the URL said about a request (Gemini puts the model and the
/// streaming mode in the path; the others put them in the body).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PathInfo {
    /// The model named in the path, if any.
    pub model: Option<String>,
    /// Whether the path asks for a stream (`:streamGenerateContent`).
    pub stream: Option<bool>,
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The `event:` field, for protocols that name their events.
    pub event: Option<String>,
    /// The `data:` payload (one JSON document, or `[DONE]`).
    pub data: String,
    /// Whether this frame carries answer content (text, thinking or a tool
    /// call); a scripted mid-stream failure cuts after the first such frame.
    pub content: bool,
}

impl Frame {
    /// A frame with an event name.
    pub fn named(event: &str, data: &Value, content: bool) -> Self {
        Frame {
            event: Some(event.to_owned()),
            data: data.to_string(),
            content,
        }
    }

    /// A frame without an event name.
    pub fn data(data: &Value, content: bool) -> Self {
        Frame {
            event: None,
            data: data.to_string(),
            content,
        }
    }
}

/// A rendered answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    /// A single JSON body.
    Json(Value),
    /// An SSE stream.
    Sse(Vec<Frame>),
}

/// A request body the server could not understand.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid request body: {0}")]
pub struct BadRequest(pub String);

/// The text of a JSON value that may be a string or an array of typed parts
/// (`[{"type": "text", "text": ...}]`), concatenated.
pub(crate) fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => {
            let mut out = String::new();
            for p in parts {
                if let Some(t) = p.get("text").and_then(Value::as_str) {
                    crate::request::push_text(&mut out, t);
                } else if let Value::String(s) = p {
                    crate::request::push_text(&mut out, s);
                }
            }
            out
        }
        _ => String::new(),
    }
}
