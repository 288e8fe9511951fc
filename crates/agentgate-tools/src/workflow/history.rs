//! Reading a workflow run back from its events: the workflow it runs (the
//! first `workflow_state` carries the definition, the input and the
//! folder) and every step's checkpoint (its last `task_done`), with the
//! tries and runs of every execution. A resume runs again only the steps
//! whose last `task_done` is not `ok` or `skipped`; a tool step that was
//! running when the process died continues in its last run's workspace.

use std::collections::BTreeMap;
use std::path::PathBuf;

use agentgate_protocol::{Event, EventBody, TaskDoneEvent};
use serde_json::Value;

/// What a workflow run's events say about it.
#[derive(Debug, Clone, Default)]
pub struct History {
    /// The workflow's name.
    pub name: String,
    /// The workflow as it was read when the run started.
    pub definition: Value,
    /// Its input.
    pub input: Value,
    /// The folder its relative paths are relative to.
    pub base_dir: PathBuf,
    /// Executions so far (1 + the resumes).
    pub executions: u32,
    /// Each step's last `task_done`, and the execution that wrote it.
    pub done: BTreeMap<String, (TaskDoneEvent, u32)>,
    /// Each step's tries, over every execution.
    pub tries: BTreeMap<String, u32>,
    /// Each step's runs, over every execution, in order.
    pub runs: BTreeMap<String, Vec<String>>,
    /// The last tool run a step started (the workspace to continue in
    /// after a crash).
    pub last_tool_run: BTreeMap<String, String>,
}

impl History {
    /// Reads `events` (a workflow run's, in `seq` order). `Err` when they
    /// do not start with the workflow.
    pub fn from_events(events: &[Event]) -> Result<History, String> {
        let mut h = History::default();
        let mut found = false;
        let mut seen_tries = std::collections::BTreeSet::new();
        for event in events {
            match &event.body {
                EventBody::WorkflowState(s) => {
                    if let Some(definition) = &s.definition
                        && !found
                    {
                        found = true;
                        h.definition = definition.clone();
                        h.input = s.input.clone().unwrap_or(Value::Null);
                        h.base_dir = PathBuf::from(s.base_dir.clone().unwrap_or_default());
                        h.name = s.name.clone().unwrap_or_default();
                    }
                    if let Some(n) = s.execution {
                        h.executions = h.executions.max(n);
                    }
                }
                EventBody::TaskStarted(s) => {
                    // A decision's try starts several runs: count the try
                    // once.
                    if seen_tries.insert((h.executions, s.task_id.clone(), s.step_attempt)) {
                        *h.tries.entry(s.task_id.clone()).or_default() += 1;
                    }
                    if let Some(child) = &s.child_run_id {
                        h.runs
                            .entry(s.task_id.clone())
                            .or_default()
                            .push(child.clone());
                        if s.child_kind.as_deref() == Some("tool") {
                            h.last_tool_run.insert(s.task_id.clone(), child.clone());
                        }
                    }
                }
                EventBody::TaskDone(d) => {
                    h.done
                        .insert(d.task_id.clone(), (d.clone(), h.executions.max(1)));
                }
                _ => {}
            }
        }
        if !found {
            return Err(
                "its events do not begin with the workflow (no workflow_state with its definition)"
                    .to_owned(),
            );
        }
        Ok(h)
    }

    /// The steps whose outcome a resume keeps (`ok` or `skipped`).
    pub fn finished(&self) -> impl Iterator<Item = (&String, &TaskDoneEvent, u32)> {
        self.done
            .iter()
            .filter(|(_, (d, _))| d.status.is_finished())
            .map(|(id, (d, n))| (id, d, *n))
    }
}
