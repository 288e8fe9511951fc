//! The W3C trace context of a submit (`POST /v1/runs`, `POST
//! /v1/workflows`): its `traceparent` and `tracestate` headers, kept with
//! the queued job (`agentgate_executor::keep_trace_context`) so that the
//! job's span, in this process or a worker's, continues the caller's
//! trace. Kept whether or not this process exports traces (a worker may);
//! a malformed header is ignored, never refused.

use axum::http::HeaderMap;

use agentgate_telemetry::TraceContext;

/// The trace context `headers` carry, if a valid one.
pub(crate) fn trace_context(headers: &HeaderMap) -> Option<TraceContext> {
    let parent = headers.get("traceparent")?.to_str().ok()?;
    let state = headers.get("tracestate").and_then(|v| v.to_str().ok());
    TraceContext::parse(parent, state)
}
