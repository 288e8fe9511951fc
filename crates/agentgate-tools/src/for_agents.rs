//! Registry tools for agent runs (`agentgate run --tools`, an agent's
//! `tools:`): the [`ToolServer`] the run engine adds to each such step's
//! CLI as one more MCP server. The CLI starts it in its own working
//! directory with its own environment, so nothing is left to discovery:
//! the registry folder is an argument (`agentgate mcp --registry DIR`),
//! the config file and the store are variables of the server
//! (`AGENTGATE_CONFIG`, `AGENTGATE_STORE`), and the engine adds the tools
//! and the parent run (`--tools NAME,... --parent-run RUN`). Every tool
//! run an agent starts is thus checked by the same policy and recorded in
//! the same store as the agent's run, linked to it.

use std::path::{Path, PathBuf};

use agentgate_core::config::CONFIG_ENV;
use agentgate_core::run::ToolServer;
use agentgate_core::store_choice::STORE_ENV;
use agentgate_store::StoreLocation;

use crate::invoke::mcp_tools;
use crate::registry::Registry;

/// Why the server cannot be described.
#[derive(Debug, thiserror::Error)]
pub enum ToolServerError {
    /// A path the server is told of is not UTF-8 (the CLIs' configurations
    /// are JSON or TOML text).
    #[error("{what} {} is not UTF-8, so it cannot be given to the agent's CLI as text", path.display())]
    NotUtf8 {
        /// What the path is.
        what: &'static str,
        /// The path.
        path: PathBuf,
    },
}

/// How to start `program mcp` over `registry` (found by the caller with
/// `config_file`, recording into `store`): the [`ToolServer`] of
/// [`agentgate_core::run::RunOptions`]. It offers the registry's usable
/// tools that the policy does not refuse.
pub fn tool_server(
    registry: &Registry,
    program: PathBuf,
    config_file: Option<&Path>,
    store: Option<&StoreLocation>,
) -> Result<ToolServer, ToolServerError> {
    let text = |what: &'static str, path: &Path| {
        path.to_str()
            .map(str::to_owned)
            .ok_or_else(|| ToolServerError::NotUtf8 {
                what,
                path: path.to_path_buf(),
            })
    };
    let mut args = vec!["mcp".to_owned()];
    if let Some(root) = &registry.root {
        args.push("--registry".to_owned());
        args.push(text("the tool registry", root)?);
    }
    let mut env = Vec::new();
    if let Some(file) = config_file {
        env.push((CONFIG_ENV.to_owned(), text("the config file", file)?));
    }
    match store {
        Some(StoreLocation::Sqlite(path)) => {
            env.push((STORE_ENV.to_owned(), text("the run store", path)?));
        }
        Some(StoreLocation::Postgres(url)) => env.push((STORE_ENV.to_owned(), url.clone())),
        None => {}
    }
    // Every usable tool: an empty list of names cannot fail.
    let offered = mcp_tools(registry, &[])
        .unwrap_or_default()
        .into_iter()
        .filter(|t| t.refusal.is_none())
        .map(|t| t.target.manifest.name)
        .collect();
    Ok(ToolServer {
        command: program,
        args,
        env,
        offered,
    })
}
