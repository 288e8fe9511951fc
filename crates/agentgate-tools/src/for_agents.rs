//! Registry tools for agent runs (`agentgate run --tools`, an agent's
//! `tools:`): the [`ToolServer`] the run engine adds to each such step's
//! CLI as one more MCP server, and the [`ToolRelay`] behind it.
//!
//! The CLI starts the server in its own working directory with its own
//! environment, which holds nothing of agentgate's (`agentgate_core::
//! own_env`); and whatever the server's entry holds, the agent can read
//! (it is a file, an argument or a variable of the CLI). So the entry
//! holds only `agentgate mcp --relay SOCKET`, and the engine adds the
//! tools and the parent run (`--tools NAME,... --parent-run RUN`): the
//! tools run in the process that built the relay, with its registry,
//! policy and store (`mcp::relay`). Every tool run an agent starts is thus
//! checked by the same policy and recorded in the same store as the
//! agent's run, linked to it, and neither the store's URL nor the API
//! token is ever written where the agent can read it.

use std::path::PathBuf;

use agentgate_core::ToolServer;
use agentgate_store::StoreLocation;

use crate::invoke::{classifier, mcp_tools};
use crate::mcp::{ToolHost, ToolRelay};
use crate::registry::Registry;
use crate::runner::RunnerSetup;

/// Why the server cannot be described.
#[derive(Debug, thiserror::Error)]
pub enum ToolServerError {
    /// The relay's socket path is not UTF-8 (the CLIs' configurations are
    /// JSON or TOML text).
    #[error("{what} {} is not UTF-8, so it cannot be given to the agent's CLI as text", path.display())]
    NotUtf8 {
        /// What the path is.
        what: &'static str,
        /// The path.
        path: PathBuf,
    },
    /// The relay could not start.
    #[error("cannot start the relay of registry tools: {0}")]
    Relay(#[from] std::io::Error),
}

/// The [`ToolServer`] that offers `registry`'s usable tools that the
/// policy does not refuse to the agents of this process, run with `runner`
/// and recorded into `store` (opened at the first call), and the relay
/// that serves it: keep the relay as long as an agent may call a tool.
pub fn tool_server(
    registry: &Registry,
    program: PathBuf,
    runner: RunnerSetup,
    store: StoreLocation,
) -> Result<(ToolServer, ToolRelay), ToolServerError> {
    // Every usable tool: an empty list of names cannot fail.
    let tools = mcp_tools(registry, &[]).unwrap_or_default();
    let offered = tools
        .iter()
        .filter(|t| t.refusal.is_none())
        .map(|t| t.target.manifest.name.clone())
        .collect();
    let relay = ToolRelay::start(ToolHost::opening(
        tools,
        runner,
        store,
        classifier(registry),
    ))?;
    let socket = relay
        .socket()
        .to_str()
        .ok_or_else(|| ToolServerError::NotUtf8 {
            what: "the relay's socket",
            path: relay.socket().to_path_buf(),
        })?
        .to_owned();
    let server = ToolServer {
        command: program,
        args: vec!["mcp".to_owned(), "--relay".to_owned(), socket],
        env: Vec::new(),
        offered,
    };
    Ok((server, relay))
}
