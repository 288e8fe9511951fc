//! The MCP server: listing the tools, running a call.

use std::sync::Arc;

use agentgate_core::run::CancelRequest;
use agentgate_protocol::{Event, EventBody, ToolMessageBody, ToolStatus};
use agentgate_store::RunStore;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt as _};
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

/// The server: the tools, and how to run them.
#[derive(Clone)]
pub struct McpToolServer {
    tools: Arc<Vec<McpTool>>,
    runner: Arc<RunnerSetup>,
    store: Arc<dyn RunStore>,
    parent_run_id: Option<String>,
    caller_env: Arc<Vec<(String, String)>>,
    classify: ClassifyCode,
}

impl std::fmt::Debug for McpToolServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpToolServer")
            .field("tools", &self.tools.len())
            .field("parent_run_id", &self.parent_run_id)
            .finish_non_exhaustive()
    }
}

impl McpToolServer {
    /// A server offering `tools`, recording their runs in `store`, each
    /// linked to `parent_run_id`; tools take their variables from
    /// `caller_env`.
    pub fn new(
        tools: Vec<McpTool>,
        runner: RunnerSetup,
        store: Arc<dyn RunStore>,
        parent_run_id: Option<String>,
        caller_env: Vec<(String, String)>,
        classify: ClassifyCode,
    ) -> Self {
        Self {
            tools: Arc::new(tools),
            runner: Arc::new(runner),
            store,
            parent_run_id,
            caller_env: Arc::new(caller_env),
            classify,
        }
    }

    fn tool(&self, name: &str) -> Option<&McpTool> {
        self.tools.iter().find(|t| t.target.manifest.name == name)
    }
}

/// Serves MCP on this process's stdin and stdout until the client closes
/// them (each line read strictly, see [`super::transport`]).
pub async fn serve_stdio(server: McpToolServer) -> Result<(), std::io::Error> {
    let transport = super::transport::StrictLines::new(tokio::io::stdin(), tokio::io::stdout());
    let running = server
        .serve(transport)
        .await
        .map_err(std::io::Error::other)?;
    running.waiting().await.map_err(std::io::Error::other)?;
    Ok(())
}

impl ServerHandler for McpToolServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("agentgate", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Deterministic tools run by agentgate under limits. Each result is the tool's \
                 envelope: status (ok, error, cancelled, action_required), code and class of an \
                 error, whether it is retryable, artifacts with their SHA-256, metrics, and the \
                 decisions the tool asks for (actions).",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let tools = self
            .tools
            .iter()
            .map(|tool| {
                let manifest = &tool.target.manifest;
                let description = manifest.description.clone().unwrap_or_else(|| {
                    format!("The tool `{}` {}", manifest.name, manifest.version)
                });
                Tool::new(
                    manifest.name.clone(),
                    description,
                    Arc::new(tool.input_schema.clone()),
                )
            })
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let Some(tool) = self.tool(&request.name) else {
            return Err(McpError::invalid_params(
                format!("no tool named `{}`", request.name),
                None,
            ));
        };
        let arguments = request.arguments.unwrap_or_default();
        let args = match tool.target.manifest.args_for(&arguments) {
            Ok(args) => args,
            Err(e) => {
                return Ok(CallToolResult::structured_error(json!({
                    "status": "error",
                    "code": "E_INVALID_ARGUMENTS",
                    "class": "user_error",
                    "retryable": false,
                    "error": e.to_string(),
                }))
                .into());
            }
        };

        let (progress_tx, mut progress_rx) =
            mpsc::unbounded_channel::<(f64, Option<f64>, Option<String>)>();
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let forward = tokio::spawn(async move {
            while let Some((progress, total, message)) = progress_rx.recv().await {
                if let Some(token) = &token {
                    let mut param = ProgressNotificationParam::new(token.clone(), progress);
                    param.total = total;
                    param.message = message;
                    let _ = peer.notify_progress(param).await;
                }
            }
        });
        let mut count = 0.0_f64;
        let mut observer = move |event: &Event| {
            if let EventBody::ToolMessage(m) = &event.body
                && let ToolMessageBody::Progress(p) = &m.message.body
            {
                count += 1.0;
                let (progress, total) = match p.pct.as_ref().and_then(serde_json::Number::as_f64) {
                    Some(pct) => (pct, Some(100.0)),
                    None => (count, None),
                };
                let _ = progress_tx.send((progress, total, p.msg.clone()));
            }
        };
        let (cancel_tx, cancel_rx) = mpsc::channel(2);
        let cancelled = context.ct.clone();
        let canceller = tokio::spawn(async move {
            cancelled.cancelled().await;
            let _ = cancel_tx.send(CancelRequest { immediate: false }).await;
        });
        let run = ToolRunRequest {
            target: tool.target.clone(),
            args,
            limits: tool.limits.clone(),
            refusal: tool.refusal.clone(),
            run_id: None,
            parent_run_id: self.parent_run_id.clone(),
            resume_from: None,
            trace_id: self.parent_run_id.clone(),
            stdin: None,
            copy_in: Vec::new(),
            copy_in_base: None,
            caller_env: self.caller_env.as_ref().clone(),
            classify: self.classify.clone(),
        };
        let result = run_tool(
            run,
            &self.runner,
            self.store.as_ref(),
            &mut observer,
            Some(cancel_rx),
        )
        .await;
        canceller.abort();
        drop(observer);
        let _ = forward.await;
        let envelope = result.map_err(|e| McpError::internal_error(e.to_string(), None))?;
        let value = serde_json::to_value(&envelope)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(match envelope.status {
            ToolStatus::Error | ToolStatus::Cancelled => CallToolResult::structured_error(value),
            ToolStatus::Ok | ToolStatus::ActionRequired => CallToolResult::structured(value),
        }
        .into())
    }
}
