//! OpenAI Responses: `response.created` names the model;
//! `response.completed` (or `response.incomplete` / `response.failed`,
//! which also carry an error) ends the stream with the response and its
//! `usage{input_tokens, input_tokens_details.cached_tokens,
//! output_tokens, output_tokens_details.reasoning_tokens}`; an `error`
//! event carries an error. A non-stream body is the response object.
//!
//! `input_tokens` already holds the cache reads (and the cache writes,
//! which `input_tokens_details.cache_write_tokens` states where the server
//! reports them, as Codex reads them); `output_tokens` holds the reasoning.

use serde_json::Value;

use super::{Findings, count, usage};
use crate::wire::error_shape::error_text;

/// One stream event.
pub(super) fn event(found: &mut Findings, name: Option<&str>, v: &Value) {
    let kind = v.get("type").and_then(Value::as_str).or(name).unwrap_or("");
    match kind {
        "response.created" | "response.in_progress" => {
            found.model_from(v.pointer("/response/model"));
        }
        "response.completed" | "response.incomplete" | "response.failed" | "response.done" => {
            if let Some(r) = v.get("response").filter(|r| r.is_object()) {
                response(found, r);
            }
            found.complete = true;
        }
        "error" => {
            let text = error_text(v).or_else(|| flat_error(v));
            found.error(text.unwrap_or_else(|| "error".to_owned()));
        }
        _ => {}
    }
}

/// A whole body: the response object (an error body is read by the caller).
pub(super) fn body(found: &mut Findings, v: &Value) {
    let is_response = v.get("object").and_then(Value::as_str) == Some("response")
        || v.get("usage").is_some_and(Value::is_object);
    if is_response {
        response(found, v);
    }
}

/// A response object: its model, usage and how it ended.
fn response(found: &mut Findings, r: &Value) {
    found.model_from(r.get("model"));
    if let Some(u) = r.get("usage").filter(|u| u.is_object()) {
        found.usage = Some(usage(
            count(u, "/input_tokens"),
            count(u, "/input_tokens_details/cached_tokens"),
            count(u, "/input_tokens_details/cache_write_tokens"),
            count(u, "/output_tokens"),
            count(u, "/output_tokens_details/reasoning_tokens"),
        ));
    }
    match r.get("status").and_then(Value::as_str) {
        Some("failed") => {
            found.error(error_text(r).unwrap_or_else(|| "failed".to_owned()));
        }
        Some("incomplete") => {
            let reason = r
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            found.error(format!("incomplete: {reason}"));
        }
        _ => {}
    }
}

/// The Responses stream's own `error` event: `{"type":"error","code",
/// "message","param"}`.
fn flat_error(v: &Value) -> Option<String> {
    let text = |k: &str| v.get(k).and_then(Value::as_str).filter(|s| !s.is_empty());
    match (text("code"), text("message")) {
        (Some(c), Some(m)) => Some(format!("{c}: {m}")),
        (c, m) => c.or(m).map(str::to_owned),
    }
}
