//! `agentgate mcp`: the tool registry as an MCP server on stdio
//! ([`agentgate_tools::mcp`] does the work).

use std::path::Path;
use std::process::ExitCode;

use agentgate_tools::invoke::{classifier, mcp_tools};
use agentgate_tools::mcp::{McpToolServer, ToolHost, serve_stdio};
use anyhow::Context as _;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Offer only these tools (comma-separated); default: every usable
    /// tool of the registry.
    #[arg(long, value_delimiter = ',', value_name = "NAME,...")]
    tools: Vec<String>,
    /// Record each tool run as started by this agent run (set by `agentgate
    /// run --tools`).
    #[arg(long, value_name = "RUN")]
    parent_run: Option<String>,
    /// The registry folder, instead of the config's `tools.registry` or
    /// `tools/registry` found upwards from the working directory (set by
    /// `agentgate run --tools`: the CLI starts the server in its own
    /// working directory).
    #[arg(long, value_name = "DIR", conflicts_with = "relay")]
    registry: Option<std::path::PathBuf>,
    /// Run nothing here: relay each listing and call to the agentgate
    /// process listening on SOCKET, which runs and records the tools (set
    /// by agentgate for an agent's CLI, so that the CLI's configuration
    /// holds no store or token; no config is read).
    #[arg(long, value_name = "SOCKET")]
    relay: Option<std::path::PathBuf>,
}

/// How to use it, for `agentgate mcp --help`.
pub const AFTER_HELP: &str = "\
Speaks the Model Context Protocol on stdin/stdout (logs go to stderr). Each
registry tool is an MCP tool whose input schema comes from its manifest's
inputs; a call runs it through the same runner as `agentgate tool` (policy,
limits, sandbox, store). The tool's progress messages become progress
notifications; the result is its envelope (an error status is a tool error).
A line that is not JSON is answered with JSON-RPC's parse error (-32700, id
null); JSON that gives a key twice, or that is no message, with -32600; the
server goes on serving.

EXAMPLES
  agentgate mcp
  agentgate mcp --tools example_processor,data_migrator
  claude mcp add agentgate -- agentgate mcp   # use it from Claude Code";

/// Run `agentgate mcp`.
pub fn run(
    args: Args,
    config_flag: Option<&Path>,
    store_flag: Option<&str>,
) -> anyhow::Result<ExitCode> {
    let server = match args.relay {
        Some(socket) => McpToolServer::relayed(
            socket,
            args.tools,
            args.parent_run,
            agentgate_tools::invoke::caller_env(),
        ),
        None => {
            let mut cfg = agentgate_core::Config::load(config_flag)?;
            if let Some(dir) = args.registry {
                cfg.tools.registry = Some(dir);
            }
            let registry = crate::tool_cmd::registry_of(&cfg)?;
            let tools = mcp_tools(&registry, &args.tools)?;
            let (store, setup) = crate::tool_cmd::runner(&cfg, store_flag)?;
            McpToolServer::local(
                ToolHost::new(tools, setup, store, classifier(&registry)),
                args.parent_run,
                agentgate_tools::invoke::caller_env(),
            )
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime
        .block_on(serve_stdio(server))
        .context("the MCP connection failed")?;
    Ok(ExitCode::SUCCESS)
}
