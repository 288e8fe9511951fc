//! The stdio transport of `agentgate mcp`: one JSON-RPC message per line,
//! read strictly and answered as JSON-RPC 2.0 says when it cannot be used.
//!
//! rmcp's own stdio transport drops a line that is not JSON without a word
//! (so a client waits forever for the answer to a request it garbled) and
//! lets a repeated key pass (serde_json keeps the last). Here:
//!
//! - a line that is not JSON (or not UTF-8) gets `{"jsonrpc": "2.0", "id":
//!   null, "error": {"code": -32700, "message": "Parse error: ..."}}`;
//! - JSON that gives a key twice anywhere (`{"arguments": {"path": "a",
//!   "path": "b"}}`), or that is no JSON-RPC message, gets `-32600 Invalid
//!   Request` naming the fault, with the request's `id` when it has a
//!   readable one (`null` otherwise);
//! - a notification (no `id`) that does not fit gets no answer, as JSON-RPC
//!   wants; one of a method that is not MCP's is ignored (a client may send
//!   its own);
//! - a line over [`MAX_LINE_BYTES`] is dropped unread and answered `-32600`
//!   with `id: null`;
//!
//! and the server goes on reading. Answers and the server's own messages
//! go through one writer task, whole lines in order, so an answer written
//! while a response is on its way never splits it. Reading keeps a partial
//! line across calls: rmcp polls `receive` inside a `select!` and may drop
//! the future between two reads.

use std::future::Future;

use rmcp::RoleServer;
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt as _, AsyncRead, AsyncWrite, AsyncWriteExt as _, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// The longest line read (as rmcp's transport: 16 MiB).
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// JSON-RPC 2.0: invalid JSON was received.
pub const PARSE_ERROR: i64 = -32700;
/// JSON-RPC 2.0: the JSON sent is not a valid request object.
pub const INVALID_REQUEST: i64 = -32600;

/// A whole line for the writer task, and who waits for it to be written.
type Outgoing = (Vec<u8>, Option<oneshot::Sender<std::io::Result<()>>>);

/// The transport over `reader` and `writer` (stdin and stdout).
#[derive(Debug)]
pub struct StrictLines<R> {
    reader: BufReader<R>,
    line: Vec<u8>,
    discarding: bool,
    out: Option<mpsc::UnboundedSender<Outgoing>>,
    writer: Option<JoinHandle<()>>,
}

impl<R: AsyncRead + Unpin + Send> StrictLines<R> {
    /// Reads from `reader`, writes to `writer`; the writer task starts on
    /// the current runtime.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(reader: R, writer: W) -> Self {
        let (out, queue) = mpsc::unbounded_channel::<Outgoing>();
        let writer = tokio::spawn(write_lines(writer, queue));
        Self {
            reader: BufReader::new(reader),
            line: Vec::new(),
            discarding: false,
            out: Some(out),
            writer: Some(writer),
        }
    }

    /// Queues `value` as a line (an answer the transport makes itself).
    fn answer(&self, value: &Value) {
        if let Some(out) = &self.out {
            let mut bytes = value.to_string().into_bytes();
            bytes.push(b'\n');
            let _ = out.send((bytes, None));
        }
    }

    /// Reads one line into `self.line`; `Ok(false)` at the end of input,
    /// `Err(())` for a line over the limit (dropped).
    async fn read_line(&mut self) -> std::io::Result<Result<bool, ()>> {
        loop {
            let available = self.reader.fill_buf().await?;
            if available.is_empty() {
                return Ok(Ok(false));
            }
            let newline = available.iter().position(|b| *b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            let oversized = self.discarding || self.line.len() + take > MAX_LINE_BYTES;
            if !oversized {
                self.line.extend_from_slice(&available[..take]);
            }
            self.reader.consume(take);
            match (oversized, newline.is_some()) {
                (false, true) => return Ok(Ok(true)),
                (false, false) => {}
                (true, true) => {
                    let reported = self.discarding;
                    self.discarding = false;
                    self.line.clear();
                    if !reported {
                        return Ok(Err(()));
                    }
                }
                (true, false) => {
                    if !self.discarding {
                        self.discarding = true;
                        self.line.clear();
                        return Ok(Err(()));
                    }
                }
            }
        }
    }
}

/// What one line amounts to.
enum Read {
    Message(Box<RxJsonRpcMessage<RoleServer>>),
    /// Answered (or, for a notification, passed over): read the next.
    Skip,
}

/// Reads `line` strictly; the answer to queue, if it needs one.
fn read(line: &[u8]) -> (Read, Option<Value>) {
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return (Read::Skip, None);
    }
    if let Err(e) = agentgate_protocol::strict_json::check_unique_keys(line) {
        if !e.is_data() {
            return (
                Read::Skip,
                Some(error(Value::Null, PARSE_ERROR, format!("Parse error: {e}"))),
            );
        }
        // Valid JSON that repeats a key: which copy was meant cannot be
        // told; answer the request, if its id is given once.
        let once = agentgate_protocol::strict_json::top_level_keys(line)
            .is_ok_and(|keys| keys.iter().filter(|k| *k == "id").count() == 1);
        let id = match serde_json::from_slice::<Value>(line) {
            Ok(value) if once => readable_id(&value),
            _ => Value::Null,
        };
        return (
            Read::Skip,
            Some(error(id, INVALID_REQUEST, format!("Invalid Request: {e}"))),
        );
    }
    match serde_json::from_slice::<RxJsonRpcMessage<RoleServer>>(line) {
        Ok(message) => (Read::Message(Box::new(message)), None),
        Err(e) => {
            let value: Value = serde_json::from_slice(line).unwrap_or(Value::Null);
            let is_notification =
                value.get("id").is_none() && value.get("method").and_then(Value::as_str).is_some();
            if is_notification {
                tracing::debug!("a notification that does not fit was passed over: {e}");
                return (Read::Skip, None);
            }
            (
                Read::Skip,
                Some(error(
                    readable_id(&value),
                    INVALID_REQUEST,
                    format!("Invalid Request: {e}"),
                )),
            )
        }
    }
}

/// The `id` of a request, when it is one JSON-RPC allows (a string or a
/// number); `null` otherwise.
fn readable_id(value: &Value) -> Value {
    match value.get("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id.clone(),
        _ => Value::Null,
    }
}

fn error(id: Value, code: i64, message: String) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}})
}

async fn write_lines<W: AsyncWrite + Unpin>(
    mut writer: W,
    mut queue: mpsc::UnboundedReceiver<Outgoing>,
) {
    while let Some((bytes, done)) = queue.recv().await {
        let written = match writer.write_all(&bytes).await {
            Ok(()) => writer.flush().await,
            Err(e) => Err(e),
        };
        let failed = written.is_err();
        if let Some(done) = done {
            let _ = done.send(written);
        }
        if failed {
            break;
        }
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for StrictLines<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let queued = self.out.clone().ok_or_else(|| {
            std::io::Error::new(std::io::ErrorKind::NotConnected, "the transport is closed")
        });
        let bytes = serde_json::to_vec(&item).map(|mut b| {
            b.push(b'\n');
            b
        });
        async move {
            let out = queued?;
            let bytes = bytes.map_err(std::io::Error::other)?;
            let (done, written) = oneshot::channel();
            out.send((bytes, Some(done))).map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the writer has stopped")
            })?;
            written.await.map_err(|_| {
                std::io::Error::new(std::io::ErrorKind::BrokenPipe, "the writer has stopped")
            })?
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.read_line().await {
                Err(e) => {
                    tracing::error!("reading the MCP client failed: {e}");
                    return None;
                }
                Ok(Ok(false)) => return None,
                Ok(Err(())) => {
                    self.answer(&error(
                        Value::Null,
                        INVALID_REQUEST,
                        format!("Invalid Request: the message is over {MAX_LINE_BYTES} bytes"),
                    ));
                    continue;
                }
                Ok(Ok(true)) => {}
            }
            let line = std::mem::take(&mut self.line);
            let body = line.strip_suffix(b"\n").unwrap_or(&line);
            let body = body.strip_suffix(b"\r").unwrap_or(body);
            let (read, answer) = read(body);
            if let Some(answer) = answer {
                self.answer(&answer);
            }
            match read {
                Read::Message(message) => return Some(*message),
                Read::Skip => continue,
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        drop(self.out.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.await;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer_of(line: &str) -> Option<Value> {
        read(line.as_bytes()).1
    }

    #[test]
    fn garbage_is_a_parse_error_with_a_null_id() {
        for line in ["garbage", "{\"jsonrpc\": \"2.0\",", "\u{1}", "[1,"] {
            let answer = answer_of(line).unwrap();
            assert_eq!(answer["jsonrpc"], "2.0");
            assert_eq!(answer["id"], Value::Null, "{line}");
            assert_eq!(answer["error"]["code"], PARSE_ERROR, "{line}");
            assert!(
                answer["error"]["message"]
                    .as_str()
                    .unwrap()
                    .starts_with("Parse error: "),
                "{answer}"
            );
        }
        assert!(matches!(read(b"  "), (Read::Skip, None)), "a blank line");
    }

    #[test]
    fn a_repeated_key_is_an_invalid_request_answered_to_its_id() {
        let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"t","arguments":{"path":"a","path":"b"}}}"#;
        let answer = answer_of(line).unwrap();
        assert_eq!(answer["id"], 7);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.contains("duplicate key `path` in the object at `params.arguments`"),
            "{message}"
        );
        let twice = r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#;
        assert_eq!(answer_of(twice).unwrap()["id"], Value::Null);
    }

    #[test]
    fn json_that_is_no_message_is_an_invalid_request_and_a_stray_notification_is_passed_over() {
        let answer = answer_of(r#"{"jsonrpc":"2.0","id":"x"}"#).unwrap();
        assert_eq!(answer["id"], "x");
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        let answer = answer_of("[]").unwrap();
        assert_eq!(answer["id"], Value::Null);
        assert_eq!(answer["error"]["code"], INVALID_REQUEST);
        assert!(answer_of(r#"{"jsonrpc":"2.0","method":"lsp/whatever"}"#).is_none());
        assert!(matches!(
            read(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#),
            (Read::Message(_), None)
        ));
    }
}
