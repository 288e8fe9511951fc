//! One span as agentgate builds it: after the fact, with explicit start
//! and end times and ids chosen ahead (the run's and the job's span ids are
//! handed to the CLIs and the run before the spans end), turned into the
//! SDK's [`SpanData`] for the batch processor.

use std::borrow::Cow;
use std::time::SystemTime;

use opentelemetry::trace::{
    SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry::{InstrumentationScope, KeyValue};
use opentelemetry_sdk::trace::{SpanData, SpanEvents, SpanLinks};

use crate::trace_context::TraceContext;

/// A new random span id (never the invalid all-zero one).
pub(crate) fn new_span_id() -> SpanId {
    loop {
        let mut bytes = [0u8; 8];
        if getrandom::fill(&mut bytes).is_err() {
            // No randomness: a clock-derived id still tells spans apart.
            let nanos = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .map_or(1, |d| d.as_nanos() as u64);
            bytes = nanos.to_be_bytes();
        }
        let id = SpanId::from_bytes(bytes);
        if id != SpanId::INVALID {
            return id;
        }
    }
}

/// A new random trace id.
pub(crate) fn new_trace_id() -> TraceId {
    let high = u128::from(u64::from_be_bytes(new_span_id().to_bytes()));
    let low = u128::from(u64::from_be_bytes(new_span_id().to_bytes()));
    TraceId::from((high << 64) | low)
}

/// The trace a span belongs to and the span it hangs under.
#[derive(Debug, Clone)]
pub struct SpanParent {
    /// The trace.
    pub trace_id: TraceId,
    /// The parent span; `None` for a root.
    pub span_id: Option<SpanId>,
    /// Whether the parent is another process's (a request's `traceparent`).
    pub remote: bool,
    /// The trace's `tracestate`, passed on.
    pub tracestate: Option<String>,
    /// Whether the trace is sampled: an unsampled one exports nothing.
    pub sampled: bool,
}

impl SpanParent {
    /// Under the remote span `context` (`None`: a new trace).
    pub fn remote(context: Option<&TraceContext>) -> SpanParent {
        match context {
            Some(c) => SpanParent {
                trace_id: c.trace_id,
                span_id: Some(c.span_id),
                remote: true,
                tracestate: c.tracestate.clone(),
                sampled: c.sampled,
            },
            None => SpanParent {
                trace_id: new_trace_id(),
                span_id: None,
                remote: false,
                tracestate: None,
                sampled: true,
            },
        }
    }

    /// Under the local span `span_id` of the same trace.
    pub fn child_of(&self, span_id: SpanId) -> SpanParent {
        SpanParent {
            span_id: Some(span_id),
            remote: false,
            ..self.clone()
        }
    }

    /// The context a process started under span `span_id` is given
    /// (`TRACEPARENT`).
    pub fn context_of(&self, span_id: SpanId) -> TraceContext {
        TraceContext {
            trace_id: self.trace_id,
            span_id,
            sampled: self.sampled,
            tracestate: self.tracestate.clone(),
        }
    }
}

/// A span to export.
#[derive(Debug, Clone)]
pub(crate) struct SpanRecord {
    pub name: String,
    pub kind: SpanKind,
    pub span_id: SpanId,
    pub start: SystemTime,
    pub end: SystemTime,
    pub attributes: Vec<KeyValue>,
    /// The error's description: the span's status is then `Error`.
    pub error: Option<String>,
}

impl SpanRecord {
    pub fn new(name: impl Into<String>, span_id: SpanId, start: SystemTime) -> SpanRecord {
        SpanRecord {
            name: name.into(),
            kind: SpanKind::Internal,
            span_id,
            start,
            end: start,
            attributes: Vec::new(),
            error: None,
        }
    }

    /// Add an attribute.
    pub fn set(&mut self, attribute: KeyValue) {
        self.attributes.push(attribute);
    }

    /// Add an attribute when there is a value.
    pub fn set_some<V: Into<opentelemetry::Value>>(&mut self, key: &'static str, value: Option<V>) {
        if let Some(v) = value {
            self.attributes.push(KeyValue::new(key, v));
        }
    }

    /// The SDK's span data, under `parent`.
    pub fn into_span_data(self, parent: &SpanParent) -> SpanData {
        let flags = if parent.sampled {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        let state = parent
            .tracestate
            .as_deref()
            .and_then(|s| s.parse::<TraceState>().ok())
            .unwrap_or_default();
        let status = match self.error {
            Some(message) => Status::error(message),
            None => Status::Unset,
        };
        SpanData {
            span_context: SpanContext::new(parent.trace_id, self.span_id, flags, false, state),
            parent_span_id: parent.span_id.unwrap_or(SpanId::INVALID),
            parent_span_is_remote: parent.remote,
            span_kind: self.kind,
            name: Cow::Owned(self.name),
            start_time: self.start,
            end_time: self.end.max(self.start),
            attributes: self.attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links: SpanLinks::default(),
            status,
            instrumentation_scope: scope(),
        }
    }
}

/// agentgate's instrumentation scope.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("agentgate")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

/// An RFC 3339 time (an event's `ts`) as a system time.
pub(crate) fn parse_ts(ts: &str) -> Option<SystemTime> {
    ts.parse::<jiff::Timestamp>().ok().map(SystemTime::from)
}
