//! Following a run's events: `GET /v1/runs/{id}/events` as a stream of
//! protocol events that survives a broken connection.

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

/// A run's events, in order, each once, until its `result` event.
pub struct RunEvents<'a> {
    client: &'a ApiClient,
    path: String,
    last_id: Option<u64>,
    body: Option<Incoming>,
    parser: SseParser,
    ready: VecDeque<SseMessage>,
    failures: u32,
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
            path: format!("/v1/runs/{}/events", path_segment(run_id)),
            last_id,
            body: None,
            parser: SseParser::default(),
            ready: VecDeque::new(),
            failures: 0,
            done: false,
        }
    }

    /// The next event: its JSON text as the server sent it (the same line
    /// `agentgate run --stream` prints) and its parsed value. `None` after
    /// the `result` event.
    pub async fn next(&mut self) -> Option<Result<(String, Value), ClientError>> {
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

    /// A message becomes an event unless it was seen already.
    fn accept(&mut self, message: SseMessage) -> Result<Option<(String, Value)>, ClientError> {
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
        if value["type"] == "result" {
            self.done = true;
        }
        Ok(Some((message.data, value)))
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
            // The stream ended (or broke, or went silent) before the
            // result: reconnect from the last event seen.
            Ok(Some(Err(_))) | Ok(None) | Err(_) => {
                self.body = None;
                self.parser = SseParser::default();
                self.backoff().await
            }
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
