//! The W3C trace context (`traceparent`, `tracestate`): read from an
//! incoming request's headers or `TRACEPARENT`/`TRACESTATE`, kept with a
//! queued job (its stored request's `trace_context`), and written for a
//! CLI's environment. Parsing follows the W3C Trace Context
//! recommendation: version `00` exactly as specified; a later version is
//! read by its first four fields; `ff`, all-zero ids and malformed values
//! are refused (the span then has no parent: a bad header never fails a
//! request).

use opentelemetry::trace::{SpanId, TraceFlags, TraceId};
use serde_json::{Map, Value};

/// The key of a stored request that holds its trace context.
pub const STORED_KEY: &str = "trace_context";

/// A span's place in a trace, as `traceparent` and `tracestate` carry it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TraceContext {
    /// The trace.
    pub trace_id: TraceId,
    /// The span (for a parent: the caller's span).
    pub span_id: SpanId,
    /// Whether the trace is sampled (flag `01`).
    pub sampled: bool,
    /// `tracestate`, passed on as it came (bounded to 512 bytes, the
    /// recommendation's minimum to propagate).
    pub tracestate: Option<String>,
}

impl TraceContext {
    /// Read a `traceparent` value (and its `tracestate`); `None` when it is
    /// not a valid one.
    pub fn parse(traceparent: &str, tracestate: Option<&str>) -> Option<TraceContext> {
        let value = traceparent.trim();
        let mut parts = value.split('-');
        let version = parts.next()?;
        let trace = parts.next()?;
        let span = parts.next()?;
        let flags = parts.next()?;
        let rest = parts.next();
        let hex = |s: &str, len: usize| {
            s.len() == len
                && s.bytes()
                    .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        if !hex(version, 2) || version == "ff" || !hex(trace, 32) || !hex(span, 16) {
            return None;
        }
        if !hex(flags, 2) || (version == "00" && rest.is_some()) {
            return None;
        }
        let trace_id = TraceId::from_hex(trace).ok()?;
        let span_id = SpanId::from_hex(span).ok()?;
        if trace_id == TraceId::INVALID || span_id == SpanId::INVALID {
            return None;
        }
        let flags = u8::from_str_radix(flags, 16).ok()?;
        let tracestate = tracestate
            .map(str::trim)
            .filter(|s| !s.is_empty() && s.len() <= 512)
            .map(str::to_owned);
        Some(TraceContext {
            trace_id,
            span_id,
            sampled: flags & 1 == 1,
            tracestate,
        })
    }

    /// `TRACEPARENT` (and `TRACESTATE`) of this process's environment.
    pub fn from_env() -> Option<TraceContext> {
        let parent = std::env::var("TRACEPARENT").ok()?;
        let state = std::env::var("TRACESTATE").ok();
        TraceContext::parse(&parent, state.as_deref())
    }

    /// The `traceparent` value (version `00`).
    pub fn traceparent(&self) -> String {
        let flags = if self.sampled {
            TraceFlags::SAMPLED
        } else {
            TraceFlags::default()
        };
        format!(
            "00-{}-{}-{:02x}",
            self.trace_id,
            self.span_id,
            flags.to_u8()
        )
    }

    /// As a stored request keeps it: `{"traceparent": ..., "tracestate": ...}`.
    pub fn to_stored(&self) -> Value {
        let mut object = Map::new();
        object.insert("traceparent".into(), Value::String(self.traceparent()));
        if let Some(state) = &self.tracestate {
            object.insert("tracestate".into(), Value::String(state.clone()));
        }
        Value::Object(object)
    }

    /// Read back what [`TraceContext::to_stored`] wrote; `None` for
    /// anything else.
    pub fn from_stored(stored: &Value) -> Option<TraceContext> {
        let parent = stored.get("traceparent")?.as_str()?;
        let state = stored.get("tracestate").and_then(Value::as_str);
        TraceContext::parse(parent, state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GIVEN: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn a_valid_traceparent_round_trips_with_its_state() {
        let c = TraceContext::parse(GIVEN, Some("congo=t61rcWkgMzE")).unwrap();
        assert_eq!(c.trace_id.to_string(), "4bf92f3577b34da6a3ce929d0e0e4736");
        assert_eq!(c.span_id.to_string(), "00f067aa0ba902b7");
        assert!(c.sampled);
        assert_eq!(c.traceparent(), GIVEN);
        assert_eq!(TraceContext::from_stored(&c.to_stored()), Some(c));
    }

    #[test]
    fn malformed_values_are_refused() {
        for bad in [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
        ] {
            assert_eq!(TraceContext::parse(bad, None), None, "{bad}");
        }
        // A later version may carry more fields.
        let later = "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-more";
        assert!(TraceContext::parse(later, None).is_some_and(|c| !c.sampled));
    }
}
