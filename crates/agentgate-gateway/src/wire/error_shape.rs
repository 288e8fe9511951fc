//! Each API's own error shape, both ways: the body the gateway answers
//! when it refuses a call ([`error_response`], chosen by status the way
//! the API words it), and the text of an error body or in-stream error
//! record the upstream sent ([`error_text`], "type: message").

use agentgate_protocol::WireApi;
use http::StatusCode;
use serde_json::{Value, json};

/// The body the API itself would send for an error with `status` and
/// `message` (Anthropic `{"type":"error","error":{…}}`, OpenAI
/// `{"error":{…}}`, Gemini `{"error":{"code","message","status"}}`), with
/// its content type. What the gateway answers when it refuses a call.
pub fn error_response(api: WireApi, status: StatusCode, message: &str) -> (&'static str, Vec<u8>) {
    let body = match api {
        WireApi::AnthropicMessages => json!({
            "type": "error",
            "error": {"type": anthropic_type(status), "message": message},
        }),
        WireApi::OpenaiResponses | WireApi::OpenaiChat => {
            let (kind, code) = openai_type(status);
            json!({
                "error": {"message": message, "type": kind, "param": null, "code": code},
            })
        }
        WireApi::Gemini => json!({
            "error": {
                "code": status.as_u16(),
                "message": message,
                "status": google_status(status),
            },
        }),
    };
    ("application/json", body.to_string().into_bytes())
}

/// Anthropic's `error.type` for a status.
pub fn anthropic_type(status: StatusCode) -> &'static str {
    match status.as_u16() {
        401 => "authentication_error",
        402 => "billing_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        504 => "timeout_error",
        529 => "overloaded_error",
        s if s >= 500 => "api_error",
        _ => "invalid_request_error",
    }
}

/// OpenAI's `error.type` and `error.code` for a status.
pub fn openai_type(status: StatusCode) -> (&'static str, Option<&'static str>) {
    match status.as_u16() {
        401 => ("invalid_request_error", Some("invalid_api_key")),
        404 => ("invalid_request_error", Some("not_found")),
        413 => ("invalid_request_error", Some("request_too_large")),
        429 => ("requests", Some("rate_limit_exceeded")),
        503 => ("service_unavailable_error", Some("server_is_overloaded")),
        s if s >= 500 => ("server_error", Some("server_error")),
        _ => ("invalid_request_error", None),
    }
}

/// Google's canonical status name for an HTTP status.
pub fn google_status(status: StatusCode) -> &'static str {
    match status.as_u16() {
        400 | 413 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        409 => "ABORTED",
        429 => "RESOURCE_EXHAUSTED",
        499 => "CANCELLED",
        501 => "UNIMPLEMENTED",
        502 | 503 => "UNAVAILABLE",
        504 => "DEADLINE_EXCEEDED",
        s if s >= 500 => "INTERNAL",
        _ => "FAILED_PRECONDITION",
    }
}

/// The text of an error record in any API's shape, "type: message":
/// Anthropic `{"type":"error","error":{"type","message"}}`, OpenAI
/// `{"error":{"message","type","code"}}` (the type, else the code),
/// Gemini `{"error":{"code","message","status"}}` (the status), or a bare
/// `{"error":"text"}`. `None` when `v` carries no error (`"error": null`).
pub fn error_text(v: &Value) -> Option<String> {
    match v.get("error")? {
        Value::String(s) if !s.is_empty() => Some(s.clone()),
        Value::Object(e) => {
            let text = |k: &str| e.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
            let kind = text("type").or(text("status")).or(text("code"));
            let code = e.get("code").and_then(Value::as_u64).map(|c| c.to_string());
            let kind = kind.or(code.as_deref());
            let message = text("message");
            match (kind, message) {
                (Some(k), Some(m)) => Some(format!("{k}: {m}")),
                (Some(k), None) => Some(k.to_owned()),
                (None, Some(m)) => Some(m.to_owned()),
                (None, None) => Some("error".to_owned()),
            }
        }
        _ => None,
    }
}

/// Google's `RetryInfo.retryDelay` in an error's `details` (`"30s"`,
/// `"1.5s"`), in seconds rounded up.
pub fn google_retry_delay(v: &Value) -> Option<u64> {
    let details = v.pointer("/error/details")?.as_array()?;
    details
        .iter()
        .filter(|d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"))
        })
        .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
        .and_then(seconds_of)
}

/// `"30s"`, `"1.5s"`, `"0.2s"` → seconds rounded up.
fn seconds_of(text: &str) -> Option<u64> {
    let secs: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    (0.0..1e12).contains(&secs).then(|| secs.ceil() as u64)
}
