//! One request over one HTTP/1.1 connection.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HOST, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::TcpStream;

use super::{ApiClient, ClientError};

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a JSON answer may take (an SSE stream has no such limit).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(60);

/// The largest JSON answer read (a run's envelope holds its whole answer).
const ANSWER_MAX_BYTES: usize = 256 * 1024 * 1024;

impl ApiClient {
    /// Send one request; the answer's body is left to the caller.
    pub(super) async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
        headers: &[(&'static str, String)],
    ) -> Result<Response<Incoming>, ClientError> {
        let url = self.url.to_string();
        let connect_error = |source| ClientError::Connect {
            url: url.clone(),
            source,
        };
        let stream = tokio::time::timeout(
            CONNECT_TIMEOUT,
            TcpStream::connect(self.url.authority.as_str()),
        )
        .await
        .map_err(|_| connect_error(std::io::ErrorKind::TimedOut.into()))?
        .map_err(connect_error)?;
        // Small requests: do not wait to fill a segment.
        let _ = stream.set_nodelay(true);
        let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| self.protocol(format!("refused the HTTP handshake: {e}")))?;
        // The connection ends when the answer's body has been read or dropped.
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::debug!("client connection: {e}");
            }
        });
        let mut request = Request::builder()
            .method(method)
            .uri(self.url.target(path))
            .header(HOST, self.url.authority.as_str())
            .header(AUTHORIZATION, self.token.bearer());
        if body.is_some() {
            request = request.header(CONTENT_TYPE, "application/json");
        }
        // The caller's trace (`TRACEPARENT`, `TRACESTATE`): a submitted
        // job's span continues it (see `trace_header.rs`).
        if let Some(context) = agentgate_telemetry::TraceContext::from_env() {
            request = request.header("traceparent", context.traceparent());
            if let Some(state) = context
                .tracestate
                .and_then(|s| HeaderValue::from_str(&s).ok())
            {
                request = request.header("tracestate", state);
            }
        }
        for (name, value) in headers {
            let value = HeaderValue::from_str(value)
                .map_err(|_| self.protocol(format!("cannot send header {name}: {value:?}")))?;
            request = request.header(*name, value);
        }
        let request = request
            .body(Full::new(Bytes::from(body.unwrap_or_default())))
            .map_err(|e| self.protocol(format!("cannot build a request for {path}: {e}")))?;
        sender.send_request(request).await.map_err(|e| {
            if e.is_closed() || e.is_incomplete_message() {
                connect_error(std::io::Error::other(e))
            } else {
                self.protocol(format!("failed the request {path}: {e}"))
            }
        })
    }

    /// A request whose answer is JSON: the status and the value, or the
    /// server's error.
    pub(super) async fn json(
        &self,
        method: Method,
        path: &str,
        body: Option<Vec<u8>>,
    ) -> Result<(StatusCode, Value), ClientError> {
        let answer = async {
            let response = self
                .send(
                    method,
                    path,
                    body,
                    &[(ACCEPT.as_str(), "application/json".into())],
                )
                .await?;
            let status = response.status();
            let bytes = Limited::new(response.into_body(), ANSWER_MAX_BYTES)
                .collect()
                .await
                .map_err(|e| self.protocol(format!("broke off its answer to {path}: {e}")))?
                .to_bytes();
            Ok::<_, ClientError>((status, bytes))
        };
        let (status, bytes) = tokio::time::timeout(ANSWER_TIMEOUT, answer)
            .await
            .map_err(|_| {
                self.protocol(format!("did not answer {path} within {ANSWER_TIMEOUT:?}"))
            })??;
        let value: Value = serde_json::from_slice(&bytes).map_err(|e| {
            self.protocol(format!("answered {path} with {status} and no JSON ({e})"))
        })?;
        if status.is_success() {
            Ok((status, value))
        } else {
            Err(self.api_error(status, &value))
        }
    }

    /// The server's JSON error `{"error": {"type", "message", "field"}}`.
    pub(super) fn api_error(&self, status: StatusCode, value: &Value) -> ClientError {
        let error = &value["error"];
        let text = |k: &str| error[k].as_str().map(str::to_owned);
        ClientError::Api {
            status: status.as_u16(),
            kind: text("type").unwrap_or_else(|| "unknown".into()),
            message: text("message").unwrap_or_else(|| value.to_string()),
            field: text("field"),
        }
    }
}
