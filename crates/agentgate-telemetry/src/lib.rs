//! agentgate's OpenTelemetry traces.
//!
//! Off unless the standard variables configure an OTLP export
//! ([`ExportConfig`]); with export off nothing here is built: no exporter,
//! no thread, no span ([`init_from_env`] returns `None`, and every trace
//! constructor needs the [`Telemetry`] it returns).
//!
//! The design: spans are built after the fact from what a run already
//! records, not by threading a context through the engine. A run's events
//! carry their times, their attempt, the gateway's report of each model
//! call and the tool calls; the final envelope carries each attempt's
//! outcome. [`TracedSink`] watches the event stream beside the caller's
//! sink ([`RunTrace`], [`WorkflowTrace`]); when the run ends the spans are
//! made with explicit start and end times and ids chosen ahead (so a CLI
//! is handed the run span as its `TRACEPARENT`, [`pass_to_clis`], before
//! it ends), and queued to the SDK's batch span processor, which exports
//! them in the background (`exporter.rs`: a bounded queue, a bounded
//! flush at [`shutdown`]). A queued job's span ([`JobTrace`]) hangs under
//! the `traceparent` its request came with ([`TraceContext`], kept in the
//! stored request's `trace_context`), and its run under it.
//!
//! Modules: `export_config.rs` (the variables), `error.rs`, `trace_context.rs` (W3C
//! `traceparent`), `exporter.rs` (the export, once per process; `otlp.rs` its OTLP
//! exporter, the `otlp` feature),
//! `span_record.rs` (a span built after the fact), `run_trace.rs`,
//! `workflow_trace.rs`, `job_trace.rs` (the spans of each), `sink.rs`,
//! `cli_env.rs` (what the CLIs are given).

mod cli_env;
mod error;
mod export_config;
mod exporter;
mod job_trace;
#[cfg(feature = "otlp")]
mod otlp;
mod run_trace;
mod sink;
mod span_record;
mod trace_context;
mod workflow_trace;

pub use cli_env::{cli_settings, pass_to_clis};
pub use error::TelemetryError;
pub use export_config::{ExportConfig, ExportConfigError, OtlpProtocol, READ_VARIABLES};
pub use exporter::{Telemetry, current, init_from_env, shutdown};
pub use job_trace::JobTrace;
pub use run_trace::RunTrace;
pub use sink::TracedSink;
pub use span_record::SpanParent;
pub use trace_context::{STORED_KEY, TraceContext};
pub use workflow_trace::{AgentRunHook, SharedWorkflowTrace, WorkflowTrace};

/// The trace of `agentgate run`: `None` when export is off; else a run
/// under `TRACEPARENT` (when set and valid), whose context and OTel
/// settings `plan`'s CLIs are given.
pub fn run_trace_from_env(plan: &mut agentgate_core::Plan) -> Option<RunTrace> {
    let telemetry = init_from_env()?;
    let parent = TraceContext::from_env();
    let trace = RunTrace::begin(telemetry, SpanParent::remote(parent.as_ref()));
    pass_to_clis(plan, &trace.context(), telemetry.config());
    Some(trace)
}

/// The trace of `agentgate workflow run`: `None` when export is off; else
/// a workflow run under `TRACEPARENT` (when set and valid).
pub fn workflow_trace_from_env() -> Option<SharedWorkflowTrace> {
    let telemetry = init_from_env()?;
    let parent = TraceContext::from_env();
    Some(SharedWorkflowTrace::new(WorkflowTrace::begin(
        telemetry,
        SpanParent::remote(parent.as_ref()),
    )))
}

/// How long the end of `agentgate run` (and of serve and worker) waits
/// for the queued spans to be sent: a collector that is down or slow
/// costs at most this, once.
pub const FINAL_FLUSH: std::time::Duration = std::time::Duration::from_secs(5);
