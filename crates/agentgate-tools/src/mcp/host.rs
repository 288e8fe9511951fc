//! What runs a tool call, whoever asked for it: the MCP server's own
//! process (`agentgate mcp` started by a user), or the agentgate process
//! that runs an agent, for the `agentgate mcp --relay` its CLI started
//! (`relay.rs`). It holds the tools (with the policy's limits and
//! refusals), the runner, the store and the error codes; a call checks the
//! arguments against the manifest and runs the tool through the runner.

use std::sync::{Arc, Mutex};

use agentgate_core::CancelRequest;
use agentgate_protocol::{Event, EventBody, ToolEnvelope, ToolMessageBody};
use agentgate_store::{RunStore, StoreLocation};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::sync::mpsc;

use crate::runner::{ClassifyCode, RunLimits, RunnerSetup, ToolRunRequest, ToolTarget, run_tool};

/// One tool the server offers.
#[derive(Debug, Clone)]
pub struct McpTool {
    /// What to run.
    pub target: ToolTarget,
    /// Its limits, after the policy.
    pub limits: RunLimits,
    /// The policy's refusal, if it refused the tool: a call is then
    /// recorded as refused and answered with the refusal.
    pub refusal: Option<String>,
    /// The input schema (a JSON Schema object) made from its manifest.
    pub input_schema: Map<String, Value>,
}

/// One tool as a client lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ListedTool {
    /// Its name.
    pub name: String,
    /// What it does (its manifest's description, else its name and
    /// version).
    pub description: String,
    /// Its input schema (a JSON Schema object) made from its manifest.
    pub input_schema: Map<String, Value>,
}

/// A call of one tool.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The tool.
    pub tool: String,
    /// Its arguments, as the MCP client sent them.
    pub arguments: Map<String, Value>,
    /// The agent run that called it (the tool run's parent).
    pub parent_run: Option<String>,
    /// The caller's environment: the tool takes the variables its
    /// manifest requires from it, nothing else.
    pub caller_env: Vec<(String, String)>,
}

/// A tool's progress, for an MCP progress notification.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Progress {
    /// How far (a percentage when `total` is 100, else a count).
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// The tool's message.
    pub message: Option<String>,
}

/// How a call ended.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutcome {
    /// No tool of that name is offered.
    NoSuchTool(String),
    /// The arguments do not fit the manifest: the structured error to
    /// answer with; nothing ran.
    Invalid(Value),
    /// The tool ran (or was refused and recorded): its envelope.
    Ran(Box<ToolEnvelope>),
    /// The run could not be recorded or prepared, or the relay failed.
    Failed(String),
}

/// Where a host records its runs: a store it was given, or one it opens
/// on its first call (a relay that is never called opens nothing).
enum HostStore {
    Open(Arc<dyn RunStore>),
    Lazy(StoreLocation, Mutex<Option<Arc<dyn RunStore>>>),
}

/// The tools and how to run them (see the module notes).
pub struct ToolHost {
    tools: Vec<McpTool>,
    runner: RunnerSetup,
    store: HostStore,
    classify: ClassifyCode,
}

impl std::fmt::Debug for ToolHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolHost")
            .field("tools", &self.tools.len())
            .finish_non_exhaustive()
    }
}

impl ToolHost {
    /// A host of `tools`, recording into `store`.
    pub fn new(
        tools: Vec<McpTool>,
        runner: RunnerSetup,
        store: Arc<dyn RunStore>,
        classify: ClassifyCode,
    ) -> Self {
        Self {
            tools,
            runner,
            store: HostStore::Open(store),
            classify,
        }
    }

    /// A host of `tools` that opens the store at `location` on its first
    /// call.
    pub fn opening(
        tools: Vec<McpTool>,
        runner: RunnerSetup,
        location: StoreLocation,
        classify: ClassifyCode,
    ) -> Self {
        Self {
            tools,
            runner,
            store: HostStore::Lazy(location, Mutex::new(None)),
            classify,
        }
    }

    fn tool(&self, name: &str) -> Option<&McpTool> {
        self.tools.iter().find(|t| t.target.manifest.name == name)
    }

    /// The tools among `names` (every tool when `names` is empty), as a
    /// client lists them; `Err` names one it does not offer.
    pub fn listed(&self, names: &[String]) -> Result<Vec<ListedTool>, String> {
        if let Some(missing) = names.iter().find(|n| self.tool(n).is_none()) {
            return Err(format!("no tool named `{missing}` is offered"));
        }
        Ok(self
            .tools
            .iter()
            .filter(|t| names.is_empty() || names.contains(&t.target.manifest.name))
            .map(|tool| {
                let manifest = &tool.target.manifest;
                ListedTool {
                    name: manifest.name.clone(),
                    description: manifest.description.clone().unwrap_or_else(|| {
                        format!("The tool `{}` {}", manifest.name, manifest.version)
                    }),
                    input_schema: tool.input_schema.clone(),
                }
            })
            .collect())
    }

    async fn store(&self) -> Result<Arc<dyn RunStore>, String> {
        match &self.store {
            HostStore::Open(store) => Ok(store.clone()),
            HostStore::Lazy(location, slot) => {
                if let Some(store) = lock(slot).clone() {
                    return Ok(store);
                }
                let location = location.clone();
                let opened = tokio::task::spawn_blocking(move || {
                    agentgate_store::store_choice::open(&location)
                })
                .await
                .map_err(|e| format!("failed to open the run store: {e}"))?
                .map_err(|e| format!("failed to open the run store: {e}"))?;
                let opened: Arc<dyn RunStore> = opened;
                Ok(lock(slot).get_or_insert(opened).clone())
            }
        }
    }

    /// Runs `call`: its progress goes to `progress`, a request on `cancel`
    /// cancels the tool.
    pub async fn call(
        &self,
        call: ToolCall,
        progress: mpsc::UnboundedSender<Progress>,
        cancel: mpsc::Receiver<CancelRequest>,
    ) -> CallOutcome {
        let Some(tool) = self.tool(&call.tool) else {
            return CallOutcome::NoSuchTool(call.tool);
        };
        let args = match tool.target.manifest.args_for(&call.arguments) {
            Ok(args) => args,
            Err(e) => {
                return CallOutcome::Invalid(json!({
                    "status": "error",
                    "code": "E_INVALID_ARGUMENTS",
                    "class": "user_error",
                    "retryable": false,
                    "error": e.to_string(),
                }));
            }
        };
        let store = match self.store().await {
            Ok(store) => store,
            Err(e) => return CallOutcome::Failed(e),
        };
        let mut count = 0.0_f64;
        let mut observer = move |event: &Event| {
            if let EventBody::ToolMessage(m) = &event.body
                && let ToolMessageBody::Progress(p) = &m.message.body
            {
                count += 1.0;
                let (done, total) = match p.pct.as_ref().and_then(serde_json::Number::as_f64) {
                    Some(pct) => (pct, Some(100.0)),
                    None => (count, None),
                };
                let _ = progress.send(Progress {
                    progress: done,
                    total,
                    message: p.msg.clone(),
                });
            }
        };
        let run = ToolRunRequest {
            target: tool.target.clone(),
            args,
            limits: tool.limits.clone(),
            refusal: tool.refusal.clone(),
            run_id: None,
            parent_run_id: call.parent_run.clone(),
            labels: Default::default(),
            resume_from: None,
            trace_id: call.parent_run,
            stdin: None,
            copy_in: Vec::new(),
            copy_in_base: None,
            caller_env: call.caller_env,
            classify: self.classify.clone(),
        };
        match run_tool(
            run,
            &self.runner,
            store.as_ref(),
            &mut observer,
            Some(cancel),
        )
        .await
        {
            Ok(envelope) => CallOutcome::Ran(Box::new(envelope)),
            Err(e) => CallOutcome::Failed(e.to_string()),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
