//! The two kinds of error: [`ServeError`], why `serve` cannot start or
//! stopped, and [`ApiError`], the JSON answer to one request
//! (`{"error": {"type", "message"}}`, the same shape on every route, with
//! `field` when a request field is at fault).

use std::net::SocketAddr;
use std::path::PathBuf;

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

/// Why the server could not start, or failed while running.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// `--listen` is not `IP:PORT`.
    #[error(
        "invalid listen address {given:?}: expected IP:PORT, e.g. 127.0.0.1:7700, [::1]:7700 or \
         127.0.0.1:0 for a free port"
    )]
    BadListen {
        /// What was given.
        given: String,
    },
    /// A non-loopback address without a token the operator chose.
    #[error(
        "refusing to listen on {addr}: it is not a loopback address and no token is configured \
         explicitly; set AGENTGATE_TOKEN, or pass --token-file with an existing token file \
         (mode 0600), or listen on 127.0.0.1"
    )]
    PublicWithoutToken {
        /// The address asked for.
        addr: SocketAddr,
    },
    /// The webhooks' secret could not be read, or their TLS set up (see
    /// `WebhookStartError`).
    #[error("{reason}")]
    Webhooks {
        /// What failed and what to do.
        reason: String,
    },
    /// The data folder is unknown (no AGENTGATE_HOME, XDG_DATA_HOME or
    /// HOME), or the store in it cannot be opened.
    #[error(transparent)]
    DataDir(#[from] agentgate_store::StoreError),
    /// The token file could not be read, created or trusted.
    #[error("token file {}: {reason}", path.display())]
    TokenFile {
        /// The file.
        path: PathBuf,
        /// What is wrong and what to do.
        reason: String,
    },
    /// The token is too short to be safe.
    #[error(
        "the token from {from} has {chars} characters; a token needs at least {min} (make one \
         with `openssl rand -hex 32`, or remove the token file and `agentgate serve` makes one)"
    )]
    TokenTooShort {
        /// Where it came from: `AGENTGATE_TOKEN` or the token file.
        from: String,
        /// Its length.
        chars: usize,
        /// The minimum.
        min: usize,
    },
    /// The OS random source could not be read.
    #[error("failed to read random bytes for a new token from /dev/urandom: {0}")]
    Random(std::io::Error),
    /// The config file could not be loaded.
    #[error(transparent)]
    Config(#[from] agentgate_core::ConfigError),
    /// The address could not be bound.
    #[error("failed to listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
    /// The executor's side could not start (the signal handlers, ...).
    #[error(transparent)]
    Start(#[from] agentgate_executor::StartError),
    /// The test clock file is unusable.
    #[error(transparent)]
    Clock(#[from] agentgate_executor::ClockFileError),
    /// The job executor could not start.
    #[error("failed to start the job executor: {0}")]
    Executor(std::io::Error),
    /// The schedules or watched folders could not start.
    #[error(transparent)]
    Automation(#[from] agentgate_executor::AutomationError),
    /// `--providers` names a provider no one knows.
    #[error(transparent)]
    UnknownProvider(#[from] agentgate_core::UnknownProvider),
    /// The worker could not register its presence.
    #[error(transparent)]
    Presence(#[from] agentgate_executor::PresenceError),
    /// The accept loop failed.
    #[error("the server failed: {0}")]
    Io(std::io::Error),
    /// The queue key file is unusable (see `agentgate_core::sealed`).
    #[error(transparent)]
    QueueKey(#[from] agentgate_core::sealed::KeyFileError),
}

/// An error answer: its status and the `error` object.
#[derive(Debug, Clone)]
pub struct ApiError {
    status: StatusCode,
    kind: &'static str,
    message: String,
    field: Option<String>,
}

/// The body of every error answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// What went wrong.
    pub error: ErrorDetail,
}

/// What went wrong: a stable `type` to match on and a message for people.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorDetail {
    /// `unauthorized`, `forbidden`, `too_many_requests`, `not_found`,
    /// `method_not_allowed`, `payload_too_large`, `bad_request`,
    /// `invalid_parameter`, `invalid_request`, `conflict`, `unavailable`
    /// (a connection past the server's limit) or `internal`.
    #[serde(rename = "type")]
    pub kind: String,
    /// What failed and, where it helps, what to do.
    pub message: String,
    /// The request field or query parameter at fault, when one is
    /// (`timeout`, `status`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
}

impl ApiError {
    /// An error with this status, `type` and message.
    pub fn new(status: StatusCode, kind: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            kind,
            message: message.into(),
            field: None,
        }
    }

    /// The same error, naming the request field at fault (`"field"` in
    /// the `error` object).
    pub fn with_field(mut self, field: impl Into<String>) -> ApiError {
        self.field = Some(field.into());
        self
    }

    /// A request body read strictly (a key given twice is refused, naming
    /// it): 400 `bad_request` when it is not JSON, 422 `invalid_request`
    /// when it is JSON of the wrong shape; `field` is `request`.
    pub fn strict_body<T: serde::de::DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
        let value: serde_json::Value =
            agentgate_protocol::strict_json::from_slice(body).map_err(|e| {
                if e.is_data() {
                    ApiError::new(
                        StatusCode::UNPROCESSABLE_ENTITY,
                        "invalid_request",
                        format!("the body: {e}"),
                    )
                } else {
                    ApiError::new(
                        StatusCode::BAD_REQUEST,
                        "bad_request",
                        format!("the body is not JSON: {e}"),
                    )
                }
                .with_field("request")
            })?;
        serde_json::from_value(whole_numbers(value)).map_err(|e| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid_request",
                format!("the body: {e}"),
            )
            .with_field("request")
        })
    }

    /// 401: no `Authorization: Bearer` header, or a wrong token.
    pub fn unauthorized(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", message)
    }

    /// 404: no such route.
    pub fn not_found(method: &str, path: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("no route for {method} {path}"),
        )
    }

    /// 405: the route exists, not with this method.
    pub fn method_not_allowed(method: &str, path: &str) -> ApiError {
        ApiError::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            format!("{path} does not accept {method}"),
        )
    }

    /// 413: the body is over the limit.
    pub fn too_large(limit: usize) -> ApiError {
        ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "payload_too_large",
            format!("the request body is larger than the limit of {limit} bytes"),
        )
    }

    /// 400: a query parameter or header is not valid; `parameter` names it.
    pub fn invalid_parameter(parameter: &str, message: impl std::fmt::Display) -> ApiError {
        ApiError::new(
            StatusCode::BAD_REQUEST,
            "invalid_parameter",
            format!("invalid {parameter}: {message}"),
        )
        .with_field(parameter)
    }

    /// 404: no such thing (a run, a session), named by `what`.
    pub fn no_such(what: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::NOT_FOUND, "not_found", what)
    }

    /// 409: the request conflicts with what is happening (e.g. a session in
    /// use).
    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// 500 for a store call that failed.
    pub fn store(error: &agentgate_store::StoreError) -> ApiError {
        tracing::error!(error = %error, "a store call failed");
        ApiError::internal(format!("the store failed: {error}"))
    }

    /// 500.
    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The status.
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = ErrorBody {
            error: ErrorDetail {
                kind: self.kind.to_owned(),
                message: self.message,
                field: self.field,
            },
        };
        let mut response = (self.status, axum::Json(body)).into_response();
        if self.status == StatusCode::UNAUTHORIZED {
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"agentgate\""),
            );
        }
        response
    }
}

/// `value` with every number written with a fraction of zero (`44.0`)
/// made a whole number (`44`), as JSON Schema reads it: an `integer`
/// field of a body takes `44.0` as `44` (and `44.5` is still refused).
pub(crate) fn whole_numbers(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) if n.is_f64() => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            // Within ±2^53 a float holds its whole number exactly.
            const EXACT: f64 = 9_007_199_254_740_992.0;
            if f.fract() == 0.0 && f.abs() <= EXACT {
                let whole = f as i64;
                Value::from(whole)
            } else {
                Value::Number(n)
            }
        }
        Value::Array(items) => Value::Array(items.into_iter().map(whole_numbers).collect()),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (k, whole_numbers(v)))
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    #[test]
    fn a_whole_number_written_with_a_fraction_of_zero_is_read_as_an_integer() {
        #[derive(Debug, serde::Deserialize)]
        struct Body {
            n: u32,
            list: Vec<i64>,
        }
        let body: Body =
            super::ApiError::strict_body(br#"{"n": 44.0, "list": [-3.0, 7]}"#).unwrap();
        assert_eq!((body.n, body.list), (44, vec![-3, 7]));
        let refused =
            super::ApiError::strict_body::<Body>(br#"{"n": 44.5, "list": []}"#).unwrap_err();
        assert_eq!(refused.status().as_u16(), 422);
        assert_eq!(super::whole_numbers(json!(1e300)), json!(1e300));
    }
}
