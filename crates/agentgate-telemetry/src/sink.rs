//! [`TracedSink`]: the caller's event sink with a run's trace beside it.
//! With export off the trace is `None` and the sink only passes events on.

use agentgate_core::EventSink;
use agentgate_protocol::Event;

use crate::run_trace::RunTrace;

/// Passes each event to the caller's sink, and to the run's trace.
pub struct TracedSink<'a> {
    inner: &'a mut dyn EventSink,
    trace: Option<RunTrace>,
}

impl std::fmt::Debug for TracedSink<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TracedSink")
            .field("traced", &self.trace.is_some())
            .finish()
    }
}

impl<'a> TracedSink<'a> {
    /// `inner`, with `trace` watching (none: export is off).
    pub fn new(inner: &'a mut dyn EventSink, trace: Option<RunTrace>) -> TracedSink<'a> {
        TracedSink { inner, trace }
    }

    /// The run ended: its spans go to the export.
    pub fn finish(self) {
        if let Some(trace) = self.trace {
            trace.finish();
        }
    }
}

impl EventSink for TracedSink<'_> {
    fn emit(&mut self, event: &Event) {
        if let Some(trace) = &mut self.trace {
            trace.observe(event);
        }
        self.inner.emit(event);
    }
}
