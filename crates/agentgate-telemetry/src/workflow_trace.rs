//! A workflow run's spans, from its events: [`WorkflowTrace`] makes
//!
//! ```text
//! agentgate.workflow                  (begin() .. finish(); its result event's envelope)
//! └── workflow step <id>              first `task_started` .. `task_done`
//!     └── agentgate.run               an agent step's run, from its nested
//!         └── ...                     `task_progress` events (see run_trace.rs)
//! ```
//!
//! A step that ran several tries is one span (`agentgate.step.attempts`,
//! the last try's error). A step's run is traced by a [`RunTrace`] of its
//! own fed the events the workflow nests for it; an agent step's is named
//! just before the run starts ([`WorkflowTrace::pass_to_step_run`]) so
//! that its CLIs, given its context, put their own spans under it.

use std::collections::BTreeMap;
use std::time::SystemTime;

use agentgate_protocol::{Envelope, Event, EventBody};
use opentelemetry::KeyValue;
use opentelemetry::trace::SpanId;
use opentelemetry_sdk::trace::SpanData;

use crate::exporter::Telemetry;
use crate::run_trace::RunTrace;
use crate::span_record::{SpanParent, SpanRecord, new_span_id, parse_ts};
use crate::trace_context::TraceContext;

/// The spans of one workflow run.
#[derive(Debug)]
pub struct WorkflowTrace {
    telemetry: &'static Telemetry,
    parent: SpanParent,
    span_id: SpanId,
    started: SystemTime,
    /// By task id, in the order first seen.
    steps: Vec<StepSeen>,
    /// The steps' runs, by child run id.
    runs: BTreeMap<String, (usize, RunTrace)>,
    envelope: Option<Envelope>,
}

#[derive(Debug)]
struct StepSeen {
    task_id: String,
    span_id: SpanId,
    kind: Option<String>,
    start: Option<SystemTime>,
    end: Option<SystemTime>,
    tries: u32,
    status: Option<&'static str>,
    error: Option<String>,
}

impl WorkflowTrace {
    /// A workflow run starting now under `parent`.
    pub fn begin(telemetry: &'static Telemetry, parent: SpanParent) -> WorkflowTrace {
        WorkflowTrace {
            telemetry,
            parent,
            span_id: new_span_id(),
            started: SystemTime::now(),
            steps: Vec::new(),
            runs: BTreeMap::new(),
            envelope: None,
        }
    }

    /// The context a process of this workflow continues.
    pub fn context(&self) -> TraceContext {
        self.parent.context_of(self.span_id)
    }

    fn step(&mut self, task_id: &str) -> usize {
        if let Some(i) = self.steps.iter().position(|s| s.task_id == task_id) {
            return i;
        }
        self.steps.push(StepSeen {
            task_id: task_id.to_owned(),
            span_id: new_span_id(),
            kind: None,
            start: None,
            end: None,
            tries: 0,
            status: None,
            error: None,
        });
        self.steps.len() - 1
    }

    /// An agent step's run is about to start: its span (under its
    /// step's) is named now, and its CLIs are given it (`TRACEPARENT`,
    /// their OTel settings), so their own spans sit under it; the run's
    /// events, nested in the workflow's, fill it in later.
    pub fn pass_to_step_run(
        &mut self,
        task_id: &str,
        run_id: &str,
        plan: &mut agentgate_core::Plan,
    ) {
        let i = self.step(task_id);
        let under = self
            .parent
            .child_of(self.span_id)
            .child_of(self.steps[i].span_id);
        let telemetry = self.telemetry;
        let (_, run) = self
            .runs
            .entry(run_id.to_owned())
            .or_insert_with(|| (i, RunTrace::begin(telemetry, under)));
        crate::cli_env::pass_to_clis(plan, &run.context(), telemetry.config());
    }

    /// Take in one event of the workflow run.
    pub fn observe(&mut self, event: &Event) {
        let ts = parse_ts(&event.ts).unwrap_or_else(SystemTime::now);
        match &event.body {
            EventBody::TaskSubmitted(t) => {
                let i = self.step(&t.task_id);
                self.steps[i].kind = Some(t.kind.clone());
            }
            EventBody::TaskStarted(t) => {
                let i = self.step(&t.task_id);
                let step = &mut self.steps[i];
                step.start.get_or_insert(ts);
                step.tries += 1;
            }
            EventBody::TaskError(t) => {
                let i = self.step(&t.task_id);
                self.steps[i].error = Some(t.message.clone());
            }
            EventBody::TaskDone(t) => {
                let i = self.step(&t.task_id);
                let step = &mut self.steps[i];
                step.start.get_or_insert(ts);
                step.end = Some(ts);
                step.status = Some(t.status.as_str());
                if step.tries == 0 {
                    step.tries = t.attempts;
                }
            }
            EventBody::TaskProgress(p) => {
                let i = self.step(&p.task_id);
                let under = self
                    .parent
                    .child_of(self.span_id)
                    .child_of(self.steps[i].span_id);
                let telemetry = self.telemetry;
                let (_, run) = self.runs.entry(p.child_run_id.clone()).or_insert_with(|| {
                    let started = parse_ts(&p.event.ts).unwrap_or(ts);
                    (i, RunTrace::begin(telemetry, under).started_at(started))
                });
                run.observe(&p.event);
            }
            EventBody::Result(r) => self.envelope = Some((*r.envelope).clone()),
            _ => {}
        }
    }

    /// The workflow ended: its spans, queued for export.
    pub fn finish(self) {
        let telemetry = self.telemetry;
        let spans = self.into_spans(SystemTime::now());
        telemetry.submit(spans);
    }

    fn into_spans(self, end: SystemTime) -> Vec<SpanData> {
        if !self.parent.sampled {
            return Vec::new();
        }
        let under_workflow = self.parent.child_of(self.span_id);
        let mut spans = Vec::new();
        let mut ends: Vec<SystemTime> = Vec::new();
        for step in &self.steps {
            let start = step.start.unwrap_or(self.started);
            let mut span = SpanRecord::new(
                format!("workflow step {}", step.task_id),
                step.span_id,
                start,
            );
            span.end = step.end.unwrap_or(end);
            ends.push(span.end);
            span.set(KeyValue::new("agentgate.step.id", step.task_id.clone()));
            span.set_some("agentgate.step.kind", step.kind.clone());
            span.set(KeyValue::new(
                "agentgate.step.attempts",
                i64::from(step.tries),
            ));
            span.set_some("agentgate.outcome", step.status);
            if step.status == Some("failed") {
                span.set(KeyValue::new("error.type", "step_failed"));
                span.error = Some(
                    step.error
                        .clone()
                        .unwrap_or_else(|| "the step failed".into()),
                );
            }
            spans.push(span.into_span_data(&under_workflow));
        }
        for (_, (i, run)) in self.runs {
            let run_end = ends.get(i).copied().unwrap_or(end);
            spans.extend(run.into_spans_ending(run_end));
        }
        let mut workflow = SpanRecord::new("agentgate.workflow", self.span_id, self.started);
        workflow.end = end;
        workflow.set(KeyValue::new("agentgate.steps", self.steps.len() as i64));
        if let Some(envelope) = &self.envelope {
            crate::run_trace::describe_envelope(&mut workflow, envelope);
        }
        spans.push(workflow.into_span_data(&self.parent));
        spans
    }
}

/// A hook called with an agent step's id, its run's id and its plan
/// just before the run starts (the same type as the workflow engine's).
pub type AgentRunHook = std::sync::Arc<dyn Fn(&str, &str, &mut agentgate_core::Plan) + Send + Sync>;

/// A workflow's trace shared with the engine's observer (a boxed closure
/// that must own what it feeds): observe from the closure, finish after
/// the workflow returned.
#[derive(Debug, Clone)]
pub struct SharedWorkflowTrace(std::sync::Arc<std::sync::Mutex<Option<WorkflowTrace>>>);

impl SharedWorkflowTrace {
    /// Share `trace`.
    pub fn new(trace: WorkflowTrace) -> SharedWorkflowTrace {
        SharedWorkflowTrace(std::sync::Arc::new(std::sync::Mutex::new(Some(trace))))
    }

    /// Take in one event of the workflow.
    pub fn observe(&self, event: &Event) {
        if let Ok(mut guard) = self.0.lock()
            && let Some(trace) = guard.as_mut()
        {
            trace.observe(event);
        }
    }

    /// See [`WorkflowTrace::pass_to_step_run`].
    pub fn pass_to_step_run(&self, task_id: &str, run_id: &str, plan: &mut agentgate_core::Plan) {
        if let Ok(mut guard) = self.0.lock()
            && let Some(trace) = guard.as_mut()
        {
            trace.pass_to_step_run(task_id, run_id, plan);
        }
    }

    /// [`SharedWorkflowTrace::pass_to_step_run`] as the hook a workflow's
    /// environment calls before each agent step's run
    /// (`agentgate_tools::workflow::WorkflowEnv::before_agent_run`).
    pub fn agent_run_hook(&self) -> AgentRunHook {
        let shared = self.clone();
        std::sync::Arc::new(
            move |step: &str, run: &str, plan: &mut agentgate_core::Plan| {
                shared.pass_to_step_run(step, run, plan);
            },
        )
    }

    /// The workflow ended: its spans go to the export (once).
    pub fn finish(&self) {
        let taken = self.0.lock().ok().and_then(|mut guard| guard.take());
        if let Some(trace) = taken {
            trace.finish();
        }
    }
}
