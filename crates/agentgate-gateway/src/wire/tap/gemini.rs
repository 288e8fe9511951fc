//! Gemini generateContent: each chunk (SSE event, element of the JSON
//! array, or the whole body) may carry `usageMetadata`, cumulative: the
//! last one stands; `modelVersion` names the model; a candidate's
//! `finishReason` ends the stream; `{"error":{…}}` carries an error and
//! maybe a `RetryInfo.retryDelay`. Code Assist (Gemini CLI's Google
//! login, `/v1internal:streamGenerateContent`) wraps each chunk in
//! `{"response": …}`.
//!
//! As agentgate's Gemini decoders count: input = `promptTokenCount`
//! (cache reads in it) + `toolUsePromptTokenCount`; output =
//! `candidatesTokenCount` + `thoughtsTokenCount`; reasoning = the thoughts.
//! Gemini states no cache writes.

use serde_json::Value;

use super::{Findings, count, usage};
use crate::wire::error_shape::{error_text, google_retry_delay};

/// One chunk (Code Assist's, Gemini CLI's Google login, wraps it:
/// `{"response": {…}, "traceId"}`).
pub(super) fn chunk(found: &mut Findings, v: &Value) {
    let v = match v.get("response") {
        Some(inner @ Value::Object(_)) if v.get("error").is_none() => inner,
        _ => v,
    };
    if let Some(text) = error_text(v) {
        found.error(text);
        if let Some(secs) = google_retry_delay(v) {
            found.retry_after_s = Some(secs);
        }
    }
    found.model_from(v.get("modelVersion"));
    if let Some(u) = v.get("usageMetadata").filter(|u| u.is_object()) {
        let thoughts = count(u, "/thoughtsTokenCount");
        found.usage = Some(usage(
            count(u, "/promptTokenCount").saturating_add(count(u, "/toolUsePromptTokenCount")),
            count(u, "/cachedContentTokenCount"),
            0,
            count(u, "/candidatesTokenCount").saturating_add(thoughts),
            thoughts,
        ));
    }
    let finished = v
        .get("candidates")
        .and_then(Value::as_array)
        .is_some_and(|cs| {
            cs.iter().any(|c| {
                c.get("finishReason")
                    .and_then(Value::as_str)
                    .is_some_and(|r| !r.is_empty())
            })
        });
    if finished {
        found.complete = true;
    }
}
