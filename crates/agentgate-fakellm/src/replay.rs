//! Replay of a gateway recording (`model-calls.jsonl`, written by
//! `agentgate run --gateway --record-model-calls`) instead of a script:
//! the recording read and checked line by line, and the player that hands
//! the n-th request of an API the n-th recorded call of that API (in the
//! order of the calls' numbers, which is the order they started in). The
//! server turns a [`RecordedResponse`] into its HTTP answer.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use axum::http::{HeaderName, HeaderValue, StatusCode};
use serde::Deserialize;

use crate::request::Api;

/// The recording format version this server reads.
const VERSION: u32 = 1;

/// Recorded headers that are not replayed: the server frames the body
/// itself (and the recorded body is the decoded text).
const NOT_REPLAYED: &[&str] = &[
    "content-length",
    "transfer-encoding",
    "content-encoding",
    "connection",
    "keep-alive",
    "upgrade",
    "te",
    "trailer",
];

/// A recording, its calls grouped by API.
#[derive(Debug, Clone)]
pub struct Recording {
    /// Where it was read from (for messages).
    name: String,
    /// Per API, its calls in call order.
    calls: BTreeMap<ApiKey, Vec<RecordedCall>>,
}

/// [`Api`] as a map key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ApiKey(u8);

fn key(api: Api) -> ApiKey {
    ApiKey(match api {
        Api::Anthropic => 0,
        Api::Responses => 1,
        Api::Chat => 2,
        Api::Gemini => 3,
    })
}

/// One recorded model call.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedCall {
    /// Its number in the recorded run (`call`).
    pub call: u64,
    /// Its line in the file, from 1.
    pub line: usize,
    /// What the upstream answered; `None` when nothing came.
    pub response: Option<RecordedResponse>,
}

/// A recorded response.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedResponse {
    /// The HTTP status.
    pub status: StatusCode,
    /// The headers to replay (content type, rate-limit headers, ...).
    pub headers: Vec<(HeaderName, HeaderValue)>,
    /// The body text.
    pub body: String,
    /// The recorded response was cut short (an `error`, or a body
    /// recorded cut): the replay breaks the connection after the body.
    pub cut: bool,
}

impl RecordedResponse {
    /// Whether the body is an event stream (`text/event-stream`).
    pub fn is_event_stream(&self) -> bool {
        self.headers.iter().any(|(n, v)| {
            n == axum::http::header::CONTENT_TYPE
                && v.to_str()
                    .is_ok_and(|t| t.trim_start().starts_with("text/event-stream"))
        })
    }
}

/// A recording that cannot be replayed.
#[derive(Debug, thiserror::Error)]
pub enum RecordingError {
    /// The file could not be read.
    #[error("failed to read the recording {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// A line is not a recorded call.
    #[error("invalid recording {path}: line {line}: {message}")]
    Line {
        /// The file.
        path: String,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// The file holds no call.
    #[error("the recording {path} holds no model call")]
    Empty {
        /// The file.
        path: String,
    },
}

/// One line as written.
#[derive(Debug, Deserialize)]
struct LineFile {
    v: u32,
    call: u64,
    api: String,
    response: Option<ResponseFile>,
}

#[derive(Debug, Deserialize)]
struct ResponseFile {
    status: u16,
    #[serde(default)]
    headers: BTreeMap<String, String>,
    #[serde(default)]
    body: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    body_truncated: bool,
}

impl Recording {
    /// Read and check a recording file.
    pub fn from_path(path: &Path) -> Result<Recording, RecordingError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| RecordingError::Read {
            path: name.clone(),
            source,
        })?;
        Self::parse(&text, &name)
    }

    /// Check the text of a recording (`name` says where it came from).
    pub fn parse(text: &str, name: &str) -> Result<Recording, RecordingError> {
        let mut calls: BTreeMap<ApiKey, Vec<RecordedCall>> = BTreeMap::new();
        for (i, raw) in text.lines().enumerate() {
            if raw.trim().is_empty() {
                continue;
            }
            let line = i + 1;
            let bad = |message: String| RecordingError::Line {
                path: name.to_owned(),
                line,
                message,
            };
            let (api, call) = parse_line(raw, line).map_err(bad)?;
            calls.entry(key(api)).or_default().push(call);
        }
        if calls.is_empty() {
            return Err(RecordingError::Empty {
                path: name.to_owned(),
            });
        }
        for list in calls.values_mut() {
            list.sort_by_key(|c| c.call);
        }
        Ok(Recording {
            name: name.to_owned(),
            calls,
        })
    }

    /// Where it was read from.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many calls of `api` it holds.
    pub fn count(&self, api: Api) -> usize {
        self.calls.get(&key(api)).map_or(0, Vec::len)
    }

    /// How many calls it holds in all.
    pub fn len(&self) -> usize {
        self.calls.values().map(Vec::len).sum()
    }

    /// Whether it holds no call (never true of a loaded recording).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn api_of(wire: &str) -> Option<Api> {
    Some(match wire {
        "anthropic_messages" => Api::Anthropic,
        "openai_responses" => Api::Responses,
        "openai_chat" => Api::Chat,
        "gemini" => Api::Gemini,
        _ => return None,
    })
}

fn parse_line(raw: &str, line: usize) -> Result<(Api, RecordedCall), String> {
    let file: LineFile =
        serde_json::from_str(raw).map_err(|e| format!("not a recorded call: {e}"))?;
    if file.v != VERSION {
        return Err(format!(
            "format version {} (this fake-llm reads version {VERSION})",
            file.v
        ));
    }
    let api = api_of(&file.api).ok_or_else(|| {
        format!(
            "unknown api {:?} (anthropic_messages, openai_responses, openai_chat, gemini)",
            file.api
        )
    })?;
    let response = match file.response {
        None => None,
        Some(r) => {
            let status = StatusCode::from_u16(r.status)
                .map_err(|_| format!("response status {} is not an HTTP status", r.status))?;
            let mut headers = Vec::with_capacity(r.headers.len());
            for (name, value) in &r.headers {
                let header = HeaderName::from_bytes(name.as_bytes())
                    .map_err(|_| format!("{name:?} is not a valid header name"))?;
                if NOT_REPLAYED.contains(&header.as_str()) {
                    continue;
                }
                let value = HeaderValue::from_str(value)
                    .map_err(|_| format!("the value of header `{header}` is not valid"))?;
                headers.push((header, value));
            }
            Some(RecordedResponse {
                status,
                headers,
                body: r.body,
                cut: r.error.is_some() || r.body_truncated,
            })
        }
    };
    Ok((
        api,
        RecordedCall {
            call: file.call,
            line,
            response,
        },
    ))
}

/// What the next request of an API gets.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    /// This recorded call (its position among the API's calls, from 1).
    Call(usize, RecordedCall),
    /// The recording has no more calls of the API (it had this many).
    Exhausted(usize),
}

/// The replay player: shared by all requests of one server.
#[derive(Debug)]
pub struct Replay {
    recording: Recording,
    /// Per API, how many of its calls were served.
    served: Mutex<BTreeMap<ApiKey, usize>>,
}

impl Replay {
    /// A player of `recording`, from its first call.
    pub fn new(recording: Recording) -> Replay {
        Replay {
            recording,
            served: Mutex::new(BTreeMap::new()),
        }
    }

    /// The recording played.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Take the next call of `api`.
    pub fn next(&self, api: Api) -> Next {
        let mut served = match self.served.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        let n = served.entry(key(api)).or_insert(0);
        match self.recording.calls.get(&key(api)).and_then(|c| c.get(*n)) {
            Some(call) => {
                *n += 1;
                Next::Call(*n, call.clone())
            }
            None => Next::Exhausted(self.recording.count(api)),
        }
    }
}

/// Split an SSE body into its events, each with the blank line that ends
/// it (`\n\n` or `\r\n\r\n`); a last event without one is kept as it is.
pub fn events(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = body;
    loop {
        let lf = rest.find("\n\n").map(|i| i + 2);
        let crlf = rest.find("\r\n\r\n").map(|i| i + 4);
        let end = match (lf, crlf) {
            (Some(a), Some(b)) => a.min(b),
            (Some(a), None) | (None, Some(a)) => a,
            (None, None) => break,
        };
        let (event, after) = rest.split_at(end);
        out.push(event.to_owned());
        rest = after;
    }
    if !rest.is_empty() {
        out.push(rest.to_owned());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_stream_splits_at_blank_lines_and_keeps_every_byte() {
        let body = "event: a\ndata: 1\n\ndata: 2\r\n\r\ndata: [DONE]\n\ntail";
        let parts = events(body);
        assert_eq!(
            parts,
            [
                "event: a\ndata: 1\n\n",
                "data: 2\r\n\r\n",
                "data: [DONE]\n\n",
                "tail"
            ]
        );
        assert_eq!(parts.concat(), body);
    }
}
