//! What every step of one execution of a workflow run shares: the
//! environment its runs get ([`WorkflowEnv`]), the context ([`Ctx`]: the
//! workflow, the store, the journal, each step's end so far, the tries and
//! runs of each step), how a step and one try of it end, and the
//! `task_started` of a run a step makes. Kept apart from the engine and the
//! step kinds so that each of them depends on this file only.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use agentgate_core::Config;
use agentgate_core::ToolServer;
use agentgate_core::parse_duration;
use agentgate_protocol::{
    ErrorInfo, ErrorKind, ErrorSource, EventBody, StepOutcome, StepStatus, TaskStartedEvent,
    WorkflowState, WorkflowStateEvent,
};
use agentgate_store::RunStore;
use serde_json::{Map, Value, json};

use super::definition::StepDef;
use super::journal::Journal;
use super::load::Workflow;
use super::refs;
use crate::registry::Registry;
use crate::runner::RunnerSetup;

/// What a workflow's steps run with.
pub struct WorkflowEnv {
    /// The config: agents, chains, providers for `agent` steps.
    pub config: Config,
    /// The tool registry for `tool` steps and how this process runs tools,
    /// or why it cannot (a tool step then fails with it).
    pub tools: Result<(Registry, RunnerSetup), String>,
    /// The keeper put in front of agent CLIs.
    pub keeper: Option<PathBuf>,
    /// agentgate's MCP server, for agent steps with registry tools.
    pub tool_server: Option<ToolServer>,
    /// The environment tools take their scoped environment from.
    pub caller_env: Vec<(String, String)>,
    /// The keys that seal the agents' secrets in the run's events (and
    /// open them on a resume): the queue's keys (see
    /// [`agentgate_core::sealed`]). [`WorkflowEnv::new`] gives an empty
    /// ring: a workflow whose agents set `env` then cannot start.
    pub keys: agentgate_core::sealed::KeyRing,
    /// Files of agentgate's own its agent steps' sandboxed CLIs may not
    /// read (see `agentgate_core::RunOptions::hidden`).
    pub hidden: Vec<PathBuf>,
    /// The API token that submitted the workflow's job: its agent steps'
    /// runs record it, and its budgets apply (`Plan::submitted_by`).
    pub submitter: Option<agentgate_core::budget::BudgetSubmitter>,
    /// Called with each agent step's run just before it starts (its
    /// step's id, its run's id, its plan): the workflow's trace names the
    /// run's span here and hands its CLIs the trace context.
    pub before_agent_run: Option<AgentRunHook>,
}

/// See [`WorkflowEnv::before_agent_run`].
pub type AgentRunHook = std::sync::Arc<dyn Fn(&str, &str, &mut agentgate_core::Plan) + Send + Sync>;

impl WorkflowEnv {
    /// The environment of a workflow whose folder is `base_dir`: the
    /// registry found from that folder (as `agentgate tool` finds it from
    /// its own), tools run by `runner` (`None`: this process runs none),
    /// agent CLIs behind `keeper`, this process's environment for the
    /// tools' scoped one.
    pub fn new(
        config: Config,
        base_dir: &std::path::Path,
        runner: Option<RunnerSetup>,
        keeper: Option<PathBuf>,
        tool_server: Option<ToolServer>,
    ) -> WorkflowEnv {
        let tools = match runner {
            Some(runner) => Registry::discover(&config, base_dir)
                .map(|registry| (registry, runner))
                .map_err(|e| format!("there is no tool registry: {e}")),
            None => Err("this process runs no tools".to_owned()),
        };
        WorkflowEnv {
            config,
            tools,
            keeper,
            tool_server,
            caller_env: crate::invoke::caller_env(),
            keys: agentgate_core::sealed::KeyRing::default(),
            hidden: Vec::new(),
            submitter: None,
            before_agent_run: None,
        }
    }
}

impl std::fmt::Debug for WorkflowEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Not the caller's environment: it holds secrets.
        let tools = self
            .tools
            .as_ref()
            .map(|(registry, runner)| (registry.root.clone(), runner));
        f.debug_struct("WorkflowEnv")
            .field("tools", &tools)
            .field("keeper", &self.keeper)
            .finish_non_exhaustive()
    }
}

/// How a step ended (or, restored, ended in an earlier execution).
#[derive(Debug, Clone)]
pub(super) struct StepEnd {
    pub status: StepStatus,
    pub outcome: StepOutcome,
    pub reason: Option<String>,
    /// The error a failed step ended with.
    pub error: Option<ErrorInfo>,
    /// The execution that ended it.
    pub execution: u32,
}

impl StepEnd {
    pub(super) fn skipped(execution: u32, reason: impl Into<String>) -> Self {
        StepEnd {
            status: StepStatus::Skipped,
            outcome: StepOutcome::default(),
            reason: Some(reason.into()),
            error: None,
            execution,
        }
    }

    pub(super) fn cancelled(execution: u32, reason: impl Into<String>) -> Self {
        StepEnd {
            status: StepStatus::Cancelled,
            outcome: StepOutcome::default(),
            reason: Some(reason.into()),
            error: None,
            execution,
        }
    }
}

/// Tries and runs of each step, over every execution.
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub tries: BTreeMap<String, u32>,
    pub runs: BTreeMap<String, Vec<String>>,
    pub last_tool_run: BTreeMap<String, String>,
}

/// One execution of a workflow run: what every step shares.
pub(super) struct Ctx<'a> {
    pub wf: &'a Workflow,
    pub env: &'a WorkflowEnv,
    pub store: &'a dyn RunStore,
    pub journal: Journal,
    pub input: Value,
    /// The workflow run's labels: its envelope's, and every step's run's
    /// (a step's own labels win over them, key by key).
    pub labels: agentgate_protocol::Labels,
    pub execution: u32,
    pub ends: Mutex<BTreeMap<String, StepEnd>>,
    pub tally: Mutex<Tally>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Ctx<'_> {
    pub(super) fn run_id(&self) -> &str {
        self.journal.run_id()
    }

    /// The end of `id`, if it ended (in this execution or a kept one).
    pub(super) fn end_of(&self, id: &str) -> Option<StepEnd> {
        lock(&self.ends).get(id).cloned()
    }

    pub(super) fn record_end(&self, id: &str, end: StepEnd) {
        lock(&self.ends).insert(id.to_owned(), end);
    }

    pub(super) fn tally(&self) -> MutexGuard<'_, Tally> {
        lock(&self.tally)
    }

    /// What references see now.
    pub(super) fn scope(&self) -> refs::Scope {
        let ends = lock(&self.ends);
        let steps = ends
            .iter()
            .map(|(id, end)| {
                let mut v = Map::new();
                v.insert("status".into(), json!(end.status.as_str()));
                v.insert("result".into(), end.outcome.result.clone());
                v.insert("output".into(), end.outcome.output.clone());
                v.insert(
                    "run_id".into(),
                    end.outcome
                        .run_id
                        .clone()
                        .map_or(Value::Null, Value::String),
                );
                v.insert(
                    "action".into(),
                    end.outcome.action.clone().unwrap_or(Value::Null),
                );
                (id.clone(), Value::Object(v))
            })
            .collect();
        refs::Scope {
            input: self.input.clone(),
            workflow: json!({"run_id": self.run_id(), "name": self.wf.def.name}),
            steps,
            action: None,
            answer: None,
        }
    }

    /// Writes the workflow's state.
    pub(super) fn state(&self, state: WorkflowState, step: Option<&str>, reason: Option<String>) {
        self.journal
            .emit(EventBody::WorkflowState(WorkflowStateEvent {
                state,
                name: None,
                execution: None,
                definition: None,
                input: None,
                base_dir: None,
                step: step.map(str::to_owned),
                reason,
            }));
    }
}

/// How one try ended.
pub(super) enum TryEnd {
    /// It succeeded.
    Ok(StepOutcome),
    /// It failed.
    Failed {
        /// What it produced all the same (a failed tool's envelope).
        outcome: StepOutcome,
        /// The error; `recoverable` says whether a retry may help.
        error: ErrorInfo,
        /// The code to report: a tool's, or the agent's error type.
        code: Option<String>,
        /// The run that failed.
        child: Option<String>,
    },
    /// It was cancelled.
    Cancelled(StepOutcome),
    /// There was nothing to do (a decision whose tool asked nothing).
    Skipped(String),
}

impl TryEnd {
    /// A failure before any run started: not retryable.
    pub(super) fn invalid(message: impl Into<String>) -> TryEnd {
        TryEnd::Failed {
            outcome: StepOutcome::default(),
            error: ErrorInfo::new(ErrorKind::InvalidInput, ErrorSource::Internal, message),
            code: Some("invalid_input".to_owned()),
            child: None,
        }
    }
}

/// Notes that a try of `step_id` started the run `child` (of `kind`).
pub(super) fn started(
    ctx: &Ctx<'_>,
    step_id: &str,
    attempt: u32,
    child: &str,
    kind: &str,
    resumed_from: Option<&str>,
) {
    {
        let mut tally = ctx.tally();
        tally
            .runs
            .entry(step_id.to_owned())
            .or_default()
            .push(child.to_owned());
        if kind == "tool" {
            tally
                .last_tool_run
                .insert(step_id.to_owned(), child.to_owned());
        }
    }
    ctx.journal.emit(EventBody::TaskStarted(TaskStartedEvent {
        task_id: step_id.to_owned(),
        step_attempt: attempt,
        child_run_id: Some(child.to_owned()),
        child_kind: Some(kind.to_owned()),
        resumed_from: resumed_from.map(str::to_owned),
    }));
}

/// The duration of a step's `timeout`, if it sets one.
pub(super) fn step_timeout(step: &StepDef) -> Option<Duration> {
    step.timeout.as_deref().and_then(|t| parse_duration(t).ok())
}
