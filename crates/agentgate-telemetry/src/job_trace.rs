//! A queued job's span (serve's and worker's executor): `agentgate.job`,
//! from its claim to its end, under the trace context its request came
//! with (`traceparent` of `POST /v1/runs` or `POST /v1/workflows`, kept in
//! the stored request), with the job's run or workflow under it. The
//! context is kept with the job, so a worker in another process continues
//! the caller's trace.

use std::time::SystemTime;

use agentgate_protocol::Envelope;
use opentelemetry::KeyValue;
use opentelemetry::trace::{SpanId, SpanKind};

use crate::exporter::{Telemetry, current};
use crate::run_trace::RunTrace;
use crate::span_record::{SpanParent, SpanRecord, new_span_id};
use crate::trace_context::TraceContext;
use crate::workflow_trace::WorkflowTrace;

/// A job's span under way.
#[derive(Debug)]
pub struct JobTrace {
    telemetry: &'static Telemetry,
    parent: SpanParent,
    span_id: SpanId,
    started: SystemTime,
    job_id: String,
    kind: &'static str,
}

impl JobTrace {
    /// The job `job_id` (`kind`: `run` or `workflow`) starts now under
    /// `parent` (its stored context); `None` when export is off.
    pub fn begin(
        job_id: &str,
        kind: &'static str,
        parent: Option<&TraceContext>,
    ) -> Option<JobTrace> {
        let telemetry = current()?;
        Some(JobTrace {
            telemetry,
            parent: SpanParent::remote(parent),
            span_id: new_span_id(),
            started: SystemTime::now(),
            job_id: job_id.to_owned(),
            kind,
        })
    }

    /// The trace of the job's run `plan`, under the job; its CLIs are given
    /// the run's context and their OTel settings.
    pub fn run_for(&self, plan: &mut agentgate_core::Plan) -> RunTrace {
        let trace = RunTrace::begin(self.telemetry, self.parent.child_of(self.span_id));
        crate::cli_env::pass_to_clis(plan, &trace.context(), self.telemetry.config());
        trace
    }

    /// The trace of the job's workflow, under the job.
    pub fn workflow(&self) -> WorkflowTrace {
        WorkflowTrace::begin(self.telemetry, self.parent.child_of(self.span_id))
    }

    /// The job ended with `envelope`: its span, queued for export.
    pub fn finish(self, envelope: &Envelope) {
        if !self.parent.sampled {
            return;
        }
        let mut span = SpanRecord::new("agentgate.job", self.span_id, self.started);
        span.kind = SpanKind::Consumer;
        span.end = SystemTime::now();
        span.set(KeyValue::new("agentgate.job_id", self.job_id));
        span.set(KeyValue::new("agentgate.job.kind", self.kind));
        crate::run_trace::describe_envelope(&mut span, envelope);
        self.telemetry
            .submit(vec![span.into_span_data(&self.parent)]);
    }
}
