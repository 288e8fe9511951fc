//! The recording of a run's model calls, `model-calls.jsonl` (the format
//! is in docs/guide/gateway.md, "Recording and replay"): one line per call, written by a thread of its own
//! when the call ends, redacted, file mode 0600. A write that fails is a
//! warning, never the call's failure.

use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, mpsc};
use std::time::Duration;

use bytes::Bytes;
use http::HeaderMap;
use serde::Serialize;

use crate::config::Redact;

/// The file a run's calls are recorded in.
pub(crate) const RECORD_FILE: &str = "model-calls.jsonl";

/// A response body is recorded up to this size, then cut.
pub(crate) const RECORD_BODY_MAX: usize = 16 << 20;

/// Headers never recorded (credentials).
const CREDENTIAL_HEADERS: [&str; 6] = [
    "authorization",
    "x-api-key",
    "x-goog-api-key",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// One call to record.
#[derive(Debug)]
pub(crate) struct RecordedCall {
    pub call: u32,
    pub api: &'static str,
    pub method: String,
    pub path: String,
    /// The query, its `key=` left out.
    pub query: Option<String>,
    pub request_headers: Vec<(String, String)>,
    pub request_body: Bytes,
    pub response: Option<RecordedResponse>,
}

/// The response of a recorded call.
#[derive(Debug)]
pub(crate) struct RecordedResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub body_truncated: bool,
    pub error: Option<String>,
}

/// The headers worth recording: lower-case names, text values, without
/// credentials (hop-by-hop ones are already gone).
pub(crate) fn recordable_headers(headers: &HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .filter(|(name, _)| !CREDENTIAL_HEADERS.contains(&name.as_str()))
        .map(|(name, value)| {
            (
                name.as_str().to_owned(),
                String::from_utf8_lossy(value.as_bytes()).into_owned(),
            )
        })
        .collect()
}

/// Writes the recording on a thread of its own.
#[derive(Debug)]
pub(crate) struct Recorder {
    sender: Mutex<Option<mpsc::Sender<RecordedCall>>>,
    thread: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Recorder {
    /// Start recording into `dir/model-calls.jsonl`.
    pub fn start(dir: &Path, redact: Option<Redact>) -> Recorder {
        let (sender, receiver) = mpsc::channel::<RecordedCall>();
        let path = dir.join(RECORD_FILE);
        let thread = std::thread::Builder::new()
            .name("gateway-record".into())
            .spawn(move || write_loop(&path, redact.as_ref(), &receiver));
        let thread = match thread {
            Ok(thread) => Some(thread),
            Err(error) => {
                tracing::warn!(%error, "gateway: the recording could not start; calls are not recorded");
                None
            }
        };
        Recorder {
            sender: Mutex::new(thread.is_some().then_some(sender)),
            thread: Mutex::new(thread),
        }
    }

    /// Record a call (its line is written in the background).
    pub fn record(&self, call: RecordedCall) {
        let sender = match self.sender.lock() {
            Ok(sender) => sender,
            Err(poisoned) => poisoned.into_inner(),
        };
        if let Some(sender) = sender.as_ref()
            && sender.send(call).is_err()
        {
            tracing::warn!("gateway: the recording has stopped; a call is not recorded");
        }
    }

    /// Stop taking calls and wait (at most `timeout`) for the lines taken.
    pub async fn close(&self, timeout: Duration) {
        drop(take(&self.sender));
        let Some(thread) = take(&self.thread) else {
            return;
        };
        let joined = tokio::task::spawn_blocking(move || thread.join());
        if tokio::time::timeout(timeout, joined).await.is_err() {
            tracing::warn!("gateway: the recording is still being written after {timeout:?}");
        }
    }
}

/// Take what a mutex holds, poisoned or not.
fn take<T>(mutex: &Mutex<Option<T>>) -> Option<T> {
    match mutex.lock() {
        Ok(mut guard) => guard.take(),
        Err(poisoned) => poisoned.into_inner().take(),
    }
}

/// The file, opened (created 0600) when the first line comes.
fn write_loop(path: &Path, redact: Option<&Redact>, receiver: &mpsc::Receiver<RecordedCall>) {
    let mut file: Option<File> = None;
    for call in receiver {
        let line = line_of(&call, redact);
        if file.is_none() {
            file = open(path);
        }
        if let Some(f) = file.as_mut()
            && let Err(error) = f.write_all(line.as_bytes())
        {
            tracing::warn!(%error, path = %path.display(), "gateway: a recorded call could not be written");
            file = None;
        }
    }
}

fn open(path: &Path) -> Option<File> {
    if let Some(dir) = path.parent()
        && let Err(error) = std::fs::create_dir_all(dir)
    {
        tracing::warn!(%error, dir = %dir.display(), "gateway: the recording's folder could not be made");
    }
    match OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)
    {
        Ok(file) => Some(file),
        Err(error) => {
            tracing::warn!(%error, path = %PathBuf::from(path).display(), "gateway: the recording could not be opened");
            None
        }
    }
}

#[derive(Serialize)]
struct Line<'a> {
    v: u32,
    call: u32,
    api: &'a str,
    method: &'a str,
    path: String,
    query: Option<String>,
    request: Message,
    response: Option<ResponseLine>,
}

#[derive(Serialize)]
struct Message {
    headers: BTreeMap<String, String>,
    body: String,
}

#[derive(Serialize)]
struct ResponseLine {
    status: u16,
    headers: BTreeMap<String, String>,
    body: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    body_truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The JSON line of a call, redacted, with its newline.
fn line_of(call: &RecordedCall, redact: Option<&Redact>) -> String {
    let clean = |text: &str| match redact {
        Some(redact) => redact(text),
        None => text.to_owned(),
    };
    let headers = |pairs: &[(String, String)]| {
        pairs
            .iter()
            .map(|(name, value)| (name.clone(), clean(value)))
            .collect::<BTreeMap<_, _>>()
    };
    let line = Line {
        v: 1,
        call: call.call,
        api: call.api,
        method: &call.method,
        path: clean(&call.path),
        query: call.query.as_deref().map(clean),
        request: Message {
            headers: headers(&call.request_headers),
            body: clean(&String::from_utf8_lossy(&call.request_body)),
        },
        response: call.response.as_ref().map(|r| ResponseLine {
            status: r.status,
            headers: headers(&r.headers),
            body: clean(&String::from_utf8_lossy(&r.body)),
            body_truncated: r.body_truncated,
            error: r.error.as_deref().map(clean),
        }),
    };
    let mut text = serde_json::to_string(&line).unwrap_or_else(|error| {
        format!(
            "{{\"v\":1,\"call\":{},\"error\":\"not recorded: {error}\"}}",
            call.call
        )
    });
    text.push('\n');
    text
}
