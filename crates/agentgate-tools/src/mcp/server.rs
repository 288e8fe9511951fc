//! The MCP server: listing the tools, running a call.

use std::sync::Arc;

use agentgate_core::CancelRequest;
use agentgate_protocol::ToolStatus;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt as _};
use tokio::sync::mpsc;

use super::host::{CallOutcome, Progress, ToolCall, ToolHost};
use super::relay::RelayClient;

/// Where the server's calls run: here, or in the agentgate process that
/// runs the agent, through its relay (`relay.rs`).
#[derive(Debug, Clone)]
enum Backend {
    Local(Arc<ToolHost>),
    Relay(RelayClient),
}

/// The server: the tools, and how to run them.
#[derive(Debug, Clone)]
pub struct McpToolServer {
    backend: Backend,
    /// The tools offered (every tool of the host when empty).
    offered: Arc<Vec<String>>,
    parent_run_id: Option<String>,
    caller_env: Arc<Vec<(String, String)>>,
}

impl McpToolServer {
    /// A server running the tools of `host` in this process, each run
    /// linked to `parent_run_id`; tools take their variables from
    /// `caller_env`.
    pub fn local(
        host: ToolHost,
        parent_run_id: Option<String>,
        caller_env: Vec<(String, String)>,
    ) -> Self {
        Self {
            backend: Backend::Local(Arc::new(host)),
            offered: Arc::new(Vec::new()),
            parent_run_id,
            caller_env: Arc::new(caller_env),
        }
    }

    /// A server offering `offered` of the relay at `socket`'s tools, each
    /// run linked to `parent_run_id`; tools take their variables from
    /// `caller_env` (this process's, passed on to the relay).
    pub fn relayed(
        socket: std::path::PathBuf,
        offered: Vec<String>,
        parent_run_id: Option<String>,
        caller_env: Vec<(String, String)>,
    ) -> Self {
        Self {
            backend: Backend::Relay(RelayClient::new(socket)),
            offered: Arc::new(offered),
            parent_run_id,
            caller_env: Arc::new(caller_env),
        }
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
        let listed = match &self.backend {
            Backend::Local(host) => host.listed(&self.offered),
            Backend::Relay(client) => client.list(&self.offered).await,
        }
        .map_err(|e| McpError::internal_error(e, None))?;
        let tools = listed
            .into_iter()
            .map(|t| Tool::new(t.name, t.description, Arc::new(t.input_schema)))
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.offered.is_empty() && !self.offered.contains(&request.name.to_string()) {
            return Err(McpError::invalid_params(
                format!("no tool named `{}`", request.name),
                None,
            ));
        }
        let call = ToolCall {
            tool: request.name.to_string(),
            arguments: request.arguments.unwrap_or_default(),
            parent_run: self.parent_run_id.clone(),
            caller_env: self.caller_env.as_ref().clone(),
        };
        let (progress_tx, mut progress_rx) = mpsc::unbounded_channel::<Progress>();
        let token = context.meta.get_progress_token();
        let peer = context.peer.clone();
        let forward = tokio::spawn(async move {
            while let Some(p) = progress_rx.recv().await {
                if let Some(token) = &token {
                    let mut param = ProgressNotificationParam::new(token.clone(), p.progress);
                    param.total = p.total;
                    param.message = p.message;
                    let _ = peer.notify_progress(param).await;
                }
            }
        });
        let cancelled = context.ct.clone();
        let outcome = match &self.backend {
            Backend::Local(host) => {
                let (cancel_tx, cancel_rx) = mpsc::channel(2);
                let canceller = tokio::spawn(async move {
                    cancelled.cancelled().await;
                    let _ = cancel_tx.send(CancelRequest { immediate: false }).await;
                });
                let outcome = host.call(call, progress_tx, cancel_rx).await;
                canceller.abort();
                outcome
            }
            Backend::Relay(client) => {
                client
                    .call(
                        call,
                        progress_tx,
                        async move { cancelled.cancelled().await },
                    )
                    .await
            }
        };
        let _ = forward.await;
        let envelope = match outcome {
            CallOutcome::NoSuchTool(name) => {
                return Err(McpError::invalid_params(
                    format!("no tool named `{name}`"),
                    None,
                ));
            }
            CallOutcome::Invalid(error) => {
                return Ok(CallToolResult::structured_error(error).into());
            }
            CallOutcome::Failed(e) => return Err(McpError::internal_error(e, None)),
            CallOutcome::Ran(envelope) => envelope,
        };
        let value = serde_json::to_value(&envelope)
            .map_err(|e| McpError::internal_error(e.to_string(), None))?;
        Ok(match envelope.status {
            ToolStatus::Error | ToolStatus::Cancelled => CallToolResult::structured_error(value),
            ToolStatus::Ok | ToolStatus::ActionRequired => CallToolResult::structured(value),
        }
        .into())
    }
}
