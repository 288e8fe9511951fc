//! Following a run's events: `GET /v1/runs/{id}/events` as a stream of
//! protocol events that survives a broken connection.
//!
//! The stream is over when the server ends it after the run's final
//! `result` (a job that runs again sends `requeued` and goes on), or after
//! an `end` message. A connection that closes after a `result` is taken as
//! the end only once `GET /v1/runs/{id}` says the run is final (or is not
//! a job of the queue); otherwise, and after any other break, the client
//! reconnects with `Last-Event-ID`.

use std::collections::VecDeque;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Method;
use hyper::body::Incoming;
use hyper::header::ACCEPT;
use serde_json::Value;

use super::sse::{SseMessage, SseParser};
use super::{ApiClient, ClientError, path_segment};

/// How many times in a row a broken stream is reconnected.
pub const RECONNECTS_MAX: u32 = 5;

/// Silence longer than this (the server sends a keep-alive every 15 s)
/// means the connection is dead: reconnect.
const SILENCE_MAX: Duration = Duration::from_secs(60);

/// What a run's event stream carries.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamItem {
    /// A protocol event: its JSON text as the server sent it (the line
    /// `agentgate run --stream` prints) and its value.
    Event {
        /// The line.
        text: String,
        /// Parsed.
        value: Value,
    },
    /// The job's run ended but the job runs again (`event: requeued`): the
    /// job's state.
    Requeued(Value),
    /// The run ended without a `result` event (`event: end`): its status,
    /// error and envelope if any. Nothing follows.
    End(Value),
}

/// A run's events, in order, each once, to the end of the run (or job).
pub struct RunEvents<'a> {
    client: &'a ApiClient,
    run_id: String,
    path: String,
    last_id: Option<u64>,
    body: Option<Incoming>,
    parser: SseParser,
    ready: VecDeque<SseMessage>,
    failures: u32,
    /// The last message was a `result` event.
    after_result: bool,
    done: bool,
}

impl std::fmt::Debug for RunEvents<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunEvents")
            .field("path", &self.path)
            .field("last_id", &self.last_id)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl<'a> RunEvents<'a> {
    pub(super) fn new(client: &'a ApiClient, run_id: &str, last_id: Option<u64>) -> Self {
        RunEvents {
            client,
            run_id: run_id.to_owned(),
            path: format!("/v1/runs/{}/events", path_segment(run_id)),
            last_id,
            body: None,
            parser: SseParser::default(),
            ready: VecDeque::new(),
            failures: 0,
            after_result: false,
            done: false,
        }
    }

    /// The next item; `None` once the run (or job) is over.
    pub async fn next(&mut self) -> Option<Result<StreamItem, ClientError>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(message) = self.ready.pop_front() {
                match self.accept(message) {
                    Ok(Some(event)) => return Some(Ok(event)),
                    Ok(None) => continue,
                    Err(e) => {
                        self.done = true;
                        return Some(Err(e));
                    }
                }
            }
            match self.read_more().await {
                Ok(()) => {}
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
    }

    /// A message becomes an item unless it was seen already.
    fn accept(&mut self, message: SseMessage) -> Result<Option<StreamItem>, ClientError> {
        let data = |m: &SseMessage| serde_json::from_str::<Value>(&m.data).unwrap_or(Value::Null);
        match message.event.as_deref() {
            None | Some("message") => {}
            Some("requeued") => {
                self.after_result = false;
                return Ok(Some(StreamItem::Requeued(data(&message))));
            }
            Some("end") => {
                self.done = true;
                return Ok(Some(StreamItem::End(data(&message))));
            }
            Some(_) => return Ok(None),
        }
        let seq = match message.id.as_deref().map(str::parse::<u64>) {
            Some(Ok(n)) => Some(n),
            Some(Err(_)) => {
                return Err(self.client.protocol(format!(
                    "sent an event id that is not a number: {:?}",
                    message.id
                )));
            }
            None => None,
        };
        if message.data.is_empty() {
            return Ok(None);
        }
        if let (Some(seq), Some(last)) = (seq, self.last_id)
            && seq <= last
        {
            return Ok(None);
        }
        let value: Value = serde_json::from_str(&message.data).map_err(|e| {
            self.client
                .protocol(format!("sent an event that is not JSON: {e}"))
        })?;
        if seq.is_some() {
            self.last_id = seq;
        }
        self.failures = 0;
        self.after_result = value["type"] == "result";
        Ok(Some(StreamItem::Event {
            text: message.data,
            value,
        }))
    }

    /// The stream closed: over if it closed after a `result` and the run
    /// is final; else connect again.
    async fn closed(&mut self) -> Result<(), ClientError> {
        self.body = None;
        self.parser = SseParser::default();
        if self.after_result {
            match self.client.run(&self.run_id).await {
                Ok(run) if !matches!(run["status"].as_str(), Some("queued" | "running")) => {
                    self.done = true;
                    return Ok(());
                }
                // Not a job of the queue (a run of `agentgate run`): its
                // `result` is its end.
                Err(ClientError::Api { status: 404, .. }) => {
                    self.done = true;
                    return Ok(());
                }
                _ => {}
            }
        }
        self.backoff().await
    }

    /// Read the next chunk, connecting (again) when there is no stream.
    async fn read_more(&mut self) -> Result<(), ClientError> {
        let Some(body) = self.body.as_mut() else {
            return self.connect().await;
        };
        match tokio::time::timeout(SILENCE_MAX, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    let mut out = Vec::new();
                    self.parser.feed(&data, &mut out).map_err(|e| {
                        self.client.protocol(format!("broke the event stream: {e}"))
                    })?;
                    self.ready.extend(out);
                }
                Ok(())
            }
            // The stream ended, broke or went silent.
            Ok(Some(Err(_))) | Ok(None) | Err(_) => self.closed().await,
        }
    }

    async fn connect(&mut self) -> Result<(), ClientError> {
        let mut headers = vec![(ACCEPT.as_str(), "text/event-stream".to_owned())];
        if let Some(id) = self.last_id {
            headers.push(("last-event-id", id.to_string()));
        }
        match self
            .client
            .send(Method::GET, &self.path, None, &headers)
            .await
        {
            Ok(response) if response.status().is_success() => {
                self.body = Some(response.into_body());
                Ok(())
            }
            Ok(response) => {
                let status = response.status();
                let bytes = response
                    .into_body()
                    .collect()
                    .await
                    .map(|b| b.to_bytes())
                    .unwrap_or_default();
                let value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
                Err(self.client.api_error(status, &value))
            }
            Err(ClientError::Connect { .. }) if self.failures < RECONNECTS_MAX => {
                self.backoff().await
            }
            Err(e) => Err(e),
        }
    }

    /// Wait before the next connection: 0.25 s, doubling, at most
    /// [`RECONNECTS_MAX`] times in a row without an event in between.
    async fn backoff(&mut self) -> Result<(), ClientError> {
        if self.failures >= RECONNECTS_MAX {
            return Err(self.client.protocol(format!(
                "ended the event stream {RECONNECTS_MAX} times in a row before the result"
            )));
        }
        let wait = Duration::from_millis(250) * 2u32.pow(self.failures);
        self.failures += 1;
        tokio::time::sleep(wait).await;
        Ok(())
    }
}
