//! A client of the `/v1` API, for `agentgate submit`, `runs --server`,
//! `cancel` and `tail`, and for programs that drive a server from Rust.
//!
//! One request is one HTTP/1.1 connection (`transport.rs`): the clients
//! make a handful of requests each, and a fresh connection cannot be one
//! that the server already closed. Answers are JSON; a non-2xx answer
//! becomes [`ClientError::Api`] with the server's error type, message and
//! field. [`RunEvents`] follows a run's Server-Sent Events (`sse.rs`) and,
//! when the connection breaks before the `result` event, reconnects with
//! `Last-Event-ID`, so no event is lost or repeated.

mod events;
mod sse;
mod transport;
mod url;

use std::path::Path;

use agentgate_core::RunRequest;
use hyper::Method;
use serde_json::Value;

pub use events::{RECONNECTS_MAX, RunEvents, StreamItem};
pub use sse::{SSE_LINE_MAX, SseError, SseMessage, SseParser};
pub use url::{BadServerUrl, DEFAULT_SERVER, SERVER_ENV, ServerUrl};

use crate::token::{self, Token};

/// What a client request can fail with.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The server URL is unusable.
    #[error(transparent)]
    Url(#[from] BadServerUrl),
    /// No token: neither `AGENTGATE_TOKEN` nor a token file.
    #[error(
        "no token: set AGENTGATE_TOKEN or give --token-file (the server prints its token file's path when it starts)"
    )]
    NoToken,
    /// The token file could not be read.
    #[error("{0}")]
    TokenFile(String),
    /// The server could not be reached.
    #[error("cannot reach the server at {url}: {source}")]
    Connect {
        /// The server.
        url: String,
        /// Why.
        source: std::io::Error,
    },
    /// The server answered with an error.
    #[error("{}", api_message(*.status, .kind, .message, .field.as_deref()))]
    Api {
        /// The HTTP status.
        status: u16,
        /// The error's `type` (`unauthorized`, `not_found`, `invalid_request`, ...).
        kind: String,
        /// The error's message.
        message: String,
        /// The request field at fault, when the server named one.
        field: Option<String>,
    },
    /// The server's answer was not what the API promises.
    #[error("the server at {url} {problem}")]
    Protocol {
        /// The server.
        url: String,
        /// What was wrong.
        problem: String,
    },
}

fn api_message(status: u16, kind: &str, message: &str, field: Option<&str>) -> String {
    match field {
        Some(f) => format!("the server refused the request ({status} {kind}): {f}: {message}"),
        None => format!("the server refused the request ({status} {kind}): {message}"),
    }
}

/// A client of one server, with its token.
#[derive(Debug, Clone)]
pub struct ApiClient {
    url: ServerUrl,
    token: Token,
}

impl ApiClient {
    /// A client of `url` that sends `token`.
    pub fn new(url: &str, token: Token) -> Result<ApiClient, ClientError> {
        Ok(ApiClient {
            url: ServerUrl::parse(url)?,
            token,
        })
    }

    /// A client as the command line finds it: the server from `server`,
    /// else `AGENTGATE_SERVER`, else [`DEFAULT_SERVER`]; the token from
    /// `AGENTGATE_TOKEN`, else `token_file`, else the default token file.
    pub fn from_env(
        server: Option<&str>,
        token_file: Option<&Path>,
    ) -> Result<ApiClient, ClientError> {
        let env_server = std::env::var(SERVER_ENV)
            .ok()
            .filter(|s| !s.trim().is_empty());
        let url = server
            .map(str::to_owned)
            .or(env_server)
            .unwrap_or_else(|| DEFAULT_SERVER.to_owned());
        let token = match token::from_env(std::env::var(token::TOKEN_ENV).ok()) {
            Some(t) => t,
            None => {
                let path = match token_file {
                    Some(p) => p.to_path_buf(),
                    None => token::default_token_path()
                        .map_err(|e| ClientError::TokenFile(e.to_string()))?,
                };
                token::read_file(&path)
                    .map_err(|e| ClientError::TokenFile(e.to_string()))?
                    .ok_or(ClientError::NoToken)?
            }
        };
        ApiClient::new(&url, token)
    }

    /// The server's URL.
    pub fn url(&self) -> &ServerUrl {
        &self.url
    }

    /// `POST /v1/runs`: the server's answer, and whether it created the run
    /// (201) or returned the one an earlier request with the same
    /// idempotency key created (200).
    pub async fn submit(&self, request: &RunRequest) -> Result<(Value, bool), ClientError> {
        let body = serde_json::to_vec(request).map_err(|e| self.protocol(e.to_string()))?;
        let (status, value) = self.json(Method::POST, "/v1/runs", Some(body)).await?;
        Ok((value, status == 201))
    }

    /// `POST /v1/workflows`: the answer, and whether it created the run.
    pub async fn submit_workflow(
        &self,
        submission: &crate::WorkflowSubmission,
    ) -> Result<(Value, bool), ClientError> {
        let body = serde_json::to_vec(submission).map_err(|e| self.protocol(e.to_string()))?;
        let (status, value) = self.json(Method::POST, "/v1/workflows", Some(body)).await?;
        Ok((value, status == 201))
    }

    /// `GET /v1/runs/{id}`.
    pub async fn run(&self, run_id: &str) -> Result<Value, ClientError> {
        let path = format!("/v1/runs/{}", path_segment(run_id));
        Ok(self.json(Method::GET, &path, None).await?.1)
    }

    /// `GET /v1/runs?...` with the given query pairs.
    pub async fn runs(&self, query: &[(&str, String)]) -> Result<Value, ClientError> {
        let mut path = "/v1/runs".to_owned();
        for (i, (k, v)) in query.iter().enumerate() {
            path.push(if i == 0 { '?' } else { '&' });
            path.push_str(k);
            path.push('=');
            path.push_str(&path_segment(v));
        }
        Ok(self.json(Method::GET, &path, None).await?.1)
    }

    /// `POST /v1/runs/cancel`: every queued or running run with all these
    /// labels.
    pub async fn cancel_by_label(
        &self,
        labels: &std::collections::BTreeMap<String, String>,
    ) -> Result<Value, ClientError> {
        let body = serde_json::json!({ "labels": labels })
            .to_string()
            .into_bytes();
        Ok(self
            .json(Method::POST, "/v1/runs/cancel", Some(body))
            .await?
            .1)
    }

    /// `POST /v1/runs/{id}/cancel`.
    pub async fn cancel(&self, run_id: &str) -> Result<Value, ClientError> {
        let path = format!("/v1/runs/{}/cancel", path_segment(run_id));
        Ok(self.json(Method::POST, &path, None).await?.1)
    }

    /// `GET /v1/runs/{id}/events`, followed until the `result` event.
    pub fn events(&self, run_id: &str, last_event_id: Option<u64>) -> RunEvents<'_> {
        RunEvents::new(self, run_id, last_event_id)
    }

    fn protocol(&self, problem: impl Into<String>) -> ClientError {
        ClientError::Protocol {
            url: self.url.to_string(),
            problem: problem.into(),
        }
    }
}

/// Percent-encode what is not safe in a path segment or query value.
fn path_segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_values_are_escaped_in_paths() {
        assert_eq!(path_segment("r-1_a.b~"), "r-1_a.b~");
        assert_eq!(path_segment("a/b c&d"), "a%2Fb%20c%26d");
        assert_eq!(path_segment("é"), "%C3%A9");
    }

    #[test]
    fn api_errors_name_the_field() {
        let e = ClientError::Api {
            status: 422,
            kind: "invalid_request".into(),
            message: "`x` is not a duration".into(),
            field: Some("timeout".into()),
        };
        assert_eq!(
            e.to_string(),
            "the server refused the request (422 invalid_request): timeout: `x` is not a duration"
        );
    }
}
