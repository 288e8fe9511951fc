//! One MCP server a run asks for: the request's data, apart from how each
//! CLI is told of it (`mcp.rs`), so the request's types need nothing else.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// One MCP server (stdio transport) the agent CLI starts for this run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServer {
    /// Its name: letters, digits, `_` and `-` (the CLIs build tool names
    /// from it, e.g. Claude's `mcp__NAME__TOOL`).
    pub name: String,
    /// The program the CLI starts (absolute, or looked up on `PATH`).
    pub command: PathBuf,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables set for it (on top of what the CLI passes on).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<(String, String)>,
}

impl McpServer {
    /// A server named `name` that runs `command` with `args`.
    pub fn new(name: impl Into<String>, command: impl Into<PathBuf>, args: &[&str]) -> Self {
        McpServer {
            name: name.into(),
            command: command.into(),
            args: args.iter().map(|a| (*a).to_owned()).collect(),
            env: Vec::new(),
        }
    }

    pub(crate) fn command_text(&self) -> String {
        self.command.to_string_lossy().into_owned()
    }

    pub(crate) fn env_object(&self) -> Map<String, Value> {
        self.env
            .iter()
            .map(|(k, v)| (k.clone(), Value::from(v.as_str())))
            .collect()
    }
}
